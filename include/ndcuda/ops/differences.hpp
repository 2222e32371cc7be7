/// @file
/// NumPy's cumulative_sum/cumulative_prod (NumPy 2), diff, ediff1d and trapezoid: each a few fused
/// expressions over views of the input, a scan or a reduction. Builds on
/// ops/{reductions,scans,joining,functions}.hpp; nd::gradient, built on these, is ops/gradient.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/core/error.hpp>
#include <ndcuda/ops/functions.hpp>
#include <ndcuda/ops/joining.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <ndcuda/ops/scans.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace ndcuda {

/// NumPy's include_initial=True of cumulative_sum/cumulative_prod: the identity comes first.
struct include_initial_t {};
inline constexpr include_initial_t include_initial{};  ///< nd::cumulative_sum(a, 0, nd::include_initial)

namespace detail {

/// The view of `a` with `s` applied along `axis` (every other axis whole).
template <class E>
ndarray<E> along(const ndarray<E>& a, int axis, slice s) {
  return a.swapaxes(axis, -1)(ellipsis, s).swapaxes(axis, -1);
}

/// What may follow cumulative_sum/cumulative_prod's axis: nothing, or nd::include_initial.
template <class... Initial>
concept include_initial_flag = sizeof...(Initial) == 0 ||
                               (sizeof...(Initial) == 1 && (std::is_same_v<Initial, include_initial_t> && ...));

/// cumulative_sum (Op sum) and cumulative_prod (Op prod): the scan along the axis, after the identity
/// when `initial`; `what` names the function in errors.
template <class R, scan_op Op, class X>
auto cumulative_of(const X& x, std::optional<index_t> axis, bool initial, const char* what) {
  auto a = as_array(x);
  if (a.ndim() == 0) {
    a = a.reshape({1});
  }
  if (!axis) {
    if (a.ndim() > 1) {
      throw value_error(std::string(what) +
                        ": For arrays which have more than one dimension ``axis`` argument is required.");
    }
    axis = 0;
  }
  const int ax = normalize_axis(*axis, a.ndim());
  auto c = cumulative<R, Op>(a, ax, a.stream()).eval();
  if (!initial) {
    return c;
  }
  using C = typename decltype(c)::value_type;
  shape_t first = c.shape();
  first[static_cast<std::size_t>(ax)] = 1;
  const ndarray<C> id = full<C>(first, element_from<C>(Op == scan_op::sum ? 0.0 : 1.0), a.stream());
  return concatenate<C>({id, c}, ax);
}

}  // namespace detail

/// NumPy 2's cumulative_sum(x, axis, dtype=R, include_initial): cumsum that needs `axis` for
/// ndim > 1 (value_error otherwise) and can start with the identity: nd::cumulative_sum(x, 0,
/// nd::include_initial).
template <class R = detail::default_result, array_operand X, class... Initial>
requires detail::scan_result_choice<R> && detail::include_initial_flag<Initial...>
[[nodiscard]] auto cumulative_sum(const X& x, std::optional<index_t> axis = std::nullopt, Initial...) {
  return detail::cumulative_of<R, detail::scan_op::sum>(x, axis, sizeof...(Initial) != 0, "cumulative_sum");
}
/// NumPy 2's cumulative_prod, with cumulative_sum's rules (the identity is 1).
template <class R = detail::default_result, array_operand X, class... Initial>
requires detail::scan_result_choice<R> && detail::include_initial_flag<Initial...>
[[nodiscard]] auto cumulative_prod(const X& x, std::optional<index_t> axis = std::nullopt, Initial...) {
  return detail::cumulative_of<R, detail::scan_op::prod>(x, axis, sizeof...(Initial) != 0, "cumulative_prod");
}

