// Reductions' NumPy side: the engine state from a row of the reduction table (kernel name, reducer
// spelling), device and axis checks, result shapes and the empty-reduction messages. The launch is
// reduction_launch.cpp; the kernels are jit's (src/jit/reduction_state.hpp).
#include <ndcuda/core/error.hpp>
#include <ndcuda/expr/detail/reduce_engine.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "expr/reduction_axes.hpp"
#include "expr/reduction_state.hpp"

namespace ndcuda::detail {

std::string reducer_spelling(const reduce_spec& spec) {
  const std::string_view pattern = reduction_of(spec.kind).reducer;
  std::string s;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '{' && i + 2 < pattern.size() && pattern[i + 2] == '}') {
      const char c = pattern[i + 1];
      s += cuda_type_name(c == 'v' ? spec.value : c == 'a' ? spec.acc : spec.out);
      i += 2;
    } else {
      s += pattern[i];
    }
  }
  return s;
}

std::shared_ptr<reduction_state> make_reduction_state(const std::string& map_statement, const reduce_spec& spec,
                                                      std::span<const leaf_ref> inputs,
                                                      std::span<const dtype> scalars) {
  const reduction_row& row = reduction_of(spec.kind);
  jit::detail::reduction_signature sig;
  sig.name = row.kernel;
  sig.map_statement = map_statement;
  sig.reducer = reducer_spelling(spec);
  sig.value = spec.value;
  sig.acc = spec.acc;
  sig.out = spec.out;
  for (const leaf_ref& l : inputs) {
    sig.in.push_back(l.type);
    sig.sources.emplace_back(l.source != nullptr ? l.source : "");
  }
  sig.scalars.assign(scalars.begin(), scalars.end());
  sig.keep_order = row.keeps_order;
  return std::make_shared<reduction_state>(spec, std::move(sig));
}

reduce_call prepare_reduction(reduce_kind kind, std::span<const leaf_ref> inputs,
                              const std::optional<std::vector<int>>& axes, bool keepdims) {
  reduce_call call;
  call.shape = inputs[0].layout->shape;
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i].device != inputs[0].device) {
      throw device_error(std::string(reduce_name(kind)) + ": the expression reads arrays on devices " +
                         std::to_string(inputs[0].device) + " and " + std::to_string(inputs[i].device) +
                         "; copy the operands to one device first");
    }
    if (inputs[i].layout->shape != call.shape) {
      call.shape = broadcast_shapes(call.shape, inputs[i].layout->shape);
    }
  }
  call.reduced = reduced_axes_mask(axes, static_cast<int>(call.shape.size()));
  call.result_shape = reduction_result_shape(call.shape, call.reduced, keepdims);
  call.reduced_count = 1;
  for (std::size_t d = 0; d < call.shape.size(); ++d) {
    if (call.reduced[d]) {
      call.reduced_count *= call.shape[d];
    }
  }
  if (call.reduced_count == 0 && !has_identity(kind)) {
    throw shape_error(reduction_of(kind).empty_message);
  }
  return call;
}

void compile_reduction(const reduction_state& state, compute_capability cc, std::span<const index_t> shape,
                       const std::vector<bool>& reduced, std::span<const strides_t> in_strides) {
  jit::detail::compile_reduction(state.engine, cc, shape, reduced, reduction_out_strides(shape, reduced), in_strides);
}

std::string reduction_source_for(const reduction_state& state, std::span<const index_t> shape,
                                 const std::vector<bool>& reduced, std::span<const strides_t> in_strides) {
  return jit::detail::reduction_source_for(state.engine, shape, reduced, reduction_out_strides(shape, reduced),
                                           in_strides);
}

namespace {

// The bytes a view can touch, [first, last).
std::pair<std::uintptr_t, std::uintptr_t> byte_span(const leaf_ref& v) {
  const auto base = reinterpret_cast<std::uintptr_t>(v.data);
  const auto size = static_cast<index_t>(itemsize(v.type));
  index_t low = 0;
  index_t high = 0;
  for (std::size_t d = 0; d < v.layout->shape.size(); ++d) {
    if (v.layout->shape[d] == 0) {
      return {base, base};
    }
    const index_t reach = (v.layout->shape[d] - 1) * v.layout->strides[d] * size;
    (reach < 0 ? low : high) += reach;
  }
  return {static_cast<std::uintptr_t>(static_cast<index_t>(base) + low),
          static_cast<std::uintptr_t>(static_cast<index_t>(base) + high + size)};
}

}  // namespace

bool reduces_into(const reduce_call& call, const leaf_ref& out, std::span<const leaf_ref> inputs) {
  if (out.layout->shape != call.result_shape || !is_c_contiguous(out.layout->shape, out.layout->strides)) {
    return false;
  }
  const auto [out_first, out_last] = byte_span(out);
  for (const leaf_ref& in : inputs) {
    if (in.device != out.device) {
      return false;  // the launch path's message
    }
    if (in.source != nullptr) {
      continue;
    }
    const auto [first, last] = byte_span(in);
    if (first < out_last && out_first < last) {
      return false;
    }
  }
  return true;
}

}  // namespace ndcuda::detail
