// Every ufunc and operator, over every dtype it accepts, against a host reference with NumPy 2's
// semantics (tests/ops/ufunc_reference.hpp: long double, complex<long double>, exact integers) on
// special values (NaN, +-inf, +-0, subnormals, integer extremes) and fresh random inputs.
//
// One row per spelling: {name, the call on ndarrays, the device helper, the reference, dtypes,
// tolerance}; adding a ufunc is one row. Each row runs three ways:
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

#include <gtest/gtest.h>
#include <math.h>  // NOLINT: ::sinf etc., which the device helpers call, on the host

#include <array>
#include <fstream>
#include <functional>
#include <tuple>
#include <utility>

#include "ops/ufunc_table_support.hpp"
#include "support/gpu.hpp"

// kernels/ufuncs.cuh (with numeric.cuh and complex.cuh) compiled as host C++: a few CUDA names
// stand in. tests/CMakeLists.txt maps "ndcuda/<file>.cuh", the name the kernels include each
// other by, to kernels/.
using std::isfinite;
using std::isinf;
inline float __int_as_float(int bits) {  // NOLINT: the CUDA intrinsic's name
  float f = 0;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
inline void sincos(float x, float* s, float* c) {  // glibc has the double one only
  *s = std::sin(x);
  *c = std::cos(x);
}
#define __forceinline__ inline  // NOLINT
namespace emulated {
#include "ndcuda/ufuncs.cuh"
}  // namespace emulated
#undef __forceinline__

namespace {

using namespace ufunc_table;  // NOLINT: the test's own vocabulary
namespace dev = emulated::ndcuda;
namespace ref = ufunc_ref;

// ---- the emulated kernel: the value types the generated code computes in -----------------------

template <class I>
struct emu_type {
  using type = I;
};
template <>
struct emu_type<std::int64_t> {
  using type = long long;  // the kernels' spelling (their integer traits know long long only)
};
template <>
struct emu_type<std::uint64_t> {
  using type = unsigned long long;
};
template <>
struct emu_type<__half> {
  using type = float;
};
template <>
struct emu_type<bf16> {
  using type = float;
};
template <class P>
struct emu_type<std::complex<P>> {
  using type = dev::complex<P>;
};

template <class I>
typename emu_type<I>::type to_emu(I x) {
  using C = typename emu_type<I>::type;
  if constexpr (is_cplx<I>) {
    return C(x.real(), x.imag());
  } else if constexpr (is_low<I>) {
    return static_cast<float>(to_real(x));
  } else {
    return static_cast<C>(x);
  }
}

template <class V>
constexpr bool is_emu_complex = false;
template <class P>
constexpr bool is_emu_complex<dev::complex<P>> = true;

/// A helper's result stored into the output dtype R, as the kernel's final cast does.
template <class R, class V>
R from_emu(const V& v) {
  if constexpr (is_emu_complex<V>) {
    if constexpr (is_cplx<R>) {
      return R(v.real(), v.imag());
    } else {
      return from_emu<R>(v.real());
    }
  } else if constexpr (is_cplx<R>) {
    return R(static_cast<typename R::value_type>(v));
  } else if constexpr (is_low<R>) {
    return round_to<R>(static_cast<real>(static_cast<float>(v)));
  } else if constexpr (std::is_same_v<R, bool>) {
    return v != V(0);
  } else {
    return static_cast<R>(v);
  }
}

// ---- rows -------------------------------------------------------------------------------------

template <class I>
struct in_type {
  using type = I;
};

/// One dtype of one row: runs on the GPU or on the emulated helpers.
struct dtype_case {
  nd::dtype type;
  std::function<void(const std::string&)> gpu;
  std::function<void(const std::string&)> emulated;
};

struct row {
  std::string name;
  std::vector<dtype_case> cases;
};

struct no_skip {
  template <class... W>
  bool operator()(const W&...) const {
    return false;
  }
};

/// The inputs of one case: every combination of special values (triples from the first six), then
/// random tuples, minus those `skip` rejects (inputs where NumPy raises or where a deviation is
/// known and reported).
template <std::size_t N, class Rule, class T, class Skip>
std::array<std::vector<T>, N> make_inputs(const domain& d, Skip skip) {
  using I = typename Rule::template type<T>;
  std::array<std::vector<T>, N> in;
  const auto keep = [&](const std::array<T, N>& t) {
    const bool skipped = std::apply([&](const auto&... x) { return skip(in_type<I>{}, widen(convert<I>(x))...); }, t);
    if (!skipped) {
      for (std::size_t k = 0; k < N; ++k) in[k].push_back(t[k]);
    }
  };
  std::vector<T> s = special_values<T>(d);
  if constexpr (N == 3) s.resize(std::min<std::size_t>(s.size(), 6));
  if constexpr (N == 1) {
    for (const T& a : s) keep({a});
  } else if constexpr (N == 2) {
    for (const T& a : s) {
      for (const T& b : s) keep({a, b});
    }
  } else {
    for (const T& a : s) {
      for (const T& b : s) {
        for (const T& c : s) keep({a, b, c});
      }
    }
  }
  auto& g = nd::testing::rng();
  for (int i = 0; i < 2000; ++i) {
    std::array<T, N> t;
    for (std::size_t k = 0; k < N; ++k) t[k] = random_value<T>(g, d, k == 1);
    if constexpr (N == 2) {
      if (i % 16 == 0) t[1] = t[0];  // equal operands: ==, -, fmod
    }
    keep(t);
  }
  return in;
}

/// Compares results with the reference; reports the first few differences with their inputs.
template <class Rule, class R, class T, std::size_t N, class Ref>
void check(const std::string& what, const std::array<std::vector<T>, N>& in, const std::vector<R>& got, Ref reference,
           const tolerance& tol) {
  using I = typename Rule::template type<T>;
  ASSERT_EQ(got.size(), in[0].size()) << what;
  int reported = 0;
  std::size_t failures = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto want = [&]<std::size_t... K>(std::index_sequence<K...>) {
      return reference(in_type<I>{}, widen(convert<I>(in[K][i]))...);
    }
    (std::make_index_sequence<N>{});
    if (matches<R>(got[i], want, tol)) continue;
    ++failures;
    if (reported++ < 6) {
      std::string args;
      for (std::size_t k = 0; k < N; ++k) args += (k ? ", " : "") + show(in[k][i]);
      ADD_FAILURE() << what << "(" << args << "): got " << show(got[i]) << ", want " << show(want) << " (as "
                    << nd::name(nd::dtype_of<R>) << ")";
    }
  }
  if (failures > 0) ADD_FAILURE() << what << ": " << failures << " of " << got.size() << " elements differ";
}

template <class T>
nd::ndarray<T> device(const std::vector<T>& h) {
  return nd::asarray(h, {static_cast<nd::index_t>(h.size())});
}

/// The expression type the row's call returns for N operands of dtype T (declared only).
template <class Gpu, class T, std::size_t... K>
auto gpu_result(std::index_sequence<K...>)
    -> decltype(std::declval<Gpu&>()((static_cast<void>(K), std::declval<nd::ndarray<T>>())...));

template <std::size_t N, class Rule, class T, class Gpu, class Emu, class Ref, class Skip>
dtype_case make_case(Gpu gpu, Emu emu, Ref reference, tolerance tol, domain d, Skip skip) {
  using I = typename Rule::template type<T>;
  using X = decltype(gpu_result<Gpu, T>(std::make_index_sequence<N>{}));
  using R = typename X::value_type;
  dtype_case c;
  c.type = nd::dtype_of<T>;
  c.gpu = [=](const std::string& what) {
    const auto in = make_inputs<N, Rule, T>(d, skip);
    const auto x = [&]<std::size_t... K>(std::index_sequence<K...>) {
      return gpu(device(in[K])...);
    }
    (std::make_index_sequence<N>{});
    const nd::ndarray<R> out = nd::eval(x);
    check<Rule>(what, in, out.to_host(), reference, tol);
  };
  c.emulated = [=](const std::string& what) {
    const auto in = make_inputs<N, Rule, T>(d, skip);
    std::vector<R> got(in[0].size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      got[i] = [&]<std::size_t... K>(std::index_sequence<K...>) {
        return from_emu<R>(emu(to_emu(convert<I>(in[K][i]))...));
      }
      (std::make_index_sequence<N>{});
    }
    check<Rule>(what, in, got, reference, tol);
  };
  return c;
}

/// A row of arity N over the dtypes Ts.
template <std::size_t N, class Rule, class... Ts, class Gpu, class Emu, class Ref, class Skip = no_skip>
row make_row(std::string name, types<Ts...>, Gpu gpu, Emu emu, Ref reference, tolerance tol = {}, domain d = {},
             Skip skip = {}) {
  return row{std::move(name), {make_case<N, Rule, Ts>(gpu, emu, reference, tol, d, skip)...}};
}

// ---- the references, by kind of value ----------------------------------------------------------

template <class W>
constexpr bool is_b = std::is_same_v<W, bool>;
template <class W>
constexpr bool is_i = is_int<W>;
template <class W>
constexpr bool is_r = std::is_same_v<W, real>;
template <class W>
constexpr bool is_c = std::is_same_v<W, cplx>;

template <class W>
bool truth(const W& x) {
  if constexpr (is_c<W>) {
    return ref::nonzero(x);
  } else {
    return x != W(0);
  }
}

// A real function of long double, lifted to bool/int operands is never needed: float_in converts
// them first. `C` is the complex reference, or nothing for real-only ufuncs.
#define REAL_FN(fn) [](auto, auto x) { return fn(x); }

/// The device helpers, called on the compute values (the emulated kernel).
#define EMU(fn) [](auto... x) { return dev::fn(x...); }
#define EMU_INFIX(op) [](auto a, auto b) { return a op b; }

// Tolerances. exact: the result is one of the inputs or an exact function of them. rounded: one
// IEEE rounding (the long double reference adds a second one). math(f, d): CUDA's documented
// maximum error for the float and the double function (CUDA C++ Programming Guide, "Mathematical
// Functions"), +1 for the reference's rounding; the float bound is used for both, as one row
// holds every dtype.
constexpr tolerance exact{0, 0, true};
constexpr tolerance exact_any_zero{0, 0, false};
constexpr tolerance rounded{1, 4, false};
constexpr tolerance math(int ulps, double complex_eps = 16) {
  return tolerance{ulps + 1, complex_eps, false};
}

/// float_in rows hold their reference in long double; complex where the ufunc accepts complex.
template <class F, class G>
auto real_or_complex(F f, G g) {
  return [=](auto, auto x) {
    if constexpr (is_c<decltype(x)>) {
      return cplx(g(x));
    } else {
      return real(f(x));
    }
  };
}

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
    } else if constexpr (is_c<W>) {
      // KNOWN DEVIATION (reported): ndcuda gives 0 for 0 ** e with Re(e) <= 0, e != 0; NumPy
      // gives nan+nanj.
      return a == cplx(0) && b.real() <= 0 && b != cplx(0);
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
      "absolute", IN(all_types), [](auto a) { return nd::absolute(a); }, EMU(nd_abs), abs_ref, abs_tol));
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
  MATH("tan", tan, math(4, 4096), complex_finite, tan)
  MATH("arcsin", arcsin, math(4, 4096), complex_finite, asin)
  MATH("arccos", arccos, math(4, 4096), complex_finite, acos)
  // KNOWN DEVIATION (reported): on the branch cuts (Re z = +-0, |Im z| > 1) ndcuda's arctan
  // ignores the sign of the zero: arctan(0-1.5j) gives -1.5708-0.8047j, NumPy 1.5708-0.8047j.
  add_row(make_row<1, float_in>(
      "arctan", IN(all_types), [](auto a) { return nd::arctan(a); }, EMU(nd_arctan),
      real_or_complex([](real x) { return std::atan(x); }, [](cplx z) { return std::atan(z); }), math(4, 4096),
      complex_finite,
      [](auto, auto z) {
        if constexpr (is_c<decltype(z)>) {
          return z.real() == 0 && std::fabs(z.imag()) > 1;
        } else {
          (void)z;
          return false;
        }
      }));
  MATH("sinh", sinh, math(3, 16), complex_finite, sinh)
  MATH("cosh", cosh, math(2, 16), complex_finite, cosh)
  MATH("tanh", tanh, math(2, 4096), complex_finite, tanh)
