#!/usr/bin/env bash
# Fails when an #include runs upward against the layer order of shared/DESIGN.md; .ci/run calls it.
# Reads include/ndcuda/**, src/** and kernels/** with grep and awk only, so it takes well under a second.
#
#   tools/check-layers.sh                 check the tree; prints file:line: offending include, exits 1
#   tools/check-layers.sh --list-layers   print the order it enforces
#
# The order, lowest first (a file may include its own layer and any lower one):
#   core < device < memory < jit < array < expr < ops < {linalg, fft, random} < dist < interop
# linalg/, fft/ and random/ sit beside each other: none includes another. interop/ (npy, DLPack) is
# the top: it needs only core/ and array/ today, and nothing else includes it, so it can grow
# converters for any layer. A file's layer is its folder: include/ndcuda/<layer>/... or
# src/<layer>/... (src's own headers are included as "<layer>/x.hpp"). The umbrella headers
# include/ndcuda/{ndcuda,linalg,fft,random,dist,io}.hpp may include anything, but no layer includes
# them (ndcuda.hpp reaches random/ and interop/). The generated <ndcuda/version.hpp> counts as core.
# kernels/*.cuh are device code compiled by NVRTC: they include only each other ("ndcuda/x.cuh", the
# name they are embedded under) and system headers, never a header of include/ or src/. Host code of
# any layer may include a kernels/ file (src/random/host_reference.cpp runs the device math on the
# host).
#
# The engine's internals (expr/detail/) are included by expr/ only: the routines above it (ops/ and
# the rest) use its public face, include/ndcuda/expr/*.hpp.
#
# Known exceptions live in tools/layer-exceptions.txt, one per line:
#   <file> | <included header as written> | <reason>
# An exception that matches nothing any more is reported so that it gets deleted.
set -euo pipefail
cd "$(dirname "$0")/.."

layers="core device memory jit array expr ops linalg fft random dist interop"
if [[ "${1:-}" == "--list-layers" ]]; then
  echo "core < device < memory < jit < array < expr < ops < {linalg, fft, random} < dist < interop"
  exit 0
fi

exceptions=tools/layer-exceptions.txt
[[ -f $exceptions ]] || exceptions=/dev/null

