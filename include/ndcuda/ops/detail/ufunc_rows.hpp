// The ufunc table: one row per ufunc (name, kernel spelling, form, input and result rules, the
// operand rule NumPy applies and its TypeError as a compile-time message). Every spelling of a
// ufunc (`a - b`, `nd::subtract(a, b)`) builds its node through its row (ops/operators.hpp). Builds
// on expr/operation.hpp (the operation protocol and the rules).
#pragma once

#include <ndcuda/core/dtype.hpp>
#include <ndcuda/expr/operation.hpp>

namespace ndcuda::detail {

// One row per ufunc: name, kernel spelling, form, input and result rules, the operand rule and
// the message shown when a call breaks it. (A static_assert message must be a literal in C++20,
// hence this header-local macro; it is #undef'd below.) Its tag and form are pasted and named, not
// expressions, so they cannot be parenthesised.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define NDCUDA_OPERATION(tag, text, how, input_rule, result_rule, operand_rule, message)      \
  inline constexpr char tag##_name[] = #tag;                                                  \
  inline constexpr char tag##_text[] = text;                                                  \
  struct tag##_op : operation<tag##_name, tag##_text, form::how, &input_rule, &result_rule> { \
    static constexpr bool accepts(dtype p) noexcept { return operand_rule(p); }               \
    template <dtype P>                                                                        \
    static constexpr void check() noexcept {                                                  \
      static_assert(operand_rule(P), message);                                                \
    }                                                                                         \
  };

NDCUDA_OPERATION(add, "ndcuda::nd_add", call, same, same, any_type, "")
NDCUDA_OPERATION(subtract, "ndcuda::nd_subtract", call, same, same, not_bool,
                 "subtracting bool arrays is not supported (NumPy: use ^ or logical_xor)")
NDCUDA_OPERATION(multiply, "ndcuda::nd_multiply", call, same, same, any_type, "")
NDCUDA_OPERATION(true_divide, "ndcuda::nd_true_divide", call, true_div, true_div, any_type, "")
NDCUDA_OPERATION(floor_divide, "ndcuda::nd_floor_divide", call, int8_for_bool, int8_for_bool, not_complex,
                 "floor_divide is not defined for complex numbers")
NDCUDA_OPERATION(remainder, "ndcuda::nd_remainder", call, int8_for_bool, int8_for_bool, not_complex,
                 "remainder (%) is not defined for complex numbers")
NDCUDA_OPERATION(power, "ndcuda::nd_power", call, same, same, any_type, "")
NDCUDA_OPERATION(negative, "ndcuda::nd_negative", call, same, same, not_bool,
                 "negating a bool array is not supported (NumPy: use ~ or logical_not)")
// Complex operands are ordered as NumPy 2 orders them (kernels/complex.cuh, kernels/ufuncs.cuh).
NDCUDA_OPERATION(maximum, "ndcuda::nd_maximum", call, same, same, any_type, "")
NDCUDA_OPERATION(minimum, "ndcuda::nd_minimum", call, same, same, any_type, "")
NDCUDA_OPERATION(fmax, "ndcuda::nd_fmax", call, same, same, any_type, "")
NDCUDA_OPERATION(fmin, "ndcuda::nd_fmin", call, same, same, any_type, "")
NDCUDA_OPERATION(equal, "==", infix, same, to_bool, any_type, "")
NDCUDA_OPERATION(not_equal, "!=", infix, same, to_bool, any_type, "")
NDCUDA_OPERATION(less, "<", infix, same, to_bool, any_type, "")
NDCUDA_OPERATION(less_equal, "<=", infix, same, to_bool, any_type, "")
NDCUDA_OPERATION(greater, ">", infix, same, to_bool, any_type, "")
NDCUDA_OPERATION(greater_equal, ">=", infix, same, to_bool, any_type, "")
NDCUDA_OPERATION(logical_and, "&&", infix, to_bool, to_bool, any_type, "")
NDCUDA_OPERATION(logical_or, "||", infix, to_bool, to_bool, any_type, "")
NDCUDA_OPERATION(logical_xor, "!=", infix, to_bool, to_bool, any_type, "")
NDCUDA_OPERATION(logical_not, "!", prefix, to_bool, to_bool, any_type, "")
NDCUDA_OPERATION(bitwise_and, "&", infix, same, same, integer_or_bool, "& (bitwise_and) needs integer or bool operands")
NDCUDA_OPERATION(bitwise_or, "|", infix, same, same, integer_or_bool, "| (bitwise_or) needs integer or bool operands")
NDCUDA_OPERATION(bitwise_xor, "^", infix, same, same, integer_or_bool, "^ (bitwise_xor) needs integer or bool operands")
NDCUDA_OPERATION(invert, "ndcuda::nd_invert", call, same, same, integer_or_bool,
                 "~ (invert) needs an integer or bool operand")
