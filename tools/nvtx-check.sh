#!/usr/bin/env bash
# Profiles the NVTX GPU test (tests/core/nvtx_test.cpp, NvtxGpu.*) under Nsight Systems and checks
# that ndcuda's ranges reach the report with the names users wrote: nd::sum, nd::sort,
# "elementwise a*b+c", ndarray::to_host, and the generated kernel's launch range (nd_add__...).
# Skips (exit 0, one line) without nsys or a GPU. Run on the GPU machine after building core_tests:
#
#   tools/nvtx-check.sh [build-dir]      # default: build (NDCUDA_BUILD_DIR overrides)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${NDCUDA_BUILD_DIR:-$root/build}}
test_binary=$build/tests/core_tests

if ! command -v nsys >/dev/null 2>&1; then
  echo "nvtx-check: skipped: nsys (Nsight Systems CLI) is not on PATH"
  exit 0
fi
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "nvtx-check: skipped: no GPU visible to nvidia-smi"
  exit 0
fi
if [[ ! -x "$test_binary" ]]; then
  echo "nvtx-check: building core_tests in $build"
  cmake --build "$build" --target core_tests -j "$(nproc)" >/dev/null || { echo "nvtx-check: build failed"; exit 1; }
fi

out=$(mktemp -d /tmp/ndcuda-nvtx-check-XXXXXX)
trap 'rm -rf "$out"' EXIT
echo "nvtx-check: $(nsys --version 2>/dev/null | head -1)"
if ! nsys profile --trace=cuda,nvtx --output="$out/report" --force-overwrite=true \
  "$test_binary" --gtest_filter='NvtxGpu.*' >"$out/profile.log" 2>&1; then
  tail -20 "$out/profile.log"
  echo "nvtx-check: FAILED: nsys profile (or the test) failed"
  exit 1
fi
grep -E "PASSED|FAILED|SKIPPED" "$out/profile.log" | sed 's/^/nvtx-check:   /'

# The report's name changed across nsys versions (nvtxsum before 2023, nvtx_sum after).
stats=""
for report in nvtx_sum nvtxsum; do
  if nsys stats --report "$report" --format csv "$out/report.nsys-rep" >"$out/stats.csv" 2>"$out/stats.log" &&
    grep -q "nd::" "$out/stats.csv"; then
    stats=$out/stats.csv
    break
  fi
done
if [[ -z "$stats" ]]; then
  tail -10 "$out/stats.log"
  echo "nvtx-check: FAILED: no ndcuda ranges in 'nsys stats --report nvtx_sum'"
  exit 1
fi

missing=0
for name in "nd::asarray" "elementwise a*b+c" "nd::sum" "nd::sort" "ndarray::to_host" "ndarray::item" \
  "ndarray::astype" "nd_add__"; do
  if grep -qF -- "$name" "$stats"; then
    echo "nvtx-check:   found   $name"
  else
    echo "nvtx-check:   MISSING $name"
    missing=1
  fi
done
if [[ $missing -ne 0 ]]; then
  echo "nvtx-check: the report's ranges were:"
  cut -d, -f1- "$stats" | head -40 | sed 's/^/nvtx-check:     /'
  echo "nvtx-check: FAILED"
  exit 1
fi
echo "nvtx-check: OK"