# Every source file of the three trees, tracked or not (a new file is checked before it is added).
mapfile -t files < <(find include/ndcuda src kernels -type f \
  \( -name '*.hpp' -o -name '*.h' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' -o -name '*.inl' \) | sort)
kernel_names=$(cd kernels && ls -- *.cuh | tr '\n' ' ')

# grep prints "file:line:text"; awk maps both ends to layers. Files with no include are fine.
grep -Hn -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "${files[@]}" |
  awk -v layers="$layers" -v kernel_names="$kernel_names" -v exceptions="$exceptions" '
  BEGIN {
    n = split(layers, names, " ")
    # core 0 ... array 4, the expression engine (expr) 5, the routines (ops) 6, then
    # linalg/fft/random share rank 7, dist 8, interop 9.
    rank["core"] = 0; rank["device"] = 1; rank["memory"] = 2; rank["jit"] = 3; rank["array"] = 4
    rank["expr"] = 5; rank["ops"] = 6; rank["linalg"] = 7; rank["fft"] = 7; rank["random"] = 7
    rank["dist"] = 8; rank["interop"] = 9
    nk = split(kernel_names, ks, " ")
    for (i = 1; i <= nk; i++) kernel[ks[i]] = 1
    umbrella["ndcuda.hpp"] = 1; umbrella["linalg.hpp"] = 1; umbrella["fft.hpp"] = 1
    umbrella["random.hpp"] = 1; umbrella["dist.hpp"] = 1; umbrella["io.hpp"] = 1
    # Exceptions: file | include | reason (a reason is required).
    ne = 0
    while ((getline line < exceptions) > 0) {
      if (line ~ /^[[:space:]]*(#|$)/) continue
      m = split(line, f, "|")
      for (i = 1; i <= m; i++) gsub(/^[[:space:]]+|[[:space:]]+$/, "", f[i])
      if (m < 3 || f[3] == "") {
        printf "%s: exception without a reason (want: file | include | reason): %s\n", exceptions, line
        bad_exceptions = 1
        continue
      }
      if (f[2] ~ /^over [0-9]+ lines$/) continue  # a long header, tools/check-headers.sh reads those
      ne++; ex_key[ne] = f[1] "|" f[2]; ex_used[ne] = 0
    }
    status = 0
  }
  # Collapse "a/b/../c" and "./" so relative includes resolve to a path under the repository.
  function normalize(p,    parts, out, k, i, j) {
    k = split(p, parts, "/"); j = 0
    for (i = 1; i <= k; i++) {
      if (parts[i] == "." || parts[i] == "") continue
      if (parts[i] == ".." && j > 0 && out[j] != "..") { j--; continue }
      out[++j] = parts[i]
    }
    p = ""
    for (i = 1; i <= j; i++) p = p (i > 1 ? "/" : "") out[i]
    return p
  }
  # The layer a repository path belongs to: a layer name, "umbrella:<name>", "kernels", "version"
  # or "" (not ndcuda code).
  function layer_of_path(p,    a) {
    if (p ~ /^include\/ndcuda\/[^\/]+$/) {
      sub(/^include\/ndcuda\//, "", p)
      if (p == "version.hpp") return "version"
      return (p in umbrella) ? "umbrella:" p : "unknown:" p
    }
    if (p ~ /^include\/ndcuda\//) { split(p, a, "/"); return a[3] }
    if (p ~ /^src\//) { split(p, a, "/"); return a[2] }
    if (p ~ /^kernels\//) return "kernels"
    return ""
  }
  function report(file, line, inc, why,    key, i) {
    key = file "|" inc
    for (i = 1; i <= ne; i++) if (ex_key[i] == key) { ex_used[i] = 1; return }
    printf "%s:%s: %s  (%s)\n", file, line, inc, why
    status = 1
  }
  {
    # $0 is "file:line:#include ...": split off the first two fields by hand (paths have no colon).
    file = $0; sub(/:.*/, "", file)
    rest = substr($0, length(file) + 2); line = rest; sub(/:.*/, "", line)
    text = substr(rest, length(line) + 2)
    if (match(text, /[<"][^>"]+[>"]/) == 0) next
    written = substr(text, RSTART, RLENGTH)   # <ndcuda/x/y.hpp> or "x/y.hpp"
    path = substr(written, 2, RLENGTH - 2)
    quoted = (substr(written, 1, 1) == "\"")
    inc = "#include " written

    from = layer_of_path(file)
    if (from ~ /^umbrella:/) next             # umbrellas may include anything
    dir = file; sub(/\/[^\/]*$/, "", dir)

    # kernels/: device code, embedded as "ndcuda/<name>.cuh"; nothing from include/ or src/.
    if (from == "kernels") {
      if (quoted && path ~ /^ndcuda\/[^\/]+\.cuh$/) {
        name = path; sub(/^ndcuda\//, "", name)
        if (!(name in kernel)) report(file, line, inc, "no kernels/" name " to include")
        next
      }
      if (path ~ /^ndcuda\//) { report(file, line, inc, "kernels/ includes nothing from include/"); next }
      if (quoted) {
        target = layer_of_path(normalize(dir "/" path))
        if (target != "" && target != "kernels")
          report(file, line, inc, "kernels/ includes nothing from include/ or src/")
      }
      next
    }

    # What the include names: <ndcuda/...> is include/ndcuda/...; a quoted path is either beside
    # the file, relative to it ("../"), or rooted at src/ ("jit/hash.hpp").
    # "ndcuda/<name>.cuh" inside a generated source string is a kernels/ header NVRTC resolves.
    if (quoted && path ~ /^ndcuda\/[^\/]+\.cuh$/) next
    target = ""
    if (path ~ /^ndcuda\//) target = layer_of_path("include/" path)
    else if (quoted) {
      rel = normalize(dir "/" path)
      if (path ~ /^\.\.?\//) target = layer_of_path(rel)
      else if (path !~ /\//) target = from      # beside the file: same layer
      else {
        split(path, a, "/")
        if (a[1] in rank) target = a[1]         # src-rooted "<layer>/x.hpp"
        else target = layer_of_path(rel)
      }
    }
    if (target == "" || target == "version" || target == "kernels") next
    if (!(from in rank)) {
      if (file ~ /^(include\/ndcuda|src)\/[^\/]+\//)
        report(file, line, inc, "file in unknown layer folder \"" from "\"; add it to tools/check-layers.sh and DESIGN.md")
      next
    }
    if (target ~ /^umbrella:/) {
      report(file, line, inc, "a " from "/ file includes an umbrella header; include the layer header it needs")
      next
    }
    if (target ~ /^unknown:/ || !(target in rank)) {
      report(file, line, inc, "unknown layer of the included header")
      next
    }
    if (rank[target] > rank[from])
      report(file, line, inc, from "/ may not include " target "/ (order: core < device < memory < jit < array < expr < ops < {linalg, fft, random} < dist < interop)")
    else if (rank[target] == rank[from] && target != from)
      report(file, line, inc, from "/ and " target "/ sit beside each other: neither includes the other")
    else if (target == "expr" && from != "expr" && path ~ /(^|\/)expr\/detail\//)
      report(file, line, inc, "the layers above the engine use its public face (include/ndcuda/expr/*.hpp), not expr/detail/")
  }
  END {
    for (i = 1; i <= ne; i++)
      if (!ex_used[i]) printf "check-layers: note: exception \"%s\" in %s matches nothing any more; delete it\n", ex_key[i], exceptions
    if (bad_exceptions) status = 1
    if (status) print "check-layers: includes above run upward against the layer order (shared/DESIGN.md, docs/contributing.md)"
    exit status
  }'
