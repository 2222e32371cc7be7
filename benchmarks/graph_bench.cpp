// CUDA graphs: the replay cost per captured small op (100 adds of 2^16 float32 per graph, target
// <= 1.0 us per op; CuPy: benchmarks/cupy/graph_cupy.py) beside eager launching of the same ops and
// a raw CUDA graph of 100 device-to-device copies; and a pinned H2D -> compute -> D2H pipeline as
// a graph against the same pipeline eager, with the host time per iteration. The adds are labelled
// with whether programmatic dependent launch was allowed (NDCUDA_DISABLE_PDL=1 turns it off).
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <ndcuda/ndcuda.hpp>
#include <stdexcept>
#include <string>

#include "jit/module.hpp"
#include "support/gpu_timing.hpp"

namespace nd = ndcuda;
using nd::bench::check;
using nd::bench::guard_bandwidth;
using nd::bench::have_gpu;

namespace {

constexpr nd::index_t small_n = 1 << 16;
constexpr int ops_per_graph = 100;

// Whether ndcuda's kernels launch with programmatic dependent launch here (sm_90+, unless
// NDCUDA_DISABLE_PDL is set): run once with it set and once without for the A/B comparison.
std::string pdl_label(const nd::stream& s) {
  const bool on = nd::jit::detail::dependent_launch_enabled() && nd::device(s.device()).capability().major >= 9;
  return on ? "PDL allowed" : "PDL off";
}

using clock_type = std::chrono::steady_clock;

/// Wall time of `body` plus the stream running dry, per iteration; `host_us` is the time the host
/// spent queuing (what a CPU-bound loop pays).
template <class F>
void wall_timed(benchmark::State& state, const nd::stream& s, int ops, F&& body) {
  body();  // warm-up: compiles, loads, uploads
  s.synchronize();
  double host_seconds = 0;
  double total_seconds = 0;
  for (auto _ : state) {
    const auto start = clock_type::now();
    body();
    const auto queued = clock_type::now();
    s.synchronize();
    const auto done = clock_type::now();
    host_seconds += std::chrono::duration<double>(queued - start).count();
    const double seconds = std::chrono::duration<double>(done - start).count();
    total_seconds += seconds;
    nd::bench::set_iteration_time(state, seconds);
  }
  const auto iterations = static_cast<double>(state.iterations());
  state.counters["us_per_op"] = total_seconds / iterations / ops * 1e6;
  state.counters["host_us_per_iter"] = host_seconds / iterations * 1e6;
  state.SetItemsProcessed(state.iterations() * ops);
}

// 100 x `c = a + b` captured once, replayed per iteration.
void BM_graph_replay_100_adds(benchmark::State& state) {
  if (!have_gpu(state)) return;
  nd::stream s(0);
  const auto a = nd::ones<float>({small_n}, s);
  const auto b = nd::ones<float>({small_n}, s);
  auto c = nd::empty<float>({small_n}, s);
  c(nd::ellipsis) = a + b;  // compiled outside the timing
  const nd::graph g = nd::capture(s, [&] {
    for (int i = 0; i < ops_per_graph; ++i) {
      c(nd::ellipsis) = a + b;
    }
  });
  g.upload(s);
  state.SetLabel(pdl_label(s));
  wall_timed(state, s, ops_per_graph, [&] { g.launch(s); });
}

// The same 100 ops launched eagerly.
void BM_eager_100_adds(benchmark::State& state) {
  if (!have_gpu(state)) return;
  nd::stream s(0);
  const auto a = nd::ones<float>({small_n}, s);
  const auto b = nd::ones<float>({small_n}, s);
  auto c = nd::empty<float>({small_n}, s);
  state.SetLabel(pdl_label(s));
  wall_timed(state, s, ops_per_graph, [&] {
    for (int i = 0; i < ops_per_graph; ++i) {
      c(nd::ellipsis) = a + b;
    }
  });
}

// Baseline: a raw CUDA graph of 100 device-to-device copies of the same size (the node floor).
void BM_raw_graph_100_copies_baseline(benchmark::State& state) {
  if (!have_gpu(state)) return;
  nd::stream s(0);
  const auto a = nd::ones<float>({small_n}, s);
  auto c = nd::empty<float>({small_n}, s);
  s.synchronize();
  check(cudaStreamBeginCapture(s.handle(), cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  for (int i = 0; i < ops_per_graph; ++i) {
    check(cudaMemcpyAsync(c.data(), a.data(), a.nbytes(), cudaMemcpyDeviceToDevice, s.handle()), "cudaMemcpyAsync");
  }
  cudaGraph_t graph = nullptr;
  check(cudaStreamEndCapture(s.handle(), &graph), "cudaStreamEndCapture");
  cudaGraphExec_t exec = nullptr;
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  wall_timed(state, s, ops_per_graph, [&] { check(cudaGraphLaunch(exec, s.handle()), "cudaGraphLaunch"); });
  check(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
  check(cudaGraphDestroy(graph), "cudaGraphDestroy");
}

// 3 stages on pinned buffers: H2D, y = x * 2 + 1, D2H.
struct pipeline {
  nd::stream s{0};
  nd::index_t n;
  float* in = nullptr;
  float* out = nullptr;
  nd::ndarray<float> x;
  nd::ndarray<float> y;

  explicit pipeline(nd::index_t count) : n(count), x(nd::empty<float>({count}, s)), y(nd::empty<float>({count}, s)) {
    check(cudaHostAlloc(reinterpret_cast<void**>(&in), bytes(), cudaHostAllocDefault), "cudaHostAlloc");
    check(cudaHostAlloc(reinterpret_cast<void**>(&out), bytes(), cudaHostAllocDefault), "cudaHostAlloc");
    for (nd::index_t i = 0; i < n; ++i) {
      in[i] = static_cast<float>(i % 1000);
    }
  }
  ~pipeline() {
    (void)cudaFreeHost(in);
    (void)cudaFreeHost(out);
  }
  pipeline(const pipeline&) = delete;
  pipeline& operator=(const pipeline&) = delete;
  [[nodiscard]] std::size_t bytes() const { return static_cast<std::size_t>(n) * sizeof(float); }

  void run() {
    nd::copy_to_device(x.data(), in, bytes(), s);
    y(nd::ellipsis) = x * 2.0f + 1.0f;
    y.copy_to_host(out, s);
  }
};

void BM_pipeline_graph(benchmark::State& state) {
  if (!have_gpu(state)) return;
  pipeline p(state.range(0));
  p.run();
  const nd::graph g = nd::capture(p.s, [&] { p.run(); });
  g.upload(p.s);
  wall_timed(state, p.s, 1, [&] { g.launch(p.s); });
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(2 * p.bytes()));
  guard_bandwidth(state);
}

void BM_pipeline_eager(benchmark::State& state) {
  if (!have_gpu(state)) return;
  pipeline p(state.range(0));
  wall_timed(state, p.s, 1, [&] { p.run(); });
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(2 * p.bytes()));
  guard_bandwidth(state);
}

}  // namespace

BENCHMARK(BM_graph_replay_100_adds)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_eager_100_adds)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_raw_graph_100_copies_baseline)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_pipeline_graph)->Arg(1 << 16)->Arg(1 << 22)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_pipeline_eager)->Arg(1 << 16)->Arg(1 << 22)->UseManualTime()->Unit(benchmark::kMicrosecond);
