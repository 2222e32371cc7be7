// Internal: NumPy's axis rules for reductions: which axes are reduced (with NumPy's messages),
// the result's shape, and its strides. Pure host logic on core/shape.hpp.
#pragma once

#include <ndcuda/core/shape.hpp>
#include <optional>
#include <span>
#include <vector>

namespace ndcuda::detail {

/// Which axes of an `ndim`-d array are reduced (a mask), from NumPy-style axes (negative ones
/// count from the end; nullopt means all). Throws shape_error with NumPy's AxisError text for an
/// axis out of range and "duplicate value in 'axis'" for a repeated one.
[[nodiscard]] std::vector<bool> reduced_axes_mask(const std::optional<std::vector<int>>& axes, int ndim);

/// The result's shape: the kept dimensions, or every dimension with the reduced ones as 1.
[[nodiscard]] shape_t reduction_result_shape(std::span<const index_t> shape, const std::vector<bool>& reduced,
                                             bool keepdims);

/// The strides (elements) of a C-contiguous result over every dimension of `shape`: 0 along the
/// reduced ones.
[[nodiscard]] strides_t reduction_out_strides(std::span<const index_t> shape, const std::vector<bool>& reduced);

}  // namespace ndcuda::detail
