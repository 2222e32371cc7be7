// bincount, histogram and topk beside cudaMemcpy D2D of the same run: bincount of 2^26 int32 into
// 256 bins (per-block shared counters; the length read on the host included, as in CuPy), a
// 256-bin histogram of 2^26 floats with a given range, and topk(k=1000) of 2^26 float32 (a radix
// select: a few histogram passes, then only the k candidates are sorted), plus a batched topk.
// np.add.at into 256 bins and into k-means' (16, 16) centres, and a weighted bincount, at 2^24
// values beside a D2D copy of 2^24 floats. benchmarks/cupy/counting_cupy.py measures the same
// cases with CuPy.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <ndcuda/ndcuda.hpp>
#include <random>
#include <vector>

#include "support/bench_inputs.hpp"
#include "support/gpu_timing.hpp"

namespace nd = ndcuda;
using nd::bench::BM_memcpy_d2d;
using nd::bench::check;
using nd::bench::counters;
using nd::bench::have_gpu;
using nd::bench::keep;
using nd::bench::random_bins;
using nd::bench::random_floats;
using nd::bench::timed;

namespace {

// np.bincount(x) of n int32 in [0, 256): min and max read on the host for the length, then one
// counting pass. Bytes: the input read once.
void BM_bincount_int32(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto x = random_bins(n, 256);
  timed(state, x.stream(), [&] { keep(nd::bincount(x)); });
  counters(state, n, sizeof(std::int32_t));
}

// The same with a static length (nd::size(256)): no host read, capturable.
void BM_bincount_int32_static(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto x = random_bins(n, 256);
  timed(state, x.stream(), [&] { keep(nd::bincount(x, nd::size(256))); });
  counters(state, n, sizeof(std::int32_t));
}

// np.histogram(a, 256, range=(-1, 1)) of n float32.
void BM_histogram_float32(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = random_floats(n);
  timed(state, a.stream(), [&] { keep(nd::histogram(a, 256, nd::bin_range{-1.0, 1.0})); });
  counters(state, n, sizeof(float));
}

// topk(a, 1000) of n float32: the 1000 largest, sorted, with int64 indices. Bytes: the input once.
void BM_topk_float32(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = random_floats(n);
  timed(state, a.stream(), [&] { keep(nd::topk(a, 1000)); });
  counters(state, n, sizeof(float));
}

// topk(m, 16) along the rows of a 65536 x 1024 float32 matrix (the segmented-sort path).
void BM_topk_rows_float32(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto m = random_floats(65536 * 1024).reshape({65536, 1024});
  timed(state, m.stream(), [&] { keep(nd::topk(m, 16)); });
  counters(state, 65536 * 1024, sizeof(float));
}

// np.add.at(a, idx, v): 2^n float32 values into 256 float32 bins (int32 indices). Bytes: the
// values and the indices read once. Target (issue 39): within 2x of a D2D copy of the values.
void BM_add_at_256_bins_float32(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto idx = random_bins(n, 256);
  const auto v = random_floats(n);
  auto a = nd::zeros<float>({256});
  timed(state, a.stream(), [&] { nd::add_at(a, idx, v); });
  counters(state, n, sizeof(float) + sizeof(std::int32_t));
}

// k-means' centre update as NumPy writes it: np.add.at(centres, labels, points) with centres
// (16, 16) float32, labels int64 and points (n / 16, 16) float32. Items: the n point values.
void BM_add_at_kmeans_centres(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const nd::index_t d = 16;
  const auto labels = random_bins(n / d, 16).astype<std::int64_t>();
  const auto points = random_floats(n).reshape({n / d, d});
  auto centres = nd::zeros<float>({16, d});
  timed(state, centres.stream(), [&] { nd::add_at(centres, labels, points); });
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * (n * 4 + n / d * 8));
  nd::bench::guard_bandwidth(state);
}

// np.bincount(x, weights, minlength=256): 2^n int32 bins, float32 weights, float64 sums.
void BM_bincount_weighted_float32(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto x = random_bins(n, 256);
  const auto w = random_floats(n);
  timed(state, x.stream(), [&] { keep(nd::bincount(x, w, nd::size(256))); });
  counters(state, n, sizeof(float) + sizeof(std::int32_t));
}

// The workaround topk replaces: a full sort, then the last k.
void BM_sort_then_slice_float32(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = random_floats(n);
  timed(state, a.stream(), [&] { keep(nd::sort(a)(nd::slice(n - 1000, nd::none)).copy()); });
  counters(state, n, sizeof(float));
}

}  // namespace

BENCHMARK(BM_memcpy_d2d)->Arg(1 << 26)->UseManualTime();
BENCHMARK(BM_bincount_int32)->Arg(1 << 26)->UseManualTime();
BENCHMARK(BM_bincount_int32_static)->Arg(1 << 26)->UseManualTime();
BENCHMARK(BM_histogram_float32)->Arg(1 << 26)->UseManualTime();
BENCHMARK(BM_topk_float32)->Arg(1 << 26)->UseManualTime();
BENCHMARK(BM_topk_rows_float32)->UseManualTime();
BENCHMARK(BM_sort_then_slice_float32)->Arg(1 << 26)->UseManualTime();
BENCHMARK(BM_memcpy_d2d)->Arg(1 << 24)->UseManualTime();
BENCHMARK(BM_add_at_256_bins_float32)->Arg(1 << 24)->UseManualTime();
BENCHMARK(BM_add_at_kmeans_centres)->Arg(1 << 24)->UseManualTime();
BENCHMARK(BM_bincount_weighted_float32)->Arg(1 << 24)->UseManualTime();
