// Reductions in float32, each figure (bytes read per second) beside cudaMemcpy D2D of the same run
// (bytes read + written): sum of 2^28 elements, sum over axis 0 and axis 1 of a 16384^2 matrix,
// the fused sum(a * b, 1), argmax of 2^28 elements, sum(a) over 2^20 .. 2^28 (the bandwidth plot's
// sweep); and the cold first call of a new reduction
// (NVRTC compile + load + launch, disk cache off). Targets and CuPy's H200 figures in the labels.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <ndcuda/ndcuda.hpp>
#include <stdexcept>
#include <string>

#include "jit/program_cache.hpp"
#include "support/cold_sources.hpp"
#include "support/gpu_timing.hpp"

namespace nd = ndcuda;
using nd::bench::check;
using nd::bench::have_gpu;
using nd::bench::keep;
using nd::bench::timed;

namespace {

/// Calls queued back to back per timed interval (gpu_timing.hpp): bandwidth, not launch latency.
/// BM_sum_full_single_call shows what a lone call costs with its latency.
constexpr int steady_calls = 10;

// `bytes` per call as bytes/s and GB/s, then the bandwidth guard (support/gpu_timing.hpp).
void bytes_per_second(benchmark::State& state, double bytes) {
  state.counters["bytes_per_second"] =
      benchmark::Counter(bytes, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1024);
  state.counters["GBps"] = benchmark::Counter(bytes / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  nd::bench::guard_bandwidth(state);
}

nd::ndarray<float> random_matrix(nd::shape_t shape) {
  // Values in [-1, 1] in no order (sin of a scaled ramp), so that argmax's running best changes
  // as on real data rather than at every element of a monotonic ramp.
  const nd::index_t n = nd::shape_size(shape);
  const nd::ndarray<float> a = nd::sin(nd::arange<float>(static_cast<double>(n)) * 0.618034F);
  return a.reshape(shape);
}

// The baseline: a device-to-device copy of n floats (read + write bytes).
void BM_memcpy_d2d(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = nd::zeros<float>({n});
  auto c = nd::empty<float>({n});
  timed(
      state, a.stream(),
      [&] {
        check(cudaMemcpyAsync(c.data(), a.data(), a.nbytes(), cudaMemcpyDeviceToDevice, a.stream().handle()),
              "cudaMemcpyAsync");
      },
      steady_calls);
  bytes_per_second(state, 2.0 * static_cast<double>(a.nbytes()));
  state.SetLabel("baseline: D2D copy, read + write bytes");
}

void BM_sum_full(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = random_matrix({nd::index_t{1} << 28});
  timed(
      state, a.stream(), [&] { keep(nd::eval(nd::sum(a))); }, steady_calls);
  bytes_per_second(state, static_cast<double>(a.nbytes()));
  state.SetLabel("sum(a), 2^28 float32; target >= 4300 GB/s, CuPy 4443");
}

// The fixed-order sum of nd::deterministic on the same input: its cost beside BM_sum_full (issue 38
// asks at most 10%).
void BM_sum_full_deterministic(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = random_matrix({nd::index_t{1} << 28});
  timed(
      state, a.stream(), [&] { keep(nd::sum(a, nd::deterministic)); }, steady_calls);
  bytes_per_second(state, static_cast<double>(a.nbytes()));
  state.SetLabel("sum(a, nd::deterministic), 2^28 float32; beside BM_sum_full");
}

// sum(a) over the bandwidth sweep (tools/plot_bandwidth.py): one call per timing, as the CuPy and
// PyTorch sweeps time theirs. The result is bound to an ndarray, so a lazy sum is evaluated.
void BM_sum_sweep(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = random_matrix({state.range(0)});
  timed(state, a.stream(), [&] { const nd::ndarray<float> r = nd::sum(a); });
  bytes_per_second(state, static_cast<double>(a.nbytes()));
}

void BM_sum_full_single_call(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = random_matrix({nd::index_t{1} << 28});
  timed(state, a.stream(), [&] { keep(nd::eval(nd::sum(a))); });
  bytes_per_second(state, static_cast<double>(a.nbytes()));
  state.SetLabel("sum(a), 2^28 float32, one call timed alone (its host time and launch latency included)");
}

void BM_sum_axis0(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = random_matrix({16384, 16384});
  timed(
      state, a.stream(), [&] { keep(nd::eval(nd::sum(a, 0))); }, steady_calls);
  bytes_per_second(state, static_cast<double>(a.nbytes()));
  state.SetLabel("sum(a, 0), 16384^2 float32; target >= 4000 GB/s, CuPy 2532");
}

// A reduction with a large result, into a new array each call against written into an existing one
// (c(nd::ellipsis) = nd::sum(a, 1): no allocation, no copy; issue 36).
void BM_sum_rows_new_array(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = random_matrix({nd::index_t{1} << 22, 8});
  timed(
      state, a.stream(), [&] { keep(nd::eval(nd::sum(a, 1))); }, steady_calls);
  bytes_per_second(state, static_cast<double>(a.nbytes()));
  state.SetLabel("sum(a, 1) of (2^22, 8) float32, a new array each call");
}
void BM_sum_rows_into(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = random_matrix({nd::index_t{1} << 22, 8});
  auto c = nd::empty<float>({nd::index_t{1} << 22}, a.stream());
  timed(
      state, a.stream(), [&] { c(nd::ellipsis) = nd::sum(a, 1); }, steady_calls);
  bytes_per_second(state, static_cast<double>(a.nbytes()));
  state.SetLabel("c(...) = sum(a, 1) of (2^22, 8) float32, into c");
}

void BM_sum_axis1(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = random_matrix({16384, 16384});
  timed(
      state, a.stream(), [&] { keep(nd::eval(nd::sum(a, 1))); }, steady_calls);
  bytes_per_second(state, static_cast<double>(a.nbytes()));
  state.SetLabel("sum(a, 1), 16384^2 float32; target >= 4000 GB/s, CuPy 4530");
}

// sum(a, 1) of 2^24 floats in rows of range(0) elements: the short rows that decide between a
// thread and a warp per output (src/jit/reduction_plan.cpp, reduce_short_row_limit). Beside the
// D2D copy of 2^24 floats in the same run.
void BM_sum_short_rows(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t row = state.range(0);
  const auto a = random_matrix({(nd::index_t{1} << 24) / row, row});
  timed(
      state, a.stream(), [&] { keep(nd::eval(nd::sum(a, 1))); }, steady_calls);
  bytes_per_second(state, static_cast<double>(a.nbytes()));
}

// k-means' distances as NumPy writes them: ((x[:, None, :] - c[None]) ** 2).sum(2) for 2^20 x 16
// points and 16 centres (16M outputs of 16 elements, x read once per centre from cache).
void BM_kmeans_distances(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto x = random_matrix({nd::index_t{1} << 20, 16});
  const auto c = random_matrix({16, 16});
  timed(
      state, x.stream(),
      [&] {
        const auto diff = x(nd::all, nd::newaxis, nd::all) - c(nd::newaxis, nd::all, nd::all);
        keep(nd::eval(nd::sum(diff * diff, 2)));
      },
      steady_calls);
  bytes_per_second(state, static_cast<double>(x.nbytes()) * 2);  // x read, d2 (as many floats) written
}

void BM_sum_product_axis1(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = random_matrix({16384, 16384});
  const auto b = random_matrix({16384, 16384});
  timed(
      state, a.stream(), [&] { keep(nd::eval(nd::sum(a * b, 1))); }, steady_calls);
  bytes_per_second(state, 2.0 * static_cast<double>(a.nbytes()));
  state.SetLabel("sum(a * b, 1), 16384^2 float32, fused: each input read once");
}

void BM_argmax_full(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = random_matrix({nd::index_t{1} << 28});
  timed(
      state, a.stream(), [&] { keep(nd::argmax(a)); }, steady_calls);
  bytes_per_second(state, static_cast<double>(a.nbytes()));
  state.SetLabel("argmax(a), 2^28 float32; target >= 3500 GB/s");
}

// The first call of a reduction whose kernel was never compiled: a new map each iteration (a
// constant no earlier iteration used), disk cache off, timed to the result on the host.
void BM_first_call_cold_reduction(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = random_matrix({4096, 1024});
  auto out = nd::empty<float>({4096});
  auto& programs = nd::jit::detail::global_program_cache();
  const auto disk = programs.disk();
  programs.set_disk(nullptr);
  const nd::detail::leaf_ref input{a.data(), &a.layout(), nd::dtype::float32, &a.stream(), a.device()};
  const nd::detail::leaf_ref target{out.data(), &out.layout(), nd::dtype::float32, &out.stream(), out.device()};
  constexpr nd::detail::reduce_spec spec{nd::detail::reduce_kind::sum, nd::dtype::float32, nd::dtype::float32,
                                         nd::dtype::float32};
  for (auto _ : state) {
    const auto st = nd::detail::make_reduction_state(
        "out = in0 * " + std::to_string(nd::bench::cold_source_number()) + ".0f", spec, {&input, 1}, {});
    const auto call = nd::detail::prepare_reduction(spec.kind, {&input, 1}, std::vector<int>{1}, false);
    nd::detail::run_reduction(*st, call, target, {&input, 1}, nullptr, 0.0);
    out.stream().synchronize();
  }
  programs.set_disk(disk);
  state.SetLabel("compile + load + launch of a new reduction; target <= 200 ms, CuPy 2204 ms");
}

// ---- Fusion across reductions (issue 20, part 1): rows x cols float32, bytes of one read and one
// write of the array per call (the raw limit is the D2D copy of the same bytes, BM_memcpy_d2d at
// rows * cols). torch.softmax / layer_norm in benchmarks/torch/fusion_torch.py, same shapes.

// Times `body(x, y)` writing y from x, both (rows, cols) = (range 0, range 1) float32, with one
// read and one write of the array as its traffic.
template <class F>
void rows_case(benchmark::State& state, const char* label, F&& body) {
  if (!have_gpu(state)) return;
  const nd::index_t rows = state.range(0);
  const nd::index_t cols = state.range(1);
  const auto x = random_matrix({rows, cols});
  auto y = nd::empty<float>({rows, cols});
  timed(
      state, x.stream(), [&] { body(x, y); }, steady_calls);
  bytes_per_second(state, 2.0 * static_cast<double>(x.nbytes()));
  state.SetLabel(label);
}

// NumPy's spelling: one row-resident kernel.
void BM_softmax_numpy_spelled(benchmark::State& state) {
  rows_case(state, "target: <= torch.softmax time", [](const nd::ndarray<float>& x, nd::ndarray<float>& y) {
    const auto e = nd::exp(x - nd::max(x, 1, nd::keepdims));
    y(nd::ellipsis) = e / nd::sum(e, 1, nd::keepdims);
  });
}

// The same with the intermediate stored, as eager libraries run it: max, e = exp(x - max), sum, e / sum.
void BM_softmax_materialized(benchmark::State& state) {
  rows_case(state, "unfused: four kernels, e stored", [](const nd::ndarray<float>& x, nd::ndarray<float>& y) {
    const nd::ndarray<float> m = nd::max(x, 1, nd::keepdims);
    const nd::ndarray<float> e = nd::exp(x - m);
    const nd::ndarray<float> s = nd::sum(e, 1, nd::keepdims);
    y(nd::ellipsis) = e / s;
  });
}

void BM_layer_norm_numpy_spelled(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto w = random_matrix({state.range(1)});
  const auto b = random_matrix({state.range(1)});
  rows_case(state, "target: <= torch.nn.functional.layer_norm time",
            [&](const nd::ndarray<float>& x, nd::ndarray<float>& y) {
              const auto mu = nd::mean(x, -1, nd::keepdims);
              y(nd::ellipsis) = (x - mu) / nd::sqrt(nd::var(x, -1, nd::keepdims) + 1e-5F) * w + b;
            });
}
}  // namespace

BENCHMARK(BM_memcpy_d2d)->Arg(nd::index_t{1} << 28)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sum_full)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sum_full_deterministic)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sum_sweep)->Apply(nd::bench::bandwidth_sweep)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sum_full_single_call)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sum_axis0)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sum_rows_new_array)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sum_rows_into)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sum_axis1)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sum_product_axis1)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sum_short_rows)->Arg(4)->Arg(8)->Arg(16)->Arg(32)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_kmeans_distances)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_argmax_full)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_memcpy_d2d)
    ->Arg(nd::index_t{1} << 24)
    ->Arg(nd::index_t{1} << 26)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_softmax_numpy_spelled)
    ->Args({4096, 4096})
    ->Args({16384, 1024})
    ->Args({64, 1 << 20})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_softmax_materialized)->Args({4096, 4096})->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_layer_norm_numpy_spelled)
    ->Args({4096, 4096})
    ->Args({16384, 1024})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_first_call_cold_reduction)->Unit(benchmark::kMillisecond)->Iterations(10);
