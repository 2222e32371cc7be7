// The operations an expression node can hold, one row each: the operand types NumPy accepts (and
// its TypeError as a compile-time message), the result dtype, and how the fused kernel spells it (a
// kernels/ufuncs.cuh helper or a C++ operator). Builds on core/promotion.hpp.
#pragma once

#include <cstdint>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/promotion.hpp>

namespace ndcuda::detail {

/// How a node is written: fn(a, b), ((T)(a op b)), ((T)(op a)), (c ? a : b), or a conversion
/// with astype's rules (rounded to the target dtype even when that computes in a wider type).
enum class form : std::uint8_t { call, infix, prefix, where, cast };

struct spelling {
  const char* text;  ///< helper name ("nd_add") or operator ("<")
  form how;
};

template <class... D>
constexpr dtype promote_all(dtype first, D... rest) noexcept {
  ((first = promote_types(first, rest)), ...);
  return first;
}

constexpr bool is_int_kind(dtype t) noexcept {
  return is_integral(t);
}
constexpr bool is_bool(dtype t) noexcept {
  return t == dtype::bool_;
}

// Result-type rules, from the operands' promoted dtype `p`.
constexpr dtype same(dtype p) noexcept {
  return p;
}
constexpr dtype to_bool(dtype) noexcept {
  return dtype::bool_;
}
/// True division of integers (and bools) gives float64, as in NumPy.
constexpr dtype true_div(dtype p) noexcept {
  return is_int_kind(p) || is_bool(p) ? dtype::float64 : p;
}
/// NumPy computes bool // bool and bool % bool in int8.
constexpr dtype int8_for_bool(dtype p) noexcept {
  return is_bool(p) ? dtype::int8 : p;
}
/// Float ufuncs on integers: the narrowest float holding every value (int8 -> float16, int16 ->
/// float32, int32/int64 -> float64, bool -> float16), as NumPy's loops choose.
constexpr dtype float_of(dtype p) noexcept {
  return is_floating(p) || is_complex(p) ? p : promote_types(p, dtype::float16);
}
/// float_power computes in float64 (complex128 for complex operands), whatever the inputs.
constexpr dtype float64_of(dtype p) noexcept {
  return is_complex(p) ? dtype::complex128 : dtype::float64;
}
/// np.sinc and np.i0 are Python functions, not loops: integers and bools become float64 (as
/// `pi * x` and `x.astype(float)` make them), floats and complex keep their dtype.
constexpr dtype float64_for_int(dtype p) noexcept {
  return is_int_kind(p) || is_bool(p) ? dtype::float64 : p;
}
/// abs, real, imag of complex give the part's type.
constexpr dtype part_of(dtype p) noexcept {
  return p == dtype::complex64 ? dtype::float32 : p == dtype::complex128 ? dtype::float64 : p;
}

// Operand rules: which promoted dtypes an operation accepts (NumPy raises TypeError for the rest).
constexpr bool any_type(dtype) noexcept {
  return true;
}
constexpr bool not_bool(dtype t) noexcept {
  return t != dtype::bool_;
}
constexpr bool not_complex(dtype t) noexcept {
  return !is_complex(t);
}
constexpr bool integer_or_bool(dtype t) noexcept {
  return is_integral(t) || t == dtype::bool_;
}
constexpr bool integer_only(dtype t) noexcept {
  return is_integral(t);
}
constexpr bool real_number(dtype t) noexcept {
  return !is_complex(t);
}
constexpr bool real_not_bool(dtype t) noexcept {
  return !is_complex(t) && t != dtype::bool_;
}
/// nextafter and spacing step through the representation of the loop's float type; the kernels
/// compute float16/bfloat16 in float, so those (and the int8/uint8/bool that become float16) are
/// refused rather than stepped by float's ulp.
constexpr bool real_not_half(dtype t) noexcept {
  const dtype f = float_of(t);
  return !is_complex(t) && f != dtype::float16 && f != dtype::bfloat16;
}

/// An operation: `Input` is the dtype the operands are converted to, `Result` the node's dtype
/// (both from the operands' promoted dtype). A table row below adds `check<P>()`, NumPy's type
/// check of the promoted dtype P as a static_assert carrying the row's message: every spelling
/// of the ufunc (`a - b`, `nd::subtract(a, b)`) builds its node through that one row.
template <const char* Name, const char* Text, form How, dtype (*Input)(dtype), dtype (*Result)(dtype)>
struct operation {
  static constexpr const char* name = Name;
  static constexpr spelling spell{Text, How};
  template <class... D>
  static constexpr dtype input(D... d) noexcept {
    return Input(promote_all(d...));
  }
  template <class... D>
  static constexpr dtype result(D... d) noexcept {
    return Result(promote_all(d...));
  }
};

/// where(c, a, b): c converts to bool, a and b promote together.
struct where_op {
  static constexpr const char* name = "where";
  static constexpr spelling spell{"?", form::where};
  static constexpr dtype input(dtype, dtype a, dtype b) noexcept { return promote_types(a, b); }
  static constexpr dtype result(dtype, dtype a, dtype b) noexcept { return promote_types(a, b); }
};

/// expr.astype<T>(): converts to D inside the fused kernel, with no temporary array.
template <dtype D>
struct cast_op {
  static constexpr const char* name = "astype";
  static constexpr spelling spell{"", form::cast};
  static constexpr dtype input(dtype) noexcept { return D; }
  static constexpr dtype result(dtype) noexcept { return D; }
};

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
