// Allocation and copies on type-erased arrays for the compiled linalg/fft code: new buffers from
// the pool on the operation's stream, strided copies with casts (array/detail/kernels.hpp).
#pragma once

#include <ndcuda/array/erased_array.hpp>
#include <span>

namespace ndcuda::linalg::detail {

using ndcuda::detail::erased_array;

/// A new C-contiguous array of `type` and `shape` on `s` (uninitialised).
[[nodiscard]] erased_array empty_array(dtype type, shape_t shape, const stream& s);
/// The same, zero-filled.
[[nodiscard]] erased_array zeros_array(dtype type, shape_t shape, const stream& s);

/// A C-contiguous copy of `x` converted to `type`, broadcast to `shape` (x's own shape when empty).
[[nodiscard]] erased_array contiguous_copy(const erased_array& x, dtype type, const shape_t& shape = {});

/// `x` unchanged when it already is C-contiguous of `type`, else contiguous_copy.
[[nodiscard]] erased_array as_contiguous(const erased_array& x, dtype type);

/// The matrices of `x` (..., rows, cols), broadcast to batch shape `batch`, converted to `type` and
/// stored column-major (LAPACK's layout): the result's layout is (batch..., rows, cols) with
/// strides (..., 1, rows), over a fresh contiguous buffer.
[[nodiscard]] erased_array column_major_copy(const erased_array& x, dtype type, const shape_t& batch);

/// Writes `src` (broadcast, converted) into `dst`'s elements.
void copy_into(const erased_array& dst, const erased_array& src);

/// A view of `x` with `layout` (same buffer).
[[nodiscard]] erased_array with_layout(const erased_array& x, view_layout layout);

/// Makes `x` usable on `s`: orders `s` after x's stream and keeps x's buffer in a graph `s`
/// is capturing. Returns x viewed on `s`.
[[nodiscard]] erased_array on_stream(const erased_array& x, const stream& s);

}  // namespace ndcuda::linalg::detail
