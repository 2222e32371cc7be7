// Every ufunc and operator, over every dtype it accepts, against a host reference with NumPy 2's
// semantics (tests/ops/ufunc_reference.hpp: long double, complex<long double>, exact integers) on
// special values (NaN, +-inf, +-0, subnormals, integer extremes) and fresh random inputs.
//
// One row per spelling: {name, the call on ndarrays, the device helper, the reference, dtypes,
// tolerance}. A row of ops/ufuncs.hpp needs a row here or NumPy's own cases in
// tests/data/ufunc_row_cases.txt (ufunc_row_cases_test.cpp), as new ufuncs have: each part checks
// that against the table's list of rows (ufunc_row_names.hpp). Each row here runs three ways:
//  - GPU:        the fused kernel on the device (skips without a GPU);
//  - emulated:   the same kernels/ufuncs.cuh helpers compiled on the host with the inputs the
//                kernel sees, checked against the same reference and tolerance (always runs, so a
//                wrong reference or a NumPy deviation shows up without a GPU);
//  - NumPy:      the hand-written integer/float edge cases of the reference against NumPy's own
//                results (tests/data/ufunc_cases.txt, written by tests/data/gen_ufunc_cases.py).
// Tolerances (ufunc_table_support.hpp): integers and bools exact; exact operations 0 ulp; one IEEE
// rounding 1 ulp (the long double reference rounds twice); CUDA's math functions their documented
// bound (at most 4 ulp for float, 2 for double) plus 1; float16/bfloat16 1 ulp (computed in float);
// complex functions normwise, with the reason where the bound is loose.
#pragma once

#include "ops/ufunc_row_names.hpp"
#include "ops/ufunc_table_runner.hpp"

