// JIT costs, each beside the floor it is measured against: the first call of a new elementwise
// kernel (cold) beside a bare NVRTC compile and load, a warm disk cache beside a bare module load,
// and the host overhead of a cached launch beside a raw cuLaunchKernel of the very same function.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <ndcuda/ndcuda.hpp>
#include <string>
#include <vector>

#include "device/driver_api.hpp"
#include "jit/elementwise_state.hpp"
#include "jit/kernel_state.hpp"
#include "jit/module.hpp"
#include "jit/program_cache.hpp"
#include "jit/reduction_state.hpp"
#include "jit/tier0_images.hpp"
#include "jit/tier0_program.hpp"
#include "support/cold_sources.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;

namespace {

// A disk cache of their own, unless NDCUDA_CACHE_DIR says otherwise: the benchmarks neither read
// nor fill the user's cache. Set before anything asks for the cache.
const bool own_cache_dir = [] {
  if (const char* set = std::getenv("NDCUDA_CACHE_DIR"); set != nullptr && *set != '\0') return false;
  static std::string dir = "/tmp/ndcuda-jit-bench-XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr) return false;
  ::setenv("NDCUDA_CACHE_DIR", dir.c_str(), 1);
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  });
  return true;
}();

constexpr nd::index_t elements = 1 << 20;
constexpr int launches_per_batch = 256;
const char* body = "out = x * 3.5f + y * y";

bool have_gpu(benchmark::State& state) {
  if (nd::device_count() == 0) {
    state.SkipWithError(("no CUDA device available: " + nd::device_unavailable_reason()).c_str());
    return false;
  }
  return true;
}

struct device_arrays {
  float* x = nullptr;
  float* y = nullptr;
  float* out = nullptr;
};

// Three zeroed arrays of `count` floats on device 0 (the callers keep them for the process).
device_arrays make_arrays(nd::index_t count) {
  nd::device_guard guard(0);
  device_arrays made;
  for (float** p : {&made.x, &made.y, &made.out}) {
    NDCUDA_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(p), count * sizeof(float)));
    NDCUDA_CUDA_CHECK(cudaMemset(*p, 0, count * sizeof(float)));
  }
  NDCUDA_CUDA_CHECK(cudaDeviceSynchronize());
  return made;
}

const device_arrays& arrays() {
  static const device_arrays a = make_arrays(elements);
  return a;
}

int device_arch() {
  return nd::device(0).capability().value();
}

// Seconds per launch, from iterations of `launches_per_batch` launches.
benchmark::Counter per_launch() {
  return {static_cast<double>(launches_per_batch),
          benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert};
}

// Cold compiles for the life of the object: no disk cache to find a kernel in or to write to;
// the previous one comes back at the end of the scope, however the benchmark leaves it.
class without_disk_cache {
 public:
  without_disk_cache() : disk_(jd::global_program_cache().disk()) { jd::global_program_cache().set_disk(nullptr); }
  ~without_disk_cache() { jd::global_program_cache().set_disk(disk_); }
  without_disk_cache(const without_disk_cache&) = delete;
  without_disk_cache& operator=(const without_disk_cache&) = delete;

 private:
  std::shared_ptr<jd::disk_cache> disk_;
};

// --- first call of a new kernel --------------------------------------------------------------

void jit_first_call_cold_elementwise(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto& a = arrays();
  nd::device_guard guard(0);
  nd::stream s(0);
  const without_disk_cache cold;
  for (auto _ : state) {
    // A new source every time: a constant no earlier iteration used.
    nd::elementwise_kernel<float(float, float)> kernel(
        std::string(body) + " + " + std::to_string(nd::bench::cold_source_number()) + ".0f", "cold");
    kernel(elements, a.out, a.x, a.y, s);
    s.synchronize();
  }
  state.SetLabel("target <= 100 ms; CuPy 416 ms on an H200");
}

