// sort, argsort and cumsum in float32, beside cudaMemcpy D2D of the same run (read + write bytes):
// sort/argsort of 2^26 random floats (CUB onesweep radix sort behind the key transform), cumsum of
// 2^28 floats (one CUB scan, straight from the input to the result), and cumsum along each axis
// of a 16384 x 16384 matrix (a segmented scan by key; axis 0 first moves the axis innermost).
// benchmarks/cupy/sort_scan_cupy.py measures the same cases with CuPy.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <complex>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/ops/sets.hpp>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/bench_inputs.hpp"
#include "support/gpu_timing.hpp"

namespace nd = ndcuda;
using nd::bench::BM_memcpy_d2d;
using nd::bench::check;
using nd::bench::counters;
using nd::bench::have_gpu;
using nd::bench::keep;
using nd::bench::random_floats;
using nd::bench::timed;

namespace {

// np.sort of n random floats into a new array (allocation from the pool included, as in CuPy).
// Bytes: the input read and the output written once (the radix passes move more).
void BM_sort_float32(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = random_floats(n);
  timed(state, a.stream(), [&] { keep(nd::sort(a)); });
  counters(state, n, 2 * sizeof(float));
}

// np.argsort(kind="stable"): float keys in, int64 indices out.
void BM_argsort_float32(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = random_floats(n);
  timed(state, a.stream(), [&] { keep(nd::argsort(a)); });
  counters(state, n, sizeof(float) + sizeof(std::int64_t));
}

// np.cumsum of n floats (flattened): read once, write once.
void BM_cumsum_float32(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = random_floats(n);
  timed(state, a.stream(), [&] { keep(nd::cumsum(a).eval()); });
  counters(state, n, 2 * sizeof(float));
}

// np.cumsum(a, out=c) of n floats: the scan writes straight into c (compare BM_cumsum_float32).
void BM_cumsum_into_float32(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = random_floats(n);
  nd::ndarray<float> c = nd::empty_like(a);
  timed(state, a.stream(), [&] { c(nd::ellipsis) = nd::cumsum(a); });
  counters(state, n, 2 * sizeof(float));
}

// np.cumsum(m, axis) of a 16384 x 16384 float32 matrix (2^28 elements); range(0) is the axis.
void BM_cumsum_matrix_axis(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t side = 16384;
  const auto m = random_floats(side * side).reshape({side, side});
  const auto axis = static_cast<nd::index_t>(state.range(0));
  timed(state, m.stream(), [&] { keep(nd::cumsum(m, axis).eval()); });
  counters(state, side * side, 2 * sizeof(float));
}

}  // namespace

// np.sort of n random complex numbers (issue 19): NumPy's order as keys, one radix pass of 8-byte
// keys (complex64) or two (complex128), then a gather of the elements through the permutation.
template <class T>
void BM_sort_complex(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto re = random_floats(n);
  const auto im = random_floats(n);
  const nd::ndarray<T> a = re.astype<T>() + im.astype<T>() * T(0, 1);
  timed(state, a.stream(), [&] { keep(nd::sort(a)); });
  counters(state, n, 2 * sizeof(T));
}

// np.isin of n random floats in n / 16 others: a sort of the test elements, then one binary
// search per element (searchsorted) and a compare.
void BM_isin_float32(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = random_floats(n);
  const nd::ndarray<float> t = a(nd::slice(0, n / 16));
  timed(state, a.stream(), [&] { keep(nd::isin(a, t)); });
  counters(state, n, sizeof(float) + sizeof(bool));
}

BENCHMARK(BM_memcpy_d2d)->Arg(1 << 26)->Arg(1 << 28)->UseManualTime();
BENCHMARK(BM_sort_float32)->Arg(1 << 20)->Arg(1 << 26)->UseManualTime();
BENCHMARK(BM_argsort_float32)->Arg(1 << 26)->UseManualTime();
BENCHMARK(BM_cumsum_float32)->Arg(1 << 20)->Arg(1 << 28)->UseManualTime();
BENCHMARK(BM_cumsum_into_float32)->Arg(1 << 20)->Arg(1 << 28)->UseManualTime();
BENCHMARK(BM_cumsum_matrix_axis)->Arg(1)->Arg(0)->UseManualTime();
BENCHMARK(BM_sort_complex<std::complex<float>>)->Arg(1 << 24)->UseManualTime();
BENCHMARK(BM_sort_complex<std::complex<double>>)->Arg(1 << 24)->UseManualTime();
BENCHMARK(BM_isin_float32)->Arg(1 << 24)->UseManualTime();
