/// @file
/// NumPy's remaining math ufuncs (issue 19): hypot, the inverse hyperbolic functions, square,
/// reciprocal, fmod, logaddexp, gcd, sinc, i0, ... Builds on ops/operators.hpp (the same lazy nodes).
#pragma once

#include <ndcuda/ops/operators.hpp>

namespace ndcuda {

/// NumPy's arcsinh, the inverse hyperbolic sine elementwise (complex too).
template <array_operand A>
[[nodiscard]] auto arcsinh(A&& a) {
  return detail::unary<detail::arcsinh_op>(std::forward<A>(a));
}
/// NumPy's arccosh, the inverse hyperbolic cosine elementwise (NaN below 1; complex too).
template <array_operand A>
[[nodiscard]] auto arccosh(A&& a) {
  return detail::unary<detail::arccosh_op>(std::forward<A>(a));
}
/// NumPy's arctanh, the inverse hyperbolic tangent elementwise (+-inf at +-1; complex too).
template <array_operand A>
[[nodiscard]] auto arctanh(A&& a) {
  return detail::unary<detail::arctanh_op>(std::forward<A>(a));
}
/// The GELU activation of neural networks in its tanh approximation (not a NumPy function):
/// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), as torch's gelu(approximate='tanh') and
/// cuBLASLt's epilogue compute it; integers become float as for tanh, complex is refused.
/// `nd::gelu(nd::matmul(a, b) + bias)` runs as one cuBLASLt call (docs/linalg.md).
template <array_operand A>
[[nodiscard]] auto gelu(A&& a) {
  return detail::unary<detail::gelu_op>(std::forward<A>(a));
}
/// NumPy's square: x * x elementwise, in the operand's dtype (bool gives int8; integers wrap).
template <array_operand A>
[[nodiscard]] auto square(A&& a) {
  return detail::unary<detail::square_op>(std::forward<A>(a));
}
/// NumPy's reciprocal: 1 / x in the operand's dtype, so integers give C's 1 / x (0 unless |x| is 1).
template <array_operand A>
[[nodiscard]] auto reciprocal(A&& a) {
  return detail::unary<detail::reciprocal_op>(std::forward<A>(a));
}
/// NumPy's positive: +x, a copy of the values (bool refused, as NumPy).
template <array_operand A>
[[nodiscard]] auto positive(A&& a) {
  return detail::unary<detail::positive_op>(std::forward<A>(a));
}
/// NumPy's signbit: true where the sign bit is set (-0.0 and -NaN included), a bool array.
template <array_operand A>
[[nodiscard]] auto signbit(A&& a) {
  return detail::unary<detail::signbit_op>(std::forward<A>(a));
}
/// NumPy's deg2rad: degrees to radians, x * pi / 180.
template <array_operand A>
[[nodiscard]] auto deg2rad(A&& a) {
  return detail::unary<detail::deg2rad_op>(std::forward<A>(a));
}
/// NumPy's rad2deg: radians to degrees, x * 180 / pi.
template <array_operand A>
[[nodiscard]] auto rad2deg(A&& a) {
  return detail::unary<detail::rad2deg_op>(std::forward<A>(a));
}
/// NumPy's spacing: the distance from x to the next float away from zero, signed like x.
template <array_operand A>
[[nodiscard]] auto spacing(A&& a) {
  return detail::unary<detail::spacing_op>(std::forward<A>(a));
}
/// NumPy's sinc, normalised: sin(pi x) / (pi x), and 1 at 0; integers give float64.
template <array_operand A>
[[nodiscard]] auto sinc(A&& a) {
  return detail::unary<detail::sinc_op>(std::forward<A>(a));
}
/// NumPy's i0: the modified Bessel function of the first kind, order 0; integers give float64.
template <array_operand A>
[[nodiscard]] auto i0(A&& a) {
  return detail::unary<detail::i0_op>(std::forward<A>(a));
}
/// NumPy's isposinf: true where an element is +inf (never for integers); complex refused.
template <array_operand A>
[[nodiscard]] auto isposinf(A&& a) {
  return detail::unary<detail::isposinf_op>(std::forward<A>(a));
}
/// NumPy's isneginf: true where an element is -inf (never for integers); complex refused.
template <array_operand A>
[[nodiscard]] auto isneginf(A&& a) {
  return detail::unary<detail::isneginf_op>(std::forward<A>(a));
}
/// NumPy's isreal: true where the imaginary part is zero (everywhere for real dtypes).
template <array_operand A>
[[nodiscard]] auto isreal(A&& a) {
  return detail::unary<detail::isreal_op>(std::forward<A>(a));
}
/// NumPy's iscomplex: true where the imaginary part is nonzero (nowhere for real dtypes).
template <array_operand A>
[[nodiscard]] auto iscomplex(A&& a) {
  return detail::unary<detail::iscomplex_op>(std::forward<A>(a));
}
/// NumPy's radians, the same as deg2rad.
template <array_operand A>
[[nodiscard]] auto radians(A&& a) {
  return detail::unary<detail::deg2rad_op>(std::forward<A>(a));
}
/// NumPy's degrees, the same as rad2deg.
template <array_operand A>
[[nodiscard]] auto degrees(A&& a) {
  return detail::unary<detail::rad2deg_op>(std::forward<A>(a));
}
/// NumPy's hypot: sqrt(a*a + b*b) without overflow; inf if either is infinite, even with a NaN.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto hypot(A&& a, B&& b) {
  return detail::binary<detail::hypot_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's copysign: the magnitude of a with the sign of b, elementwise.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto copysign(A&& a, B&& b) {
  return detail::binary<detail::copysign_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's logaddexp: log(exp(a) + exp(b)) without overflow.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto logaddexp(A&& a, B&& b) {
  return detail::binary<detail::logaddexp_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's logaddexp2: log2(2**a + 2**b) without overflow.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto logaddexp2(A&& a, B&& b) {
  return detail::binary<detail::logaddexp2_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's heaviside(x, h0): 0 where x < 0, h0 where x == 0, 1 where x > 0 (NaN stays NaN).
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto heaviside(A&& a, B&& b) {
  return detail::binary<detail::heaviside_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's float_power: a ** b computed in float64 (complex128 for complex operands).
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto float_power(A&& a, B&& b) {
  return detail::binary<detail::float_power_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's fmod: the remainder with the sign of the dividend (C's fmod); integer x fmod 0 is 0.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto fmod(A&& a, B&& b) {
  return detail::binary<detail::fmod_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's nextafter: the next float after a toward b (float32 and float64 loops).
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto nextafter(A&& a, B&& b) {
  return detail::binary<detail::nextafter_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's gcd: the greatest common divisor of integers, non-negative (gcd(0, 0) is 0).
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto gcd(A&& a, B&& b) {
  return detail::binary<detail::gcd_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's lcm: the least common multiple of integers, non-negative (0 if either is 0).
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto lcm(A&& a, B&& b) {
  return detail::binary<detail::lcm_op>(std::forward<A>(a), std::forward<B>(b));
}

}  // namespace ndcuda
