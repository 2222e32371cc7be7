#!/usr/bin/env bash
# Builds ndcuda in Release and runs the whole test suite on a machine with GPUs, then prints the
# ctest summary. Fails if any test failed, or if a GPU test skipped although enough GPUs are
# present (tests named *MultiGpu* may skip on a single GPU). With --bench it also runs every
# benchmark and writes JSON next to the build (or to $NDCUDA_BENCH_OUT), then the CuPy baselines in
# benchmarks/cupy/ when CuPy is installed and the PyTorch ones in benchmarks/torch/ when PyTorch is,
# and last draws docs/bandwidth.svg (tools/plot_bandwidth.py) when matplotlib is importable.
#
#   tools/gpu-check.sh              # tests
#   tools/gpu-check.sh --bench      # tests, then benchmarks
#   tools/gpu-check.sh --build-only # configure and build as the two above do, then stop: a lease that
#                                   # runs chosen benchmarks first, then the tests, builds once (a build
#                                   # folder configured any other way is reconfigured and its tests rebuilt)
#
# NDCUDA_BUILD_TARGETS (a list of targets) builds only those, and NDCUDA_CTEST_REGEX runs only the
# tests it matches (ctest -R): for a quick pass over one area on a lent multi-GPU machine.
# NDCUDA_CTEST_JOBS sets ctest's parallelism apart from the build's (JOBS, default nproc).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NDCUDA_GPU_BUILD_DIR:-$root/build/gpu-check}
jobs=${JOBS:-$(nproc)}
run_benchmarks=0
build_only=0
[[ "${1:-}" == "--bench" ]] && run_benchmarks=1
[[ "${1:-}" == "--build-only" ]] && build_only=1

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
echo "gpu-check: ${gpus} GPU(s) visible to nvidia-smi"
nvidia-smi -L 2>/dev/null | sed 's/^/gpu-check:   /'

mkdir -p "$build"
# The DLPack tests need <dlpack/dlpack.h>. Without the system's copy (libdlpack-dev), the copy inside
# an importable PyTorch is used, so that the GPU suite never silently leaves the DLPack paths out.
dlpack=()
if [[ ! -f /usr/include/dlpack/dlpack.h ]] &&
  torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null) &&
  [[ -f $torch_prefix/../../include/ATen/dlpack.h ]]; then
  mkdir -p "$build.dlpack/dlpack"
  cp "$torch_prefix/../../include/ATen/dlpack.h" "$build.dlpack/dlpack/dlpack.h"
  dlpack=(-DDLPACK_INCLUDE_DIR="$build.dlpack")
