#!/usr/bin/env bash
# On a machine with several GPUs, one command for everything the multi-GPU work is judged by: the
# whole suite (tools/gpu-check.sh, which fails when any GPU test skips), then dist_bench on 2 GPUs
# and on all of them (at most 4: elementwise, sum and all-reduce scaling beside the one-GPU and raw
# NCCL baselines of the same run), the peer-death test's timings and the multi_gpu example.
# Everything lands in the folder given (default build/multi-gpu); the last line is the summary.
#
#   tools/multi-gpu-check.sh [out-dir]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/multi-gpu}
build=${NDCUDA_GPU_BUILD_DIR:-$root/build/gpu-check}
export NDCUDA_GPU_BUILD_DIR=$build
mkdir -p "$out"
status=0
nvidia-smi topo -m >"$out/topology.txt" 2>&1 || true

"$root/tools/gpu-check.sh" >"$out/suite.log" 2>&1 || status=1
suite=$(grep -E '^gpu-check: summary' "$out/suite.log" || echo 'gpu-check: no summary (see suite.log)')
echo "$suite"
grep -E '^gpu-check: FAILED|\(Failed\)|\(Timeout\)|\(Skipped\)' "$out/suite.log" || true

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
for n in 2 4; do
  ((n <= gpus)) || continue
  visible=$(seq -s, 0 $((n - 1)))
  echo "multi-gpu-check: dist_bench on GPUs $visible"
  CUDA_VISIBLE_DEVICES=$visible "$build/benchmarks/dist_bench" --benchmark_out="$out/dist_bench_$n.json" \
    --benchmark_out_format=json >"$out/dist_bench_$n.txt" 2>&1 || status=1
  grep -E '^BM_|memcpy|ERROR' "$out/dist_bench_$n.txt" || tail -5 "$out/dist_bench_$n.txt"
done

# The suite's distributed draws ran over every GPU; the promise is the same bits on any count.
for n in 1 2 3; do
  ((n < gpus)) || continue
  visible=$(seq -s, 0 $((n - 1)))
  if CUDA_VISIBLE_DEVICES=$visible "$build/tests/dist_tests" --gtest_filter='DistDraw*:DistElementwise*' \
    >"$out/dist_draws_$n.txt" 2>&1; then
    echo "multi-gpu-check: distributed draws on GPUs $visible: $(grep -E '^\[  PASSED' "$out/dist_draws_$n.txt")"
  else
    status=1
    echo "multi-gpu-check: FAILED: distributed draws on GPUs $visible"
    grep -E 'FAILED|Failure' "$out/dist_draws_$n.txt" | head -20
  fi
done

echo "multi-gpu-check: peer death"
"$build/tests/dist_peer_death" "$out/peer_death.id" >"$out/peer_death.txt" 2>&1 || status=1
grep -E 'threw|destroyed|FAILED|scenarios' "$out/peer_death.txt"

echo "multi-gpu-check: examples/multi_gpu"
"$build/examples/multi_gpu" >"$out/multi_gpu.txt" 2>&1 || status=1
cat "$out/multi_gpu.txt"

echo "multi-gpu-check: $suite; exit $status"
exit $status
