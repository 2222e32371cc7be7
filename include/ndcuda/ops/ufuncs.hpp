/// @file
/// NumPy's ufuncs, one row each: a row defines the operation the expression engine fuses (for
/// sqrt, detail::sqrt_op: kernel spelling, dtype rules, NumPy's operand check and its TypeError)
/// and the NumPy-named function (nd::sqrt) that builds its lazy node. Builds on expr/expression.hpp
/// and the operation protocol (expr/operation.hpp); the device side is kernels/ufuncs*.cuh.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/core/dtype.hpp>
#include <ndcuda/expr/expression.hpp>
#include <ndcuda/expr/operation.hpp>
#include <utility>

namespace ndcuda {

namespace detail {

/// The node of row `Op` over two operands, at least one array-like, once the row has checked their
/// promoted dtype: every binary spelling (`a - b`, `nd::subtract(a, b)`) calls this, so the type
/// check and its message exist once per ufunc.
template <class Op, class A, class B>
auto binary(A&& a, B&& b) {
  Op::template check<promote_operands<A, B>()>();
  return make_expr<Op>(std::forward<A>(a), std::forward<B>(b));
}

/// The node of row `Op` over one array-like operand, after the row's check of its dtype.
template <class Op, class A>
auto unary(A&& a) {
  Op::template check<node_t<A>::type()>();
  return make_expr<Op>(std::forward<A>(a));
}

}  // namespace detail

// A row: name, kernel spelling, form, input and result rules, the operand rule and the message
// shown when a call breaks it (a static_assert message must be a literal in C++20, hence macros;
// they are #undef'd below). NDCUDA_UNARY_UFUNC and NDCUDA_BINARY_UFUNC add the public function
// nd::<name>, documented by the `///` line above the row (docs/Doxyfile.in predefines
// NDCUDA_UFUNC_OPERATION away, so Doxygen sees only the function). Tag and form are pasted and
// named, not expressions, so they cannot be parenthesised.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define NDCUDA_UFUNC_OPERATION(tag, text, how, input_rule, result_rule, operand_rule, message) \
  namespace detail {                                                                           \
  inline constexpr char tag##_name[] = #tag;                                                   \
  inline constexpr char tag##_text[] = text;                                                   \
  struct tag##_op : operation<tag##_name, tag##_text, form::how, &input_rule, &result_rule> {  \
    static constexpr bool accepts(dtype p) noexcept { return operand_rule(p); }                \
    template <dtype P>                                                                         \
    static constexpr void check() noexcept {                                                   \
      static_assert(operand_rule(P), message);                                                 \
    }                                                                                          \
  };                                                                                           \
  }
#define NDCUDA_UNARY_UFUNC(tag, ...)                            \
  NDCUDA_UFUNC_OPERATION(tag, __VA_ARGS__)                      \
  template <array_operand A>                                    \
  [[nodiscard]] auto tag(A&& a) {                               \
    return detail::unary<detail::tag##_op>(std::forward<A>(a)); \
  }
#define NDCUDA_BINARY_UFUNC(tag, ...)                                                   \
  NDCUDA_UFUNC_OPERATION(tag, __VA_ARGS__)                                              \
  template <operand A, operand B>                                                       \
  requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto tag(A&& a, B&& b) { \
    return detail::binary<detail::tag##_op>(std::forward<A>(a), std::forward<B>(b));    \
  }

// The table. The tests read it (tests/ops/ufunc_row_list.cmake: keep each row at the start of its
// line), and a row without NumPy's cases fails them: docs/contributing.md, "A ufunc".
/// NumPy's add: `a + b` elementwise, broadcast, dtypes promoted as NumPy 2 does (a lazy node).
NDCUDA_BINARY_UFUNC(add, "ndcuda::nd_add", call, same, same, any_type, "")
/// NumPy's subtract: `a - b` elementwise; booleans are refused, as in NumPy.
NDCUDA_BINARY_UFUNC(subtract, "ndcuda::nd_subtract", call, same, same, not_bool,
                    "subtracting bool arrays is not supported (NumPy: use ^ or logical_xor)")
