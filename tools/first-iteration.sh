#!/usr/bin/env bash
# k-means' first iteration with every kernel new (issue 39: <= 300 ms), measured in fresh processes
# with empty caches: tiers on (the default) and NDCUDA_JIT_TIERED=0 alternately, REPEATS times each,
# then CuPy's twin (benchmarks/cupy/first_iteration_cupy.py) once when CuPy imports. Each ndcuda run
# also keeps NDCUDA_JIT_LOG=1's lines (one per kernel made ready: which tier, compiled or waited
# for, milliseconds), so that a slow run says which call waited.
#
#   tools/first-iteration.sh [build dir] [repeats]   # defaults: build/gpu-check, 3
#
# Prints one line per run and the logs' paths; the logs stay in $NDCUDA_FIRST_ITERATION_OUT
# (default: a new temporary folder).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/gpu-check}
repeats=${2:-3}
bench=$build/benchmarks/programs_bench
[[ -x $bench ]] || { echo "first-iteration: build programs_bench first ($bench is missing)"; exit 1; }
out=${NDCUDA_FIRST_ITERATION_OUT:-$(mktemp -d)}
mkdir -p "$out"
for ((r = 1; r <= repeats; r++)); do
  for tiers in 1 0; do
    cache=$(mktemp -d)
    log=$out/run${r}_tiers${tiers}.log
    NDCUDA_CACHE_DIR=$cache NDCUDA_JIT_TIERED=$tiers NDCUDA_JIT_LOG=1 \
      "$bench" --benchmark_filter=first_iteration >"$log" 2>&1
    ms=$(sed -nE 's/^BM_program_kmeans_first_iteration[^ ]* +([0-9.]+) ms.*/\1/p' "$log")
    echo "first-iteration: run $r, NDCUDA_JIT_TIERED=$tiers: ${ms:-?} ms ($(grep -c '' "$log") log lines: $log)"
    rm -rf "$cache"
  done
done
if python3 -c 'import cupy' 2>/dev/null; then
  python3 "$root/benchmarks/cupy/first_iteration_cupy.py" | grep program_kmeans_first_iteration |
    sed 's/^/first-iteration: CuPy /'
fi
