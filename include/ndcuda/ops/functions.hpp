// NumPy's elementwise functions (ufuncs) on arrays and expressions: math, rounding, NaN tests,
// maximum/minimum, where, clip, complex parts. Builds on ops/operators.hpp (the same lazy nodes).
#pragma once

#include <ndcuda/ops/operators.hpp>

namespace ndcuda {

NDCUDA_UNARY(abs, abs, any_type, "")
NDCUDA_UNARY(absolute, abs, any_type, "")
NDCUDA_UNARY(sign, sign, real_not_bool, "sign needs a real, non-bool operand")
NDCUDA_UNARY(sqrt, sqrt, any_type, "")
NDCUDA_UNARY(cbrt, cbrt, real_number, "cbrt is not defined for complex numbers")
NDCUDA_UNARY(exp, exp, any_type, "")
NDCUDA_UNARY(exp2, exp2, real_number, "exp2 of complex numbers is not supported")
NDCUDA_UNARY(expm1, expm1, real_number, "expm1 of complex numbers is not supported")
NDCUDA_UNARY(log, log, any_type, "")
NDCUDA_UNARY(log2, log2, real_number, "log2 of complex numbers is not supported")
NDCUDA_UNARY(log10, log10, any_type, "")
NDCUDA_UNARY(log1p, log1p, real_number, "log1p of complex numbers is not supported")
NDCUDA_UNARY(sin, sin, any_type, "")
NDCUDA_UNARY(cos, cos, any_type, "")
NDCUDA_UNARY(tan, tan, any_type, "")
NDCUDA_UNARY(arcsin, arcsin, any_type, "")
NDCUDA_UNARY(arccos, arccos, any_type, "")
NDCUDA_UNARY(arctan, arctan, any_type, "")
NDCUDA_UNARY(sinh, sinh, any_type, "")
NDCUDA_UNARY(cosh, cosh, any_type, "")
NDCUDA_UNARY(tanh, tanh, any_type, "")
NDCUDA_UNARY(floor, floor, real_number, "floor is not defined for complex numbers")
NDCUDA_UNARY(ceil, ceil, real_number, "ceil is not defined for complex numbers")
NDCUDA_UNARY(trunc, trunc, real_number, "trunc is not defined for complex numbers")
NDCUDA_UNARY(rint, rint, real_number, "rint of complex numbers is not supported")
NDCUDA_UNARY(round, round, real_number, "round of complex numbers is not supported")
NDCUDA_UNARY(isnan, isnan, any_type, "")
NDCUDA_UNARY(isinf, isinf, any_type, "")
NDCUDA_UNARY(isfinite, isfinite, any_type, "")
NDCUDA_UNARY(real, real, any_type, "")
NDCUDA_UNARY(imag, imag, any_type, "")
NDCUDA_UNARY(conj, conj, any_type, "")
NDCUDA_UNARY(conjugate, conj, any_type, "")
NDCUDA_BINARY(arctan2, arctan2, real_number, "arctan2 is not defined for complex numbers")
// maximum/minimum propagate NaN; fmax/fmin return the other operand when one is NaN.
NDCUDA_BINARY(maximum, maximum, real_number, "maximum of complex numbers is not supported")
NDCUDA_BINARY(minimum, minimum, real_number, "minimum of complex numbers is not supported")
NDCUDA_BINARY(fmax, fmax, real_number, "fmax of complex numbers is not supported")
NDCUDA_BINARY(fmin, fmin, real_number, "fmin of complex numbers is not supported")

#undef NDCUDA_UNARY
#undef NDCUDA_BINARY

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