NDCUDA_OPERATION(left_shift, "ndcuda::nd_left_shift", call, same, same, integer_only,
                 "<< (left_shift) needs integer operands")
NDCUDA_OPERATION(right_shift, "ndcuda::nd_right_shift", call, same, same, integer_only,
                 ">> (right_shift) needs integer operands")
NDCUDA_OPERATION(abs, "ndcuda::nd_abs", call, same, part_of, any_type, "")
NDCUDA_OPERATION(sign, "ndcuda::nd_sign", call, same, same, not_bool,
                 "ufunc 'sign' did not contain a loop with signature matching types (bool): use astype() to a "
                 "numeric dtype")
NDCUDA_OPERATION(isnan, "ndcuda::nd_isnan", call, same, to_bool, any_type, "")
NDCUDA_OPERATION(isinf, "ndcuda::nd_isinf", call, same, to_bool, any_type, "")
NDCUDA_OPERATION(isfinite, "ndcuda::nd_isfinite", call, same, to_bool, any_type, "")
NDCUDA_OPERATION(real, "ndcuda::nd_real", call, same, part_of, any_type, "")
NDCUDA_OPERATION(imag, "ndcuda::nd_imag", call, same, part_of, any_type, "")
NDCUDA_OPERATION(conj, "ndcuda::nd_conj", call, same, same, any_type, "")
NDCUDA_OPERATION(floor, "ndcuda::nd_floor", call, same, same, real_number, "floor is not defined for complex numbers")
NDCUDA_OPERATION(ceil, "ndcuda::nd_ceil", call, same, same, real_number, "ceil is not defined for complex numbers")
NDCUDA_OPERATION(trunc, "ndcuda::nd_trunc", call, same, same, real_number, "trunc is not defined for complex numbers")
NDCUDA_OPERATION(round, "ndcuda::nd_round", call, same, same, real_number, "round of complex numbers is not supported")
NDCUDA_OPERATION(rint, "ndcuda::nd_rint", call, float_of, float_of, real_number,
                 "rint of complex numbers is not supported")
NDCUDA_OPERATION(arctan2, "ndcuda::nd_arctan2", call, float_of, float_of, real_number,
                 "arctan2 is not defined for complex numbers")
// Float functions: integer operands convert to float_of first.
NDCUDA_OPERATION(sqrt, "ndcuda::nd_sqrt", call, float_of, float_of, any_type, "")
NDCUDA_OPERATION(cbrt, "ndcuda::nd_cbrt", call, float_of, float_of, real_number,
                 "cbrt is not defined for complex numbers")
NDCUDA_OPERATION(exp, "ndcuda::nd_exp", call, float_of, float_of, any_type, "")
NDCUDA_OPERATION(exp2, "ndcuda::nd_exp2", call, float_of, float_of, real_number,
                 "exp2 of complex numbers is not supported")
NDCUDA_OPERATION(expm1, "ndcuda::nd_expm1", call, float_of, float_of, real_number,
                 "expm1 of complex numbers is not supported")
NDCUDA_OPERATION(log, "ndcuda::nd_log", call, float_of, float_of, any_type, "")
NDCUDA_OPERATION(log2, "ndcuda::nd_log2", call, float_of, float_of, real_number,
                 "log2 of complex numbers is not supported")
NDCUDA_OPERATION(log10, "ndcuda::nd_log10", call, float_of, float_of, any_type, "")
NDCUDA_OPERATION(log1p, "ndcuda::nd_log1p", call, float_of, float_of, real_number,
                 "log1p of complex numbers is not supported")
NDCUDA_OPERATION(sin, "ndcuda::nd_sin", call, float_of, float_of, any_type, "")
NDCUDA_OPERATION(cos, "ndcuda::nd_cos", call, float_of, float_of, any_type, "")
NDCUDA_OPERATION(tan, "ndcuda::nd_tan", call, float_of, float_of, any_type, "")
NDCUDA_OPERATION(arcsin, "ndcuda::nd_arcsin", call, float_of, float_of, any_type, "")
NDCUDA_OPERATION(arccos, "ndcuda::nd_arccos", call, float_of, float_of, any_type, "")
NDCUDA_OPERATION(arctan, "ndcuda::nd_arctan", call, float_of, float_of, any_type, "")
NDCUDA_OPERATION(sinh, "ndcuda::nd_sinh", call, float_of, float_of, any_type, "")
NDCUDA_OPERATION(cosh, "ndcuda::nd_cosh", call, float_of, float_of, any_type, "")
NDCUDA_OPERATION(tanh, "ndcuda::nd_tanh", call, float_of, float_of, any_type, "")
// Issue 19: the rest of NumPy's math ufuncs. Messages are NumPy's TypeError text, plus the fix.
NDCUDA_OPERATION(hypot, "ndcuda::nd_hypot", call, float_of, float_of, real_number,
                 "ufunc 'hypot' not supported for the input types (complex): use abs() of the complex number")