void nvrtc_compile_and_load_baseline(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto& api = nd::detail::driver();
  nd::device_guard guard(0);
  nd::stream s(0);
  const jd::compile_target target = jd::select_target(device_arch());
  float* x = arrays().x;
  for (auto _ : state) {
    // The floor: a tiny kernel through bare NVRTC, loaded and launched once.
    const auto key = jd::make_key("extern \"C\" __global__ void tiny(float* x) { x[threadIdx.x] *= " +
                                      std::to_string(nd::bench::cold_source_number()) + ".0f; }",
                                  "tiny.cu", {"tiny"}, {}, target);
    const auto compiled = jd::nvrtc_compile(key);
    CUmodule module = nullptr;
    CUfunction function = nullptr;
    NDCUDA_DRIVER_CHECK(api.module_load_data(&module, compiled.image.data()));
    NDCUDA_DRIVER_CHECK(api.module_get_function(&function, module, compiled.lowered_names[0].c_str()));
    void* args[] = {&x};
    NDCUDA_DRIVER_CHECK(api.launch_kernel(function, 1, 1, 1, 32, 1, 1, 0, s.handle(), args, nullptr));
    s.synchronize();
    NDCUDA_DRIVER_CHECK(api.module_unload(module));
  }
  state.SetLabel("a bare NVRTC compile + load + launch of a one-line kernel");
}

// --- tiered first calls: a new fused expression's first result ------------------------------

// What expr/codegen.cpp generates for `x * s0 + y * y` over float32 (a fused expression's body).
const char* expression_body = "out = ndcuda::nd_add(ndcuda::nd_multiply(in0, s0), ndcuda::nd_multiply(in1, in1))";

// The process's first call (`first_ms`, which loads tier 0's module) apart, then the median and
// slowest of the rest, in milliseconds.
void report_first_results(benchmark::State& state, const std::vector<double>& ms, const char* label) {
  state.SetLabel(label);
  if (ms.empty()) return;
  state.counters["first_ms"] = ms.front();
  std::vector<double> rest(ms.begin() + 1, ms.end());
  std::sort(rest.begin(), rest.end());
  if (!rest.empty()) {
    state.counters["median_ms"] = rest[rest.size() / 2];
    state.counters["slowest_ms"] = rest.back();
  }
}

// Each iteration a new expression state whose kernel no cache holds (its name is in the source):
// the time from the call to its result on the host. `tiered` gives it its tier-0 program, as
// make_expression_state does; without it the call waits for NVRTC, as before tiers. Reports the
// median and slowest first results, and the process's very first tier-0 call (which loads the
// interpreter's module) apart.
void first_result_of_new_expressions(benchmark::State& state, bool tiered) {
  if (!have_gpu(state)) return;
  const auto& a = arrays();
  nd::device_guard guard(0);
  nd::stream s(0);
  const without_disk_cache cold;
  const float scale = 3.5F;
  const void* scalars[] = {&scale};
  const void* inputs[] = {a.x, a.y};
  std::vector<double> ms;
  for (auto _ : state) {
    jd::elementwise_state made(expression_body, "fresh" + std::to_string(nd::bench::cold_source_number()),
                               {nd::dtype::float32, {nd::dtype::float32, nd::dtype::float32}, {nd::dtype::float32}});
    if (tiered) {
      made.tier0 = jd::encode_tier0(made.body, made.signature);
      if (!made.tier0) {
        state.SkipWithError("the body did not encode");
        break;
      }
    }
    const auto start = std::chrono::steady_clock::now();
    jd::launch_elementwise(made, elements, a.out, inputs, s, scalars);
    const auto launched = std::chrono::steady_clock::now();
    s.synchronize();
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    if (ms.empty()) {  // where the process's first call spends its time: the launch, or the GPU
      state.counters["first_launch_ms"] = std::chrono::duration<double, std::milli>(launched - start).count();
    }
    state.SetIterationTime(took.count());
    ms.push_back(took.count() * 1e3);
  }
  nd::jit::wait_all();  // not timed: the background compiles finish before the next benchmark
  report_first_results(state, ms,
                       tiered ? "tier 0 runs it; target <= 2 ms" : "waits for NVRTC (as NDCUDA_JIT_TIERED=0)");
}

