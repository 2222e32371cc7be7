// NumPy's elementwise functions (ufuncs) on arrays and expressions: math, rounding, NaN tests,
// maximum/minimum, where, clip, complex parts. Builds on ops/operators.hpp (the same lazy nodes).
#pragma once

#include <ndcuda/ops/operators.hpp>

namespace ndcuda {

template <array_operand A>
[[nodiscard]] auto abs(A&& a) {
  return detail::unary<detail::abs_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto absolute(A&& a) {
  return detail::unary<detail::abs_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto sign(A&& a) {
  return detail::unary<detail::sign_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto sqrt(A&& a) {
  return detail::unary<detail::sqrt_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto cbrt(A&& a) {
  return detail::unary<detail::cbrt_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto exp(A&& a) {
  return detail::unary<detail::exp_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto exp2(A&& a) {
  return detail::unary<detail::exp2_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto expm1(A&& a) {
  return detail::unary<detail::expm1_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto log(A&& a) {
  return detail::unary<detail::log_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto log2(A&& a) {
  return detail::unary<detail::log2_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto log10(A&& a) {
  return detail::unary<detail::log10_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto log1p(A&& a) {
  return detail::unary<detail::log1p_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto sin(A&& a) {
  return detail::unary<detail::sin_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto cos(A&& a) {
  return detail::unary<detail::cos_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto tan(A&& a) {
  return detail::unary<detail::tan_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto arcsin(A&& a) {
  return detail::unary<detail::arcsin_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto arccos(A&& a) {
  return detail::unary<detail::arccos_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto arctan(A&& a) {
  return detail::unary<detail::arctan_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto sinh(A&& a) {
  return detail::unary<detail::sinh_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto cosh(A&& a) {
  return detail::unary<detail::cosh_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto tanh(A&& a) {
  return detail::unary<detail::tanh_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto floor(A&& a) {
  return detail::unary<detail::floor_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto ceil(A&& a) {
  return detail::unary<detail::ceil_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto trunc(A&& a) {
  return detail::unary<detail::trunc_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto rint(A&& a) {
  return detail::unary<detail::rint_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto round(A&& a) {
  return detail::unary<detail::round_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto isnan(A&& a) {
  return detail::unary<detail::isnan_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto isinf(A&& a) {
  return detail::unary<detail::isinf_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto isfinite(A&& a) {
  return detail::unary<detail::isfinite_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto real(A&& a) {
  return detail::unary<detail::real_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto imag(A&& a) {
  return detail::unary<detail::imag_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto conj(A&& a) {
  return detail::unary<detail::conj_op>(std::forward<A>(a));
}
template <array_operand A>
[[nodiscard]] auto conjugate(A&& a) {
  return detail::unary<detail::conj_op>(std::forward<A>(a));
}
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto arctan2(A&& a, B&& b) {
  return detail::binary<detail::arctan2_op>(std::forward<A>(a), std::forward<B>(b));
}
// maximum/minimum propagate NaN; fmax/fmin return the other operand when one is NaN.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto maximum(A&& a, B&& b) {
  return detail::binary<detail::maximum_op>(std::forward<A>(a), std::forward<B>(b));
}
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto minimum(A&& a, B&& b) {
  return detail::binary<detail::minimum_op>(std::forward<A>(a), std::forward<B>(b));
}
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto fmax(A&& a, B&& b) {
  return detail::binary<detail::fmax_op>(std::forward<A>(a), std::forward<B>(b));
}
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

}  // namespace ndcuda
