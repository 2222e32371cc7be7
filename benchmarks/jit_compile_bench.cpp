// First-call NVRTC compile time, measured on the CPU (NVRTC needs no GPU): a new elementwise kernel
// and a new reduction, generated exactly as the library generates them, compiled for sm_90 with
// the disk cache off; with a GPU, also the whole cold first call of each. Builds on the jit
// engine's internals (src/jit) and the reduction table (src/ops).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/enumeration.hpp>
#include <ndcuda/expr/detail/reduce_engine.hpp>
#include <ndcuda/jit/elementwise_kernel.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <string>
#include <vector>

#include "expr/reduction_axes.hpp"
#include "expr/reduction_state.hpp"
#include "jit/kernel_state.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/program_cache.hpp"
#include "jit/tier0_program.hpp"
#include "support/cold_sources.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;

namespace {

const nd::compute_capability sm90{9, 0};

// Every compile is of a source no earlier one used (a new constant, support/cold_sources.hpp),
// with nothing on disk to find and nothing written: the cold first call of a new kernel, less the
// module load and launch.
long long next_unique() {
  static const bool cold = [] {
    jd::global_program_cache().set_disk(nullptr);
    return true;
  }();
  (void)cold;
  return nd::bench::cold_source_number();
}

// The slowest of the repetitions beside Google Benchmark's mean and median: a first call's time
// spreads (the host's state, NVRTC's allocations), and the goal is about every first call.
double slowest(const std::vector<double>& v) {
  return *std::max_element(v.begin(), v.end());
}

std::string constant() {
  return std::to_string(next_unique()) + ".0f";
}

// A kernel of one statement: NVRTC's fixed cost per program, which nothing below can go under.
void compile_floor_empty_kernel(benchmark::State& state) {
  for (auto _ : state) {
    const std::string k = "k" + std::to_string(next_unique());
    nd::raw_kernel kernel("extern \"C\" __global__ void " + k + "(float* o) { o[threadIdx.x] = 1.0f; }", k);
    kernel.compile(sm90);
  }
  state.SetLabel("raw_kernel of one store: NVRTC's floor per program");
}

// The variant nearly every first elementwise call uses: dense, 32-bit, 16-byte vectors.
void compile_new_elementwise(benchmark::State& state) {
  for (auto _ : state) {
    nd::elementwise_kernel<float(float, float)> kernel("out = x * " + constant() + " + y", "cold");
    kernel.compile(sm90);
  }
  state.SetLabel("elementwise_kernel<float(float, float)>, contiguous variant; GPU goal <= 40 ms");
}

// a * b + c of three dense float32 arrays, as the library fuses it: the body the expression code
// generator writes (src/expr/codegen.cpp spells operators as ndcuda::nd_<ufunc> calls), the variant
// a first launch on dense aligned arrays compiles. Each iteration renames the kernel: the body
// holds no constant to vary.
void compile_new_fused_expression(benchmark::State& state) {
  for (auto _ : state) {
    const auto st = jd::make_elementwise_state("out = ndcuda::nd_add(ndcuda::nd_multiply(in0, in1), in2)",
                                               "nd_fused_" + std::to_string(next_unique()), nd::dtype::float32,
                                               {nd::dtype::float32, nd::dtype::float32, nd::dtype::float32});
    jd::compile_elementwise(*st, sm90);
  }
  state.SetLabel("a * b + c, float32 (ndcuda::nd_add/nd_multiply), contiguous variant; GPU goal <= 40 ms");
}

// The first pass of sum(a * c, axis=1) over a dense 4096 x 1024 float32 array: rows, vectors, one
// split (benchmarks/reduction_bench.cpp's cold case; no second pass is compiled there).
void compile_new_reduction_rows(benchmark::State& state) {
  const nd::shape_t shape{4096, 1024};
  const std::vector<bool> reduced{false, true};
  const std::vector<nd::strides_t> in{nd::c_strides(shape)};
  const std::vector<std::uintptr_t> aligned{256};
  const nd::strides_t out = nd::detail::reduction_out_strides(shape, reduced);
  const nd::detail::leaf_ref input{nullptr, nullptr, nd::dtype::float32, nullptr, 0};
  constexpr nd::detail::reduce_spec spec{nd::detail::reduce_kind::sum, nd::dtype::float32, nd::dtype::float32,
                                         nd::dtype::float32};
  for (auto _ : state) {
    const auto st = nd::detail::make_reduction_state("out = in0 * " + constant(), spec, {&input, 1}, {});
    const jd::reduction_plan plan = st->engine.plan(shape, reduced, out, in, aligned);
    jd::compile_for(st->engine.first_pass(plan).kernel, sm90);
  }
  state.SetLabel("sum(a * c, 1), 4096 x 1024 float32: first pass only; GPU goal <= 100 ms");
}

// sum(a * c) of 2^24 float32: a full reduction needs both passes on its first call. The second
// pass's source holds no map (one per reducer and dtype in a process), so each iteration renames
// the kernels to make both passes new; they compile side by side, so real time is what counts.
void compile_new_reduction_full(benchmark::State& state) {
  const nd::shape_t shape{nd::index_t{1} << 24};
  const std::vector<bool> reduced{true};
  const std::vector<nd::strides_t> in{nd::c_strides(shape)};
  const nd::strides_t out = nd::detail::reduction_out_strides(shape, reduced);
  const nd::detail::leaf_ref input{nullptr, nullptr, nd::dtype::float32, nullptr, 0};
  constexpr nd::detail::reduce_spec spec{nd::detail::reduce_kind::sum, nd::dtype::float32, nd::dtype::float32,
                                         nd::dtype::float32};
  const bool side_by_side = state.range(0) != 0;
  const std::vector<std::uintptr_t> aligned{256};
  for (auto _ : state) {
    const auto st = nd::detail::make_reduction_state("out = in0", spec, {&input, 1}, {});
    jd::reduction_signature sig = st->engine.signature;
    sig.name += "_" + std::to_string(next_unique());
    const jd::reduction_state engine(std::move(sig));
    if (side_by_side) {
      jd::compile_reduction(engine, sm90, shape, reduced, out, in);
    } else {  // the two passes in turn, as before: the baseline for the same run
      const jd::reduction_plan plan = engine.plan(shape, reduced, out, in, aligned);
      jd::compile_for(engine.first_pass(plan).kernel, sm90);
      jd::compile_for(engine.second_pass(plan).kernel, sm90);
    }
  }
  state.SetLabel(side_by_side ? "sum(a), 2^24 float32: both passes side by side; GPU goal <= 100 ms"
                              : "sum(a), 2^24 float32: both passes in turn (baseline)");
}

// ---- On the GPU: the whole cold first call (compile, module load, launch, result), the figures
// the goals name (H200: a new elementwise kernel <= 40 ms, a new reduction <= 100 ms).

bool have_gpu(benchmark::State& state) {
  if (nd::device_count() == 0) {
    state.SkipWithError("no CUDA device: the first-call figures need one (the compile figures above do not)");
    return false;
  }
  return true;
}

// a * b + c into out, 2^24 float32 each, a kernel no earlier call compiled.
void first_call_cold_fused_expression(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = nd::index_t{1} << 24;
  const auto a = nd::zeros<float>({n});
  const auto b = nd::zeros<float>({n});
  const auto c = nd::zeros<float>({n});
  auto out = nd::empty<float>({n});
  const void* in[] = {a.data(), b.data(), c.data()};
  const nd::device_guard guard(out.device());  // as benchmarks/jit_bench.cpp's cold first call
  // The compile path, which tiers (on by default) would hide behind tier 0: jit_bench's
  // jit_first_result_tiered measures that one.
  const bool tiered = jd::tiered_calls_enabled();
  jd::set_tiered_calls(false);
  for (auto _ : state) {
    const auto st = jd::make_elementwise_state("out = ndcuda::nd_add(ndcuda::nd_multiply(in0, in1), in2)",
                                               "nd_fused_" + std::to_string(next_unique()), nd::dtype::float32,
                                               {nd::dtype::float32, nd::dtype::float32, nd::dtype::float32});
    jd::launch_elementwise(*st, n, out.data(), in, out.stream());
    out.stream().synchronize();
  }
  jd::set_tiered_calls(tiered);
  state.SetLabel("a * b + c, 2^24 float32: compile + load + launch; goal <= 40 ms on an H200");
}

// sum(a * c, axis=1) of 4096 x 1024 float32 (benchmarks/reduction_bench.cpp's cold case).
void first_call_cold_reduction(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = nd::zeros<float>({4096, 1024});
  auto out = nd::empty<float>({4096});
  const nd::detail::leaf_ref input{a.data(), &a.layout(), nd::dtype::float32, &a.stream(), a.device()};
  const nd::detail::leaf_ref target{out.data(), &out.layout(), nd::dtype::float32, &out.stream(), out.device()};
  constexpr nd::detail::reduce_spec spec{nd::detail::reduce_kind::sum, nd::dtype::float32, nd::dtype::float32,
                                         nd::dtype::float32};
  for (auto _ : state) {
    const auto st = nd::detail::make_reduction_state("out = in0 * " + constant(), spec, {&input, 1}, {});
    const auto call = nd::detail::prepare_reduction(spec.kind, {&input, 1}, std::vector<int>{1}, false);
    nd::detail::run_reduction(*st, call, target, {&input, 1}, nullptr, 0.0);
    out.stream().synchronize();
  }
  state.SetLabel("sum(a * c, 1), 4096 x 1024 float32: compile + load + launch; goal <= 100 ms on an H200");
}

}  // namespace

// The first compile in a process also pays NVRTC's own start-up (tens of ms): measured once, first.
BENCHMARK(compile_new_elementwise)->Name("first_compile_in_process")->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(compile_floor_empty_kernel)->Iterations(15)->Repetitions(3)->Unit(benchmark::kMillisecond);
BENCHMARK(compile_new_elementwise)->Iterations(15)->Repetitions(3)->Unit(benchmark::kMillisecond);
BENCHMARK(compile_new_fused_expression)->Iterations(15)->Repetitions(3)->Unit(benchmark::kMillisecond);
BENCHMARK(compile_new_reduction_rows)->Iterations(10)->Repetitions(3)->Unit(benchmark::kMillisecond);
BENCHMARK(compile_new_reduction_full)
    ->ArgName("side_by_side")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(10)
    ->Repetitions(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
// One first call per repetition: the median is the typical first call, "slowest" the worst one.
constexpr auto one_call_per_repetition = [](auto* b) {
  b->Iterations(1)
      ->Repetitions(20)
      ->ComputeStatistics("slowest", slowest)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
};
BENCHMARK(first_call_cold_fused_expression)->Apply(one_call_per_repetition);
BENCHMARK(first_call_cold_reduction)->Apply(one_call_per_repetition);
