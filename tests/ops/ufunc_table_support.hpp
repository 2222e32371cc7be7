// The machinery of tests/ops/ufunc_table_test.cpp: dtype lists, NumPy's input-conversion rules,
// special and random inputs, per-dtype tolerances and the comparison. Builds on ufunc_reference.hpp.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ndcuda/ndcuda.hpp>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/ufunc_reference.hpp"

namespace ufunc_table {

namespace nd = ndcuda;
using bf16 = __nv_bfloat16;
using c64 = std::complex<float>;
using c128 = std::complex<double>;
using ufunc_ref::cplx;
using ufunc_ref::real;

template <class... Ts>
struct types {};
/// The types of List that are also in Part, in List's order.
template <class T, class... Ps>
constexpr bool contains(types<Ps...>) {
  return (std::is_same_v<T, Ps> || ...);
}
template <class List, class Part>
struct pick;
template <class Part>
struct pick<types<>, Part> {
  using type = types<>;
};
template <class T, class... Ts, class Part>
struct pick<types<T, Ts...>, Part> {
  template <class... R>
  static types<T, R...> prepend(types<R...>);
  using rest = typename pick<types<Ts...>, Part>::type;
  using type = std::conditional_t<contains<T>(Part{}), decltype(prepend(rest{})), rest>;
};
template <class List, class Part>
using pick_t = typename pick<List, Part>::type;

// The dtypes each ufunc accepts (ndcuda refuses the others at compile time, as NumPy does at run
// time with a TypeError).
using all_types = types<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                        std::uint32_t, std::uint64_t, __half, bf16, float, double, c64, c128>;
using not_bool = types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                       std::uint32_t, std::uint64_t, __half, bf16, float, double, c64, c128>;
using real_types = types<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                         std::uint32_t, std::uint64_t, __half, bf16, float, double>;
using real_not_bool = types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                            std::uint32_t, std::uint64_t, __half, bf16, float, double>;
using int_or_bool = types<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                          std::uint32_t, std::uint64_t>;
using int_types = types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                        std::uint32_t, std::uint64_t>;

// ---- element kinds ----------------------------------------------------------------------------

template <class T>
constexpr bool is_cplx = nd::detail::is_std_complex<T>;
template <class T>
constexpr bool is_low = std::is_same_v<T, __half> || std::is_same_v<T, bf16>;
template <class T>
constexpr bool is_int = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <class T>
constexpr bool is_float = std::is_floating_point_v<T> || is_low<T>;

// ---- NumPy's input rules: the dtype a ufunc's loop computes in, from the operands' dtype -------

/// float_of: the narrowest float holding every value (bool/int8/uint8 -> float16, 16-bit ->
/// float32, wider -> float64), as NumPy's loops for sqrt, sin, ... choose.
template <class T>
using float_of_t = std::conditional_t<
    is_float<T> || is_cplx<T>, T,
    std::conditional_t<(sizeof(T) == 1), __half, std::conditional_t<(sizeof(T) == 2), float, double>>>;

struct same_in {
  template <class T>
  using type = T;
};
struct float_in {
  template <class T>
  using type = float_of_t<T>;
};
/// true_divide: integers and bools divide in float64.
struct div_in {
  template <class T>
  using type = std::conditional_t<is_int<T> || std::is_same_v<T, bool>, double, T>;
};
/// floor_divide, remainder: NumPy computes bool // bool in int8.
struct int8_in {
  template <class T>
  using type = std::conditional_t<std::is_same_v<T, bool>, std::int8_t, T>;
};
/// logical_*: operands are read as bool (nonzero).
struct bool_in {
  template <class T>
  using type = bool;
};

/// The type a reference receives a value of type I in: bool, the integer itself (exact, with its
/// width), long double, or complex<long double>.
template <class I>
using wide_t = std::conditional_t<is_cplx<I>, cplx, std::conditional_t<is_float<I>, real, I>>;

template <class T>
real to_real(T x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(x);
  } else if constexpr (std::is_same_v<T, bf16>) {
    return __bfloat162float(x);
  } else {
    return static_cast<real>(x);
  }
}

template <class I>
wide_t<I> widen(I x) {
  if constexpr (is_cplx<I>) {
    return cplx(x.real(), x.imag());
  } else if constexpr (is_float<I>) {
    return to_real(x);
  } else {
    return x;
  }
}

/// A value rounded to the real float type R the way the GPU rounds: long double -> float ->
/// half/bfloat16 (the kernels compute those in float), or straight to float/double.
template <class R>
R round_to(real v) {
  if constexpr (std::is_same_v<R, __half>) {
    return __float2half(static_cast<float>(v));
  } else if constexpr (std::is_same_v<R, bf16>) {
    return __float2bfloat16(static_cast<float>(v));
  } else {
    return static_cast<R>(v);
  }
}

