// Fused elementwise expressions in float32, each bandwidth figure beside cudaMemcpy D2D of the
// same run (read + write bytes): c(...) = a + b (also float64 and int8), the copy c(...) = a
// (add and copy over 2^20 .. 2^28 for tools/plot_bandwidth.py),
// c += a, d(...) = a*b + a*2 + b in one pass, a transpose to contiguous, an outer broadcast add,
// and the host time of a small op (in place and into a new array) against the launch floor.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <ndcuda/ndcuda.hpp>
#include <stdexcept>
#include <string>

#include "support/gpu_timing.hpp"

namespace nd = ndcuda;
using nd::bench::BM_memcpy_d2d;
using nd::bench::check;
using nd::bench::guard_bandwidth;
using nd::bench::have_gpu;
using nd::bench::timed;

namespace {

// c = a + b into a preallocated c: 3 arrays of traffic.
void BM_add(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = nd::ones<float>({n});
  const auto b = nd::ones<float>({n});
  auto c = nd::empty<float>({n});
  timed(state, c.stream(), [&] { c(nd::ellipsis) = a + b; });
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(3 * a.nbytes()));
  guard_bandwidth(state);
}

// c = a + b in another dtype (float64, int8): the streaming goal is >= torch.add at 2^24..2^28.
template <class T>
void BM_add_dtype(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = nd::ones<T>({n});
  const auto b = nd::ones<T>({n});
  auto c = nd::empty<T>({n});
  timed(state, c.stream(), [&] { c(nd::ellipsis) = a + b; });
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(3 * a.nbytes()));
  guard_bandwidth(state);
}

// The array copy c(...) = a (read + write), against cudaMemcpyAsync D2D of the same bytes.
void BM_copy_assign(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = nd::ones<float>({n});
  auto c = nd::empty<float>({n});
  timed(state, c.stream(), [&] { c(nd::ellipsis) = a; });
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(2 * a.nbytes()));
  guard_bandwidth(state);
}

// c += a in place: reads c and a, writes c (3 arrays of traffic, as c(...) = a + b).
void BM_add_in_place(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = nd::ones<float>({n});
  auto c = nd::zeros<float>({n});
  timed(state, c.stream(), [&] { c += a; });
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(3 * a.nbytes()));
  guard_bandwidth(state);
}

// One fused pass reading a and b once: the same traffic as c = a + b.
void BM_fused_four_ops(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = nd::ones<float>({n});
  const auto b = nd::ones<float>({n});
  auto d = nd::empty<float>({n});
  timed(state, d.stream(), [&] { d(nd::ellipsis) = a * b + a * 2.0f + b; });
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(3 * a.nbytes()));
  guard_bandwidth(state);
}

// c = a.T() for a 16384 x 16384 matrix: read + write.
void BM_transpose_16384(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = 16384;
  const auto a = nd::ones<float>({n, n});
  auto c = nd::empty<float>({n, n});
  timed(state, c.stream(), [&] { c(nd::ellipsis) = a.T(); });
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(2 * a.nbytes()));
  guard_bandwidth(state);
}
void BM_memcpy_d2d_16384(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = nd::ones<float>({16384, 16384});
  auto c = nd::empty<float>({16384, 16384});
  timed(state, c.stream(), [&] {
    check(cudaMemcpyAsync(c.data(), a.data(), a.nbytes(), cudaMemcpyDeviceToDevice, a.stream().handle()),
          "cudaMemcpyAsync");
  });
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(2 * a.nbytes()));
  guard_bandwidth(state);
}

// (8192, 1) + (1, 8192): bytes written (the reads are negligible).
void BM_outer_broadcast_add(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto col = nd::ones<float>({8192, 1});
  const auto row = nd::ones<float>({1, 8192});
  auto c = nd::empty<float>({8192, 8192});
  timed(state, c.stream(), [&] { c(nd::ellipsis) = col + row; });
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(c.nbytes()));
  guard_bandwidth(state);
}