/// NumPy's multiply: `a * b` elementwise.
NDCUDA_BINARY_UFUNC(multiply, "ndcuda::nd_multiply", call, same, same, any_type, "")
/// NumPy's true_divide: `a / b`, integers promoted to a float dtype.
NDCUDA_BINARY_UFUNC(true_divide, "ndcuda::nd_true_divide", call, true_div, true_div, any_type, "")
/// NumPy's floor_divide (`a // b` in Python): rounds toward minus infinity; integer division by zero gives 0.
NDCUDA_BINARY_UFUNC(floor_divide, "ndcuda::nd_floor_divide", call, int8_for_bool, int8_for_bool, not_complex,
                    "floor_divide is not defined for complex numbers")
/// NumPy's remainder: the result has the sign of the divisor, as Python's `%`.
NDCUDA_BINARY_UFUNC(remainder, "ndcuda::nd_remainder", call, int8_for_bool, int8_for_bool, not_complex,
                    "remainder (%) is not defined for complex numbers")
/// NumPy's power: `a ** b` elementwise; integer powers stay integers.
NDCUDA_BINARY_UFUNC(power, "ndcuda::nd_power", call, same, same, any_type, "")
/// NumPy's negative: `-a` elementwise; booleans are refused, as in NumPy.
NDCUDA_UNARY_UFUNC(negative, "ndcuda::nd_negative", call, same, same, not_bool,
                   "negating a bool array is not supported (NumPy: use ~ or logical_not)")
// Complex operands are ordered as NumPy 2 orders them (kernels/complex.cuh, kernels/ufuncs.cuh).
/// NumPy's maximum: the larger of a and b elementwise; NaN propagates (fmax ignores it).
NDCUDA_BINARY_UFUNC(maximum, "ndcuda::nd_maximum", call, same, same, any_type, "")
/// NumPy's minimum: the smaller of a and b elementwise; NaN propagates.
NDCUDA_BINARY_UFUNC(minimum, "ndcuda::nd_minimum", call, same, same, any_type, "")
/// NumPy's fmax: the larger of a and b, ignoring a NaN when the other operand is a number.
NDCUDA_BINARY_UFUNC(fmax, "ndcuda::nd_fmax", call, same, same, any_type, "")
/// NumPy's fmin: the smaller of a and b, ignoring a NaN when the other operand is a number.
NDCUDA_BINARY_UFUNC(fmin, "ndcuda::nd_fmin", call, same, same, any_type, "")
/// NumPy's equal: `a == b` elementwise, a bool array.
NDCUDA_BINARY_UFUNC(equal, "==", infix, same, to_bool, any_type, "")
/// NumPy's not_equal: `a != b` elementwise, a bool array.
NDCUDA_BINARY_UFUNC(not_equal, "!=", infix, same, to_bool, any_type, "")
/// NumPy's less: `a < b` elementwise, a bool array.
NDCUDA_BINARY_UFUNC(less, "<", infix, same, to_bool, any_type, "")
/// NumPy's less_equal: `a <= b` elementwise, a bool array.
NDCUDA_BINARY_UFUNC(less_equal, "<=", infix, same, to_bool, any_type, "")
/// NumPy's greater: `a > b` elementwise, a bool array.
NDCUDA_BINARY_UFUNC(greater, ">", infix, same, to_bool, any_type, "")
/// NumPy's greater_equal: `a >= b` elementwise, a bool array.
NDCUDA_BINARY_UFUNC(greater_equal, ">=", infix, same, to_bool, any_type, "")
/// NumPy's logical_and: the truth of a and of b, elementwise, a bool array.
NDCUDA_BINARY_UFUNC(logical_and, "&&", infix, to_bool, to_bool, any_type, "")
/// NumPy's logical_or: the truth of a or of b, elementwise, a bool array.
NDCUDA_BINARY_UFUNC(logical_or, "||", infix, to_bool, to_bool, any_type, "")
/// NumPy's logical_xor: exactly one of a and b true, elementwise, a bool array.
NDCUDA_BINARY_UFUNC(logical_xor, "!=", infix, to_bool, to_bool, any_type, "")
/// NumPy's logical_not: true where a is zero, a bool array.
NDCUDA_UNARY_UFUNC(logical_not, "!", prefix, to_bool, to_bool, any_type, "")
/// NumPy's bitwise_and: `a & b` on integers and bools.
NDCUDA_BINARY_UFUNC(bitwise_and, "&", infix, same, same, integer_or_bool,
                    "& (bitwise_and) needs integer or bool operands")
/// NumPy's bitwise_or: `a | b` on integers and bools.
NDCUDA_BINARY_UFUNC(bitwise_or, "|", infix, same, same, integer_or_bool,
                    "| (bitwise_or) needs integer or bool operands")
