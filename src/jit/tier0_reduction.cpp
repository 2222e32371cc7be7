// Tier 0 of reductions: which reductions it takes, and their launch (the map on the interpreter,
// then the fold and the finish of kernels/tier0_reduction.cu for the reducer).
#include "jit/tier0_reduction.hpp"

#include <algorithm>
#include <atomic>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/device/device.hpp>

#include "../../kernels/tier0_reducers.cuh"  // shared with the folds: plain C++
#include "jit/elementwise_source.hpp"
#include "jit/module.hpp"
#include "jit/program_cache.hpp"
#include "jit/reduction_state.hpp"
#include "jit/tier0_images.hpp"

namespace ndcuda::jit::detail {
namespace {

#define NDCUDA_TIER0_REDUCER_SPELLING(id, value, ...) #__VA_ARGS__,
constexpr std::string_view reducer_spellings[] = {NDCUDA_TIER0_REDUCERS(NDCUDA_TIER0_REDUCER_SPELLING)};
#undef NDCUDA_TIER0_REDUCER_SPELLING

// Kernel 2i is reducer i's fold, 2i + 1 its finish.
const std::vector<std::string>& kernel_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
#define NDCUDA_TIER0_REDUCER_KERNELS(id, value, ...) \
  all.emplace_back("ndcuda_tier0_fold_" #id);        \
  all.emplace_back("ndcuda_tier0_finish_" #id);
    NDCUDA_TIER0_REDUCERS(NDCUDA_TIER0_REDUCER_KERNELS)
#undef NDCUDA_TIER0_REDUCER_KERNELS
    return all;
  }();
  return names;
}

std::atomic<std::uint64_t> folds{0};

}  // namespace

int tier0_reducer_count() noexcept {
  return static_cast<int>(std::size(reducer_spellings));
}

int tier0_reducer_index(std::string_view spelling) noexcept {
  const auto* found = std::find(std::begin(reducer_spellings), std::end(reducer_spellings), spelling);
  return found == std::end(reducer_spellings) ? -1 : static_cast<int>(found - std::begin(reducer_spellings));
}

std::uint64_t tier0_fold_launch_count() noexcept {
  return folds.load(std::memory_order_relaxed);
}

std::optional<tier0_reduction> make_tier0_reduction(const reduction_signature& signature, std::string* why) {
  auto refuse = [&](std::string reason) -> std::optional<tier0_reduction> {
    if (why != nullptr) {
      *why = std::move(reason);
    }
    return std::nullopt;
  };
  if (!tiered_calls_enabled()) {
    return refuse("tiers are off (NDCUDA_JIT_TIERED=0)");
  }
  tier0_reduction made;
  made.reducer = tier0_reducer_index(signature.reducer);
  if (made.reducer < 0) {
    return refuse("no tier-0 fold for " + signature.reducer);
  }
  elementwise_signature map_signature{signature.value, signature.in, signature.scalars, signature.sources};
  std::optional<tier0_program> map = encode_tier0(signature.map_statement, map_signature, why);
  if (!map) {
    return std::nullopt;
  }
  made.map = std::move(*map);
  const std::vector<ndcuda_tier0_step>& steps = made.map.steps;
  made.reads_input = steps.size() == 1 && steps[0].op == ndcuda_tier0_load_input && steps[0].aux == 0;
  made.nvtx = ndcuda::detail::nvtx_register(signature.name + " (tier 0)");
  return made;
}

bool tier0_fits(const tier0_reduction& tier0, const reduction_plan& plan, std::size_t value_bytes,
                index_t* buffer_bytes) {
  *buffer_bytes = 0;
  if (plan.out_ndim() > NDCUDA_TIER0_REDUCE_DIMS) {
    return false;
  }
  if (tier0.reads_input && plan.out_ndim() == 1 && plan.red_ndim() == 1) {
    return true;
  }
  if (plan.out_ndim() + plan.red_ndim() > NDCUDA_TIER0_MAX_NDIM || plan.outputs <= 0 || plan.reduced <= 0 ||
      plan.reduced > tier0_map_buffer_limit / plan.outputs / static_cast<index_t>(value_bytes)) {
    return false;
  }
  *buffer_bytes = plan.outputs * plan.reduced * static_cast<index_t>(value_bytes);
  return true;
}

bool tier0_reductions_run_on(int device_index) {
  return tier0_program_for(tier0_reduction_images(), "tier0_reduction.cu", kernel_names(),
                           device(device_index).capability().value()) != nullptr;
}

bool launch_tier0_reduction(const tier0_reduction& tier0, const reduction_launch& g, const stream& s, void* out,
                            void* partials, void* map_buffer, const void* const* inputs, const void* const* scalars,
                            double param) {
  const reduction_plan& plan = g.plan;
  const int device_index = s.device();
  const program* image = tier0_program_for(tier0_reduction_images(), "tier0_reduction.cu", kernel_names(),
                                           device(device_index).capability().value());
  if (image == nullptr) {
    return false;
  }
  ndcuda_tier0_reduce_params params{};
  if (g.tier0_buffer_bytes == 0) {  // the fold reads input 0 itself (tier0_fits)
    params.values = inputs[0];
    params.row_stride = plan.out_strides[1][0];
    params.element_stride = plan.red_strides[0][0];
  } else {
    // The map over [kept..., reduced...] into a dense buffer: value (o, k) at o * reduced + k.
    shape_t shape(plan.out_shape.begin(), plan.out_shape.end());
    shape.insert(shape.end(), plan.red_shape.begin(), plan.red_shape.end());
    std::vector<strides_t> strides{c_strides(shape)};
    for (std::size_t i = 0; i + 1 < plan.out_strides.size(); ++i) {
      strides_t own(plan.out_strides[i + 1].begin(), plan.out_strides[i + 1].end());
      own.insert(own.end(), plan.red_strides[i].begin(), plan.red_strides[i].end());
      strides.push_back(std::move(own));
    }
    if (!launch_tier0(tier0.map, plan.outputs * plan.reduced, shape, strides, map_buffer, inputs,
                      plan.out_strides.size() - 1, scalars, s)) {
      return false;
    }
    params.values = map_buffer;
    params.row_stride = plan.reduced;
    params.element_stride = 1;
  }
  params.out = out;
  params.partials = partials;
  params.outputs = plan.outputs;
  params.reduced = plan.reduced;
  params.chunk = g.chunk;
  params.splits = g.splits;
  params.param = param;
  params.columns = plan.strategy == reduce_strategy::columns ? 1 : 0;
  params.group = plan.group;
  params.vector = plan.vector;
  // The kept dimensions right-aligned, extents of 1 in front.
  const int pad = NDCUDA_TIER0_REDUCE_DIMS - plan.out_ndim();
  for (int d = 0; d < NDCUDA_TIER0_REDUCE_DIMS; ++d) {
    params.out_shape[d] = d < pad ? 1 : plan.out_shape[d - pad];
    params.out_strides[d] = d < pad ? 0 : plan.out_strides[0][d - pad];
  }
  const auto stream = static_cast<CUstream>(s.handle());
  void* args[] = {&params};
  const auto kernel = static_cast<std::size_t>(tier0.reducer) * 2;
  launch(image->kernel(device_index, kernel), g.grid, g.block, 0, stream, args, /*waits_first=*/false, tier0.nvtx);
  folds.fetch_add(1, std::memory_order_relaxed);
  if (g.splits > 1) {
    launch(image->kernel(device_index, kernel + 1), finish_grid(g), dim3(reduce_block), 0, stream, args,
           /*waits_first=*/false, tier0.nvtx);
  }
  return true;
}

}  // namespace ndcuda::jit::detail
