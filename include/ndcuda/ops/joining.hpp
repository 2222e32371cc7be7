/// @file
/// NumPy's joining and splitting: concatenate, stack, hstack/vstack/dstack, column_stack, split,
/// array_split, hsplit/vsplit/dsplit. Builds on ops/detail/arrange_kernels.hpp (copies) and views.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <initializer_list>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/array/erased_array.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/core/promotion.hpp>
#include <ndcuda/ops/detail/arrange_kernels.hpp>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

namespace ndcuda {

namespace detail {

/// An array seen through another layout of its buffer (flip, diagonal, split pieces...).
template <array_element E>
ndarray<E> view_of(const ndarray<E>& a, view_layout layout) {
  return ndarray<E>(a.owner(), a.data() - a.offset(), std::move(layout), a.device(), a.stream());
}

template <array_element R>
ndarray<R> concatenate_pieces(std::vector<erased_array> pieces, std::optional<index_t> axis,
                              const std::optional<stream>& s) {
  const ndcuda::detail::op_range<"nd::concatenate"> nvtx;
  if (pieces.empty()) {
    throw shape_error("need at least one array to concatenate");
  }
  const stream st = s ? *s : pieces.front().s;
  return restore<R>(concatenate_erased(pieces, axis, dtype_of<R>, st));
}

template <array_element E>
std::vector<erased_array> erase_all(std::span<const ndarray<E>> arrays) {
  std::vector<erased_array> out;
  out.reserve(arrays.size());
  for (const ndarray<E>& a : arrays) {
    out.push_back(erase(a));
  }
  return out;
}

/// The pieces of `a` between `bounds` along `axis`: views, as NumPy's split returns.
template <array_element E>
std::vector<ndarray<E>> pieces_of(const ndarray<E>& a, const std::vector<std::pair<index_t, index_t>>& bounds,
                                  int axis) {
  std::vector<ndarray<E>> out;
  out.reserve(bounds.size());
  for (const auto& [start, stop] : bounds) {
    view_layout v = a.layout();
    v.offset += start * v.strides[static_cast<std::size_t>(axis)];
    v.shape[static_cast<std::size_t>(axis)] = stop - start;
    out.push_back(view_of(a, std::move(v)));
  }
  return out;
}

template <array_element E>
std::vector<ndarray<E>> with_layouts(std::span<const ndarray<E>> arrays, view_layout (*f)(const view_layout&, int),
                                     int n) {
  std::vector<ndarray<E>> out;
  for (const ndarray<E>& a : arrays) {
    out.push_back(view_of(a, f(a.layout(), n)));
  }
  return out;
}

}  // namespace detail

/// np.concatenate(arrays, axis): a new C-contiguous array; axis nd::none flattens every array
/// first. Ordered on `s` (default: the first array's stream) after every input's work.
template <array_element E>
ndarray<E> concatenate(std::span<const ndarray<E>> arrays, std::optional<index_t> axis = 0,
                       std::optional<stream> s = std::nullopt) {
  return detail::concatenate_pieces<E>(detail::erase_all(arrays), axis, s);
}
/// np.concatenate of a vector of arrays.
template <array_element E>
ndarray<E> concatenate(const std::vector<ndarray<E>>& arrays, std::optional<index_t> axis = 0,
                       std::optional<stream> s = std::nullopt) {
  return concatenate<E>(std::span<const ndarray<E>>(arrays), axis, s);
}
/// np.concatenate of a braced list of arrays and lazy values of one element type
/// (`nd::concatenate({x, x * 2})`; lazy ones are computed first).
template <array_element E>
ndarray<E> concatenate(std::initializer_list<detail::list_entry<E>> arrays, std::optional<index_t> axis = 0,
                       std::optional<stream> s = std::nullopt) {
  return concatenate<E>(detail::values_of(arrays), axis, s);
}
/// Arrays of different element types: the result has NumPy's promoted dtype,
/// nd::concatenate(std::tuple(a_int32, b_float32), 0) is float64.
template <array_element... E>
auto concatenate(const std::tuple<ndarray<E>...>& arrays, std::optional<index_t> axis = 0,
                 std::optional<stream> s = std::nullopt) {
  static_assert(sizeof...(E) > 0, "need at least one array to concatenate");
  constexpr dtype result = [] {
    dtype t = dtype_of<std::tuple_element_t<0, std::tuple<E...>>>;
    ((t = promote_types(t, dtype_of<E>)), ...);
    return t;
  }();
  std::vector<detail::erased_array> pieces =
      std::apply([](const auto&... a) { return std::vector<detail::erased_array>{detail::erase(a)...}; }, arrays);
  return detail::concatenate_pieces<type_of<result>>(std::move(pieces), axis, s);
}

/// np.stack(arrays, axis): arrays of one shape joined along a new axis.
template <array_element E>
ndarray<E> stack(std::span<const ndarray<E>> arrays, index_t axis = 0, std::optional<stream> s = std::nullopt) {
  const ndcuda::detail::op_range<"nd::stack"> nvtx;
  std::vector<shape_t> shapes;
  for (const ndarray<E>& a : arrays) {
    shapes.push_back(a.shape());
  }
  detail::check_stack_shapes(shapes);
  const int ax = normalize_axis(axis, arrays[0].ndim() + 1);
  std::vector<ndarray<E>> expanded;
  for (const ndarray<E>& a : arrays) {
    expanded.push_back(a.expand_dims({ax}));
  }
  return concatenate<E>(std::span<const ndarray<E>>(expanded), ax, s);
}
/// np.stack of a vector of arrays.
template <array_element E>
ndarray<E> stack(const std::vector<ndarray<E>>& arrays, index_t axis = 0, std::optional<stream> s = std::nullopt) {
  return stack<E>(std::span<const ndarray<E>>(arrays), axis, s);
}
/// np.stack of a braced list of arrays and lazy values of one element type
/// (`nd::stack({nd::ones_like(t), t, t * t}, 1)`; lazy ones are computed first).
template <array_element E>
ndarray<E> stack(std::initializer_list<detail::list_entry<E>> arrays, index_t axis = 0,
                 std::optional<stream> s = std::nullopt) {
  return stack<E>(detail::values_of(arrays), axis, s);
}

/// np.hstack: along axis 1, or axis 0 for 1-d arrays (0-d ones become 1-d).
template <array_element E>
ndarray<E> hstack(std::span<const ndarray<E>> arrays, std::optional<stream> s = std::nullopt) {
  const ndcuda::detail::op_range<"nd::hstack"> nvtx;
  const auto a = detail::with_layouts(arrays, detail::atleast_layout, 1);
  const index_t axis = !a.empty() && a[0].ndim() == 1 ? 0 : 1;
  return concatenate<E>(std::span<const ndarray<E>>(a), axis, s);
}
/// np.vstack: along axis 0 of the arrays seen as at least 2-d ((n,) is a row (1, n)).
template <array_element E>
ndarray<E> vstack(std::span<const ndarray<E>> arrays, std::optional<stream> s = std::nullopt) {
  const ndcuda::detail::op_range<"nd::vstack"> nvtx;
  const auto a = detail::with_layouts(arrays, detail::atleast_layout, 2);
  return concatenate<E>(std::span<const ndarray<E>>(a), 0, s);
}
/// np.dstack: along axis 2 of the arrays seen as at least 3-d.
template <array_element E>
ndarray<E> dstack(std::span<const ndarray<E>> arrays, std::optional<stream> s = std::nullopt) {
  const ndcuda::detail::op_range<"nd::dstack"> nvtx;
  const auto a = detail::with_layouts(arrays, detail::atleast_layout, 3);
  return concatenate<E>(std::span<const ndarray<E>>(a), 2, s);
}
/// np.column_stack: 1-d arrays become columns (n, 1), then along axis 1.
template <array_element E>
ndarray<E> column_stack(std::span<const ndarray<E>> arrays, std::optional<stream> s = std::nullopt) {
  const ndcuda::detail::op_range<"nd::column_stack"> nvtx;
  std::vector<ndarray<E>> a;
  for (const ndarray<E>& x : arrays) {
    a.push_back(x.ndim() < 2 ? detail::view_of(x, transpose_layout(detail::atleast_layout(x.layout(), 2))) : x);
  }
  return concatenate<E>(std::span<const ndarray<E>>(a), 1, s);
}

// The vector and braced-list spellings of the four above.
// NOLINTBEGIN(bugprone-macro-parentheses): fn names the function template; (fn)<E> would not parse.
#define NDCUDA_JOIN_OVERLOADS(fn)                                                                              \
  template <array_element E>                                                                                   \
  ndarray<E> fn(const std::vector<ndarray<E>>& arrays, std::optional<stream> s = std::nullopt) {               \
    return fn<E>(std::span<const ndarray<E>>(arrays), s);                                                      \
  }                                                                                                            \
  template <array_element E>                                                                                   \
  ndarray<E> fn(std::initializer_list<detail::list_entry<E>> arrays, std::optional<stream> s = std::nullopt) { \
    return fn<E>(detail::values_of(arrays), s);                                                                \
  }
// NOLINTEND(bugprone-macro-parentheses)
/// np.hstack of a vector or braced list of arrays. @{
NDCUDA_JOIN_OVERLOADS(hstack)
/// @}
/// np.vstack of a vector or braced list of arrays. @{
NDCUDA_JOIN_OVERLOADS(vstack)
/// @}
/// np.dstack of a vector or braced list of arrays. @{
NDCUDA_JOIN_OVERLOADS(dstack)
/// @}
/// np.column_stack of a vector or braced list of arrays. @{
NDCUDA_JOIN_OVERLOADS(column_stack)
/// @}
#undef NDCUDA_JOIN_OVERLOADS

/// np.split(a, sections, axis): equal pieces (views); shape_error "array split does not result in
/// an equal division" otherwise.
template <array_element E>
std::vector<ndarray<E>> split(const ndarray<E>& a, index_t sections, index_t axis = 0) {
  const int ax = normalize_axis(axis, a.ndim());
  return detail::pieces_of(a, detail::split_sections(a.shape()[static_cast<std::size_t>(ax)], sections, true), ax);
}
/// np.split(a, indices, axis): the pieces a[:i0], a[i0:i1], ..., a[ik:] along axis (views).
template <array_element E>
std::vector<ndarray<E>> split(const ndarray<E>& a, const std::vector<index_t>& indices, index_t axis = 0) {
  const int ax = normalize_axis(axis, a.ndim());
  return detail::pieces_of(a, detail::split_indices(a.shape()[static_cast<std::size_t>(ax)], indices), ax);
}
/// A braced list is always indices, also with one element: split(a, {2}) is np.split(a, [2]).
template <array_element E>
std::vector<ndarray<E>> split(const ndarray<E>& a, std::initializer_list<index_t> indices, index_t axis = 0) {
  return split(a, std::vector<index_t>(indices), axis);
}
/// np.array_split(a, sections, axis): the first n % sections pieces one longer.
template <array_element E>
std::vector<ndarray<E>> array_split(const ndarray<E>& a, index_t sections, index_t axis = 0) {
  const int ax = normalize_axis(axis, a.ndim());
  return detail::pieces_of(a, detail::split_sections(a.shape()[static_cast<std::size_t>(ax)], sections, false), ax);
}
/// np.array_split(a, indices, axis): the same as split at those indices.
template <array_element E>
std::vector<ndarray<E>> array_split(const ndarray<E>& a, const std::vector<index_t>& indices, index_t axis = 0) {
  return split(a, indices, axis);
}
/// np.array_split with a braced list of indices.
template <array_element E>
std::vector<ndarray<E>> array_split(const ndarray<E>& a, std::initializer_list<index_t> indices, index_t axis = 0) {
  return split(a, std::vector<index_t>(indices), axis);
}

namespace detail {
template <array_element E>
index_t split_axis(const ndarray<E>& a, int min_ndim, const char* name, index_t axis) {
  if (a.ndim() < min_ndim) {
    throw shape_error(std::string(name) + " only works on arrays of " + std::to_string(min_ndim) +
                      " or more dimensions");
  }
  return axis;
}
}  // namespace detail

/// np.hsplit (axis 1, or 0 for 1-d), np.vsplit (axis 0), np.dsplit (axis 2): sections or indices.
template <array_element E, class S>
std::vector<ndarray<E>> hsplit(const ndarray<E>& a, const S& sections_or_indices) {
  return split(a, sections_or_indices, detail::split_axis(a, 1, "hsplit", a.ndim() > 1 ? 1 : 0));
}
/// np.hsplit with a braced list of indices.
template <array_element E>
std::vector<ndarray<E>> hsplit(const ndarray<E>& a, std::initializer_list<index_t> indices) {
  return hsplit(a, std::vector<index_t>(indices));
}
/// np.vsplit: split along axis 0 of an array of 2 or more dimensions.
template <array_element E, class S>
std::vector<ndarray<E>> vsplit(const ndarray<E>& a, const S& sections_or_indices) {
  return split(a, sections_or_indices, detail::split_axis(a, 2, "vsplit", 0));
}
/// np.vsplit with a braced list of indices.
template <array_element E>
std::vector<ndarray<E>> vsplit(const ndarray<E>& a, std::initializer_list<index_t> indices) {
  return vsplit(a, std::vector<index_t>(indices));
}
/// np.dsplit: split along axis 2 of an array of 3 or more dimensions.
template <array_element E, class S>
std::vector<ndarray<E>> dsplit(const ndarray<E>& a, const S& sections_or_indices) {
  return split(a, sections_or_indices, detail::split_axis(a, 3, "dsplit", 2));
}
/// np.dsplit with a braced list of indices.
template <array_element E>
std::vector<ndarray<E>> dsplit(const ndarray<E>& a, std::initializer_list<index_t> indices) {
  return dsplit(a, std::vector<index_t>(indices));
}

/// split(x, sections, axis) of a lazy value (computed once; array/view_functions.hpp's rule).
template <array_expression X>
auto split(const X& x, index_t sections, index_t axis = 0) {
  return split(detail::computed(x), sections, axis);
}
/// split(x, indices, axis) of a lazy value (computed once).
template <array_expression X>
auto split(const X& x, const std::vector<index_t>& indices, index_t axis = 0) {
  return split(detail::computed(x), indices, axis);
}

}  // namespace ndcuda

#pragma GCC visibility pop
