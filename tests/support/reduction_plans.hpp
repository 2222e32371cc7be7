// Reduction plans as the library makes them, for host tests of the planner and of what runs it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ndcuda/core/shape.hpp>
#include <vector>

#include "expr/reduction_axes.hpp"
#include "jit/reduction_plan.hpp"

namespace ndcuda::testing {

/// A float32 reduction over `shape` of `inputs` dense, aligned arrays, into a dense result,
/// planned as the library plans it.
inline jit::detail::reduction_plan dense_float_plan(const shape_t& shape, const std::vector<bool>& reduced,
                                                    std::size_t inputs = 1) {
  const std::vector<strides_t> in(inputs, c_strides(shape));
  const std::vector<std::uintptr_t> addresses(inputs, 256);
  const std::vector<std::size_t> itemsizes(inputs, sizeof(float));
  return jit::detail::plan_reduction(shape, reduced, detail::reduction_out_strides(shape, reduced), in, addresses,
                                     itemsizes, false);
}

}  // namespace ndcuda::testing
