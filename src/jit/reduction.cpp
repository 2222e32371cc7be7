// Reduction kernels: per-variant state, launch geometry (how many blocks, how the reduced elements
// split over blockIdx.y), and the launch of both passes, or of tier 0 while they compile. The NumPy
// side is src/expr/reduction*.cpp.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <future>
#include <ndcuda/core/error.hpp>
#include <ndcuda/jit/launch.hpp>
#include <system_error>

#include "jit/elementwise_source.hpp"
#include "jit/module.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/reduction_state.hpp"

namespace ndcuda::jit::detail {
namespace {

index_t ceil_div(index_t a, index_t b) {
  return (a + b - 1) / b;
}

// `resident`: the blocks of reduce_block threads the device holds at once. Enough outputs fill
// them with one split; otherwise the reduced elements split over blockIdx.y so that every SM has
// blocks, each split long enough that the second pass stays small.
void plan_geometry(reduction_launch& g, index_t resident) {
  const reduction_plan& plan = g.plan;
  g.resident = resident;
  g.block = dim3(reduce_block);
  const index_t per_block = plan.strategy == reduce_strategy::rows ? reduce_block / plan.group : reduce_block;
  const index_t needed = std::max<index_t>(ceil_div(plan.outputs, per_block), 1);
  const index_t grid_x = std::min<index_t>(needed, resident * 8);
  index_t splits = 1;
  if (needed < resident && plan.reduced > 0) {
    const index_t min_chunk =
        plan.strategy == reduce_strategy::rows ? index_t{plan.group} * plan.vector * 8 : index_t{16};
    splits = std::clamp<index_t>(resident / needed, 1, std::min<index_t>(ceil_div(plan.reduced, min_chunk), 65535));
  }
  // Rows: every split starts where a whole step of its group does (group x vector elements, 4 KiB
  // for float32 vectors of a block), so each warp's loads cover whole 512-byte spans. Splits that
  // started only vector-aligned read 2^28 floats at 4385 GB/s on an H200, aligned ones at 4576.
  const index_t align = plan.strategy == reduce_strategy::rows ? index_t{plan.group} * plan.vector : index_t{1};
  g.chunk = std::max<index_t>(ceil_div(plan.reduced, splits), 0);
  g.chunk = ceil_div(g.chunk, align) * align;
  g.splits = g.chunk > 0 ? ceil_div(plan.reduced, g.chunk) : 1;
  g.grid = dim3(static_cast<unsigned>(grid_x), static_cast<unsigned>(g.splits));
}

// Compiles `kernel` for `cc` on another thread, so that a reduction's two passes compile side by
// side on its first call (NVRTC is single-threaded per program; two programs compile in parallel).
// Only NVRTC and the caches run there, no CUDA call, so it is safe during stream capture. Errors
// are left to the caller's own resolution, which compiles again and reports them.
std::future<void> compile_in_background(const kernel_state& kernel, compute_capability cc) {
  try {
    return std::async(std::launch::async, [&kernel, cc] {
      try {
        compile_for(kernel, cc);
      } catch (...) {  // NOLINT(bugprone-empty-catch): reported by the caller's own compile
      }
    });
  } catch (const std::system_error&) {  // no thread to be had: the caller compiles in turn
    return {};
  }
}

}  // namespace

index_t resident_blocks(int device) {
  // SMs x threads an SM holds / reduce_block. Not the compiled kernel's occupancy, which tier 0
  // cannot know before the kernel exists: the split of the reduced elements, and so the order of a
  // float sum, must not depend on which tier runs. Asked once per device; every reduction call
  // reads it, so without a lock (0: not asked yet; two first callers store the same value).
  const auto ask = [device] {
    const ndcuda::device d(device);
    // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR and cudaDevAttrMaxThreadsPerMultiProcessor
    // are both 39.
    const index_t threads = d.attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    return std::max<index_t>(index_t{d.multiprocessor_count()} * threads / reduce_block, 1);
  };
  static std::array<std::atomic<index_t>, 64> known{};
  if (device < 0 || device >= static_cast<int>(known.size())) {
    return ask();
  }
  index_t blocks = known[static_cast<std::size_t>(device)].load(std::memory_order_relaxed);
  if (blocks == 0) {
    blocks = ask();
    known[static_cast<std::size_t>(device)].store(blocks, std::memory_order_relaxed);
  }
  return blocks;
}

dim3 finish_grid(const reduction_launch& g) {
  const reduction_plan& plan = g.plan;
  const index_t blocks = plan.strategy == reduce_strategy::rows
                             ? std::min<index_t>(plan.outputs, g.resident * 8)
                             : std::min<index_t>(ceil_div(plan.outputs, reduce_block), g.resident * 8);
  return dim3(static_cast<unsigned>(blocks));
}

reduction_state::reduction_state(reduction_signature sig, program_cache* programs)
    : signature(std::move(sig)), cache(programs != nullptr ? programs : &global_program_cache()) {
  check_kernel_identifier(signature.name, "reduction");
  for (dtype t : signature.in) {
    itemsizes.push_back(itemsize(t));
  }
  tier0 = make_tier0_reduction(signature);
}

template <class F>
const generated_kernel& reduction_state::find(const std::string& name, const F& make) const {
  std::lock_guard lock(mutex_);
  auto it = kernels_.find(name);
  if (it == kernels_.end()) {
    it = kernels_.emplace(name, std::unique_ptr<generated_kernel>(make())).first;
  }
  return *it->second;
}

const generated_kernel& reduction_state::first_pass(const reduction_plan& plan) const {
  const std::string name = reduction_kernel_name(signature, plan);
  return find(name, [&] {
    return new generated_kernel{
        reduction_args(signature, plan),
        kernel_state(reduction_source(signature, plan), name, generated_kernel_options(), cache, /*waits_first=*/true)};
  });
}

const generated_kernel& reduction_state::second_pass(const reduction_plan& plan) const {
  const std::string name = finish_kernel_name(signature, plan);
  return find(name, [&] {
    return new generated_kernel{finish_args(signature, plan),
                                kernel_state(finish_source(signature, plan), name, generated_kernel_options(), cache,
                                             /*waits_first=*/true)};
  });
}

reduction_plan reduction_state::plan(std::span<const index_t> shape, const std::vector<bool>& reduced,
                                     std::span<const index_t> out_strides, std::span<const strides_t> in_strides,
                                     std::span<const std::uintptr_t> addresses) const {
  return plan_reduction(shape, reduced, out_strides, in_strides, addresses, itemsizes, signature.keep_order);
}

reduction_launch plan_reduction_launch(const reduction_state& state, int device, std::span<const index_t> shape,
                                       const std::vector<bool>& reduced, std::span<const index_t> out_strides,
                                       std::span<const strides_t> in_strides,
                                       std::span<const std::uintptr_t> addresses) {
  reduction_launch g;
  g.plan = state.plan(shape, reduced, out_strides, in_strides, addresses);
  g.first = &state.first_pass(g.plan);
  plan_geometry(g, resident_blocks(device));
  if (!g.first->kernel.unresolved_on(device)) {
    g.kernel = &g.first->kernel.on_device(device);
    return g;
  }
  // A first call here. Tier 0, when it can: both passes compile in the background meanwhile.
  index_t buffer_bytes = 0;
  if (state.tier0 && tier0_fits(*state.tier0, g.plan, itemsize(state.signature.value), &buffer_bytes) &&
      tier0_reductions_run_on(device) && !g.first->kernel.ready_without_waiting(device)) {
    if (g.splits > 1) {
      (void)state.second_pass(g.plan).kernel.ready_without_waiting(device);
    }
    g.tier0 = true;
    g.tier0_buffer_bytes = buffer_bytes;
    return g;
  }
  // Else wait, compiling the passes side by side (joined before returning: both are then in memory).
  std::future<void> second;
  const generated_kernel& finish = state.second_pass(g.plan);
  if (g.splits > 1 && finish.kernel.unresolved_on(device)) {
    second = compile_in_background(finish.kernel, ndcuda::device(device).capability());
  }
  g.kernel = &g.first->kernel.on_device(device);
  if (second.valid()) {
    second.wait();
  }
  return g;
}

void launch_reduction(const reduction_state& state, const reduction_launch& g, const stream& s, void* out,
                      void* partials, void* map_buffer, const void* const* inputs, const void* const* scalars,
                      double param) {
  if (g.tier0 && launch_tier0_reduction(*state.tier0, g, s, out, partials, map_buffer, inputs, scalars, param)) {
    return;  // the passes compile in the background for later calls
  }
  const reduction_plan& plan = g.plan;
  const auto stream = static_cast<CUstream>(s.handle());
  const loaded_kernel& first = g.kernel != nullptr ? *g.kernel : g.first->kernel.on_device(s.device());
  {
    kernel_args::packer args(g.first->args);
    args.pointer(out)
        .pointer(partials)
        .inputs(inputs, state.signature.in.size())
        .scalars(scalars, state.signature.scalars.size())
        .indexer(plan.outputs, plan.out_shape, plan.out_strides)
        .indexer(plan.reduced, plan.red_shape, plan.red_strides)
        .index(g.chunk)
        .value(param);
    args.launch(first, g.grid, g.block, 0, stream, g.first->kernel.waits_first);
  }
  if (g.splits == 1) {
    return;
  }
  const generated_kernel& second = state.second_pass(plan);
  const loaded_kernel& f = second.kernel.on_device(s.device());
  kernel_args::packer args(second.args);
  args.pointer(out)
      .pointer(partials)
      .indexer(plan.outputs, plan.out_shape, plan.out_strides)
      .index(g.splits)
      .value(static_cast<long long>(plan.reduced))
      .value(param);
  args.launch(f, finish_grid(g), dim3(reduce_block), 0, stream, second.kernel.waits_first);
}

void compile_reduction(const reduction_state& state, compute_capability cc, std::span<const index_t> shape,
                       const std::vector<bool>& reduced, std::span<const index_t> out_strides,
                       std::span<const strides_t> in_strides) {
  const std::vector<std::uintptr_t> aligned(in_strides.size(), 256);
  const reduction_plan plan = state.plan(shape, reduced, out_strides, in_strides, aligned);
  const generated_kernel& second = state.second_pass(plan);
  std::future<void> pending = compile_in_background(second.kernel, cc);
  compile_for(state.first_pass(plan).kernel, cc);
  if (pending.valid()) {
    pending.wait();
  }
  compile_for(second.kernel, cc);  // a memory hit, or the compile_error the background compile met
}

std::string reduction_source_for(const reduction_state& state, std::span<const index_t> shape,
                                 const std::vector<bool>& reduced, std::span<const index_t> out_strides,
                                 std::span<const strides_t> in_strides) {
  const std::vector<std::uintptr_t> aligned(in_strides.size(), 256);
  return reduction_source(state.signature, state.plan(shape, reduced, out_strides, in_strides, aligned));
}

}  // namespace ndcuda::jit::detail