/// NumPy's diff(a, n, axis, prepend, append): the n-th discrete difference along `axis`, in a's
/// dtype (integers wrap around; bool gives a != b, as NumPy's not_equal). Each order is one fused
/// subtraction of two views. prepend/append are joined along `axis` first; a 0-d one is
/// broadcast to a's shape with extent 1 there.
template <array_element E>
[[nodiscard]] ndarray<E> diff(const ndarray<E>& a, int n = 1, index_t axis = -1,
                              const std::optional<std::type_identity_t<ndarray<E>>>& prepend = std::nullopt,
                              const std::optional<std::type_identity_t<ndarray<E>>>& append = std::nullopt) {
  const detail::op_range<"nd::diff"> nvtx;
  if (n == 0) {  // NumPy returns before any other check
    return a;
  }
  if (n < 0) {
    throw value_error("order must be non-negative but got " + std::to_string(n));
  }
  if (a.ndim() == 0) {
    throw value_error("diff requires input that is at least one dimensional");
  }
  const int ax = normalize_axis(axis, a.ndim());
  ndarray<E> x = a;
  if (prepend || append) {
    shape_t one = a.shape();
    one[static_cast<std::size_t>(ax)] = 1;
    const auto edge = [&](const ndarray<E>& e) { return e.ndim() == 0 ? e.broadcast_to(one) : e; };
    std::vector<ndarray<E>> parts;
    if (prepend) {
      parts.push_back(edge(*prepend));
    }
    parts.push_back(a);
    if (append) {
      parts.push_back(edge(*append));
    }
    x = concatenate<E>(parts, ax);
  }
  for (int k = 0; k < n; ++k) {
    const index_t len = x.shape()[static_cast<std::size_t>(ax)];
    if (len == 0) {
      break;
    }
    const ndarray<E> hi = detail::along(x, ax, slice(1, none));
    const ndarray<E> lo = detail::along(x, ax, slice(none, len - 1));
    if constexpr (std::is_same_v<E, bool>) {
      x = hi != lo;
    } else {
      x = hi - lo;
    }
  }
  return x;
}

/// NumPy's ediff1d(ary, to_end, to_begin): the differences of the flattened array, with
/// to_begin before and to_end after (flattened, of ary's dtype).
template <array_element E>
[[nodiscard]] ndarray<E> ediff1d(const ndarray<E>& a,
                                 const std::optional<std::type_identity_t<ndarray<E>>>& to_end = std::nullopt,
                                 const std::optional<std::type_identity_t<ndarray<E>>>& to_begin = std::nullopt) {
  const detail::op_range<"nd::ediff1d"> nvtx;
  const ndarray<E> flat = a.ravel();
  const ndarray<E> d = flat.size() == 0 ? flat : diff(flat);
  if (!to_end && !to_begin) {
    return d;
  }
  std::vector<ndarray<E>> parts;
  if (to_begin) {
    parts.push_back(to_begin->ravel());
  }
  parts.push_back(d);
  if (to_end) {
    parts.push_back(to_end->ravel());
  }
  return concatenate<E>(parts, 0);
}

/// numpy.trapezoid(y, dx=1, axis=-1): sum(dx * (y[1:] + y[:-1]) / 2) along `axis`, one fused
/// reduction. Integers give float64.
template <array_element T>
[[nodiscard]] auto trapezoid(const ndarray<T>& y, double dx = 1.0, index_t axis = -1) {
  const detail::op_range<"nd::trapezoid"> nvtx;
  const int ax = normalize_axis(axis, y.ndim());
  const index_t n = y.shape()[static_cast<std::size_t>(ax)];
  const ndarray<T> hi = detail::along(y, ax, slice(1, none));
  const ndarray<T> lo = detail::along(y, ax, slice(none, n > 0 ? n - 1 : 0));
  return sum(dx * (hi + lo) / 2.0, ax);
}

/// numpy.trapezoid(y, x, axis=-1): the spacing from sample points `x`, 1-d along `axis` or of
/// y's shape.
template <array_element T, array_element U>
[[nodiscard]] auto trapezoid(const ndarray<T>& y, const ndarray<U>& x, index_t axis = -1) {
  const detail::op_range<"nd::trapezoid"> nvtx;
  const int ax = normalize_axis(axis, y.ndim());
  const index_t n = y.shape()[static_cast<std::size_t>(ax)];
  ndarray<U> d;
  if (x.ndim() == 1) {
    if (x.shape()[0] != n) {
      throw shape_error("trapezoid: x has " + std::to_string(x.shape()[0]) + " samples but y has " + std::to_string(n) +
                        " along axis " + std::to_string(ax) + "; give one x per sample");
    }
    shape_t along(static_cast<std::size_t>(y.ndim()), 1);
    along[static_cast<std::size_t>(ax)] = n > 0 ? n - 1 : 0;
    d = diff(x).reshape(along);
  } else {
    d = diff(x, 1, ax);
  }
  const ndarray<T> hi = detail::along(y, ax, slice(1, none));
  const ndarray<T> lo = detail::along(y, ax, slice(none, n > 0 ? n - 1 : 0));
  return sum(d * (hi + lo) / 2.0, ax);
}

/// diff of a lazy value (computed once; array/view_functions.hpp's rule).
template <array_expression X>
[[nodiscard]] auto diff(const X& x, int n = 1, index_t axis = -1) {
  return diff(detail::computed(x), n, axis);
}

}  // namespace ndcuda

#pragma GCC visibility pop
