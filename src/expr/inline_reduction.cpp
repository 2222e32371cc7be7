// Inlined short reductions (expr/inline_reduction.hpp): each leaf of a reduced tree re-viewed
// at one reduced element (the result's shape, the element's offset folded into its base), and the
// fold of the copies spelled with the engine's reducer (kernels/reducers.cuh, ndcuda::nd_fold).
#include <algorithm>
#include <cstring>
#include <ndcuda/expr/inline_reduction.hpp>
#include <string>

#include "expr/reduction_axes.hpp"
#include "expr/reduction_state.hpp"

namespace ndcuda::detail {

void inline_operands::add_reduction(const inline_operands& tree, const shape_t& input_shape,
                                    const std::optional<std::vector<int>>& axes, bool keepdims) {
  // The copies share the scalars: the emitter reads them again for each copy.
  scalars.insert(scalars.end(), tree.scalars.begin(), tree.scalars.end());
  scalar_types.insert(scalar_types.end(), tree.scalar_types.begin(), tree.scalar_types.end());
  const std::vector<bool> reduced = reduced_axes_mask(axes, static_cast<int>(input_shape.size()));
  index_t count = 1;
  shape_t reduced_shape;  // the reduced extents, outer first
  shape_t kept_shape;     // the result's shape (keepdims: 1 along the reduced axes)
  for (std::size_t d = 0; d < input_shape.size(); ++d) {
    if (reduced[d]) {
      count *= input_shape[d];
      reduced_shape.push_back(input_shape[d]);
      if (keepdims) {
        kept_shape.push_back(1);
      }
    } else {
      kept_shape.push_back(input_shape[d]);
    }
  }
  // An empty reduction keeps the engine (its identity or NumPy's error), a long one too, and so
  // do copies past what one kernel spells (nested short reductions multiply).
  if (count < 1 || count > max_inline_elements || !fits || !tree.fits ||
      leaves.size() + tree.leaves.size() * static_cast<std::size_t>(count) >
          static_cast<std::size_t>(max_fused_leaves)) {
    fits = false;
    plan.counts.push_back(0);
    return;
  }
  plan.counts.push_back(static_cast<int>(count));
  // Per leaf: its strides over the reduced tree's shape, split into kept and reduced axes.
  const std::vector<leaf_ref>& operands = tree.leaves;
  std::vector<strides_t> kept(operands.size());
  std::vector<strides_t> folded(operands.size());
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const strides_t s = broadcast_strides(operands[i].layout->shape, operands[i].layout->strides, input_shape);
    for (std::size_t d = 0; d < input_shape.size(); ++d) {
      if (reduced[d]) {
        folded[i].push_back(s[d]);
        if (keepdims) {
          kept[i].push_back(0);
        }
      } else {
        kept[i].push_back(s[d]);
      }
    }
  }
  shape_t position(reduced_shape.size(), 0);  // the reduced element, C order as the engine folds
  for (index_t j = 0; j < count; ++j) {
    // The reductions inside are emitted again for each copy: their counts, again.
    plan.counts.insert(plan.counts.end(), tree.plan.counts.begin(), tree.plan.counts.end());
    for (std::size_t i = 0; i < operands.size(); ++i) {
      const leaf_ref& l = operands[i];
      index_t offset = 0;  // elements (an array) or counter steps (a draw)
      for (std::size_t r = 0; r < position.size(); ++r) {
        offset += position[r] * folded[i][r];
      }
      leaf_ref copy = l;
      layouts.push_back(view_layout{kept_shape, kept[i], 0});
      copy.layout = &layouts.back();
      if (l.source != nullptr) {
        // A draw's element is its counter: the copy's counter starts `offset` further on
        // (kernels/random.cuh's philox_source::shift, the last 8 bytes of its parameter).
        auto& bytes = params.emplace_back();
        std::memcpy(bytes.data(), l.data, source_param_size);
        std::uint64_t shift = 0;
        std::memcpy(&shift, bytes.data() + source_param_size - sizeof(shift), sizeof(shift));
        shift += static_cast<std::uint64_t>(offset);
        std::memcpy(bytes.data() + source_param_size - sizeof(shift), &shift, sizeof(shift));
        copy.data = bytes.data();
      } else {
        copy.data = static_cast<const unsigned char*>(l.data) + offset * static_cast<index_t>(itemsize(l.type));
      }
      leaves.push_back(copy);
    }
    for (std::size_t r = position.size(); r-- > 0;) {  // the next element in C order
      if (++position[r] < reduced_shape[r]) {
        break;
      }
      position[r] = 0;
    }
  }
}

bool inline_operands::finish() {
  if (!fits || leaves.size() > static_cast<std::size_t>(max_fused_leaves) ||
      scalars.size() > static_cast<std::size_t>(max_fused_scalars)) {
    return false;
  }
  mapping.resize(leaves.size());
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    // Copies of one draw differ in their counter (parameter bytes); strides are compared too, as
    // same_input does not for draws.
    const auto same = [&](const leaf_ref& d) {
      return same_input(d, leaves[i]) && d.layout->strides == leaves[i].layout->strides;
    };
    const auto index =
        static_cast<std::size_t>(std::find_if(distinct.begin(), distinct.end(), same) - distinct.begin());
    if (index == distinct.size()) {
      if (distinct.size() == static_cast<std::size_t>(max_fused_inputs)) {
        return false;
      }
      distinct.push_back(leaves[i]);
    }
    mapping[i] = static_cast<std::uint8_t>(index);
  }
  return true;
}

node_code inline_fold(value_table& values, const reduce_spec& spec, std::span<const node_code> copies,
                      const char* name) {
  const dtype result = compute_type(spec.out);
  std::string text =
      "ndcuda::cast<" + std::string(cuda_type_name(result)) + ">(ndcuda::nd_fold(" + reducer_spelling(spec) + "{0.0}";
  for (const node_code& c : copies) {
    text += ", " + converted_code(spec.value, c);
  }
  text += "))";
  node_code code{std::move(text), result, std::string(name) + "(" + copies.front().label + ")"};
  return values.intern(std::move(code));
}

}  // namespace ndcuda::detail