/// NumPy's bitwise_xor: `a ^ b` on integers and bools.
NDCUDA_BINARY_UFUNC(bitwise_xor, "^", infix, same, same, integer_or_bool,
                    "^ (bitwise_xor) needs integer or bool operands")
/// NumPy's invert: `~a`, bitwise not of integers and logical not of bools.
NDCUDA_UNARY_UFUNC(invert, "ndcuda::nd_invert", call, same, same, integer_or_bool,
                   "~ (invert) needs an integer or bool operand")
/// NumPy's left_shift: `a << b`; shifts by the bit width or more give 0, as NumPy.
NDCUDA_BINARY_UFUNC(left_shift, "ndcuda::nd_left_shift", call, same, same, integer_only,
                    "<< (left_shift) needs integer operands")
/// NumPy's right_shift: `a >> b` (arithmetic for signed integers), as NumPy.
NDCUDA_BINARY_UFUNC(right_shift, "ndcuda::nd_right_shift", call, same, same, integer_only,
                    ">> (right_shift) needs integer operands")
/// NumPy's abs: the absolute value elementwise (the magnitude, a real dtype, for complex).
NDCUDA_UNARY_UFUNC(abs, "ndcuda::nd_abs", call, same, part_of, any_type, "")
/// NumPy's sign: -1, 0 or 1 elementwise (NaN stays NaN); z / |z| for complex z (NumPy 2); bool refused.
NDCUDA_UNARY_UFUNC(sign, "ndcuda::nd_sign", call, same, same, not_bool,
                   "ufunc 'sign' did not contain a loop with signature matching types (bool): use astype() to a "
                   "numeric dtype")
/// NumPy's isnan: true where an element is NaN, a bool array.
NDCUDA_UNARY_UFUNC(isnan, "ndcuda::nd_isnan", call, same, to_bool, any_type, "")
/// NumPy's isinf: true where an element is plus or minus infinity, a bool array.
NDCUDA_UNARY_UFUNC(isinf, "ndcuda::nd_isinf", call, same, to_bool, any_type, "")
/// NumPy's isfinite: true where an element is neither infinite nor NaN, a bool array.
NDCUDA_UNARY_UFUNC(isfinite, "ndcuda::nd_isfinite", call, same, to_bool, any_type, "")
/// NumPy's real: the real part (the array itself for real dtypes).
NDCUDA_UNARY_UFUNC(real, "ndcuda::nd_real", call, same, part_of, any_type, "")
/// NumPy's imag: the imaginary part (zeros for real dtypes).
NDCUDA_UNARY_UFUNC(imag, "ndcuda::nd_imag", call, same, part_of, any_type, "")
/// NumPy's conj: the complex conjugate (the values themselves for real dtypes).
NDCUDA_UNARY_UFUNC(conj, "ndcuda::nd_conj", call, same, same, any_type, "")
/// NumPy's floor: the largest integer value not above each element (same dtype).
NDCUDA_UNARY_UFUNC(floor, "ndcuda::nd_floor", call, same, same, real_number, "floor is not defined for complex numbers")
/// NumPy's ceil: the smallest integer value not below each element (same dtype).
NDCUDA_UNARY_UFUNC(ceil, "ndcuda::nd_ceil", call, same, same, real_number, "ceil is not defined for complex numbers")
/// NumPy's trunc: each element rounded toward zero (same dtype).
NDCUDA_UNARY_UFUNC(trunc, "ndcuda::nd_trunc", call, same, same, real_number, "trunc is not defined for complex numbers")
/// NumPy's round (decimals=0): halves to even, as rint.
NDCUDA_UNARY_UFUNC(round, "ndcuda::nd_round", call, same, same, real_number,
                   "round of complex numbers is not supported")
/// NumPy's rint: each element rounded to the nearest integer value, halves to even.
NDCUDA_UNARY_UFUNC(rint, "ndcuda::nd_rint", call, float_of, float_of, real_number,
                   "rint of complex numbers is not supported")
/// NumPy's arctan2(y, x): the angle of the point (x, y), in radians, in the right quadrant.
NDCUDA_BINARY_UFUNC(arctan2, "ndcuda::nd_arctan2", call, float_of, float_of, real_number,
                    "arctan2 is not defined for complex numbers")