void jit_first_result_tiered(benchmark::State& state) {
  first_result_of_new_expressions(state, true);
}
void jit_first_result_untiered(benchmark::State& state) {
  first_result_of_new_expressions(state, false);
}

// --- tiered first calls: a new reduction's first result -------------------------------------

// Each iteration a new reduction, sum(x * s0, 1) over 1024 x 1024 float32 (its name in the source,
// so no cache holds its kernels): the time from planning to its result on the host. `tiered`:
// tier 0 runs it (the map on the interpreter, then the ahead-of-time fold); without, the call
// waits for both passes to compile. As above, the process's first tier-0 call (which loads the
// folds' module) is reported apart.
void first_result_of_new_reductions(benchmark::State& state, bool tiered) {
  if (!have_gpu(state)) return;
  const auto& a = arrays();
  nd::device_guard guard(0);
  nd::stream s(0);
  const without_disk_cache cold;
  jd::set_tiered_calls(tiered);
  const float scale = 3.5F;
  const void* scalars[] = {&scale};
  const void* inputs[] = {a.x};
  const nd::shape_t shape{elements / 1024, 1024};
  const std::vector<bool> reduced{false, true};
  const nd::strides_t out_strides{1, 0};
  const std::vector<nd::strides_t> in_strides{nd::c_strides(shape)};
  const std::vector<std::uintptr_t> addresses{reinterpret_cast<std::uintptr_t>(a.x)};
  std::vector<double> ms;
  for (auto _ : state) {
    jd::reduction_signature sig;
    sig.name = "fresh_sum" + std::to_string(nd::bench::cold_source_number());
    sig.map_statement = "out = ndcuda::nd_multiply(in0, s0)";
    sig.reducer = "ndcuda::sum_reducer<float, float, float>";
    sig.value = sig.acc = sig.out = nd::dtype::float32;
    sig.in = {nd::dtype::float32};
    sig.scalars = {nd::dtype::float32};
    const jd::reduction_state made(std::move(sig));
    if (tiered && !made.tier0) {
      state.SkipWithError("the reduction has no tier 0");
      break;
    }
    const auto start = std::chrono::steady_clock::now();
    const jd::reduction_launch launch =
        jd::plan_reduction_launch(made, 0, shape, reduced, out_strides, in_strides, addresses);
    if (launch.splits > 1 || launch.tier0 != tiered) {
      state.SkipWithError("the plan split, or took another tier than asked");
      break;
    }
    const auto planned = std::chrono::steady_clock::now();
    // The map's buffer is y (as many floats as the map writes); the 1024 sums go to out.
    jd::launch_reduction(made, launch, s, a.out, nullptr, a.y, inputs, scalars, 0.0);
    const auto launched = std::chrono::steady_clock::now();
    s.synchronize();
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    if (ms.empty()) {  // where the process's first call spends its time
      state.counters["first_plan_ms"] = std::chrono::duration<double, std::milli>(planned - start).count();
      state.counters["first_launch_ms"] = std::chrono::duration<double, std::milli>(launched - planned).count();
    }
    state.SetIterationTime(took.count());
    ms.push_back(took.count() * 1e3);
  }
  nd::jit::wait_all();  // not timed: the background compiles finish before the next benchmark
  jd::use_environment_for_tiered_calls();
  report_first_results(state, ms,
                       tiered ? "tier 0 runs it; target <= 3 ms" : "waits for NVRTC (as NDCUDA_JIT_TIERED=0)");
}

void jit_first_reduction_tiered(benchmark::State& state) {
  first_result_of_new_reductions(state, true);
}
void jit_first_reduction_untiered(benchmark::State& state) {
  first_result_of_new_reductions(state, false);
}

// Steady bandwidth of the same expression over 2^26 float32: the interpreter (launched directly)
// against the compiled kernel. Target: tier 0 at >= 50% of the compiled kernel.
constexpr nd::index_t stream_elements = nd::index_t{1} << 26;

const device_arrays& stream_arrays() {
  static const device_arrays a = make_arrays(stream_elements);
  return a;
}

