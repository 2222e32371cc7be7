/// @file
/// NumPy's rearranging functions that return views (flip, fliplr/flipud, rot90, moveaxis, diagonal,
/// diag of 2-d, atleast_1d/2d/3d, broadcast_arrays) and trace. Builds on ops/joining.hpp (view_of)
/// and ops/detail/arrange_plan.hpp (layouts).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/ops/detail/arrange_plan.hpp>
#include <ndcuda/ops/joining.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <optional>
#include <tuple>
#include <vector>

namespace ndcuda {

/// np.flip: reversed along every axis, one axis or several; a view (negative strides).
template <array_element E>
ndarray<E> flip(const ndarray<E>& a) {
  return detail::view_of(a, detail::flip_layout(a.layout()));
}
/// np.flip along one axis; a view.
template <array_element E>
ndarray<E> flip(const ndarray<E>& a, index_t axis) {
  const index_t axes[1] = {axis};
  return detail::view_of(a, detail::flip_layout(a.layout(), axes));
}
/// np.flip along several axes (none: no flip); a view.
template <array_element E>
ndarray<E> flip(const ndarray<E>& a, const std::vector<index_t>& axes) {
  if (axes.empty()) {
    return a;  // NumPy's flip(a, ()) flips nothing
  }
  return detail::view_of(a, detail::flip_layout(a.layout(), axes));
}
/// np.fliplr (axis 1 of an array of 2 or more dimensions) and np.flipud (axis 0), views.
template <array_element E>
ndarray<E> fliplr(const ndarray<E>& a) {
  if (a.ndim() < 2) {
    throw shape_error("Input must be >= 2-d.");
  }
  return flip(a, 1);
}
/// np.flipud: reversed along axis 0; a view.
template <array_element E>
ndarray<E> flipud(const ndarray<E>& a) {
  if (a.ndim() < 1) {
    throw shape_error("Input must be >= 1-d.");
  }
  return flip(a, 0);
}

/// np.rot90(a, k, axes): rotated by 90 degrees k times from axes[0] towards axes[1]; a view.
template <array_element E>
ndarray<E> rot90(const ndarray<E>& a, index_t k = 1, std::pair<index_t, index_t> axes = {0, 1}) {
  return detail::view_of(a, detail::rot90_layout(a.layout(), k, axes.first, axes.second));
}

/// np.moveaxis(a, source, destination): a view with the named axes moved, the others in order.
template <array_element E>
ndarray<E> moveaxis(const ndarray<E>& a, const std::vector<index_t>& source, const std::vector<index_t>& destination) {
  return detail::view_of(a, detail::moveaxis_layout(a.layout(), source, destination));
}
/// np.moveaxis with one axis.
template <array_element E>
ndarray<E> moveaxis(const ndarray<E>& a, index_t source, index_t destination) {
  return moveaxis(a, std::vector<index_t>{source}, std::vector<index_t>{destination});
}

/// np.diagonal(a, offset, axis1, axis2): the diagonal as the last axis of a view. (NumPy's is
/// read-only; this one writes through, see docs/differences-from-numpy.md.)
template <array_element E>
ndarray<E> diagonal(const ndarray<E>& a, index_t offset = 0, index_t axis1 = 0, index_t axis2 = 1) {
  return detail::view_of(a, detail::diagonal_layout(a.layout(), offset, axis1, axis2));
}

/// np.diag: of a 1-d array, a new 2-d array with it on diagonal k (zeros elsewhere); of a 2-d
/// array, its diagonal k (a view, as diagonal).
template <array_element E>
ndarray<E> diag(const ndarray<E>& v, index_t k = 0) {
  if (v.ndim() == 2) {
    return diagonal(v, k);
  }
  if (v.ndim() != 1) {
    throw shape_error("Input must be 1- or 2-d.");
  }
  const index_t n = v.size() + (k < 0 ? -k : k);
  ndarray<E> out = zeros<E>({n, n}, v.stream());
  diagonal(out, k).assign(v);
  return out;
}

/// np.trace(a, offset, axis1, axis2): sums of the diagonals, with np.sum's result dtype (a 0-d
/// array for a 2-d input, the stacked sums otherwise).
template <array_element E>
auto trace(const ndarray<E>& a, index_t offset = 0, index_t axis1 = 0, index_t axis2 = 1) {
  return sum(diagonal(a, offset, axis1, axis2), -1);
}

/// np.atleast_1d/2d/3d: views with NumPy's new axes ((n,) -> (1, n) -> (1, n, 1)).
template <array_element E>
ndarray<E> atleast_1d(const ndarray<E>& a) {
  return detail::view_of(a, detail::atleast_layout(a.layout(), 1));
}
/// np.atleast_2d: a view of at least 2 dimensions ((n,) -> (1, n)).
template <array_element E>
ndarray<E> atleast_2d(const ndarray<E>& a) {
  return detail::view_of(a, detail::atleast_layout(a.layout(), 2));
}
/// np.atleast_3d: a view of at least 3 dimensions ((n,) -> (1, n, 1)).
template <array_element E>
ndarray<E> atleast_3d(const ndarray<E>& a) {
  return detail::view_of(a, detail::atleast_layout(a.layout(), 3));
}

/// np.broadcast_arrays: each array as a view of the common broadcast shape (zero strides).
template <array_element E>
std::vector<ndarray<E>> broadcast_arrays(const std::vector<ndarray<E>>& arrays) {
  shape_t shape;
  for (const ndarray<E>& a : arrays) {
    shape = broadcast_shapes(shape, a.shape());
  }
  std::vector<ndarray<E>> out;
  for (const ndarray<E>& a : arrays) {
    out.push_back(a.broadcast_to(shape));
  }
  return out;
}
/// Arrays of different element types: a tuple of views.
template <array_element... E>
requires(sizeof...(E) > 1) std::tuple<ndarray<E>...> broadcast_arrays(const ndarray<E>&... arrays) {
  shape_t shape;
  ((shape = broadcast_shapes(shape, arrays.shape())), ...);
  return std::tuple<ndarray<E>...>(arrays.broadcast_to(shape)...);
}

// Lazy values take the array forms above once computed (array/view_functions.hpp's rule).
/// flip of a lazy value (computed once).
template <array_expression X>
auto flip(const X& x) {
  return flip(detail::computed(x));
}
/// flip(x, axis) of a lazy value (computed once).
template <array_expression X>
auto flip(const X& x, index_t axis) {
  return flip(detail::computed(x), axis);
}
/// flip(x, axes) of a lazy value (computed once).
template <array_expression X>
auto flip(const X& x, const std::vector<index_t>& axes) {
  return flip(detail::computed(x), axes);
}
/// fliplr of a lazy value (computed once).
template <array_expression X>
auto fliplr(const X& x) {
  return fliplr(detail::computed(x));
}
/// flipud of a lazy value (computed once).
template <array_expression X>
auto flipud(const X& x) {
  return flipud(detail::computed(x));
}
/// rot90 of a lazy value (computed once).
template <array_expression X>
auto rot90(const X& x, index_t k = 1, std::pair<index_t, index_t> axes = {0, 1}) {
  return rot90(detail::computed(x), k, axes);
}
/// moveaxis of a lazy value (computed once).
template <array_expression X>
auto moveaxis(const X& x, const std::vector<index_t>& source, const std::vector<index_t>& destination) {
  return moveaxis(detail::computed(x), source, destination);
}
/// moveaxis(x, source, destination) of a lazy value (computed once).
template <array_expression X>
auto moveaxis(const X& x, index_t source, index_t destination) {
  return moveaxis(detail::computed(x), source, destination);
}
/// diagonal of a lazy value (computed once).
template <array_expression X>
auto diagonal(const X& x, index_t offset = 0, index_t axis1 = 0, index_t axis2 = 1) {
  return diagonal(detail::computed(x), offset, axis1, axis2);
}
/// diag of a lazy value (computed once).
template <array_expression X>
auto diag(const X& x, index_t k = 0) {
  return diag(detail::computed(x), k);
}

}  // namespace ndcuda

#pragma GCC visibility pop