// Float functions: integer operands convert to float_of first.
/// NumPy's sqrt: the square root elementwise (NaN for negative reals).
NDCUDA_UNARY_UFUNC(sqrt, "ndcuda::nd_sqrt", call, float_of, float_of, any_type, "")
/// NumPy's cbrt: the real cube root elementwise.
NDCUDA_UNARY_UFUNC(cbrt, "ndcuda::nd_cbrt", call, float_of, float_of, real_number,
                   "cbrt is not defined for complex numbers")
/// NumPy's exp: e to the power of each element.
NDCUDA_UNARY_UFUNC(exp, "ndcuda::nd_exp", call, float_of, float_of, any_type, "")
/// NumPy's exp2: 2 to the power of each element.
NDCUDA_UNARY_UFUNC(exp2, "ndcuda::nd_exp2", call, float_of, float_of, real_number,
                   "exp2 of complex numbers is not supported")
/// NumPy's expm1: exp(x) - 1, accurate near zero.
NDCUDA_UNARY_UFUNC(expm1, "ndcuda::nd_expm1", call, float_of, float_of, real_number,
                   "expm1 of complex numbers is not supported")
/// NumPy's log: the natural logarithm elementwise.
NDCUDA_UNARY_UFUNC(log, "ndcuda::nd_log", call, float_of, float_of, any_type, "")
/// NumPy's log2: the base-2 logarithm elementwise.
NDCUDA_UNARY_UFUNC(log2, "ndcuda::nd_log2", call, float_of, float_of, real_number,
                   "log2 of complex numbers is not supported")
/// NumPy's log10: the base-10 logarithm elementwise.
NDCUDA_UNARY_UFUNC(log10, "ndcuda::nd_log10", call, float_of, float_of, any_type, "")
/// NumPy's log1p: log(1 + x), accurate near zero.
NDCUDA_UNARY_UFUNC(log1p, "ndcuda::nd_log1p", call, float_of, float_of, real_number,
                   "log1p of complex numbers is not supported")
/// NumPy's sin, in radians, elementwise.
NDCUDA_UNARY_UFUNC(sin, "ndcuda::nd_sin", call, float_of, float_of, any_type, "")
/// NumPy's cos, in radians, elementwise.
NDCUDA_UNARY_UFUNC(cos, "ndcuda::nd_cos", call, float_of, float_of, any_type, "")
/// NumPy's tan, in radians, elementwise.
NDCUDA_UNARY_UFUNC(tan, "ndcuda::nd_tan", call, float_of, float_of, any_type, "")
/// NumPy's arcsin, the inverse sine elementwise.
NDCUDA_UNARY_UFUNC(arcsin, "ndcuda::nd_arcsin", call, float_of, float_of, any_type, "")
/// NumPy's arccos, the inverse cosine elementwise.
NDCUDA_UNARY_UFUNC(arccos, "ndcuda::nd_arccos", call, float_of, float_of, any_type, "")
/// NumPy's arctan, the inverse tangent elementwise.
NDCUDA_UNARY_UFUNC(arctan, "ndcuda::nd_arctan", call, float_of, float_of, any_type, "")
/// NumPy's sinh, the hyperbolic sine elementwise.
NDCUDA_UNARY_UFUNC(sinh, "ndcuda::nd_sinh", call, float_of, float_of, any_type, "")
/// NumPy's cosh, the hyperbolic cosine elementwise.
NDCUDA_UNARY_UFUNC(cosh, "ndcuda::nd_cosh", call, float_of, float_of, any_type, "")
/// NumPy's tanh, the hyperbolic tangent elementwise.
NDCUDA_UNARY_UFUNC(tanh, "ndcuda::nd_tanh", call, float_of, float_of, any_type, "")
// Issue 19: the rest of NumPy's math ufuncs. Messages are NumPy's TypeError text, plus the fix.
/// NumPy's hypot: sqrt(a*a + b*b) without overflow; inf if either is infinite, even with a NaN.
NDCUDA_BINARY_UFUNC(hypot, "ndcuda::nd_hypot", call, float_of, float_of, real_number,
                    "ufunc 'hypot' not supported for the input types (complex): use abs() of the complex number")