void tier_bandwidth(benchmark::State& state, bool interpreter) {
  if (!have_gpu(state)) return;
  const auto& a = stream_arrays();
  nd::device_guard guard(0);
  nd::stream s(0);
  const float scale = 3.5F;
  const void* scalars[] = {&scale};
  const void* inputs[] = {a.x, a.y};
  static const jd::elementwise_state compiled(
      expression_body, "steady", {nd::dtype::float32, {nd::dtype::float32, nd::dtype::float32}, {nd::dtype::float32}});
  const auto program = jd::encode_tier0(compiled.body, compiled.signature);
  const auto launch = [&] {
    if (interpreter) {
      (void)jd::launch_tier0(*program, stream_elements, {}, {}, a.out, inputs, 2, scalars, s);
    } else {
      jd::launch_elementwise(compiled, stream_elements, a.out, inputs, s, scalars);
    }
  };
  launch();
  s.synchronize();
  nd::event start(0, true);
  nd::event stop(0, true);
  for (auto _ : state) {
    start.record(s);
    launch();
    stop.record(s);
    stop.synchronize();
    state.SetIterationTime(nd::elapsed_ms(start, stop) / 1e3);
  }
  state.SetBytesProcessed(state.iterations() * stream_elements * 3 * static_cast<std::int64_t>(sizeof(float)));
  state.SetLabel(interpreter ? "tier 0 (the interpreter); target >= 50% of the compiled kernel"
                             : "the compiled kernel of the same expression");
}

void tier0_interpreter_bandwidth(benchmark::State& state) {
  tier_bandwidth(state, true);
}
void tier1_compiled_bandwidth(benchmark::State& state) {
  tier_bandwidth(state, false);
}

// --- the same kernel in a "new process": memory cache cleared, disk cache warm ----------------

void jit_warm_disk_elementwise(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto& a = arrays();
  nd::device_guard guard(0);
  nd::stream s(0);
  {
    nd::elementwise_kernel<float(float, float)> warm_up(body, "warm");
    warm_up(elements, a.out, a.x, a.y, s);  // compiles once and writes the disk entry
    s.synchronize();
  }
  const auto before = nd::jit::status();
  if (!before.disk_enabled) {
    state.SkipWithError("the disk cache is off (NDCUDA_CACHE=0?)");
    return;
  }
  for (auto _ : state) {
    nd::jit::clear_memory_cache();
    nd::elementwise_kernel<float(float, float)> kernel(body, "warm");
    kernel(elements, a.out, a.x, a.y, s);
    s.synchronize();
  }
  if (nd::jit::status().compiles != before.compiles) {
    state.SkipWithError("a kernel was compiled: the disk cache did not serve it");
  }
  state.SetLabel("target <= 5 ms; a module load alone ~2.4 ms");
}

void module_load_baseline(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto& a = arrays();
  const auto& api = nd::detail::driver();
  nd::device_guard guard(0);
  nd::stream s(0);
  // The CUBIN the elementwise benchmark loads: its dense variant for these arrays.
  const jd::elementwise_state state_of(body, "warm", {nd::dtype::float32, {nd::dtype::float32, nd::dtype::float32}});
  const std::vector<std::uintptr_t> addresses = {reinterpret_cast<std::uintptr_t>(a.out),
                                                 reinterpret_cast<std::uintptr_t>(a.x),
                                                 reinterpret_cast<std::uintptr_t>(a.y)};
  const jd::elementwise_plan plan = jd::plan_contiguous(elements, addresses, state_of.itemsizes);
  const auto program =
      jd::global_program_cache().get(state_of.variant(plan).kernel.key_for(jd::select_target(device_arch())));
  int n = elements;
  const float* x = a.x;
  const float* y = a.y;
  float* out = a.out;
  void* args[] = {&out, &x, &y, &n};
  for (auto _ : state) {
    CUmodule module = nullptr;
    CUfunction function = nullptr;
    NDCUDA_DRIVER_CHECK(api.module_load_data(&module, program->compiled().image.data()));
    NDCUDA_DRIVER_CHECK(api.module_get_function(&function, module, program->compiled().lowered_names[0].c_str()));
    NDCUDA_DRIVER_CHECK(api.launch_kernel(function, 256, 1, 1, 256, 1, 1, 0, s.handle(), args, nullptr));
    s.synchronize();
    NDCUDA_DRIVER_CHECK(api.module_unload(module));
  }
  state.SetLabel("cuModuleLoadData + launch of the same CUBIN, no file read");
}

