/// @file
/// NumPy's nanargmin/nanargmax, nancumsum/nancumprod, ptp and average: compositions of the fused
/// reductions, scans and expressions. Builds on ops/{reductions,scans,functions}.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/promotion.hpp>
#include <ndcuda/ops/functions.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <ndcuda/ops/scans.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace ndcuda {

namespace detail {

/// nanargmin/nanargmax: the kernel gives -1 for an all-NaN slice, and NumPy raises for it; the
/// check reads one bool back (a host wait), only for floating and complex values.
template <reduce_kind K, class X, class... O>
ndarray<std::int64_t> nan_arg(const X& x, const std::optional<std::vector<int>>& axes, const O&... o) {
  // In a type that depends on X: the check below is instantiated with the template, not in every
  // translation unit that includes this header (core/detail/dependent_type.hpp).
  ndarray<dependent_t<std::int64_t, X>> r = reduce_with<K, void>(x, axes, o...);
  constexpr dtype t = node_t<const X&>::type();
  if constexpr (is_floating(t) || is_complex(t)) {
    if (r.size() > 0 && reduce<reduce_kind::any, void>(r < 0, std::nullopt, false, nullptr, 0.0).item()) {
      throw value_error("All-NaN slice encountered");
    }
  }
  return r;
}

/// x with NaN replaced by `fill` (0 for nancumsum, 1 for nancumprod), or x itself for dtypes
/// without NaN.
template <class X, class F>
auto without_nan(const X& x, F fill) {
  using A = decltype(as_array(x));
  using T = typename A::value_type;
  if constexpr (is_floating(dtype_of<T>) || is_complex(dtype_of<T>)) {
    ndarray<T> r = where(isnan(x), fill, x);
    return r;
  } else {
    return as_array(x);
  }
}

}  // namespace detail

/// NumPy's nanargmin: the index of the first smallest element along `axis` (no axis: the flat
/// C-order index), NaNs skipped. An all-NaN slice raises NumPy's value_error "All-NaN slice
/// encountered" (which waits for the result on the host). @{
template <array_operand X, reduce_option... O>
[[nodiscard]] ndarray<std::int64_t> nanargmin(const X& x, std::optional<int> axis, const O&... o) {
  const detail::op_range<"nd::nanargmin"> nvtx;
  return detail::nan_arg<detail::reduce_kind::nanargmin>(x, detail::one_axis(axis), o...);
}
template <array_operand X, reduce_option... O>
[[nodiscard]] ndarray<std::int64_t> nanargmin(const X& x, const O&... o) {
  const detail::op_range<"nd::nanargmin"> nvtx;
  return detail::nan_arg<detail::reduce_kind::nanargmin>(x, std::nullopt, o...);
}
/// @}
/// NumPy's nanargmax: nanargmin's rules for the first largest element. @{
template <array_operand X, reduce_option... O>
[[nodiscard]] ndarray<std::int64_t> nanargmax(const X& x, std::optional<int> axis, const O&... o) {
  const detail::op_range<"nd::nanargmax"> nvtx;
  return detail::nan_arg<detail::reduce_kind::nanargmax>(x, detail::one_axis(axis), o...);
}
template <array_operand X, reduce_option... O>
[[nodiscard]] ndarray<std::int64_t> nanargmax(const X& x, const O&... o) {
  const detail::op_range<"nd::nanargmax"> nvtx;
  return detail::nan_arg<detail::reduce_kind::nanargmax>(x, std::nullopt, o...);
}
/// @}

/// NumPy's nancumsum: cumsum with NaN counted as zero (one fused where, then the scan); cumsum's
/// dtypes, flattened without an axis.
template <class R = detail::default_result, array_operand X>
requires detail::scan_result_choice<R>
[[nodiscard]] auto nancumsum(const X& x, std::optional<index_t> axis = std::nullopt) {
  return cumsum<R>(detail::without_nan(x, false), axis);
}
/// NumPy's nancumprod: cumprod with NaN counted as one.
template <class R = detail::default_result, array_operand X>
requires detail::scan_result_choice<R>
[[nodiscard]] auto nancumprod(const X& x, std::optional<index_t> axis = std::nullopt) {
  return cumprod<R>(detail::without_nan(x, true), axis);
}

/// NumPy's ptp: max - min over `axes` in the input's dtype (integers wrap around as NumPy's do).
/// Options: nd::keepdims and a stream. bool raises NumPy's type_error. @{
template <array_operand X, reduce_option... O>
[[nodiscard]] auto ptp(const X& x, const axes& ax, const O&... o) {
  const detail::op_range<"nd::ptp"> nvtx;
  using T = type_of<detail::node_t<const X&>::type()>;
  if constexpr (std::is_same_v<T, bool>) {
    throw type_error(
        "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the "
        "logical_xor function instead.");
    return ndarray<T>{};
  } else {
    const auto hi = detail::reduce_with<detail::reduce_kind::max, void>(x, ax.list(), o...);
    const auto lo = detail::reduce_with<detail::reduce_kind::min, void>(x, ax.list(), o...);
    ndarray<T> r = hi - lo;
    return r;
  }
}
template <array_operand X, reduce_option... O>
[[nodiscard]] auto ptp(const X& x, const O&... o) {
  return ptp(x, axes{}, o...);
}
/// @}

