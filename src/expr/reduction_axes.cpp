// NumPy's axis rules for reductions: pure host logic, unit-tested without a GPU.
#include "expr/reduction_axes.hpp"

#include <ndcuda/core/error.hpp>
#include <string>

namespace ndcuda::detail {

std::vector<bool> reduced_axes_mask(const std::optional<std::vector<int>>& axes, int ndim) {
  std::vector<bool> mask(static_cast<std::size_t>(ndim), !axes.has_value());
  if (!axes) {
    return mask;
  }
  for (int a : *axes) {
    if (a < -ndim || a >= ndim) {
      throw shape_error("axis " + std::to_string(a) + " is out of bounds for array of dimension " +
                        std::to_string(ndim));
    }
    const auto d = static_cast<std::size_t>(a < 0 ? a + ndim : a);
    if (mask[d]) {
      throw shape_error("duplicate value in 'axis' (axis " + std::to_string(a) + " of a " + std::to_string(ndim) +
                        "-d array is given twice)");
    }
    mask[d] = true;
  }
  return mask;
}

shape_t reduction_result_shape(std::span<const index_t> shape, const std::vector<bool>& reduced, bool keepdims) {
  shape_t out;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (!reduced[d]) {
      out.push_back(shape[d]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  return out;
}

strides_t reduction_out_strides(std::span<const index_t> shape, const std::vector<bool>& reduced) {
  strides_t s(shape.size(), 0);
  index_t step = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (!reduced[d]) {
      s[d] = step;
      step *= shape[d];
    }
  }
  return s;
}

}  // namespace ndcuda::detail
