// Random numbers at 2^28 elements, each beside its baseline from the same run: random/normal/
// integers written into an existing array against the D2D copy's write bandwidth (and a memset),
// a fused x + 0.1 * normal against x + y with y in memory, and Monte Carlo pi over 2^30 samples in
// one reduction. benchmarks/{cupy,torch}/random_*.py measure CuPy and PyTorch on the same cases.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <ndcuda/ndcuda.hpp>
#include <ndcuda/random.hpp>

#include "support/gpu_timing.hpp"

namespace nd = ndcuda;
using nd::bench::check;
using nd::bench::guard_bandwidth;
using nd::bench::have_gpu;
using nd::bench::timed;

namespace {

constexpr nd::index_t big = nd::index_t{1} << 28;

// Baselines: the D2D copy's write bandwidth (bytes written = n x 4, its reads left out), and a
// plain cudaMemsetAsync (write only).
void BM_memcpy_d2d_write(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = nd::zeros<float>({big});
  auto c = nd::empty<float>({big});
  timed(state, a.stream(), [&] {
    check(cudaMemcpyAsync(c.data(), a.data(), a.nbytes(), cudaMemcpyDeviceToDevice, a.stream().handle()),
          "cudaMemcpyAsync");
  });
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(a.nbytes()));
  guard_bandwidth(state);
}
void BM_memset_write(benchmark::State& state) {
  if (!have_gpu(state)) return;
  auto c = nd::empty<float>({big});
  timed(state, c.stream(),
        [&] { check(cudaMemsetAsync(c.data(), 0, c.nbytes(), c.stream().handle()), "cudaMemsetAsync"); });
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(c.nbytes()));
  guard_bandwidth(state);
}

// Draws written into an existing array (bytes written per second; the one-thread offset kernel
// of each draw included).
template <class T, class Draw>
void write_draw(benchmark::State& state, Draw&& draw) {
  if (!have_gpu(state)) return;
  auto g = nd::random::default_rng(1);
  auto out = nd::empty<T>({big});
  timed(state, out.stream(), [&] { out(nd::ellipsis) = draw(g); });
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(out.nbytes()));
  state.SetItemsProcessed(state.iterations() * big);
  guard_bandwidth(state);
}
void BM_random_f32(benchmark::State& state) {
  write_draw<float>(state, [](auto& g) { return g.template random<float>({big}); });
}
void BM_random_f64(benchmark::State& state) {
  write_draw<double>(state, [](auto& g) { return g.template random<double>({big}); });
}
void BM_normal_f32(benchmark::State& state) {
  write_draw<float>(state, [](auto& g) { return g.template standard_normal<float>({big}); });
}
void BM_normal_f64(benchmark::State& state) {
  write_draw<double>(state, [](auto& g) { return g.template standard_normal<double>({big}); });
}
void BM_integers_i32(benchmark::State& state) {  // torch.randint(0, 1000)'s case
  write_draw<std::int32_t>(state, [](auto& g) { return g.template integers<std::int32_t>(0, 1000, nd::shape_t{big}); });
}
void BM_exponential_f32(benchmark::State& state) {
  write_draw<float>(state, [](auto& g) { return g.template standard_exponential<float>({big}); });
}
void BM_gamma_f32(benchmark::State& state) {
  write_draw<float>(state, [](auto& g) { return g.template standard_gamma<float>(2.5, nd::shape_t{big}); });
}

// out = x + y, y in memory: the baseline of the fused noise (items per second; 3 arrays of traffic).
void BM_add_y_in_memory(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto x = nd::ones<float>({big});
  const auto y = nd::ones<float>({big});
  auto out = nd::empty<float>({big});
  timed(state, out.stream(), [&] { out(nd::ellipsis) = x + y; });
  state.SetItemsProcessed(state.iterations() * big);
}
// out = x + 0.1 * normal(x.shape()): one kernel, no noise buffer (target: <= 1.05x the time above).
void BM_add_fused_normal(benchmark::State& state) {
  if (!have_gpu(state)) return;
  auto g = nd::random::default_rng(2);
  const auto x = nd::ones<float>({big});
  auto out = nd::empty<float>({big});
  timed(state, out.stream(), [&] { out(nd::ellipsis) = x + 0.1f * g.normal<float>(x.shape()); });
  state.SetItemsProcessed(state.iterations() * big);
}

// Monte Carlo pi over 2^30 samples: mean(u^2 + v^2 < 1) of two lazy draws in one reduction (no
// memory), and the issue's form mean(sum(r^2, 1) < 1) over a (2^30, 2) draw: its row sums (2
// elements each) are inlined into the mean's map, one reduction too (expr/inline_reduction.hpp;
// before, a row-sum kernel wrote 2^30 floats, then a mean read them). BM_pi_issue_spelling is the
// issue's text verbatim, times 4 included (a second tiny kernel on the 0-d mean).
void BM_pi_one_reduction(benchmark::State& state) {
  if (!have_gpu(state)) return;
  auto g = nd::random::default_rng(3);
  const nd::index_t n = nd::index_t{1} << 30;
  const nd::stream s = nd::default_stream();
  double pi = 0;
  timed(state, s, [&] {
    const auto u = g.random<float>({n});
    const auto v = g.random<float>({n});
    pi = 4 * nd::mean<double>(u * u + v * v < 1.0f).item();
  });
  state.counters["pi"] = pi;
  state.SetItemsProcessed(state.iterations() * n);
}
void BM_pi_row_sums(benchmark::State& state) {
  if (!have_gpu(state)) return;
  auto g = nd::random::default_rng(4);
  const nd::index_t n = nd::index_t{1} << 30;
  const nd::stream s = nd::default_stream();
  double pi = 0;
  timed(state, s, [&] {
    const auto r = g.random<float>({n, 2});
    pi = 4 * nd::mean<double>(nd::sum(r * r, 1) < 1.0f).item();
  });
  state.counters["pi"] = pi;
  state.SetItemsProcessed(state.iterations() * n);
}
void BM_pi_issue_spelling(benchmark::State& state) {
  if (!have_gpu(state)) return;
  auto g = nd::random::default_rng(5);
  const nd::index_t n = nd::index_t{1} << 30;
  const nd::stream s = nd::default_stream();
  double pi = 0;
  timed(state, s, [&] {
    const nd::ndarray<double> p = nd::mean(nd::sum(nd::square(g.random<float>({n, 2})), 1) < 1.0f) * 4;
    pi = p.item();
  });
  state.counters["pi"] = pi;
  state.SetItemsProcessed(state.iterations() * n);
}

}  // namespace

BENCHMARK(BM_memcpy_d2d_write)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_memset_write)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_random_f32)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_random_f64)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_normal_f32)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_normal_f64)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_integers_i32)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_exponential_f32)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gamma_f32)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_add_y_in_memory)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_add_fused_normal)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_pi_one_reduction)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_pi_row_sums)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_pi_issue_spelling)->UseManualTime()->Unit(benchmark::kMicrosecond);
