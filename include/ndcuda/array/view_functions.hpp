/// @file
/// Free functions over arrays: nd::from_device (a view of foreign device memory) and NumPy's
/// free-function spellings of the views (reshape, transpose, squeeze, ...). Builds on array/ndarray_class.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <memory>
#include <ndcuda/array/ndarray_class.hpp>
#include <ndcuda/array/view_math.hpp>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/device/stream.hpp>
#include <optional>
#include <utility>
#include <vector>

namespace ndcuda {

/// A view of device memory ndcuda did not allocate (DLPack, CuPy, your own cudaMalloc). `owner`
/// (may be null) is kept alive by the array and its views; `strides` in elements, empty for C
/// order; the stream defaults to default_stream(device).
template <array_element E>
ndarray<E> from_device(E* data, shape_t shape, std::shared_ptr<const void> owner, int device, strides_t strides = {},
                       std::optional<stream> s = std::nullopt) {
  view_layout layout{std::move(shape), std::move(strides), 0};
  (void)checked_nbytes(layout.shape, sizeof(E));  // before c_strides: negative extents, overflow
  if (layout.strides.empty()) {
    layout.strides = c_strides(layout.shape);
  }
  check_view(layout.shape, layout.strides, 0, sizeof(E), "from_device");
  return ndarray<E>(std::move(owner), data, std::move(layout), device, s ? *s : default_stream(device));
}

/// Free-function spellings, as in NumPy.
template <array_element E>
ndarray<E> ascontiguousarray(const ndarray<E>& a) {
  return a.is_contiguous() ? a : a.copy();
}
/// NumPy's reshape: a view when the strides allow one, else a copy (see ndarray::reshape).
template <array_element E>
ndarray<E> reshape(const ndarray<E>& a, const shape_t& shape) {
  return a.reshape(shape);
}
/// NumPy's transpose: the view with the axes reversed.
template <array_element E>
ndarray<E> transpose(const ndarray<E>& a) {
  return a.transpose();
}
/// NumPy's transpose(a, axes): the view with the axes permuted.
template <array_element E>
ndarray<E> transpose(const ndarray<E>& a, const std::vector<index_t>& axes) {
  return a.transpose(axes);
}
/// NumPy's swapaxes: the view with axes `x` and `y` exchanged.
template <array_element E>
ndarray<E> swapaxes(const ndarray<E>& a, index_t x, index_t y) {
  return a.swapaxes(x, y);
}
/// NumPy's squeeze: the view without the axes of extent 1.
template <array_element E>
ndarray<E> squeeze(const ndarray<E>& a) {
  return a.squeeze();
}
/// NumPy's squeeze(a, axis): the view without the given axes of extent 1.
template <array_element E>
ndarray<E> squeeze(const ndarray<E>& a, const std::vector<index_t>& axes) {
  return a.squeeze(axes);
}
/// NumPy's expand_dims: the view with new axes of extent 1.
template <array_element E>
ndarray<E> expand_dims(const ndarray<E>& a, const std::vector<index_t>& axes) {
  return a.expand_dims(axes);
}
/// NumPy's expand_dims(a, axis) with one axis.
template <array_element E>
ndarray<E> expand_dims(const ndarray<E>& a, index_t axis) {
  return a.expand_dims({axis});
}
/// NumPy's broadcast_to: a view of `shape` with stride 0 along the broadcast axes.
template <array_element E>
ndarray<E> broadcast_to(const ndarray<E>& a, const shape_t& shape) {
  return a.broadcast_to(shape);
}
/// NumPy's ravel: the elements as 1-d, a view when contiguous, else a copy.
template <array_element E>
ndarray<E> ravel(const ndarray<E>& a) {
  return a.ravel();
}

namespace detail {
/// A lazy value computed once into a new array of its own dtype (no conversion).
template <array_expression X>
auto computed(const X& x) {
  return ndarray<type_of<std::remove_cvref_t<X>::type()>>(x);
}
}  // namespace detail

// Lazy values (expressions, reductions, products, draws) take the array forms above once
// computed: NumPy's functions take any array-like, and so do these.
/// ascontiguousarray of a lazy value: the computed array, C-contiguous already.
template <array_expression X>
auto ascontiguousarray(const X& x) {
  return detail::computed(x);
}
/// reshape of a lazy value (computed once).
template <array_expression X>
auto reshape(const X& x, const shape_t& shape) {
  return detail::computed(x).reshape(shape);
}
/// transpose of a lazy value (computed once).
template <array_expression X>
auto transpose(const X& x) {
  return detail::computed(x).transpose();
}
/// transpose(x, axes) of a lazy value (computed once).
template <array_expression X>
auto transpose(const X& x, const std::vector<index_t>& axes) {
  return detail::computed(x).transpose(axes);
}
/// swapaxes of a lazy value (computed once).
template <array_expression X>
auto swapaxes(const X& x, index_t a, index_t b) {
  return detail::computed(x).swapaxes(a, b);
}
/// squeeze of a lazy value (computed once).
template <array_expression X>
auto squeeze(const X& x) {
  return detail::computed(x).squeeze();
}
/// squeeze(x, axes) of a lazy value (computed once).
template <array_expression X>
auto squeeze(const X& x, const std::vector<index_t>& axes) {
  return detail::computed(x).squeeze(axes);
}
/// expand_dims of a lazy value (computed once).
template <array_expression X>
auto expand_dims(const X& x, const std::vector<index_t>& axes) {
  return detail::computed(x).expand_dims(axes);
}
/// expand_dims(x, axis) of a lazy value (computed once).
template <array_expression X>
auto expand_dims(const X& x, index_t axis) {
  return detail::computed(x).expand_dims({axis});
}
/// broadcast_to of a lazy value (computed once, then viewed).
template <array_expression X>
auto broadcast_to(const X& x, const shape_t& shape) {
  return detail::computed(x).broadcast_to(shape);
}
/// ravel of a lazy value (computed once).
template <array_expression X>
auto ravel(const X& x) {
  return detail::computed(x).ravel();
}

}  // namespace ndcuda

#pragma GCC visibility pop