// The process's first tier-0 call loads tier 0's module for the device: range(0) 0 the
// interpreter's image, 1 the reduction folds' image (the architecture this device runs). How much
// of the process-first call (issue 39: <= 2 ms and <= 3 ms) the driver's load of the image takes.
void tier0_image_load(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto& api = nd::detail::driver();
  nd::device_guard guard(0);
  const auto images = state.range(0) == 0 ? jd::tier0_images() : jd::tier0_reduction_images();
  const jd::tier0_image* best = jd::tier0_image_for(images, device_arch());
  if (best == nullptr) {
    state.SkipWithError("no tier-0 image for this device");
    return;
  }
  const char* kernel_name = state.range(0) == 0 ? "ndcuda_tier0_elementwise" : "ndcuda_tier0_fold_sum_f";
  nd::stream s(0);  // the context exists before the first load
  // Each step of making the kernel ready, as program::kernel takes them; the first iteration (the
  // process's first load when this benchmark runs alone) apart.
  double steps[3] = {};
  double first[3] = {};
  for (auto _ : state) {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    CUmodule module = nullptr;
    CUfunction function = nullptr;
    NDCUDA_DRIVER_CHECK(api.module_load_data(&module, best->data));
    const auto t1 = clock::now();
    NDCUDA_DRIVER_CHECK(api.module_get_function(&function, module, kernel_name));
    const auto t2 = clock::now();
    int min_grid = 0;
    int block = 0;
    NDCUDA_DRIVER_CHECK(api.occupancy_max_potential_block_size(&min_grid, &block, function, nullptr, 0, 0));
    const auto t3 = clock::now();
    const double took[3] = {std::chrono::duration<double, std::milli>(t1 - t0).count(),
                            std::chrono::duration<double, std::milli>(t2 - t1).count(),
                            std::chrono::duration<double, std::milli>(t3 - t2).count()};
    for (int i = 0; i < 3; ++i) {
      (state.iterations() == 0 ? first : steps)[i] += took[i];
    }
    NDCUDA_DRIVER_CHECK(api.module_unload(module));
  }
  const double rest = std::max<double>(static_cast<double>(state.iterations()) - 1, 1);
  state.counters["first_load_ms"] = first[0];
  state.counters["first_function_ms"] = first[1];
  state.counters["first_occupancy_ms"] = first[2];
  state.counters["load_ms"] = steps[0] / rest;
  state.counters["function_ms"] = steps[1] / rest;
  state.counters["occupancy_ms"] = steps[2] / rest;
  state.counters["image_kib"] = static_cast<double>(best->size) / 1024.0;
  state.SetLabel(state.range(0) == 0 ? "cuModuleLoadData of the interpreter's image"
                                     : "cuModuleLoadData of the reduction folds' image");
}

// --- host overhead of a cached launch ---------------------------------------------------------

const char* empty_source = "extern \"C\" __global__ void empty_kernel(float* p, int n) {}";

// Each iteration times a batch of launches; the synchronisation between batches (so the launch
// queue never fills and blocks) is not timed.
template <class Launch>
void time_launches(benchmark::State& state, const nd::stream& s, Launch launch) {
  for (auto _ : state) {
    for (int i = 0; i < launches_per_batch; ++i) launch();
    state.PauseTiming();
    s.synchronize();
    state.ResumeTiming();
  }
  state.counters["per_launch"] = per_launch();
}