#undef MATH
#undef REAL_MATH
#undef IN
  return rows;
}

/// Every ufunc of ops/operations.hpp and functions.hpp (the operators and aliases are checked by
/// spellings_agree).
constexpr const char* every_ufunc[] = {
    "add",         "subtract",    "multiply",   "true_divide",   "floor_divide", "remainder",  "power",
    "negative",    "maximum",     "minimum",    "fmax",          "fmin",         "equal",      "not_equal",
    "less",        "less_equal",  "greater",    "greater_equal", "logical_and",  "logical_or", "logical_xor",
    "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",   "invert",       "left_shift", "right_shift",
    "absolute",    "sign",        "isnan",      "isinf",         "isfinite",     "real",       "imag",
    "conj",        "floor",       "ceil",       "trunc",         "round",        "rint",       "arctan2",
    "sqrt",        "cbrt",        "exp",        "exp2",          "expm1",        "log",        "log2",
    "log10",       "log1p",       "sin",        "cos",           "tan",          "arcsin",     "arccos",
    "arctan",      "sinh",        "cosh",       "tanh",          "where",        "clip"};

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
#define NDCUDA_UFUNC_TABLE_PART(Part, Suite)                                                              \
  static_assert(all_spellings_agree(Part{}));                                                             \
  class Suite : public ::testing::TestWithParam<std::size_t> {                                            \
   public:                                                                                                \
    static const std::vector<row>& table() {                                                              \
      static const std::vector<row> rows = all_rows<Part>();                                              \
      return rows;                                                                                        \
    }                                                                                                     \
  };                                                                                                      \
  TEST_P(Suite, GpuMatchesNumpyReference) {                                                               \
    NDCUDA_REQUIRE_GPU();                                                                                 \
    const row& r = table()[GetParam()];                                                                   \
    for (const dtype_case& c : r.cases) c.gpu(r.name + "[" + std::string(nd::name(c.type)) + "]");        \
  }                                                                                                       \
  TEST_P(Suite, DeviceHelpersOnHostMatchNumpyReference) {                                                 \
    const row& r = table()[GetParam()];                                                                   \
    for (const dtype_case& c : r.cases) c.emulated(r.name + "[" + std::string(nd::name(c.type)) + "]");   \
  }                                                                                                       \
  INSTANTIATE_TEST_SUITE_P(                                                                               \
      Ops, Suite, ::testing::ValuesIn(non_empty(Suite::table())),                                         \
      [](const ::testing::TestParamInfo<std::size_t>& info) { return Suite::table()[info.param].name; }); \
  TEST(Suite##Rows, EveryOperationHasARow) {                                                              \
    for (const char* u : every_ufunc) {                                                                   \
      const auto& t = Suite::table();                                                                     \
      EXPECT_TRUE(std::any_of(t.begin(), t.end(), [&](const row& r) { return r.name == u; })) << u;       \
    }                                                                                                     \
  }