/// x of dtype T converted to dtype I as astype / the kernels' casts do: nonzero to bool, integers
/// to floats rounded to nearest, reals to complex with a zero imaginary part.
template <class I, class T>
I convert(T x) {
  if constexpr (std::is_same_v<I, T>) {
    return x;
  } else if constexpr (std::is_same_v<I, bool>) {
    if constexpr (is_cplx<T>) {
      return x.real() != 0 || x.imag() != 0;
    } else {
      return to_real(x) != 0;
    }
  } else if constexpr (is_cplx<I>) {
    return I(static_cast<typename I::value_type>(to_real(x)));
  } else if constexpr (is_low<I>) {
    return round_to<I>(to_real(x));  // from bool/int8/uint8 only: exact
  } else if constexpr (std::is_floating_point_v<I>) {
    if constexpr (is_int<T> || std::is_same_v<T, bool>) {
      return static_cast<I>(x);  // one rounding, as the device's conversion
    } else {
      return static_cast<I>(to_real(x));
    }
  } else {
    return static_cast<I>(x);  // bool -> int8
  }
}

// ---- printing ---------------------------------------------------------------------------------

template <class T>
std::string show(const T& x) {
  std::ostringstream os;
  os.precision(21);
  if constexpr (is_cplx<T>) {
    os << "(" << static_cast<real>(x.real()) << (std::signbit(x.imag()) ? "-" : "+") << std::fabs(real(x.imag()))
       << "j)";
  } else if constexpr (std::is_same_v<T, bool>) {
    os << (x ? "True" : "False");
  } else if constexpr (is_int<T>) {
    os << +x;
  } else {
    os << to_real(x);
  }
  return os.str();
}

// ---- tolerances -------------------------------------------------------------------------------

/// How close a result must be. Integers and bools: exact, always. Real floats: within `ulps` units
/// in the last place of the result dtype (float16/bfloat16, computed in float and rounded once:
/// within 1 when ulps > 0); NaN matches NaN; the sign of a zero only where `signed_zero` says
/// NumPy defines it. Complex: per part like reals when `complex_eps` is 0, else normwise
/// |got - want| <= complex_eps * eps * |want|; infinities and NaNs part by part.
struct tolerance {
  int ulps = 0;
  double complex_eps = 0;
  bool signed_zero = false;
};

/// Bits of a real float as an integer that is ordered like the values (+0 and -0 both 0).
template <class R>
std::int64_t ordered(R x) {
  if constexpr (sizeof(R) == 2) {
    std::uint16_t b = 0;
    std::memcpy(&b, &x, 2);
    return (b & 0x8000U) != 0 ? -std::int64_t(b & 0x7fffU) : std::int64_t(b);
  } else if constexpr (sizeof(R) == 4) {
    std::uint32_t b = 0;
    std::memcpy(&b, &x, 4);
    return (b & 0x80000000U) != 0 ? -std::int64_t(b & 0x7fffffffU) : std::int64_t(b);
  } else {
    std::uint64_t b = 0;
    std::memcpy(&b, &x, 8);
    const auto mag = std::int64_t(b & 0x7fffffffffffffffULL);
    return (b >> 63U) != 0 ? -mag : mag;
  }
}

template <class R>
bool same_real(R got, real want_wide, int ulps, bool signed_zero) {
  const R want = round_to<R>(want_wide);
  const real g = to_real(got);
  const real w = to_real(want);
  if (std::isnan(w) || std::isnan(g)) return std::isnan(w) && std::isnan(g);
  if (signed_zero && w == 0 && g == 0) return std::signbit(g) == std::signbit(w);
  const int allowed = is_low<R> ? std::min(ulps, 1) : ulps;
  const std::int64_t d = ordered(got) - ordered(want);
  return (d < 0 ? -d : d) <= allowed;
}

template <class P>
real epsilon_of() {
  return std::numeric_limits<P>::epsilon();
}

