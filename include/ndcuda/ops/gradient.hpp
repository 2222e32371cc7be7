/// @file
/// NumPy's gradient: second-order central differences inside, first- or second-order one-sided
/// differences at the edges, with uniform spacings or coordinate arrays; each axis a few fused
/// expressions written into views of the result. Builds on ops/differences.hpp (diff, views along an axis).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/core/detail/dependent_type.hpp>
#include <ndcuda/ops/differences.hpp>
#include <variant>
#include <vector>

namespace ndcuda {

/// One axis's spacing for nd::gradient: a uniform distance, or the coordinates of the samples
/// (1-d, as long as the axis).
using gradient_spacing = std::variant<double, ndarray<double>>;

namespace detail {

/// gradient's dtype: floating and complex types keep theirs, integers give float64.
template <class T>
using gradient_t = std::conditional_t<is_floating(dtype_of<T>) || is_complex(dtype_of<T>), T, double>;

template <class O>
void gradient_uniform(const ndarray<O>& f, const ndarray<O>& out, int ax, double h, int edge_order) {
  const index_t n = f.shape()[static_cast<std::size_t>(ax)];
  const auto at = [&](const ndarray<O>& a, index_t b, index_t e) { return along(a, ax, slice(b, e)); };
  at(out, 1, n - 1)(ellipsis) = (at(f, 2, n) - at(f, 0, n - 2)) / (2.0 * h);
  if (edge_order == 1) {
    at(out, 0, 1)(ellipsis) = (at(f, 1, 2) - at(f, 0, 1)) / h;
    at(out, n - 1, n)(ellipsis) = (at(f, n - 1, n) - at(f, n - 2, n - 1)) / h;
  } else {
    at(out, 0, 1)(ellipsis) = (-1.5 * at(f, 0, 1) + 2.0 * at(f, 1, 2) - 0.5 * at(f, 2, 3)) / h;
    at(out, n - 1, n)(ellipsis) = (0.5 * at(f, n - 3, n - 2) - 2.0 * at(f, n - 2, n - 1) + 1.5 * at(f, n - 1, n)) / h;
  }
}

template <class O>
void gradient_coordinates(const ndarray<O>& f, const ndarray<O>& out, int ax, const ndarray<dependent_t<double, O>>& x,
                          int edge_order) {
  using D = dependent_t<double, O>;  // instantiated with the template, not in every includer
  const index_t n = f.shape()[static_cast<std::size_t>(ax)];
  if (x.ndim() != 1 || x.shape()[0] != n) {
    throw value_error("when 1d, distances must match the length of the corresponding dimension");
  }
  const auto at = [&](const ndarray<O>& a, index_t b, index_t e) { return along(a, ax, slice(b, e)); };
  // The distances, shaped to broadcast along `ax` of f.
  shape_t shape(static_cast<std::size_t>(f.ndim()), 1);
  shape[static_cast<std::size_t>(ax)] = n - 1;
  const ndarray<D> dx = diff(x).reshape(shape);
  const auto d = [&](index_t b, index_t e) { return along(dx, ax, slice(b, e)); };
  {
    const ndarray<D> dx1 = d(0, n - 2), dx2 = d(1, n - 1);
    at(out, 1, n - 1)(ellipsis) = -dx2 / (dx1 * (dx1 + dx2)) * at(f, 0, n - 2) +
                                  (dx2 - dx1) / (dx1 * dx2) * at(f, 1, n - 1) + dx1 / (dx2 * (dx1 + dx2)) * at(f, 2, n);
  }
  if (edge_order == 1) {
    at(out, 0, 1)(ellipsis) = (at(f, 1, 2) - at(f, 0, 1)) / d(0, 1);
    at(out, n - 1, n)(ellipsis) = (at(f, n - 1, n) - at(f, n - 2, n - 1)) / d(n - 2, n - 1);
  } else {
    {
      const ndarray<D> dx1 = d(0, 1), dx2 = d(1, 2);
      at(out, 0, 1)(ellipsis) = -(2.0 * dx1 + dx2) / (dx1 * (dx1 + dx2)) * at(f, 0, 1) +
                                (dx1 + dx2) / (dx1 * dx2) * at(f, 1, 2) - dx1 / (dx2 * (dx1 + dx2)) * at(f, 2, 3);
    }
    const ndarray<D> dx1 = d(n - 3, n - 2), dx2 = d(n - 2, n - 1);
    at(out, n - 1, n)(ellipsis) = dx2 / (dx1 * (dx1 + dx2)) * at(f, n - 3, n - 2) -
                                  (dx2 + dx1) / (dx1 * dx2) * at(f, n - 2, n - 1) +
                                  (2.0 * dx2 + dx1) / (dx2 * (dx1 + dx2)) * at(f, n - 1, n);
  }
}

}  // namespace detail

/// numpy.gradient(f, *varargs, axis, edge_order): one array per axis in `axes` (every axis when
/// empty), as NumPy's tuple (a one-element vector for one axis). `spacing`: empty (1 everywhere),
/// one entry for every axis, or one per axis; each a distance or 1-d coordinates. edge_order 1
/// or 2. Integers give float64; bool is refused at compile time, as NumPy's subtract refuses it.
template <array_element T>
[[nodiscard]] std::vector<ndarray<detail::gradient_t<T>>> gradient(
    const ndarray<T>& f, const std::vector<detail::dependent_t<gradient_spacing, T>>& spacing = {},
    std::vector<int> axes = {}, int edge_order = 1) {
  static_assert(!std::is_same_v<T, bool>, "numpy.gradient subtracts: bool input is refused, as NumPy's - is");
  using O = detail::gradient_t<T>;
  const detail::op_range<"nd::gradient"> nvtx;
  if (axes.empty()) {
    for (int d = 0; d < f.ndim(); ++d) {
      axes.push_back(d);
    }
  }
  for (int& a : axes) {
    a = normalize_axis(a, f.ndim());
  }
  if (!spacing.empty() && spacing.size() != 1 && spacing.size() != axes.size()) {
    throw type_error("invalid number of arguments");
  }
  if (edge_order > 2) {
    throw value_error("'edge_order' greater than 2 not supported");
  }
  if (edge_order < 1) {
    throw value_error("'edge_order' must be 1 or 2");
  }
  for (const int ax : axes) {
    if (f.shape()[static_cast<std::size_t>(ax)] < edge_order + 1) {
      throw value_error(
          "Shape of array too small to calculate a numerical gradient, at least (edge_order + 1) elements are "
          "required.");
    }
  }
  const ndarray<O> fo = detail::as_element_type<O>(f);
  std::vector<ndarray<O>> result;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const int ax = axes[i];
    const ndarray<O> out = empty<O>(f.shape(), f.stream());
    using spacing_t = detail::dependent_t<gradient_spacing, T>;  // instantiated with the template only
    const spacing_t h = spacing.empty() ? spacing_t{1.0} : spacing[spacing.size() == 1 ? 0 : i];
    if (const double* step = std::get_if<double>(&h)) {
      detail::gradient_uniform(fo, out, ax, *step, edge_order);
    } else {
      detail::gradient_coordinates(fo, out, ax, std::get<ndarray<double>>(h), edge_order);
    }
    result.push_back(out);
  }
  return result;
}

}  // namespace ndcuda

#pragma GCC visibility pop