fi
# shellcheck disable=SC2086  # NDCUDA_CMAKE_ARGS is a list of words on purpose
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "${dlpack[@]}" ${NDCUDA_CMAKE_ARGS:-} >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; echo "gpu-check: configure failed"; exit 1; }
grep -E "ndcuda:" "$build.configure.log" || true
targets=()
for t in ${NDCUDA_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j "$jobs" "${targets[@]}" >"$build.build.log" 2>&1 ||
  { grep -E "error|Error" -A3 "$build.build.log" | head -80; tail -20 "$build.build.log"; echo "gpu-check: build failed"; exit 1; }
if ((build_only)); then
  echo "gpu-check: built $build (--build-only: no tests run)"
  exit 0
fi

log=$build/ctest.log
filter=()
[[ -n "${NDCUDA_CTEST_REGEX:-}" ]] && filter=(-R "$NDCUDA_CTEST_REGEX")
ctest --test-dir "$build" -j "${NDCUDA_CTEST_JOBS:-$jobs}" --output-on-failure "${filter[@]}" >"$log" 2>&1
ctest_rc=$?
# Everything but the lines of passing or starting tests: failures keep their whole output.
grep -vE '^ *([0-9]+/[0-9]+ Test +#[0-9]+: .* Passed|Start +[0-9]+: )' "$log"

skipped=$(sed -n '/The following tests did not run:/,/^$/p' "$log" | grep -E '\(Skipped\)' || true)
if ((gpus >= 2)); then
  unexpected=$skipped
else
  unexpected=$(grep -v 'MultiGpu' <<<"$skipped" || true)
fi
# Tests labelled needs-tool (the Conan and pkg-config consumers) skip for a missing program, not a
# missing GPU: the GPU machines have no conan and no network to install it. Their skips are
# reported, not failed.
for name in $(ctest --test-dir "$build" -N -L needs-tool | sed -nE 's/^ *Test +#[0-9]+: (.*)$/\1/p'); do
  if grep -qF "$name (Skipped)" <<<"$unexpected"; then
    echo "gpu-check: $name skipped: a program it needs is missing here (not a GPU test; see its log)"
    unexpected=$(grep -vF "$name (Skipped)" <<<"$unexpected" || true)
  fi
done
status=0
if ((ctest_rc != 0)); then
  echo "gpu-check: FAILED (ctest exit code $ctest_rc)"
  status=1
fi
if ((gpus >= 1)) && [[ -n "$unexpected" ]]; then
  echo "gpu-check: FAILED: these GPU tests skipped although ${gpus} GPU(s) are present:"
  echo "$unexpected"
  status=1
fi
echo "gpu-check: summary: $(grep -E 'tests passed' "$log" || echo 'no ctest summary')"
# The capture race (issue 37) is a race: its 1000-capture stress test runs three more times.
if ((gpus >= 1)) && [[ -z "${NDCUDA_CTEST_REGEX:-}" && -x "$build/tests/ops_tests" ]]; then
  if "$build/tests/ops_tests" --gtest_filter='Capture.ThousandCaptures*' --gtest_repeat=3 >"$build/capture-stress.log" 2>&1; then
    echo "gpu-check: capture stress: 3 more runs of 1000 captures passed"
  else
    grep -E 'Failure|Expected|capture [0-9]' "$build/capture-stress.log" | head -20
    echo "gpu-check: FAILED: the capture stress test failed on a repeat"
    status=1
  fi
fi
# NVTX ranges as Nsight Systems records them (skips itself without nsys).
"$root/tools/nvtx-check.sh" "$build" || status=1

if ((run_benchmarks)); then
  out=${NDCUDA_BENCH_OUT:-$build/bench}
  mkdir -p "$out"
  found=0
  for bench in "$build"/benchmarks/*_bench; do
    [[ -x "$bench" ]] || continue
    found=1
    name=$(basename "$bench")
    echo "gpu-check: running $name"
    "$bench" --benchmark_out="$out/$name.json" --benchmark_out_format=json || status=1
  done
  ((found)) || echo "gpu-check: no benchmarks were built (Google Benchmark missing?)"
  ((found)) && python3 "$root/tools/bench-summary.py" "$out"/*_bench.json
  # CuPy baselines of the same cases, measured on the same GPU in the same call, when CuPy exists.
  if python3 -c 'import cupy' 2>/dev/null; then
    for script in "$root"/benchmarks/cupy/*.py; do
      [[ -f "$script" ]] || continue
      name=$(basename "$script" .py)
      echo "gpu-check: running CuPy baseline $name"
      python3 "$script" --json "$out/$name.json" >"$out/$name.txt" 2>&1 ||
        { echo "gpu-check: $name failed"; tail -5 "$out/$name.txt"; }
      cat "$out/$name.txt"
    done
  else
    echo "gpu-check: CuPy not importable; CuPy baselines skipped"
  fi
  # PyTorch baselines (benchmarks/torch/, which also time CuPy where it exists), when torch imports.
  if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
    for script in "$root"/benchmarks/torch/*_torch.py; do
      [[ -f "$script" ]] || continue
      name=$(basename "$script" .py)
      echo "gpu-check: running PyTorch baseline $name"
      python3 "$script" --json "$out/$name.json" >"$out/$name.txt" 2>&1 ||
        { echo "gpu-check: $name failed"; tail -5 "$out/$name.txt"; }
      cat "$out/$name.txt"
    done
  else
    echo "gpu-check: PyTorch (with CUDA) not importable; PyTorch baselines skipped"
  fi
  # The bandwidth plot of the add/sum/copy sweeps (ndcuda, CuPy, PyTorch, cudaMemcpy): docs/bandwidth.svg.
  if python3 -c 'import matplotlib' 2>/dev/null; then
    python3 "$root/tools/plot_bandwidth.py" "$out" --out "$root/docs/bandwidth.svg" ||
      echo "gpu-check: the bandwidth plot failed (see above)"
  else
    echo "gpu-check: matplotlib not importable (pip install matplotlib); docs/bandwidth.svg not drawn"
  fi
fi
exit $status