namespace {

/// The table, restricted to the dtypes of Part (a types<...> list): each part is compiled in its own
/// translation unit (ufunc_table_<part>_test.cpp), which keeps each compile small.
template <class Part>
std::vector<row> all_rows() {
#define IN(list) \
  pick_t<list, Part> {}
  std::vector<row> rows;
  const auto add_row = [&](row r) { rows.push_back(std::move(r)); };

  // ---- arithmetic ------------------------------------------------------------------------------
  const auto add_ref = [](auto, auto a, auto b) {
    using W = decltype(a);
    if constexpr (is_b<W>) {
      return a || b;
    } else if constexpr (is_i<W>) {
      return ref::wrap_add(a, b);
    } else {
      return a + b;
    }
  };
  const auto sub_ref = [](auto, auto a, auto b) {
    if constexpr (is_i<decltype(a)>) {
      return ref::wrap_sub(a, b);
    } else {
      return a - b;
    }
  };
  const auto mul_ref = [](auto, auto a, auto b) {
    using W = decltype(a);
    if constexpr (is_b<W>) {
      return a && b;
    } else if constexpr (is_i<W>) {
      return ref::wrap_mul(a, b);
    } else if constexpr (is_c<W>) {
      return ref::multiply(a, b);
    } else {
      return a * b;
    }
  };
  const auto div_ref = [](auto, auto a, auto b) {
    if constexpr (is_c<decltype(a)>) {
      return ref::divide(a, b);
    } else {
      return a / b;
    }
  };
  // Complex products and quotients: normwise (NVRTC contracts the parts into FMAs).
  constexpr tolerance arith{1, 8, false};
  add_row(make_row<2, same_in>(
      "add", IN(all_types), [](auto a, auto b) { return nd::add(a, b); }, EMU(nd_add), add_ref, arith));
  add_row(make_row<2, same_in>(
      "subtract", IN(not_bool), [](auto a, auto b) { return nd::subtract(a, b); }, EMU(nd_subtract), sub_ref, arith));
  add_row(make_row<2, same_in>(
      "multiply", IN(all_types), [](auto a, auto b) { return nd::multiply(a, b); }, EMU(nd_multiply), mul_ref, arith));
  add_row(make_row<2, div_in>(
      "true_divide", IN(all_types), [](auto a, auto b) { return nd::true_divide(a, b); }, EMU(nd_true_divide), div_ref,
      arith));

  // floor_divide and remainder: NumPy's integer rules (x // 0 == 0, MIN // -1 == MIN) and its
  // npy_divmod for floats, in the type the loop computes in; exact, signed zeros included.
  const auto floordiv_ref = [](auto t, auto a, auto b) {
    using I = typename decltype(t)::type;
    if constexpr (is_i<decltype(a)>) {
      return ref::floor_divide(a, b);
    } else {
      using C = std::conditional_t<std::is_same_v<I, double>, double, float>;
      return real(ref::floor_divide_float<C>(C(a), C(b)));
    }
  };
  const auto mod_ref = [](auto t, auto a, auto b) {
    using I = typename decltype(t)::type;
    if constexpr (is_i<decltype(a)>) {
      return ref::remainder(a, b);
    } else {
      using C = std::conditional_t<std::is_same_v<I, double>, double, float>;
      return real(ref::remainder_float<C>(C(a), C(b)));
    }
  };
  add_row(make_row<2, int8_in>(
      "floor_divide", IN(real_types), [](auto a, auto b) { return nd::floor_divide(a, b); }, EMU(nd_floor_divide),
      floordiv_ref, exact));
  add_row(make_row<2, int8_in>(
      "remainder", IN(real_types), [](auto a, auto b) { return nd::remainder(a, b); }, EMU(nd_remainder), mod_ref,
      exact));

  // power: integers wrap (a^b mod 2^bits); NumPy refuses negative integer exponents, so those are
  // not asked. Complex: npy_cpow's zero-base rules.
  const auto pow_ref = [](auto, auto a, auto b) {
    using W = decltype(a);
    if constexpr (is_b<W>) {
      return a || !b;  // NumPy computes bool ** bool in int8: the same 0/1 values
    } else if constexpr (is_i<W>) {
      return ref::power(a, b);
    } else if constexpr (is_c<W>) {
      return ref::power(a, b);
    } else {
      return std::pow(a, b);
    }
  };
  const auto pow_skip = [](auto, auto a, auto b) {
    using W = decltype(b);
    if constexpr (is_i<W> && std::is_signed_v<W>) {
      return b < 0;
    } else {
      (void)a;
      return false;
    }
  };
  // powf: 4 ulp (pow: 2); complex power is exp(e * log(a)): the error grows with |e log a|.
  add_row(make_row<2, same_in>(
      "power", IN(all_types), [](auto a, auto b) { return nd::power(a, b); }, EMU(nd_power), pow_ref, math(4, 64),
      domain{-4, 4, true, false}, pow_skip));

  const auto neg_ref = [](auto, auto a) {
    if constexpr (is_i<decltype(a)>) {
      return ref::wrap_neg(a);
    } else {
      return -a;
    }
  };
  add_row(make_row<1, same_in>(
      "negative", IN(not_bool), [](auto a) { return nd::negative(a); }, EMU(nd_negative), neg_ref, exact));

  // ---- maximum / minimum -------------------------------------------------------------------------
  const auto max_ref = [](auto, auto a, auto b) {
    using W = decltype(a);
    if constexpr (is_r<W>) {
      return ref::maximum(a, b);
    } else {
      return a < b ? b : a;
    }
  };
  const auto min_ref = [](auto, auto a, auto b) {
    using W = decltype(a);
    if constexpr (is_r<W>) {
      return ref::minimum(a, b);
    } else {
      return b < a ? b : a;
    }
  };
  const auto fmax_ref = [](auto, auto a, auto b) {
    using W = decltype(a);
    if constexpr (is_r<W>) {
      return std::isnan(a) ? b : std::isnan(b) ? a : (a < b ? b : a);
    } else {
      return a < b ? b : a;
    }
  };
  const auto fmin_ref = [](auto, auto a, auto b) {
    using W = decltype(a);
    if constexpr (is_r<W>) {
      return std::isnan(a) ? b : std::isnan(b) ? a : (b < a ? b : a);
    } else {
      return b < a ? b : a;
    }
  };
  // NumPy leaves maximum(+0, -0) unspecified: zeros compare without their sign.
  add_row(make_row<2, same_in>(
      "maximum", IN(real_types), [](auto a, auto b) { return nd::maximum(a, b); }, EMU(nd_maximum), max_ref,
      exact_any_zero));
  add_row(make_row<2, same_in>(
      "minimum", IN(real_types), [](auto a, auto b) { return nd::minimum(a, b); }, EMU(nd_minimum), min_ref,
      exact_any_zero));
  add_row(make_row<2, same_in>(
      "fmax", IN(real_types), [](auto a, auto b) { return nd::fmax(a, b); }, EMU(nd_fmax), fmax_ref, exact_any_zero));
  add_row(make_row<2, same_in>(
      "fmin", IN(real_types), [](auto a, auto b) { return nd::fmin(a, b); }, EMU(nd_fmin), fmin_ref, exact_any_zero));
  const auto clip_ref = [](auto t, auto a, auto lo, auto hi) {
    using W = decltype(a);
    if constexpr (is_r<W>) {
      return ref::minimum(ref::maximum(a, lo), hi);
    } else {
      (void)t;
      const W m = a < lo ? lo : a;
      return hi < m ? hi : m;
    }
  };
  add_row(make_row<3, same_in>(
      "clip", IN(real_types), [](auto a, auto lo, auto hi) { return nd::clip(a, lo, hi); },
      [](auto a, auto lo, auto hi) { return dev::nd_minimum(dev::nd_maximum(a, lo), hi); }, clip_ref, exact_any_zero));
  const auto where_ref = [](auto, auto c, auto a, auto b) { return truth(c) ? a : b; };
  add_row(make_row<3, same_in>(
      "where", IN(all_types), [](auto c, auto a, auto b) { return nd::where(c, a, b); },
      [](auto c, auto a, auto b) { return dev::cast<bool>(c) ? a : b; }, where_ref, exact));

  // ---- comparisons -------------------------------------------------------------------------------
#define COMPARISON(name, spelled, op, types_)                                  \
  add_row(make_row<2, same_in>(                                                \
      name, IN(types_), [](auto a, auto b) { return spelled; }, EMU_INFIX(op), \
      [](auto, auto a, auto b) { return a op b; }, exact));
  COMPARISON("equal", nd::equal(a, b), ==, all_types)
  COMPARISON("not_equal", nd::not_equal(a, b), !=, all_types)
  COMPARISON("less", nd::less(a, b), <, real_types)
  COMPARISON("less_equal", nd::less_equal(a, b), <=, real_types)
  COMPARISON("greater", nd::greater(a, b), >, real_types)
  COMPARISON("greater_equal", nd::greater_equal(a, b), >=, real_types)
#undef COMPARISON

  // ---- logical and bitwise -----------------------------------------------------------------------
  add_row(make_row<2, bool_in>(
      "logical_and", IN(all_types), [](auto a, auto b) { return nd::logical_and(a, b); }, EMU_INFIX(&&),
      [](auto, bool a, bool b) { return a && b; }, exact));
  add_row(make_row<2, bool_in>(
      "logical_or", IN(all_types), [](auto a, auto b) { return nd::logical_or(a, b); }, EMU_INFIX(||),
      [](auto, bool a, bool b) { return a || b; }, exact));
  add_row(make_row<2, bool_in>(
      "logical_xor", IN(all_types), [](auto a, auto b) { return nd::logical_xor(a, b); }, EMU_INFIX(!=),
      [](auto, bool a, bool b) { return a != b; }, exact));
  add_row(make_row<1, bool_in>(
      "logical_not", IN(all_types), [](auto a) { return nd::logical_not(a); }, [](bool a) { return !a; },
      [](auto, bool a) { return !a; }, exact));
#define BITWISE(name, spelled, op)                                                  \
  add_row(make_row<2, same_in>(                                                     \
      name, IN(int_or_bool), [](auto a, auto b) { return spelled; }, EMU_INFIX(op), \
      [](auto, auto a, auto b) { return static_cast<decltype(a)>(a op b); }, exact));
  BITWISE("bitwise_and", nd::bitwise_and(a, b), &)
  BITWISE("bitwise_or", nd::bitwise_or(a, b), |)
  BITWISE("bitwise_xor", nd::bitwise_xor(a, b), ^)
#undef BITWISE
  const auto invert_ref = [](auto, auto a) {
    if constexpr (is_b<decltype(a)>) {
      return !a;
    } else {
      return static_cast<decltype(a)>(~a);
    }
  };
  add_row(make_row<1, same_in>(
      "invert", IN(int_or_bool), [](auto a) { return nd::invert(a); }, EMU(nd_invert), invert_ref, exact));
  // Shift counts outside [0, bits) (negative ones included) give 0 or -1, as npy_lshift/npy_rshift.
  const domain counts{-10, 10, true, true};
  const auto lshift_ref = [](auto, auto a, auto b) { return ref::left_shift(a, b); };
  const auto rshift_ref = [](auto, auto a, auto b) { return ref::right_shift(a, b); };
  add_row(make_row<2, same_in>(
      "left_shift", IN(int_types), [](auto a, auto b) { return nd::left_shift(a, b); }, EMU(nd_left_shift), lshift_ref,
      exact, counts));
  add_row(make_row<2, same_in>(
      "right_shift", IN(int_types), [](auto a, auto b) { return nd::right_shift(a, b); }, EMU(nd_right_shift),
      rshift_ref, exact, counts));

  // ---- abs, sign, NaN tests, complex parts ------------------------------------------------------
  const auto abs_ref = [](auto, auto a) {
    using W = decltype(a);
    if constexpr (is_b<W>) {
      return a;
    } else if constexpr (is_i<W>) {
      return ref::abs_int(a);
    } else if constexpr (is_c<W>) {
      return std::hypot(a.real(), a.imag());
    } else {
      return std::fabs(a);
    }
  };
  // hypotf: 3 ulp (hypot: 1) for |complex|; exact for reals.
  constexpr tolerance abs_tol{4, 0, true};
  add_row(make_row<1, same_in>(
      "abs", IN(all_types), [](auto a) { return nd::abs(a); }, EMU(nd_abs), abs_ref, abs_tol));
  const auto sign_ref = [](auto, auto a) {
    using W = decltype(a);
    if constexpr (is_r<W>) {
      return ref::sign(a);
    } else {
      return static_cast<W>(a > 0 ? 1 : (a < 0 ? -1 : 0));
    }
  };
  add_row(make_row<1, same_in>(
      "sign", IN(real_not_bool), [](auto a) { return nd::sign(a); }, EMU(nd_sign), sign_ref, exact));
  const auto isnan_ref = [](auto, auto a) {
    using W = decltype(a);
    if constexpr (is_c<W>) {
      return std::isnan(a.real()) || std::isnan(a.imag());
    } else if constexpr (is_r<W>) {
      return std::isnan(a);
    } else {
      return false;
    }
  };
  const auto isinf_ref = [](auto, auto a) {
    using W = decltype(a);
    if constexpr (is_c<W>) {
      return std::isinf(a.real()) || std::isinf(a.imag());
    } else if constexpr (is_r<W>) {
      return std::isinf(a);
    } else {
      return false;
    }
  };
  const auto isfinite_ref = [](auto, auto a) {
    using W = decltype(a);
    if constexpr (is_c<W>) {
      return std::isfinite(a.real()) && std::isfinite(a.imag());
    } else if constexpr (is_r<W>) {
      return std::isfinite(a);
    } else {
      return true;
    }
  };
  add_row(make_row<1, same_in>(
      "isnan", IN(all_types), [](auto a) { return nd::isnan(a); }, EMU(nd_isnan), isnan_ref, exact));
  add_row(make_row<1, same_in>(
      "isinf", IN(all_types), [](auto a) { return nd::isinf(a); }, EMU(nd_isinf), isinf_ref, exact));
  add_row(make_row<1, same_in>(
      "isfinite", IN(all_types), [](auto a) { return nd::isfinite(a); }, EMU(nd_isfinite), isfinite_ref, exact));
  const auto real_ref = [](auto, auto a) {
    if constexpr (is_c<decltype(a)>) {
      return a.real();
    } else {
      return a;
    }
  };
  const auto imag_ref = [](auto, auto a) {
    using W = decltype(a);
    if constexpr (is_c<W>) {
      return a.imag();
    } else {
      return W(0);
    }
  };
  const auto conj_ref = [](auto, auto a) {
    if constexpr (is_c<decltype(a)>) {
      return std::conj(a);
    } else {
      return a;
    }
  };
  add_row(make_row<1, same_in>(
      "real", IN(all_types), [](auto a) { return nd::real(a); }, EMU(nd_real), real_ref, exact));
  add_row(make_row<1, same_in>(
      "imag", IN(all_types), [](auto a) { return nd::imag(a); }, EMU(nd_imag), imag_ref, exact));
  add_row(make_row<1, same_in>(
      "conj", IN(all_types), [](auto a) { return nd::conj(a); }, EMU(nd_conj), conj_ref, exact));

  // ---- rounding: integers unchanged (rint computes in float_of), round is half to even ----------
  const auto rounding = [](auto f) {
    return [=](auto, auto a) {
      if constexpr (is_r<decltype(a)>) {
        return f(a);
      } else {
        return a;
      }
    };
  };
  add_row(make_row<1, same_in>(
      "floor", IN(real_types), [](auto a) { return nd::floor(a); }, EMU(nd_floor),
      rounding([](real x) { return std::floor(x); }), exact));
  add_row(make_row<1, same_in>(
      "ceil", IN(real_types), [](auto a) { return nd::ceil(a); }, EMU(nd_ceil),
      rounding([](real x) { return std::ceil(x); }), exact));
  add_row(make_row<1, same_in>(
      "trunc", IN(real_types), [](auto a) { return nd::trunc(a); }, EMU(nd_trunc),
      rounding([](real x) { return std::trunc(x); }), exact));
  add_row(make_row<1, same_in>(
      "round", IN(real_types), [](auto a) { return nd::round(a); }, EMU(nd_round), rounding(ref::round_half_even),
      exact));
  add_row(make_row<1, float_in>(
      "rint", IN(real_types), [](auto a) { return nd::rint(a); }, EMU(nd_rint), rounding(ref::round_half_even), exact));

  // ---- float functions: integers convert to float_of first -------------------------------------
  add_row(make_row<2, float_in>(
      "arctan2", IN(real_types), [](auto a, auto b) { return nd::arctan2(a, b); }, EMU(nd_arctan2),
      [](auto, real y, real x) { return std::atan2(y, x); }, math(3)));

  // Complex functions get finite special values only (their NaN/inf results follow C99 Annex G in
  // NumPy and are not modelled by ndcuda's formulas), random parts in [-2, 2].
  const domain complex_finite{-2, 2, false, false};
  const domain wide_domain{-10, 10, false, false};
#define MATH(name, fn, tol, dom, cfn)                                      \
  add_row(make_row<1, float_in>(                                           \
      name, IN(all_types), [](auto a) { return nd::fn(a); }, EMU(nd_##fn), \
      real_or_complex([](real x) { return std::cfn(x); }, [](cplx z) { return std::cfn(z); }), tol, dom));
#define REAL_MATH(name, fn, tol, dom, cfn) \
  add_row(make_row<1, float_in>(           \
      name, IN(real_types), [](auto a) { return nd::fn(a); }, EMU(nd_##fn), REAL_FN(std::cfn), tol, dom));
  // sqrt: IEEE (0 ulp); complex sqrt is Kahan's, a few roundings. cbrt, expm1, log2 and log1p
  // allow glibc's bounds (up to 3 ulp for cbrt), which the host emulation runs on; CUDA's are
  // 1 ulp (2 for log2f... see the guide).
  MATH("sqrt", sqrt, (tolerance{1, 8, false}), wide_domain, sqrt)
  REAL_MATH("cbrt", cbrt, math(3), wide_domain, cbrt)
  // exp/log families: expf 2, logf 1, log10f 2 (double 1); complex exp = polar(exp(x), y), log =
  // (log|z|, arg z): log|z| loses relative accuracy when |z| is near 1 (reported).
  MATH("exp", exp, math(2, 16), wide_domain, exp)
  REAL_MATH("exp2", exp2, math(2), wide_domain, exp2)
  REAL_MATH("expm1", expm1, math(2), wide_domain, expm1)
  MATH("log", log, math(1, 256), wide_domain, log)
  REAL_MATH("log2", log2, math(2), wide_domain, log2)
  MATH("log10", log10, math(2, 256), wide_domain, log10)
  REAL_MATH("log1p", log1p, math(2), wide_domain, log1p)
  // Trigonometric and hyperbolic: sinf/cosf 2, tanf 4, sinhf 3, coshf/tanhf 2, asinf/acosf 4?,
  // atanf 2 (double 2). Complex sin/cos/sinh/cosh are products of accurate parts; complex tan and
  // tanh divide by cosh(2x) + cos(2y), which cancels near the poles (y = pi/2); arcsin, arccos and
  // arctan are log(z + sqrt(z^2 + 1))-style formulas with cancellation (reported).
  MATH("sin", sin, math(2, 16), complex_finite, sin)
  MATH("cos", cos, math(2, 16), complex_finite, cos)
  // KNOWN WEAKNESS: complex tan and tanh are sin/cos (sinh/cosh) quotients that cancel near their
  // poles; within |cos z| < 1e-2 (|cosh z| < 1e-2) their relative error passes 4096 eps, so those
  // random inputs are left out (docs/differences-from-numpy.md).
  add_row(make_row<1, float_in>(
      "tan", IN(all_types), [](auto a) { return nd::tan(a); }, EMU(nd_tan),
      real_or_complex([](real x) { return std::tan(x); }, [](cplx z) { return std::tan(z); }), math(4, 4096),
      complex_finite,
      [](auto, auto z) {
        if constexpr (is_c<decltype(z)>) {
          return std::abs(std::cos(z)) < 1e-2L;
        } else {
          (void)z;
          return false;
        }
      }));
  MATH("arcsin", arcsin, math(4, 4096), complex_finite, asin)
  MATH("arccos", arccos, math(4, 4096), complex_finite, acos)
  MATH("arctan", arctan, math(4, 4096), complex_finite, atan)
  MATH("sinh", sinh, math(3, 16), complex_finite, sinh)
  MATH("cosh", cosh, math(2, 16), complex_finite, cosh)
  add_row(make_row<1, float_in>(
      "tanh", IN(all_types), [](auto a) { return nd::tanh(a); }, EMU(nd_tanh),
      real_or_complex([](real x) { return std::tanh(x); }, [](cplx z) { return std::tanh(z); }), math(2, 4096),
      complex_finite,
      [](auto, auto z) {
        if constexpr (is_c<decltype(z)>) {
          return std::abs(std::cosh(z)) < 1e-2L;
        } else {
          (void)z;
          return false;
        }
      }));
#undef MATH
#undef REAL_MATH
#undef IN
  return rows;
}

/// Rows with at least one case in this part, by index.
inline std::vector<std::size_t> non_empty(const std::vector<row>& rows) {
  std::vector<std::size_t> v;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].cases.empty()) v.push_back(i);
  }
  return v;
}

// The operators and NumPy's aliases build the very expression type of the ufunc they spell, so
// the kernel the table tests is theirs too: checked at compile time, with no kernel of their own.
template <class A, class B>
constexpr bool same_node = std::is_same_v<std::remove_cvref_t<A>, std::remove_cvref_t<B>>;
/// An array operand for decltype only (declared, never defined).
template <class T>
const nd::ndarray<T>& val();
template <class T>
constexpr bool spellings_agree() {
  static_assert(same_node<decltype(val<T>() + val<T>()), decltype(nd::add(val<T>(), val<T>()))>);
  static_assert(same_node<decltype(val<T>() * val<T>()), decltype(nd::multiply(val<T>(), val<T>()))>);
  static_assert(same_node<decltype(val<T>() / val<T>()), decltype(nd::true_divide(val<T>(), val<T>()))>);
  static_assert(same_node<decltype(nd::divide(val<T>(), val<T>())), decltype(nd::true_divide(val<T>(), val<T>()))>);
  static_assert(same_node<decltype(val<T>() == val<T>()), decltype(nd::equal(val<T>(), val<T>()))>);
  static_assert(same_node<decltype(val<T>() != val<T>()), decltype(nd::not_equal(val<T>(), val<T>()))>);
  static_assert(same_node<decltype(nd::abs(val<T>())), decltype(nd::absolute(val<T>()))>);
  static_assert(same_node<decltype(nd::conjugate(val<T>())), decltype(nd::conj(val<T>()))>);
  if constexpr (!std::is_same_v<T, bool>) {
    static_assert(same_node<decltype(val<T>() - val<T>()), decltype(nd::subtract(val<T>(), val<T>()))>);
    static_assert(same_node<decltype(-val<T>()), decltype(nd::negative(val<T>()))>);
  }
  if constexpr (!is_cplx<T>) {
    static_assert(same_node<decltype(val<T>() % val<T>()), decltype(nd::remainder(val<T>(), val<T>()))>);
    static_assert(same_node<decltype(nd::mod(val<T>(), val<T>())), decltype(nd::remainder(val<T>(), val<T>()))>);
    static_assert(same_node<decltype(val<T>() < val<T>()), decltype(nd::less(val<T>(), val<T>()))>);
    static_assert(same_node<decltype(val<T>() <= val<T>()), decltype(nd::less_equal(val<T>(), val<T>()))>);
    static_assert(same_node<decltype(val<T>() > val<T>()), decltype(nd::greater(val<T>(), val<T>()))>);
    static_assert(same_node<decltype(val<T>() >= val<T>()), decltype(nd::greater_equal(val<T>(), val<T>()))>);
  }
  if constexpr (is_int<T> || std::is_same_v<T, bool>) {
    static_assert(same_node<decltype(val<T>() & val<T>()), decltype(nd::bitwise_and(val<T>(), val<T>()))>);
    static_assert(same_node<decltype(val<T>() | val<T>()), decltype(nd::bitwise_or(val<T>(), val<T>()))>);
    static_assert(same_node<decltype(val<T>() ^ val<T>()), decltype(nd::bitwise_xor(val<T>(), val<T>()))>);
    static_assert(same_node<decltype(~val<T>()), decltype(nd::invert(val<T>()))>);
    static_assert(same_node<decltype(nd::bitwise_not(val<T>())), decltype(nd::invert(val<T>()))>);
  }
  if constexpr (is_int<T>) {
    static_assert(same_node<decltype(val<T>() << val<T>()), decltype(nd::left_shift(val<T>(), val<T>()))>);
    static_assert(same_node<decltype(val<T>() >> val<T>()), decltype(nd::right_shift(val<T>(), val<T>()))>);
  }
  return true;
}
template <class... Ts>
constexpr bool all_spellings_agree(types<Ts...>) {
  return (spellings_agree<Ts>() && ...);
}

}  // namespace

/// The tests of one part: Suite runs every row on the GPU (skipped without one) and through the
/// emulated helpers on the host (always).
#define NDCUDA_UFUNC_TABLE_PART(Part, Suite)                                                                 \
  static_assert(all_spellings_agree(Part{}));                                                                \
  class Suite : public ::testing::TestWithParam<std::size_t> {                                               \
   public:                                                                                                   \
    static const std::vector<row>& table() {                                                                 \
      static const std::vector<row> rows = all_rows<Part>();                                                 \
      return rows;                                                                                           \
    }                                                                                                        \
  };                                                                                                         \
  TEST_P(Suite, GpuMatchesNumpyReference) {                                                                  \
    NDCUDA_REQUIRE_GPU();                                                                                    \
    const row& r = table()[GetParam()];                                                                      \
    for (const dtype_case& c : r.cases) c.gpu(r.name + "[" + std::string(nd::name(c.type)) + "]");           \
  }                                                                                                          \
  TEST_P(Suite, DeviceHelpersOnHostMatchNumpyReference) {                                                    \
    const row& r = table()[GetParam()];                                                                      \
    for (const dtype_case& c : r.cases) c.emulated(r.name + "[" + std::string(nd::name(c.type)) + "]");      \
  }                                                                                                          \
  INSTANTIATE_TEST_SUITE_P(                                                                                  \
      Ops, Suite, ::testing::ValuesIn(non_empty(Suite::table())),                                            \
      [](const ::testing::TestParamInfo<std::size_t>& info) { return Suite::table()[info.param].name; });    \
  TEST(Suite##Rows, EveryUfuncRowHasNumpyCasesOrATableRow) {                                                 \
    const auto& t = Suite::table();                                                                          \
    ASSERT_FALSE(ufunc_rows::numpy_case_names().empty()) << "missing tests/data/ufunc_row_cases.txt";        \
    for (const ufunc_rows::row_name& u : ufunc_rows::all()) {                                                \
      const bool in_table = std::any_of(t.begin(), t.end(), [&](const row& r) { return r.name == u.name; }); \
      EXPECT_TRUE(in_table || ufunc_rows::numpy_case_names().count(u.name))                                  \
          << u.name << ": a row of ops/ufuncs.hpp without NumPy's cases; add it to "                         \
          << "tests/data/gen_ufunc_row_cases.py and rerun it (docs/contributing.md, \"A ufunc\")";           \
    }                                                                                                        \
  }
