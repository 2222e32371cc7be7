#!/usr/bin/env bash
# What one translation unit that includes a public header costs with the system's g++ at -O2: its
# preprocessed lines, the headers it reads, and the CPU time and peak memory of compiling it (the
# median of RUNS compiles). docs/performance.md keeps the figures.
#
#   tools/header-cost.sh [header] [--max-lines N]   # default <ndcuda/ndcuda.hpp>
#
# --max-lines fails (exit 1) when the preprocessed lines exceed N: CI's bound (.ci/run). Lines, not
# seconds: they are the same on every machine, and grow with what the compiler must parse.
# Environment: CXX (g++), RUNS (3), BUILD_DIR (build: for the generated <ndcuda/version.hpp>).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
header="ndcuda/ndcuda.hpp"
max_lines=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --max-lines) max_lines=$2; shift 2 ;;
    *) header=$1; shift ;;
  esac
done
cxx=${CXX:-g++}
runs=${RUNS:-3}
build=${BUILD_DIR:-$root/build}
cuda_include=$(dirname "$(command -v nvcc)")/../include
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '#include <%s>\nint main() { return 0; }\n' "$header" >"$work/tu.cpp"
flags=(-std=c++20 -O2 -I"$root/include" -I"$build/include" -isystem "$cuda_include")
[[ -f $build/include/ndcuda/version.hpp ]] || { echo "header-cost: configure first ($build/include/ndcuda/version.hpp is missing)"; exit 1; }

lines=$("$cxx" "${flags[@]}" -E "$work/tu.cpp" | wc -l)
headers=$("$cxx" "${flags[@]}" -H -fsyntax-only "$work/tu.cpp" 2>&1 | grep -c '^\.' || true)
cpu=()
for ((i = 0; i < runs; i++)); do
  /usr/bin/time -f '%U %S %M' -o "$work/time" "$cxx" "${flags[@]}" -c "$work/tu.cpp" -o "$work/tu.o"
  read -r user sys kib <"$work/time"
  cpu+=("$(awk -v u="$user" -v s="$sys" -v k="$kib" 'BEGIN { printf "%.2f %d", u + s, k / 1024 }')")
done
median=$(printf '%s\n' "${cpu[@]}" | sort -n | awk -v n="$runs" 'NR == int((n + 1) / 2)')
echo "header-cost: <$header> with $($cxx --version | head -1) -O2: $lines preprocessed lines, $headers headers," \
  "$(cut -d' ' -f1 <<<"$median") CPU-s and $(cut -d' ' -f2 <<<"$median") MB (median of $runs)"
if [[ -n $max_lines ]] && ((lines > max_lines)); then
  echo "header-cost: FAILED: <$header> preprocesses to $lines lines, over the bound of $max_lines" \
    "(tools/header-cost.sh; .ci/run). Keep heavy headers out of the public core, or raise the bound with a reason"
  exit 1
fi
