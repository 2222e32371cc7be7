// concatenate, pad and roll in float32, beside cudaMemcpy D2D of the same bytes in the same run
// (read + write): concatenate of 8 x 2^25 floats along axis 0 (one cudaMemcpyAsync per piece) and
// along axis 1 of 8 (4096 x 8192) blocks (cudaMemcpy2DAsync); pad (constant, reflect) and roll
// (both axes) of an 8192 x 8192 matrix (one pass of the gather kernel); tile and repeat for scale.
// benchmarks/cupy/arrange_cupy.py measures the same cases with CuPy.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <ndcuda/ndcuda.hpp>
#include <vector>

#include "support/bench_inputs.hpp"
#include "support/gpu_timing.hpp"

namespace nd = ndcuda;
using nd::bench::BM_memcpy_d2d;
using nd::bench::check;
using nd::bench::counters;
using nd::bench::have_gpu;
using nd::bench::keep;
using nd::bench::timed;

namespace {

constexpr nd::index_t side = 8192;

// np.concatenate of 8 arrays of 2^25 floats along axis 0 (the result allocated from the pool).
void BM_concatenate_axis0(benchmark::State& state) {
  if (!have_gpu(state)) return;
  std::vector<nd::ndarray<float>> pieces;
  for (int i = 0; i < 8; ++i) {
    pieces.push_back(nd::full<float>({nd::index_t{1} << 25}, static_cast<float>(i)));
  }
  timed(state, pieces[0].stream(), [&] { keep(nd::concatenate(pieces, 0)); });
  counters(state, nd::index_t{8} << 25, 2 * sizeof(float));
}

// np.concatenate of 8 blocks of 4096 x 1024 floats along axis 1 (2^25 floats in all).
void BM_concatenate_axis1(benchmark::State& state) {
  if (!have_gpu(state)) return;
  std::vector<nd::ndarray<float>> pieces;
  for (int i = 0; i < 8; ++i) {
    pieces.push_back(nd::full<float>({4096, 1024}, static_cast<float>(i)));
  }
  timed(state, pieces[0].stream(), [&] { keep(nd::concatenate(pieces, 1)); });
  counters(state, nd::index_t{1} << 25, 2 * sizeof(float));
}

// np.pad(m, 16, mode) of 8192 x 8192 floats; range(0): 0 constant, 1 reflect, 2 wrap. Bytes: the
// input read once and the (slightly larger) output written once.
void BM_pad(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto m = nd::ones<float>({side, side});
  const nd::pad_mode modes[] = {nd::pad_mode::constant, nd::pad_mode::reflect, nd::pad_mode::wrap};
  const nd::pad_mode mode = modes[state.range(0)];
  timed(state, m.stream(), [&] { keep(nd::pad(m, 16, mode)); });
  const nd::index_t out = (side + 32) * (side + 32);
  state.SetItemsProcessed(state.iterations() * out);
  state.SetBytesProcessed(state.iterations() * (side * side + out) * static_cast<std::int64_t>(sizeof(float)));
  nd::bench::guard_bandwidth(state);
}

// np.roll(m, (37, -1001), (0, 1)) of 8192 x 8192 floats; range(0) 1: the flattened roll (axis=None).
void BM_roll(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto m = nd::ones<float>({side, side});
  if (state.range(0) == 0) {
    timed(state, m.stream(), [&] { keep(nd::roll(m, {37, -1001}, {0, 1})); });
  } else {
    timed(state, m.stream(), [&] { keep(nd::roll(m, 12345)); });
  }
  counters(state, side * side, 2 * sizeof(float));
}

// np.tile(v, (2, 2)) of 4096 x 4096 floats and np.repeat(v, 2, axis=1) of 8192 x 4096 floats.
void BM_tile(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto m = nd::ones<float>({side / 2, side / 2});
  timed(state, m.stream(), [&] { keep(nd::tile(m, {2, 2})); });
  counters(state, side * side, sizeof(float));  // bytes written (the reads hit the cache 4 times)
}
void BM_repeat(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto m = nd::ones<float>({side, side / 2});
  timed(state, m.stream(), [&] { keep(nd::repeat(m, 2, 1)); });
  counters(state, side * side, sizeof(float));
}

}  // namespace

BENCHMARK(BM_memcpy_d2d)->Arg(nd::index_t{8} << 25)->Arg(side* side)->UseManualTime();
BENCHMARK(BM_concatenate_axis0)->UseManualTime();
BENCHMARK(BM_concatenate_axis1)->UseManualTime();
BENCHMARK(BM_pad)->Arg(0)->Arg(1)->Arg(2)->UseManualTime();
BENCHMARK(BM_roll)->Arg(0)->Arg(1)->UseManualTime();
BENCHMARK(BM_tile)->UseManualTime();
BENCHMARK(BM_repeat)->UseManualTime();