void jit_cached_launch_raw_kernel(benchmark::State& state) {
  if (!have_gpu(state)) return;
  nd::device_guard guard(0);
  nd::stream s(0);
  nd::raw_kernel kernel(empty_source, "empty_kernel");
  float* p = arrays().x;
  int n = 0;
  kernel(dim3(1), dim3(32), 0, s, p, n);  // compiled and loaded before timing
  s.synchronize();
  time_launches(state, s, [&] { kernel(dim3(1), dim3(32), 0, s, p, n); });
  state.SetLabel("target <= 2.5 us; CuPy 5.2 us, PyTorch 4.3 us");
}

void cu_launch_kernel_baseline(benchmark::State& state) {
  if (!have_gpu(state)) return;
  nd::device_guard guard(0);
  nd::stream s(0);
  // The very CUfunction raw_kernel launches: same source, same key, same cached program.
  const jd::kernel_state kernel(empty_source, "empty_kernel", {});
  const jd::loaded_kernel& loaded = kernel.on_device(0);
  const auto& api = *loaded.driver;
  float* p = arrays().x;
  int n = 0;
  void* args[] = {&p, &n};
  time_launches(state, s, [&] {
    NDCUDA_DRIVER_CHECK(api.launch_kernel(loaded.function, 1, 1, 1, 32, 1, 1, 0, s.handle(), args, nullptr));
  });
  state.SetLabel("raw cuLaunchKernel of the same function");
}

void jit_cached_launch_elementwise(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto& a = arrays();
  nd::device_guard guard(0);
  nd::stream s(0);
  nd::elementwise_kernel<float(float, float)> kernel(body, "scaled_sum");
  kernel(1, a.out, a.x, a.y, s);
  s.synchronize();
  time_launches(state, s, [&] { kernel(1, a.out, a.x, a.y, s); });
  state.SetLabel("dense pointers, 1 element: plan + variant lookup + launch");
}

void jit_cached_launch_elementwise_strided(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto& a = arrays();
  nd::device_guard guard(0);
  nd::stream s(0);
  nd::elementwise_kernel<float(float, float)> kernel(body, "scaled_sum");
  const auto launch = [&] { kernel({a.out, {2, 3}, {1, 2}}, {a.x, {2, 3}}, {a.y, {3}}, s); };
  launch();
  s.synchronize();
  time_launches(state, s, launch);
  state.SetLabel("2-d transposed output, broadcast input: broadcasting + collapsing + launch");
}

}  // namespace

BENCHMARK(jit_first_call_cold_elementwise)->Unit(benchmark::kMillisecond)->Iterations(20)->UseRealTime();
BENCHMARK(jit_first_result_tiered)->Unit(benchmark::kMillisecond)->Iterations(20)->UseManualTime();
BENCHMARK(jit_first_result_untiered)->Unit(benchmark::kMillisecond)->Iterations(20)->UseManualTime();
BENCHMARK(jit_first_reduction_tiered)->Unit(benchmark::kMillisecond)->Iterations(20)->UseManualTime();
BENCHMARK(jit_first_reduction_untiered)->Unit(benchmark::kMillisecond)->Iterations(20)->UseManualTime();
BENCHMARK(tier0_interpreter_bandwidth)->Unit(benchmark::kMicrosecond)->UseManualTime();
BENCHMARK(tier1_compiled_bandwidth)->Unit(benchmark::kMicrosecond)->UseManualTime();
BENCHMARK(nvrtc_compile_and_load_baseline)->Unit(benchmark::kMillisecond)->Iterations(20)->UseRealTime();
BENCHMARK(jit_warm_disk_elementwise)->Unit(benchmark::kMillisecond)->Iterations(50)->UseRealTime();
BENCHMARK(module_load_baseline)->Unit(benchmark::kMillisecond)->Iterations(50)->UseRealTime();
BENCHMARK(tier0_image_load)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(10)->UseRealTime();
BENCHMARK(jit_cached_launch_raw_kernel)->Unit(benchmark::kMicrosecond);
BENCHMARK(cu_launch_kernel_baseline)->Unit(benchmark::kMicrosecond);
BENCHMARK(jit_cached_launch_elementwise)->Unit(benchmark::kMicrosecond);
BENCHMARK(jit_cached_launch_elementwise_strided)->Unit(benchmark::kMicrosecond);