// Host time per small op (2^10 elements): many launches per iteration, one sync at the end.
constexpr int small_launches = 1000;
void BM_small_op_host_time(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = nd::ones<float>({1024});
  const auto b = nd::ones<float>({1024});
  auto c = nd::empty<float>({1024});
  c(nd::ellipsis) = a + b;
  nd::detail::synchronize_for(c.stream(), "benchmark");
  for (auto _ : state) {
    for (int i = 0; i < small_launches; ++i) {
      c(nd::ellipsis) = a + b;
    }
    nd::detail::synchronize_for(c.stream(), "benchmark");
  }
  state.SetItemsProcessed(state.iterations() * small_launches);
  state.counters["us_per_op"] = benchmark::Counter(static_cast<double>(state.iterations() * small_launches),
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
// The same op spelled `c = a + b`: a new array from the pool each time, and the old one released
// (NumPy's rebinding). The difference to BM_small_op_host_time is the cost of the allocation.
void BM_small_op_new_array_host_time(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = nd::ones<float>({1024});
  const auto b = nd::ones<float>({1024});
  nd::ndarray<float> c = a + b;
  nd::detail::synchronize_for(c.stream(), "benchmark");
  for (auto _ : state) {
    for (int i = 0; i < small_launches; ++i) {
      c = a + b;
    }
    nd::detail::synchronize_for(c.stream(), "benchmark");
  }
  state.SetItemsProcessed(state.iterations() * small_launches);
  state.counters["us_per_op"] = benchmark::Counter(static_cast<double>(state.iterations() * small_launches),
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
// The floor: the same number of raw cudaMemcpyAsync D2D of 4 KiB (one launch-like call each).
void BM_small_memcpy_host_time(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = nd::ones<float>({1024});
  auto c = nd::empty<float>({1024});
  for (auto _ : state) {
    for (int i = 0; i < small_launches; ++i) {
      check(cudaMemcpyAsync(c.data(), a.data(), a.nbytes(), cudaMemcpyDeviceToDevice, a.stream().handle()),
            "cudaMemcpyAsync");
    }
    nd::detail::synchronize_for(c.stream(), "benchmark");
  }
  state.SetItemsProcessed(state.iterations() * small_launches);
  state.counters["us_per_op"] = benchmark::Counter(static_cast<double>(state.iterations() * small_launches),
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace

// 2^10 .. 2^28 elements (2^28 floats = 1 GiB per array).
#define NDCUDA_SIZES Arg(1 << 10)->Arg(1 << 16)->Arg(1 << 20)->Arg(1 << 24)->Arg(1 << 28)->UseManualTime()
// The add and copy sweeps and their baseline: 2^10, 2^16, then 2^20 .. 2^28 (tools/plot_bandwidth.py).
BENCHMARK(BM_memcpy_d2d)->Arg(1 << 10)->Arg(1 << 16)->Apply(nd::bench::bandwidth_sweep);
BENCHMARK(BM_add)->Arg(1 << 10)->Arg(1 << 16)->Apply(nd::bench::bandwidth_sweep);
BENCHMARK(BM_add_in_place)->NDCUDA_SIZES;
#define NDCUDA_STREAM_SIZES Arg(1 << 24)->Arg(1 << 26)->Arg(1 << 28)->UseManualTime()
BENCHMARK(BM_add_dtype<double>)->NDCUDA_STREAM_SIZES;
BENCHMARK(BM_add_dtype<std::int8_t>)->NDCUDA_STREAM_SIZES;
BENCHMARK(BM_copy_assign)->Apply(nd::bench::bandwidth_sweep);
BENCHMARK(BM_fused_four_ops)->NDCUDA_SIZES;
BENCHMARK(BM_memcpy_d2d_16384)->UseManualTime();
BENCHMARK(BM_transpose_16384)->UseManualTime();
BENCHMARK(BM_outer_broadcast_add)->UseManualTime();
BENCHMARK(BM_small_memcpy_host_time);
BENCHMARK(BM_small_op_host_time);
BENCHMARK(BM_small_op_new_array_host_time);
