// Advanced indexing beside cudaMemcpy D2D of the same run: mask extraction a(mask) of 2^28 float32
// with half the mask true (bytes: the floats and the mask read, the selected half written: one
// CUB count and one DeviceSelect::Flagged), and take of 2^26 random int64 indices from 2^28 floats
// (bytes: the indices read, the gathered floats read and written). benchmarks/cupy/indexing_cupy.py
// measures the same cases with CuPy.
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
using nd::bench::guard_bandwidth;
using nd::bench::have_gpu;
using nd::bench::keep;
using nd::bench::random_floats;
using nd::bench::timed;

namespace {

// a(mask) with mask = a > 0 (half true), the mask made beforehand. Bytes: 4 + 1 read per element,
// 4 written per selected element (n / 2).
void BM_mask_extract_float32(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = random_floats(n);
  const nd::ndarray<bool> mask = a > 0.0f;
  timed(state, a.stream(), [&] { keep(nd::ndarray<float>(a(mask))); });
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * (n * 5 + n / 2 * 4));
  guard_bandwidth(state);
}

// nd::take(a, idx) of n random indices into a table of 4n floats. Bytes: 8 (index) + 4 + 4 per index.
// range(1): 0 mode raise (NumPy's default: checked, one wait), 1 mode wrap (CuPy's only behaviour).
void BM_take_float32(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto table = random_floats(4 * n);
  std::vector<std::int64_t> host(static_cast<std::size_t>(n));
  std::mt19937_64 g(7);
  std::uniform_int_distribution<std::int64_t> u(0, 4 * n - 1);
  for (auto& x : host) {
    x = u(g);
  }
  const auto idx = nd::asarray(host);
  const nd::take_mode mode = state.range(1) == 0 ? nd::take_mode::raise : nd::take_mode::wrap;
  timed(state, table.stream(), [&] { keep(nd::take(table, idx, std::nullopt, mode)); });
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * 16);
  guard_bandwidth(state);
}

// nonzero of a 1-d bool array with half true (count, then the positions): 1 read, 8 written per true.
void BM_nonzero_bool(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const nd::ndarray<bool> mask = random_floats(n) > 0.0f;
  timed(state, mask.stream(), [&] { keep(nd::nonzero(mask)); });
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * (n + n / 2 * 8));
  guard_bandwidth(state);
}

}  // namespace

BENCHMARK(BM_memcpy_d2d)->Arg(1 << 28)->UseManualTime();
BENCHMARK(BM_mask_extract_float32)->Arg(1 << 28)->UseManualTime();
BENCHMARK(BM_take_float32)->Args({1 << 26, 0})->Args({1 << 26, 1})->UseManualTime();
BENCHMARK(BM_nonzero_bool)->Arg(1 << 28)->UseManualTime();