/// NumPy's arcsinh, the inverse hyperbolic sine elementwise (complex too).
NDCUDA_UNARY_UFUNC(arcsinh, "ndcuda::nd_arcsinh", call, float_of, float_of, any_type, "")
/// NumPy's arccosh, the inverse hyperbolic cosine elementwise (NaN below 1; complex too).
NDCUDA_UNARY_UFUNC(arccosh, "ndcuda::nd_arccosh", call, float_of, float_of, any_type, "")
/// NumPy's arctanh, the inverse hyperbolic tangent elementwise (+-inf at +-1; complex too).
NDCUDA_UNARY_UFUNC(arctanh, "ndcuda::nd_arctanh", call, float_of, float_of, any_type, "")
/// NumPy's square: x * x elementwise, in the operand's dtype (bool gives int8; integers wrap).
NDCUDA_UNARY_UFUNC(square, "ndcuda::nd_square", call, int8_for_bool, int8_for_bool, any_type, "")
/// NumPy's reciprocal: 1 / x in the operand's dtype, so integers give C's 1 / x (0 unless |x| is 1).
NDCUDA_UNARY_UFUNC(reciprocal, "ndcuda::nd_reciprocal", call, int8_for_bool, int8_for_bool, any_type, "")
/// NumPy's positive: +x, a copy of the values (bool refused, as NumPy).
NDCUDA_UNARY_UFUNC(positive, "ndcuda::nd_positive", call, same, same, not_bool,
                   "ufunc 'positive' did not contain a loop with signature matching types (bool): use astype() to a "
                   "numeric dtype")
/// NumPy's copysign: the magnitude of a with the sign of b, elementwise.
NDCUDA_BINARY_UFUNC(copysign, "ndcuda::nd_copysign", call, float_of, float_of, real_number,
                    "ufunc 'copysign' not supported for the input types (complex)")
/// NumPy's signbit: true where the sign bit is set (-0.0 and -NaN included), a bool array.
NDCUDA_UNARY_UFUNC(signbit, "ndcuda::nd_signbit", call, float_of, to_bool, real_number,
                   "ufunc 'signbit' not supported for the input types (complex): test real() or imag()")
/// NumPy's logaddexp: log(exp(a) + exp(b)) without overflow.
NDCUDA_BINARY_UFUNC(logaddexp, "ndcuda::nd_logaddexp", call, float_of, float_of, real_number,
                    "ufunc 'logaddexp' not supported for the input types (complex)")
/// NumPy's logaddexp2: log2(2**a + 2**b) without overflow.
NDCUDA_BINARY_UFUNC(logaddexp2, "ndcuda::nd_logaddexp2", call, float_of, float_of, real_number,
                    "ufunc 'logaddexp2' not supported for the input types (complex)")
/// NumPy's deg2rad: degrees to radians, x * pi / 180.
NDCUDA_UNARY_UFUNC(deg2rad, "ndcuda::nd_deg2rad", call, float_of, float_of, real_number,
                   "ufunc 'deg2rad' not supported for the input types (complex)")
/// NumPy's rad2deg: radians to degrees, x * 180 / pi.
NDCUDA_UNARY_UFUNC(rad2deg, "ndcuda::nd_rad2deg", call, float_of, float_of, real_number,
                   "ufunc 'rad2deg' not supported for the input types (complex)")
/// NumPy's heaviside(x, h0): 0 where x < 0, h0 where x == 0, 1 where x > 0 (NaN stays NaN).
NDCUDA_BINARY_UFUNC(heaviside, "ndcuda::nd_heaviside", call, float_of, float_of, real_number,
                    "ufunc 'heaviside' not supported for the input types (complex)")
/// NumPy's float_power: a ** b computed in float64 (complex128 for complex operands).
NDCUDA_BINARY_UFUNC(float_power, "ndcuda::nd_float_power", call, float64_of, float64_of, any_type, "")
/// NumPy's fmod: the remainder with the sign of the dividend (C's fmod); integer x fmod 0 is 0.
NDCUDA_BINARY_UFUNC(fmod, "ndcuda::nd_fmod", call, int8_for_bool, int8_for_bool, real_number,
                    "ufunc 'fmod' not supported for the input types (complex)")
/// NumPy's nextafter: the next float after a toward b (float32 and float64 loops).
NDCUDA_BINARY_UFUNC(nextafter, "ndcuda::nd_nextafter", call, float_of, float_of, real_not_half,
                    "nextafter of complex, float16 or bfloat16 (or int8/uint8/bool, which become float16) is not "
                    "supported: use astype<float>() first")
