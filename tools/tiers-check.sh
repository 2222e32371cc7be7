#!/usr/bin/env bash
# Checks that tiered first calls (on by default since session 22, docs/jit.md) still hold up: over
# a build that tools/gpu-check.sh made, runs every test with NDCUDA_JIT_TIERED=1 and an empty JIT
# disk cache, then runs the multi-GPU isolation tests (one of which met a crash at exit with tiers
# on in session 21) REPEATS more times each, every run in a fresh process with a fresh cache, and
# counts the runs that did not exit 0.
#
#   tools/tiers-check.sh [build dir] [repeats]   # defaults: build/gpu-check, 20
#
# Exit status 0 only when the whole suite passed and no repeated run failed. Prints one summary line.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/gpu-check}
repeats=${2:-20}
[[ -x $build/tests/isolation_tests ]] || { echo "tiers-check: build first (tools/gpu-check.sh); $build has no tests"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NDCUDA_JIT_TIERED=1

NDCUDA_CACHE_DIR=$work/suite-cache ctest --test-dir "$build" -j "${NDCUDA_CTEST_JOBS:-$(nproc)}" --timeout 300 \
  --output-on-failure >"$work/suite.log" 2>&1
suite_rc=$?
grep -E '^[0-9]+% tests passed|\(Failed\)|\(SEGFAULT\)|\(Timeout\)|\(Subprocess aborted\)' "$work/suite.log"

# The multi-GPU isolation family runs one op family per process on the last device; on one GPU its
# tests skip and every run exits 0. NDCUDA_TIERS_FILTER narrows it (a gtest filter); runs go 8 at a
# time, as the suite's processes shared the GPUs when the crash was met.
filter=${NDCUDA_TIERS_FILTER:-Families/*}
tests=$("$build/tests/isolation_tests" --gtest_list_tests --gtest_filter="$filter" |
  awk '/^[^ ]/ { suite = $1 } /^  / { print suite $1 }')
one_run() {  # test, run number: a fresh process with a fresh cache; prints a line when it fails
  local log rc
  log=$(mktemp -p "$work")
  NDCUDA_CACHE_DIR=$(mktemp -d -p "$work") timeout 120 "$build/tests/isolation_tests" --gtest_filter="$1" >"$log" 2>&1
  rc=$?
  if ((rc != 0)); then
    echo "tiers-check: $1, run $2: exit status $rc; last lines: $(tail -2 "$log" | tr '\n' ' ')"
  fi
}
export -f one_run
export build work
results=$(for test in $tests; do for ((i = 1; i <= repeats; i++)); do echo "$test $i"; done; done |
  xargs -P 8 -L 1 bash -c 'one_run "$0" "$1"')
[[ -n $results ]] && echo "$results"
runs=$(($(wc -w <<<"$tests") * repeats))
failures=$(grep -c 'tiers-check:' <<<"$results" || true)
echo "tiers-check: summary: suite exit status $suite_rc; $failures of $runs repeated runs of the isolation family failed"
((suite_rc == 0 && failures == 0))
