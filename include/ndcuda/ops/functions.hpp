/// @file
/// NumPy's elementwise functions (ufuncs) on arrays and expressions: math, rounding, NaN tests,
/// maximum/minimum, where, clip, complex parts. Builds on ops/operators.hpp (the same lazy nodes).
#pragma once

#include <ndcuda/ops/math_functions.hpp>
#include <ndcuda/ops/operators.hpp>
#include <optional>

namespace ndcuda {

/// NumPy's abs: the absolute value elementwise (the magnitude, a real dtype, for complex).
template <array_operand A>
[[nodiscard]] auto abs(A&& a) {
  return detail::unary<detail::abs_op>(std::forward<A>(a));
}
/// NumPy's absolute, the same as abs.
template <array_operand A>
[[nodiscard]] auto absolute(A&& a) {
  return detail::unary<detail::abs_op>(std::forward<A>(a));
}
/// NumPy's sign: -1, 0 or 1 elementwise (NaN stays NaN); z / |z| for complex z (NumPy 2); bool refused.
template <array_operand A>
[[nodiscard]] auto sign(A&& a) {
  return detail::unary<detail::sign_op>(std::forward<A>(a));
}
/// NumPy's sqrt: the square root elementwise (NaN for negative reals).
template <array_operand A>
[[nodiscard]] auto sqrt(A&& a) {
  return detail::unary<detail::sqrt_op>(std::forward<A>(a));
}
/// NumPy's cbrt: the real cube root elementwise.
template <array_operand A>
[[nodiscard]] auto cbrt(A&& a) {
  return detail::unary<detail::cbrt_op>(std::forward<A>(a));
}
/// NumPy's exp: e to the power of each element.
template <array_operand A>
[[nodiscard]] auto exp(A&& a) {
  return detail::unary<detail::exp_op>(std::forward<A>(a));
}
/// NumPy's exp2: 2 to the power of each element.
template <array_operand A>
[[nodiscard]] auto exp2(A&& a) {
  return detail::unary<detail::exp2_op>(std::forward<A>(a));
}
/// NumPy's expm1: exp(x) - 1, accurate near zero.
template <array_operand A>
[[nodiscard]] auto expm1(A&& a) {
  return detail::unary<detail::expm1_op>(std::forward<A>(a));
}
/// NumPy's log: the natural logarithm elementwise.
template <array_operand A>
[[nodiscard]] auto log(A&& a) {
  return detail::unary<detail::log_op>(std::forward<A>(a));
}
/// NumPy's log2: the base-2 logarithm elementwise.
template <array_operand A>
[[nodiscard]] auto log2(A&& a) {
  return detail::unary<detail::log2_op>(std::forward<A>(a));
}
/// NumPy's log10: the base-10 logarithm elementwise.
template <array_operand A>
[[nodiscard]] auto log10(A&& a) {
  return detail::unary<detail::log10_op>(std::forward<A>(a));
}
/// NumPy's log1p: log(1 + x), accurate near zero.
template <array_operand A>
[[nodiscard]] auto log1p(A&& a) {
  return detail::unary<detail::log1p_op>(std::forward<A>(a));
}
/// NumPy's sin, in radians, elementwise.
template <array_operand A>
[[nodiscard]] auto sin(A&& a) {
  return detail::unary<detail::sin_op>(std::forward<A>(a));
}
/// NumPy's cos, in radians, elementwise.
template <array_operand A>
[[nodiscard]] auto cos(A&& a) {
  return detail::unary<detail::cos_op>(std::forward<A>(a));
}
/// NumPy's tan, in radians, elementwise.
template <array_operand A>
[[nodiscard]] auto tan(A&& a) {
  return detail::unary<detail::tan_op>(std::forward<A>(a));
}
/// NumPy's arcsin, the inverse sine elementwise.
template <array_operand A>
[[nodiscard]] auto arcsin(A&& a) {
  return detail::unary<detail::arcsin_op>(std::forward<A>(a));
}
/// NumPy's arccos, the inverse cosine elementwise.
template <array_operand A>
[[nodiscard]] auto arccos(A&& a) {
  return detail::unary<detail::arccos_op>(std::forward<A>(a));
}
/// NumPy's arctan, the inverse tangent elementwise.
template <array_operand A>
[[nodiscard]] auto arctan(A&& a) {
  return detail::unary<detail::arctan_op>(std::forward<A>(a));
}
/// NumPy's sinh, the hyperbolic sine elementwise.
template <array_operand A>
[[nodiscard]] auto sinh(A&& a) {
  return detail::unary<detail::sinh_op>(std::forward<A>(a));
}
/// NumPy's cosh, the hyperbolic cosine elementwise.
template <array_operand A>
[[nodiscard]] auto cosh(A&& a) {
  return detail::unary<detail::cosh_op>(std::forward<A>(a));
}
/// NumPy's tanh, the hyperbolic tangent elementwise.
template <array_operand A>
[[nodiscard]] auto tanh(A&& a) {
  return detail::unary<detail::tanh_op>(std::forward<A>(a));
}
/// NumPy's floor: the largest integer value not above each element (same dtype).
template <array_operand A>
[[nodiscard]] auto floor(A&& a) {
  return detail::unary<detail::floor_op>(std::forward<A>(a));
}
/// NumPy's ceil: the smallest integer value not below each element (same dtype).
template <array_operand A>
[[nodiscard]] auto ceil(A&& a) {
  return detail::unary<detail::ceil_op>(std::forward<A>(a));
}
/// NumPy's trunc: each element rounded toward zero (same dtype).
template <array_operand A>
[[nodiscard]] auto trunc(A&& a) {
  return detail::unary<detail::trunc_op>(std::forward<A>(a));
}
/// NumPy's rint: each element rounded to the nearest integer value, halves to even.
template <array_operand A>
[[nodiscard]] auto rint(A&& a) {
  return detail::unary<detail::rint_op>(std::forward<A>(a));
}
/// NumPy's round (decimals=0): halves to even, as rint.
template <array_operand A>
[[nodiscard]] auto round(A&& a) {
  return detail::unary<detail::round_op>(std::forward<A>(a));
}
/// NumPy's isnan: true where an element is NaN, a bool array.
template <array_operand A>
[[nodiscard]] auto isnan(A&& a) {
  return detail::unary<detail::isnan_op>(std::forward<A>(a));
}
/// NumPy's isinf: true where an element is plus or minus infinity, a bool array.
template <array_operand A>
[[nodiscard]] auto isinf(A&& a) {
  return detail::unary<detail::isinf_op>(std::forward<A>(a));
}
/// NumPy's isfinite: true where an element is neither infinite nor NaN, a bool array.
template <array_operand A>
[[nodiscard]] auto isfinite(A&& a) {
  return detail::unary<detail::isfinite_op>(std::forward<A>(a));
}
/// NumPy's real: the real part (the array itself for real dtypes).
template <array_operand A>
[[nodiscard]] auto real(A&& a) {
  return detail::unary<detail::real_op>(std::forward<A>(a));
}
/// NumPy's imag: the imaginary part (zeros for real dtypes).
template <array_operand A>
[[nodiscard]] auto imag(A&& a) {
  return detail::unary<detail::imag_op>(std::forward<A>(a));
}
/// NumPy's conj: the complex conjugate (the values themselves for real dtypes).
template <array_operand A>
[[nodiscard]] auto conj(A&& a) {
  return detail::unary<detail::conj_op>(std::forward<A>(a));
}
/// NumPy's conjugate, the same as conj.
template <array_operand A>
[[nodiscard]] auto conjugate(A&& a) {
  return detail::unary<detail::conj_op>(std::forward<A>(a));
}
/// NumPy's arctan2(y, x): the angle of the point (x, y), in radians, in the right quadrant.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto arctan2(A&& a, B&& b) {
  return detail::binary<detail::arctan2_op>(std::forward<A>(a), std::forward<B>(b));
}
/// maximum/minimum propagate NaN; fmax/fmin return the other operand when one is NaN.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto maximum(A&& a, B&& b) {
  return detail::binary<detail::maximum_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's minimum: the smaller of a and b elementwise; NaN propagates.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto minimum(A&& a, B&& b) {
  return detail::binary<detail::minimum_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's fmax: the larger of a and b, ignoring a NaN when the other operand is a number.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto fmax(A&& a, B&& b) {
  return detail::binary<detail::fmax_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's fmin: the smaller of a and b, ignoring a NaN when the other operand is a number.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto fmin(A&& a, B&& b) {
  return detail::binary<detail::fmin_op>(std::forward<A>(a), std::forward<B>(b));
}