/// NumPy's spacing: the distance from x to the next float away from zero, signed like x.
NDCUDA_UNARY_UFUNC(spacing, "ndcuda::nd_spacing", call, float_of, float_of, real_not_half,
                   "spacing of complex, float16 or bfloat16 (or int8/uint8/bool, which become float16) is not "
                   "supported: use astype<float>() first")
/// NumPy's gcd: the greatest common divisor of integers, non-negative (gcd(0, 0) is 0).
NDCUDA_BINARY_UFUNC(gcd, "ndcuda::nd_gcd", call, same, same, integer_only,
                    "ufunc 'gcd' did not contain a loop with signature matching types: gcd needs integer operands")
/// NumPy's lcm: the least common multiple of integers, non-negative (0 if either is 0).
NDCUDA_BINARY_UFUNC(lcm, "ndcuda::nd_lcm", call, same, same, integer_only,
                    "ufunc 'lcm' did not contain a loop with signature matching types: lcm needs integer operands")
/// NumPy's sinc, normalised: sin(pi x) / (pi x), and 1 at 0; integers give float64.
NDCUDA_UNARY_UFUNC(sinc, "ndcuda::nd_sinc", call, float64_for_int, float64_for_int, any_type, "")
/// NumPy's i0: the modified Bessel function of the first kind, order 0; integers give float64.
NDCUDA_UNARY_UFUNC(i0, "ndcuda::nd_i0", call, float64_for_int, float64_for_int, real_number,
                   "i0 not supported for complex values")
/// NumPy's isposinf: true where an element is +inf (never for integers); complex refused.
NDCUDA_UNARY_UFUNC(isposinf, "ndcuda::nd_isposinf", call, same, to_bool, real_number,
                   "isposinf: This operation is not supported for complex values because it would be ambiguous.")
/// NumPy's isneginf: true where an element is -inf (never for integers); complex refused.
NDCUDA_UNARY_UFUNC(isneginf, "ndcuda::nd_isneginf", call, same, to_bool, real_number,
                   "isneginf: This operation is not supported for complex values because it would be ambiguous.")
/// NumPy's isreal: true where the imaginary part is zero (everywhere for real dtypes).
NDCUDA_UNARY_UFUNC(isreal, "ndcuda::nd_isreal", call, same, to_bool, any_type, "")
/// NumPy's iscomplex: true where the imaginary part is nonzero (nowhere for real dtypes).
NDCUDA_UNARY_UFUNC(iscomplex, "ndcuda::nd_iscomplex", call, same, to_bool, any_type, "")
// Not a NumPy ufunc: the tanh-approximated GELU of neural networks, as cuBLASLt's GELU epilogue
// computes it (so linalg can fuse gelu(matmul + bias) into one call with the same values).
/// The GELU activation of neural networks in its tanh approximation (not a NumPy function):
/// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), as torch's gelu(approximate='tanh') and
/// cuBLASLt's epilogue compute it; integers become float as for tanh, complex is refused.
/// `nd::gelu(nd::matmul(a, b) + bias)` runs as one cuBLASLt call (docs/linalg.md).
NDCUDA_UNARY_UFUNC(gelu, "ndcuda::nd_gelu", call, float_of, float_of, real_number,
                   "gelu is not supported for complex values: apply it to real() and imag() separately")
#undef NDCUDA_UNARY_UFUNC
#undef NDCUDA_BINARY_UFUNC
#undef NDCUDA_UFUNC_OPERATION
// NOLINTEND(bugprone-macro-parentheses)

// NumPy's aliases: more names for a row, never a second row.
/// NumPy's absolute, the same as abs.
template <array_operand A>
[[nodiscard]] auto absolute(A&& a) {
  return detail::unary<detail::abs_op>(std::forward<A>(a));
}
/// NumPy's conjugate, the same as conj.
template <array_operand A>
[[nodiscard]] auto conjugate(A&& a) {
  return detail::unary<detail::conj_op>(std::forward<A>(a));
}
/// NumPy's divide, an alias of true_divide.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto divide(A&& a, B&& b) {
  return detail::binary<detail::true_divide_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's mod, an alias of remainder.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto mod(A&& a, B&& b) {
  return detail::binary<detail::remainder_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's bitwise_not, an alias of invert.
template <array_operand A>
[[nodiscard]] auto bitwise_not(A&& a) {
  return detail::unary<detail::invert_op>(std::forward<A>(a));
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

}  // namespace ndcuda

#pragma GCC visibility pop