/// got (of the GPU's result dtype R) against the reference's value want.
template <class R, class W>
bool matches(R got, const W& want, const tolerance& tol) {
  if constexpr (std::is_same_v<R, bool>) {
    return got == static_cast<bool>(want);
  } else if constexpr (is_int<R>) {
    return got == static_cast<R>(want);
  } else if constexpr (is_float<R>) {
    return same_real<R>(got, static_cast<real>(want), tol.ulps, tol.signed_zero);
  } else {
    using P = typename R::value_type;
    const cplx w = want;
    if (tol.complex_eps == 0 || !std::isfinite(w.real()) || !std::isfinite(w.imag()) || !std::isfinite(got.real()) ||
        !std::isfinite(got.imag())) {
      if (tol.complex_eps != 0) {
        // Non-finite: each part must be the same class (NaN, or the same infinity); finite parts
        // beside them within the normwise bound of their own size.
        const auto part = [&](P g, real v) {
          if (std::isnan(v) || std::isnan(g)) return std::isnan(v) && std::isnan(g);
          if (std::isinf(v) || std::isinf(g)) return real(g) == v;
          return std::fabs(real(g) - v) <=
                 tol.complex_eps * epsilon_of<P>() * std::fabs(v) + std::numeric_limits<P>::min();
        };
        return part(got.real(), w.real()) && part(got.imag(), w.imag());
      }
      return same_real<P>(got.real(), w.real(), tol.ulps, tol.signed_zero) &&
             same_real<P>(got.imag(), w.imag(), tol.ulps, tol.signed_zero);
    }
    const cplx g(got.real(), got.imag());
    return std::abs(g - w) <= tol.complex_eps * epsilon_of<P>() * std::abs(w) + std::numeric_limits<P>::min();
  }
}

// ---- inputs -----------------------------------------------------------------------------------

/// Where random inputs come from: reals (and complex parts) uniform in [lo, hi]; integers over
/// their whole range, or the second operand in [-3, 2 * bits] when `small_second` (shift counts,
/// exponents). `complex_nonfinite` adds infinities and NaN to the complex special values.
struct domain {
  double lo = -10;
  double hi = 10;
  bool small_second = false;
  bool complex_nonfinite = true;
};

template <class T>
std::vector<T> special_values(const domain& d) {
  std::vector<T> v;
  if constexpr (std::is_same_v<T, bool>) {
    v = {false, true};
  } else if constexpr (is_int<T>) {
    using L = std::numeric_limits<T>;
    v = {T(0), T(1), T(2), T(3), T(7), L::max(), T(L::max() - 1), L::min()};
    if constexpr (std::is_signed_v<T>) {
      for (T x : {T(-1), T(-2), T(-3), T(-7), T(L::min() + 1)}) v.push_back(x);
    }
  } else if constexpr (is_float<T>) {
    // max, smallest normal and smallest subnormal of each type, exactly.
    double max = 0;
    double tiny = 0;
    double sub = 0;
    if constexpr (std::is_same_v<T, __half>) {
      max = 65504.0;
      tiny = std::ldexp(1.0, -14);
      sub = std::ldexp(1.0, -24);
    } else if constexpr (std::is_same_v<T, bf16>) {
      max = std::ldexp(2.0 - std::ldexp(1.0, -7), 127);
      tiny = std::ldexp(1.0, -126);
      sub = std::ldexp(1.0, -133);
    } else {
      max = double(std::numeric_limits<T>::max());
      tiny = double(std::numeric_limits<T>::min());
      sub = double(std::numeric_limits<T>::denorm_min());
    }
    const double inf = std::numeric_limits<double>::infinity();
    for (double x : {std::numeric_limits<double>::quiet_NaN(), inf, -inf, 0.0, -0.0, sub, -sub, tiny, -tiny, max, -max,
                     1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.0, 3.0}) {
      v.push_back(round_to<T>(x));
    }
  } else {
    using P = typename T::value_type;
    const P inf = std::numeric_limits<P>::infinity();
    std::vector<P> parts = {P(0), P(-0.0), P(1), P(-1.5), P(0.5), P(2)};
    if (d.complex_nonfinite) {
      parts = {P(0), P(-0.0), P(1), P(-1.5), inf, -inf, std::numeric_limits<P>::quiet_NaN()};
    }
    for (P re : parts) {
      for (P im : parts) v.emplace_back(re, im);
    }
  }
  return v;
}

template <class T>
T random_value(std::mt19937_64& g, const domain& d, bool second) {
  if constexpr (std::is_same_v<T, bool>) {
    return std::bernoulli_distribution(0.5)(g);
  } else if constexpr (is_int<T>) {
    using L = std::numeric_limits<T>;
    if (second && d.small_second) {
      const auto top = static_cast<std::int64_t>(2 * 8 * sizeof(T));
      return static_cast<T>(std::uniform_int_distribution<std::int64_t>(std::is_signed_v<T> ? -3 : 0, top)(g));
    }
    if constexpr (std::is_signed_v<T>) {
      return static_cast<T>(std::uniform_int_distribution<std::int64_t>(L::min(), L::max())(g));
    } else {
      return static_cast<T>(std::uniform_int_distribution<std::uint64_t>(0, L::max())(g));
    }
  } else if constexpr (is_float<T>) {
    return round_to<T>(std::uniform_real_distribution<double>(d.lo, d.hi)(g));
  } else {
    using P = typename T::value_type;
    std::uniform_real_distribution<double> u(d.lo, d.hi);
    const P re = static_cast<P>(u(g));
    return T(re, static_cast<P>(u(g)));
  }
}

}  // namespace ufunc_table