/// NumPy's where(condition, a, b): `condition` is read as bool; a and b promote together (weak
/// scalars included, so where(m, x, 0.0f) keeps x's dtype).
template <operand C, operand A, operand B>
requires(array_operand<C> || array_operand<A> || array_operand<B>)
    [[nodiscard]] auto where(C&& condition, A&& a, B&& b) {
  constexpr dtype d = detail::promote_operands<A, B>();
  using cond_t = decltype(detail::as_operand_node<dtype::bool_>(std::forward<C>(condition)));
  using a_t = decltype(detail::as_operand_node<d>(std::forward<A>(a)));
  using b_t = decltype(detail::as_operand_node<d>(std::forward<B>(b)));
  return expr<detail::where_op, cond_t, a_t, b_t>{{detail::as_operand_node<dtype::bool_>(std::forward<C>(condition)),
                                                   detail::as_operand_node<d>(std::forward<A>(a)),
                                                   detail::as_operand_node<d>(std::forward<B>(b))}};
}

/// NumPy's clip: minimum(maximum(a, lo), hi), so NaN in `a` stays NaN.
template <array_operand A, operand L, operand H>
[[nodiscard]] auto clip(A&& a, L&& lo, H&& hi) {
  return minimum(maximum(std::forward<A>(a), std::forward<L>(lo)), std::forward<H>(hi));
}
/// NumPy's clip(a, None, hi): only an upper bound, minimum(a, hi).
template <array_operand A, operand H>
[[nodiscard]] auto clip(A&& a, std::nullopt_t, H&& hi) {
  return minimum(std::forward<A>(a), std::forward<H>(hi));
}
/// NumPy's clip(a, lo, None): only a lower bound, maximum(a, lo).
template <array_operand A, operand L>
[[nodiscard]] auto clip(A&& a, L&& lo, std::nullopt_t) {
  return maximum(std::forward<A>(a), std::forward<L>(lo));
}

}  // namespace ndcuda
