#!/usr/bin/env bash
# Decides whether tiered first calls can be on by default (docs/jit.md): over a build that
# tools/gpu-check.sh made, runs every test with NDCUDA_JIT_TIERED=1 and an empty JIT disk cache,
# then runs the tests that met a crash at exit with tiers on (session 21) REPEATS more times each,
# every run in a fresh process with a fresh cache, and counts the runs that did not exit 0.
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
# tests skip and every run exits 0.
failures=0
runs=0
families=$("$build/tests/isolation_tests" --gtest_list_tests --gtest_filter='Families/*' |
  awk '/^[^ ]/ { suite = $1 } /^  / { print suite $1 }')
for test in $families; do
  for ((i = 1; i <= repeats; i++)); do
    NDCUDA_CACHE_DIR=$(mktemp -d -p "$work") timeout 120 "$build/tests/isolation_tests" --gtest_filter="$test" \
      >"$work/run.log" 2>&1
    rc=$?
    runs=$((runs + 1))
    if ((rc != 0)); then
      failures=$((failures + 1))
      echo "tiers-check: $test, run $i: exit status $rc; last lines:"
      tail -3 "$work/run.log" | sed 's/^/tiers-check:   /'
    fi
  done
done
echo "tiers-check: summary: suite exit status $suite_rc; $failures of $runs repeated runs of the isolation family failed"
((suite_rc == 0 && failures == 0))