NDCUDA_OPERATION(arcsinh, "ndcuda::nd_arcsinh", call, float_of, float_of, any_type, "")
NDCUDA_OPERATION(arccosh, "ndcuda::nd_arccosh", call, float_of, float_of, any_type, "")
NDCUDA_OPERATION(arctanh, "ndcuda::nd_arctanh", call, float_of, float_of, any_type, "")
NDCUDA_OPERATION(square, "ndcuda::nd_square", call, int8_for_bool, int8_for_bool, any_type, "")
NDCUDA_OPERATION(reciprocal, "ndcuda::nd_reciprocal", call, int8_for_bool, int8_for_bool, any_type, "")
NDCUDA_OPERATION(positive, "ndcuda::nd_positive", call, same, same, not_bool,
                 "ufunc 'positive' did not contain a loop with signature matching types (bool): use astype() to a "
                 "numeric dtype")
NDCUDA_OPERATION(copysign, "ndcuda::nd_copysign", call, float_of, float_of, real_number,
                 "ufunc 'copysign' not supported for the input types (complex)")
NDCUDA_OPERATION(signbit, "ndcuda::nd_signbit", call, float_of, to_bool, real_number,
                 "ufunc 'signbit' not supported for the input types (complex): test real() or imag()")
NDCUDA_OPERATION(logaddexp, "ndcuda::nd_logaddexp", call, float_of, float_of, real_number,
                 "ufunc 'logaddexp' not supported for the input types (complex)")
NDCUDA_OPERATION(logaddexp2, "ndcuda::nd_logaddexp2", call, float_of, float_of, real_number,
                 "ufunc 'logaddexp2' not supported for the input types (complex)")
NDCUDA_OPERATION(deg2rad, "ndcuda::nd_deg2rad", call, float_of, float_of, real_number,
                 "ufunc 'deg2rad' not supported for the input types (complex)")
NDCUDA_OPERATION(rad2deg, "ndcuda::nd_rad2deg", call, float_of, float_of, real_number,
                 "ufunc 'rad2deg' not supported for the input types (complex)")
NDCUDA_OPERATION(heaviside, "ndcuda::nd_heaviside", call, float_of, float_of, real_number,
                 "ufunc 'heaviside' not supported for the input types (complex)")
NDCUDA_OPERATION(float_power, "ndcuda::nd_float_power", call, float64_of, float64_of, any_type, "")
NDCUDA_OPERATION(fmod, "ndcuda::nd_fmod", call, int8_for_bool, int8_for_bool, real_number,
                 "ufunc 'fmod' not supported for the input types (complex)")
NDCUDA_OPERATION(nextafter, "ndcuda::nd_nextafter", call, float_of, float_of, real_not_half,
                 "nextafter of complex, float16 or bfloat16 (or int8/uint8/bool, which become float16) is not "
                 "supported: use astype<float>() first")
NDCUDA_OPERATION(spacing, "ndcuda::nd_spacing", call, float_of, float_of, real_not_half,
                 "spacing of complex, float16 or bfloat16 (or int8/uint8/bool, which become float16) is not "
                 "supported: use astype<float>() first")
NDCUDA_OPERATION(gcd, "ndcuda::nd_gcd", call, same, same, integer_only,
                 "ufunc 'gcd' did not contain a loop with signature matching types: gcd needs integer operands")
NDCUDA_OPERATION(lcm, "ndcuda::nd_lcm", call, same, same, integer_only,
                 "ufunc 'lcm' did not contain a loop with signature matching types: lcm needs integer operands")
NDCUDA_OPERATION(sinc, "ndcuda::nd_sinc", call, float64_for_int, float64_for_int, any_type, "")
NDCUDA_OPERATION(i0, "ndcuda::nd_i0", call, float64_for_int, float64_for_int, real_number,
                 "i0 not supported for complex values")
NDCUDA_OPERATION(isposinf, "ndcuda::nd_isposinf", call, same, to_bool, real_number,
                 "isposinf: This operation is not supported for complex values because it would be ambiguous.")
NDCUDA_OPERATION(isneginf, "ndcuda::nd_isneginf", call, same, to_bool, real_number,
                 "isneginf: This operation is not supported for complex values because it would be ambiguous.")
NDCUDA_OPERATION(isreal, "ndcuda::nd_isreal", call, same, to_bool, any_type, "")
NDCUDA_OPERATION(iscomplex, "ndcuda::nd_iscomplex", call, same, to_bool, any_type, "")
// Not a NumPy ufunc: the tanh-approximated GELU of neural networks, as cuBLASLt's GELU epilogue
// computes it (so linalg can fuse gelu(matmul + bias) into one call with the same values).
NDCUDA_OPERATION(gelu, "ndcuda::nd_gelu", call, float_of, float_of, real_number,
                 "gelu is not supported for complex values: apply it to real() and imag() separately")
#undef NDCUDA_OPERATION
// NOLINTEND(bugprone-macro-parentheses)

}  // namespace ndcuda::detail
