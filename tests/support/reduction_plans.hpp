// Reduction plans as the library makes them, for host tests of the planner and of what runs it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ndcuda/core/shape.hpp>
#include <vector>

#include "jit/reduction_plan.hpp"

namespace ndcuda::testing {

/// A float32 reduction over `shape` of `inputs` dense, aligned arrays, into a dense result,
/// planned as the library plans it.
inline jit::detail::reduction_plan dense_float_plan(const shape_t& shape, const std::vector<bool>& reduced,
                                                    std::size_t inputs = 1) {
  const std::vector<strides_t> in(inputs, c_strides(shape));
  const std::vector<std::uintptr_t> addresses(inputs, 256);
  const std::vector<std::size_t> itemsizes(inputs, sizeof(float));
  strides_t out(shape.size(), 0);
  index_t stride = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (!reduced[d]) {
      out[d] = stride;
      stride *= shape[d];
    }
  }
  return jit::detail::plan_reduction(shape, reduced, out, in, addresses, itemsizes, false);
}

}  // namespace ndcuda::testing
