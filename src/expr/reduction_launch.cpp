// Running a reduction: stream ordering after the inputs, capture retention, the inputs' broadcast
// strides, the buffer of partial results between the two passes and tier 0's buffer of mapped
// values; the kernels and their grid are jit's (src/jit/reduction_state.hpp).
#include <cstdint>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/expr/detail/reduce_engine.hpp>
#include <ndcuda/memory/detail/buffer.hpp>

#include "expr/reduction_axes.hpp"
#include "expr/reduction_state.hpp"

namespace ndcuda::detail {

void run_reduction(const reduction_state& state, const reduce_call& call, const leaf_ref& out,
                   std::span<const leaf_ref> inputs, const void* const* scalars, double param) {
  const stream& s = *out.s;
  if (shape_size(call.result_shape) == 0) {
    return;
  }
  std::vector<strides_t> in_strides;
  std::vector<std::uintptr_t> addresses;
  std::vector<const void*> pointers;
  for (const leaf_ref& in : inputs) {
    in_strides.push_back(in.layout->shape == call.shape
                             ? in.layout->strides
                             : broadcast_strides(in.layout->shape, in.layout->strides, call.shape));
    // A computed input has no memory to align: its data is its parameter block on the host.
    addresses.push_back(in.source != nullptr ? 0 : reinterpret_cast<std::uintptr_t>(in.data));
    pointers.push_back(in.data);
  }
  before_leaf_launch(s, out, inputs);
  const strides_t out_strides = reduction_out_strides(call.shape, call.reduced);
  const jit::detail::reduction_launch launch = jit::detail::plan_reduction_launch(
      state.engine, s.device(), call.shape, call.reduced, out_strides, in_strides, addresses);
  void* partials = nullptr;
  std::shared_ptr<const void> partials_owner;  // freed on `s` after both passes are queued
  if (launch.splits > 1) {
    const index_t partial_count = checked_mul(launch.splits, launch.plan.outputs, "reduction partials");
    partials_owner = allocate_buffer(checked_bytes(partial_count, jit::detail::reduce_partial_bytes), s, &partials);
  }
  void* map_buffer = nullptr;  // tier 0's mapped values (jit/tier0_reduction.hpp), freed like the partials
  std::shared_ptr<const void> map_buffer_owner;
  if (launch.tier0_buffer_bytes > 0) {
    map_buffer_owner = allocate_buffer(static_cast<std::size_t>(launch.tier0_buffer_bytes), s, &map_buffer);
  }
  jit::detail::launch_reduction(state.engine, launch, s, const_cast<void*>(out.data), partials, map_buffer,
                                pointers.data(), scalars, param);
  release_sources_after(s, inputs);
}

}  // namespace ndcuda::detail
