#!/usr/bin/env bash
# Builds and runs only the libtorch interop test (tests/torch/) and example (examples/libtorch_interop/) against
# the PyTorch that python3 imports (a CUDA build with its C++ headers and CMake package, as on the GPU machine).
# Its own build folder: Torch found, ndcuda's DLPack parts built against torch's copy of dlpack.h (one DLPack
# version in the whole program), only the GPUs of this machine as CUDA targets, nothing else built. Fails when a
# test fails, or skips although a GPU is present.
#
#   tools/torch-check.sh          # PYTHON (python3), JOBS (nproc), NDCUDA_TORCH_BUILD_DIR (build/torch-check)
#   tools/torch-check.sh --bench  # then also benchmarks/torch_ab: ndcuda and eager torch interleaved in one process
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NDCUDA_TORCH_BUILD_DIR:-$root/build/torch-check}
python=${PYTHON:-python3}
jobs=${JOBS:-$(nproc)}
start=$SECONDS
bench=OFF
targets=(torch_tests libtorch_interop)
if [[ "${1:-}" == "--bench" ]]; then
  bench=ON
  targets+=(torch_ab_bench)
fi

if ! prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null); then
  echo "torch-check: $python cannot import torch; install PyTorch (with CUDA) or set PYTHON"
  exit 1
fi
"$python" -c 'import torch; print("torch-check: PyTorch", torch.__version__, "CUDA", torch.version.cuda,
      "GPUs", torch.cuda.device_count() if torch.cuda.is_available() else 0)'
torch_include=$(cd "$prefix/../../include" && pwd)
if [[ ! -f $torch_include/ATen/dlpack.h ]]; then
  echo "torch-check: $torch_include/ATen/dlpack.h not found: is this PyTorch install missing its C++ headers?"
  exit 1
fi
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)

# libtorch's headers bring their own dlpack.h (DLPack 1.x); building ndcuda against the same copy keeps a single
# DLPack in the program whatever the system has.
mkdir -p "$build/dlpack/dlpack"
cp "$torch_include/ATen/dlpack.h" "$build/dlpack/dlpack/dlpack.h"

archs=native
((gpus == 0)) && archs="75-virtual;90-real"  # nvcc cannot detect a GPU: the defaults
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DDLPACK_INCLUDE_DIR="$build/dlpack" -DNDCUDA_CUDA_ARCHITECTURES="$archs" -DNDCUDA_WITH_TORCH=ON \
  -DNDCUDA_BUILD_BENCHMARKS=$bench -DNDCUDA_WITH_NCCL=OFF "${launcher[@]}" >"$build.configure.log" 2>&1 ||
  { tail -60 "$build.configure.log"; echo "torch-check: configure failed (log: $build.configure.log)"; exit 1; }
grep -E "^-- (ndcuda:|PyTorch: CUDA detected)" "$build.configure.log"
if ! grep -q "libtorch interop example and test enabled" "$build.configure.log"; then
  echo "torch-check: CMake did not enable the libtorch interop (see the ndcuda: lines above)"
  exit 1
fi

echo "torch-check: building ${targets[*]} with $jobs jobs"
cmake --build "$build" -j "$jobs" --target "${targets[@]}" >"$build.build.log" 2>&1 ||
  { grep -E "error|Error" -A5 "$build.build.log" | head -100; echo "torch-check: build failed (log: $build.build.log)"; exit 1; }
echo "torch-check: built in $((SECONDS - start)) s"

log=$build/torch-ctest.log
ctest --test-dir "$build" -R '^(torch/|examples/libtorch_interop$)' -j 1 --output-on-failure >"$log" 2>&1
ctest_rc=$?
grep -vE '^ *([0-9]+/[0-9]+ Test +#[0-9]+: .* Passed|Start +[0-9]+: )' "$log"
# The race each event prevents, as observed without the event (printed by the test, not asserted: a race).
grep -h "without the event" "$build/Testing/Temporary/LastTest.log" 2>/dev/null || true
"$build/examples/libtorch_interop/libtorch_interop" 2>&1 | sed 's/^/torch-check: example: /'

status=0
if ((ctest_rc != 0)); then
  echo "torch-check: FAILED (ctest exit code $ctest_rc)"
  status=1
fi
if ! grep -qE 'tests passed' "$log" || grep -q 'No tests were found' "$log"; then
  echo "torch-check: FAILED: no torch tests ran"
  status=1
fi
skipped=$(sed -n '/The following tests did not run:/,/^$/p' "$log" | grep -E '\(Skipped\)' || true)
if ((gpus >= 1)) && [[ -n "$skipped" ]]; then
  echo "torch-check: FAILED: these tests skipped although ${gpus} GPU(s) are present:"
  echo "$skipped"
  status=1
fi
echo "torch-check: summary: $(grep -E 'tests passed' "$log" || echo 'no ctest summary'), $((SECONDS - start)) s in all"
if [[ $bench == ON ]]; then
  "$build/benchmarks/torch_ab/torch_ab_bench" --benchmark_out="$build/torch_ab_bench.json" --benchmark_out_format=json ||
    status=1
fi
exit $status