/// numpy.average's returned=True: the average and the sum of the weights (of the average's shape).
template <class R>
struct average_result {
  ndarray<R> average;         ///< the weighted average
  ndarray<R> sum_of_weights;  ///< the weights summed along the axis, the average's shape
};

namespace detail {

/// numpy.average's dtype: that of a and the weights, at least float64 for integer or bool `a`.
template <class T, class W>
using average_t = type_of<is_integral(dtype_of<T>) || dtype_of<T> == dtype::bool_
                              ? promote_types(promote_types(dtype_of<T>, dtype_of<W>), dtype::float64)
                              : promote_types(dtype_of<T>, dtype_of<W>)>;

template <class T, class W>
average_result<average_t<T, W>> weighted_average(const ndarray<T>& a, std::optional<int> axis,
                                                 const ndarray<W>& weights, bool keepdims) {
  using R = average_t<T, W>;
  ndarray<W> w = weights;
  if (a.shape() != w.shape()) {
    if (!axis) {
      throw type_error("Axis must be specified when shapes of a and weights differ.");
    }
    if (w.ndim() != 1) {
      throw type_error("1D weights expected when shapes of a and weights differ.");
    }
    const int ax = normalize_axis(*axis, a.ndim());
    if (w.shape()[0] != a.shape()[static_cast<std::size_t>(ax)]) {
      throw value_error("Shape of weights must be consistent with shape of a along specified axis.");
    }
    shape_t along(static_cast<std::size_t>(a.ndim()), 1);
    along[static_cast<std::size_t>(ax)] = w.shape()[0];
    w = w.reshape(along);
  }
  const std::optional<std::vector<int>> ax = one_axis(axis);
  ndarray<R> scl = reduce<reduce_kind::sum, R>(w.broadcast_to(a.shape()), ax, keepdims, nullptr, 0.0);
  if (scl.size() > 0 && reduce<reduce_kind::any, void>(scl == false, std::nullopt, false, nullptr, 0.0).item()) {
    throw value_error("Weights sum to zero, can't be normalized (NumPy's ZeroDivisionError)");
  }
  ndarray<R> avg = reduce<reduce_kind::sum, R>(a.template astype<R>() * w, ax, keepdims, nullptr, 0.0) / scl;
  return {avg, scl};
}

}  // namespace detail

/// numpy.average(a, axis, weights, returned=True): the weighted mean along `axis` (every axis
/// when nullopt) and the sum of the weights. Weights of a's shape, or 1-d of a's length along
/// `axis`. Weights summing to zero raise value_error (NumPy's ZeroDivisionError, after a host wait).
template <array_element T, array_element W>
[[nodiscard]] average_result<detail::average_t<T, W>> average_returned(const ndarray<T>& a, std::optional<int> axis,
                                                                       const ndarray<W>& weights,
                                                                       keepdims_t keep = keepdims_t{false}) {
  const detail::op_range<"nd::average"> nvtx;
  return detail::weighted_average(a, axis, weights, keep.value);
}

/// numpy.average without weights, returned=True: the mean and the count it divides by.
template <array_element T>
[[nodiscard]] auto average_returned(const ndarray<T>& a, std::optional<int> axis = std::nullopt,
                                    keepdims_t keep = keepdims_t{false}) {
  const detail::op_range<"nd::average"> nvtx;
  auto avg = detail::reduce<detail::reduce_kind::mean, void>(a, detail::one_axis(axis), keep.value, nullptr, 0.0);
  using R = typename decltype(avg)::value_type;
  const index_t n = avg.size() == 0 ? 0 : a.size() / avg.size();
  return average_result<R>{avg, full<R>(avg.shape(), detail::element_from<R>(static_cast<double>(n)), a.stream())};
}

/// numpy.average(a, axis, weights): the weighted mean (weights as for average_returned).
template <array_element T, array_element W>
[[nodiscard]] ndarray<detail::average_t<T, W>> average(const ndarray<T>& a, std::optional<int> axis,
                                                       const ndarray<W>& weights, keepdims_t keep = keepdims_t{false}) {
  return average_returned(a, axis, weights, keep).average;
}

/// numpy.average(a, axis) without weights: the mean.
template <array_element T>
[[nodiscard]] auto average(const ndarray<T>& a, std::optional<int> axis = std::nullopt,
                           keepdims_t keep = keepdims_t{false}) {
  return average_returned(a, axis, keep).average;
}

}  // namespace ndcuda

#pragma GCC visibility pop
