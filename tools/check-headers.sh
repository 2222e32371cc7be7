#!/usr/bin/env bash
# The house rules on headers that tools/check-layers.sh (which checks includes between layers)
# cannot see inside one layer; .ci/run calls both. Fails, listing file:line, on:
#   1. a cycle of includes among the project's headers (include/ndcuda, src, kernels), even one
#      that #pragma once holds together: found with coreutils' tsort over the include graph;
#   2. an #include after code (a line that is not blank, a comment or a preprocessor line): a
#      header's dependencies are read at its top, never pulled in at its end;
#   3. a header under <layer>/detail/ that includes a public header of its own layer which itself
#      builds on that layer's detail/ headers: such a public header sits above detail/, so the
#      include runs back up (a detail/ header may use the layer's leaf vocabulary, e.g.
#      core/dtype.hpp, but not the public routines built on detail/);
#   4. a header or .cuh over 450 lines without a reason in tools/layer-exceptions.txt, written as
#      "<file> | over 450 lines | <reason>".
# Uses bash, grep, awk and tsort only, so it runs in well under a second.
set -euo pipefail
cd "$(dirname "$0")/.."

max_lines=450
exceptions=tools/layer-exceptions.txt
status=0
fail() {
  echo "$1"
  status=1
}

mapfile -t headers < <(find include/ndcuda src kernels -type f \( -name '*.hpp' -o -name '*.h' -o -name '*.cuh' \) | sort)

# The file an include names, or nothing when it is not one of ours: <ndcuda/x.hpp> and "ndcuda/x.cuh"
# (kernels, embedded under that name), "layer/x.hpp" from src/, and a name relative to the includer.
resolve() {
  local from=$1 name=$2
  local candidates=("include/$name" "src/$name" "$(dirname "$from")/$name")
  [[ $name == ndcuda/*.cuh ]] && candidates+=("kernels/${name#ndcuda/}")
  local c
  for c in "${candidates[@]}"; do
    if [[ -f $c ]]; then
      realpath --relative-to=. "$c"
      return
    fi
  done
}

edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
for h in "${headers[@]}"; do
  while IFS=: read -r line name; do
    target=$(resolve "$h" "$name")
    [[ -n $target ]] && echo "$h $line $target" >>"$edges"
  done < <(grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "$h" |
    sed -E 's/^([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^>"]+)[>"].*/\1:\2/')
done

# 3. A public header "builds on detail/" when it includes a header of <its folder>/detail/.
while read -r h line target; do
  folder=$(dirname "$(dirname "$h")")
  if [[ $h == */detail/* && $target != */detail/* && $(dirname "$target") == "$folder" ]] &&
    grep -q -E "^$target [0-9]+ $folder/detail/" "$edges"; then
    fail "$h:$line: includes $target, which builds on $folder/detail/: the include runs back up; move what both need into detail/, or this header out of it"
  fi
done <"$edges"

# 1. tsort prints "tsort: -: input contains a loop:" and the loop's members on stderr.
if loops=$(awk '{ print $1, $3 }' "$edges" | tsort 2>&1 >/dev/null) && [[ -z $loops ]]; then
  :
else
  fail "include cycle among headers (each must include only what sits below it):"
  sed 's/^tsort: /  /' <<<"$loops"
fi

# 2. and 4., one awk pass over every header.
awk -v max="$max_lines" -v exceptions="$exceptions" '
  BEGIN {
    while ((getline line < exceptions) > 0) {
      m = split(line, f, "|")
      for (i = 1; i <= m; i++) gsub(/^[[:space:]]+|[[:space:]]+$/, "", f[i])
      if (m >= 3 && f[2] == "over " max " lines" && f[3] != "") long_ok[f[1]] = 1
    }
    status = 0
  }
  # The length of the file before (mawk has no ENDFILE).
  function check_length() {
    if (file != "" && lines > max && !(file in long_ok)) {
      printf "%s: %d lines (over %d); split it by concept, or give the reason in %s as \"%s | over %d lines | <reason>\"\n", file, lines, max, exceptions, file, max
      status = 1
    }
  }
  FNR == 1 { check_length(); file = FILENAME; code = 0; in_comment = 0 }
  { lines = FNR }
  {
    text = $0
    if (in_comment) {
      if (text !~ /\*\//) next
      sub(/^.*\*\//, "", text); in_comment = 0
    }
    while (text ~ /\/\*/) {  # drop /* ... */ and note a comment left open
      if (text ~ /\/\*.*\*\//) { sub(/\/\*[^*]*\*+([^\/*][^*]*\*+)*\//, "", text) } else { sub(/\/\*.*$/, "", text); in_comment = 1 }
    }
    sub(/\/\/.*$/, "", text)
    if (text ~ /^[[:space:]]*$/) next
    if (text ~ /^[[:space:]]*#[[:space:]]*include/) {
      if (code) { printf "%s:%d: #include after code; move it to the top of the file\n", FILENAME, FNR; status = 1 }
      next
    }
    if (text ~ /^[[:space:]]*#/) next
    code = 1
  }
  END { check_length(); exit status }
' "${headers[@]}" || status=1

exit $status
