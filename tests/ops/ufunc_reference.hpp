// Host references for every ufunc with NumPy 2's semantics, in the widest host types: integers in
// their own type with NumPy's wrapping, floats in long double, complex in complex<long double>.
// Builds on <cmath>/<complex> only, so tests/ops/ufunc_table_test.cpp checks it on the CPU.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace ufunc_ref {

using real = long double;
using cplx = std::complex<long double>;

template <class T>
constexpr bool is_int = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// ---- integers: exact, NumPy's fixed-width results ------------------------------------------

/// a + b, a - b, a * b wrap modulo 2^bits (computed in uint64: C++20 narrowing is modular).
template <class T>
T wrap_add(T a, T b) {
  return static_cast<T>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
template <class T>
T wrap_sub(T a, T b) {
  return static_cast<T>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
template <class T>
T wrap_mul(T a, T b) {
  return static_cast<T>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
template <class T>
T wrap_neg(T a) {
  return static_cast<T>(std::uint64_t{0} - static_cast<std::uint64_t>(a));
}

/// Python's floor division: rounds toward minus infinity; NumPy gives 0 for a zero divisor and
/// MIN for MIN // -1 (it wraps, with a warning).
template <class T>
T floor_divide(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return wrap_neg(a);
    T q = static_cast<T>(a / b);
    if (a % b != 0 && ((a < 0) != (b < 0))) --q;
    return q;
  } else {
    return static_cast<T>(a / b);
  }
}
/// Python's modulo: the sign of the divisor; 0 for a zero divisor and for MIN % -1.
template <class T>
T remainder(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  } else {
    return static_cast<T>(a % b);
  }
}
/// a ** b for b >= 0 (NumPy refuses negative integer powers): a^b modulo 2^bits, which every
/// order of wrapping multiplications gives.
template <class T>
T power(T a, T b) {
  std::uint64_t result = 1;
  std::uint64_t base = static_cast<std::uint64_t>(a);
  auto e = static_cast<std::uint64_t>(b);
  while (e != 0) {
    if ((e & 1U) != 0) result *= base;
    base *= base;
    e >>= 1U;
  }
  return static_cast<T>(result);
}
/// NumPy's npy_lshift/npy_rshift: a count outside [0, bits) (negative ones included) gives 0, or
/// -1 for a negative value shifted right; shifting a negative value left wraps.
template <class T>
T left_shift(T a, T b) {
  constexpr auto bits = static_cast<std::int64_t>(sizeof(T) * 8);
  if (static_cast<std::int64_t>(b) < 0 || static_cast<std::int64_t>(b) >= bits) return 0;
  return static_cast<T>(static_cast<std::uint64_t>(a) << static_cast<unsigned>(b));
}
template <class T>
T right_shift(T a, T b) {
  constexpr auto bits = static_cast<std::int64_t>(sizeof(T) * 8);
  if (static_cast<std::int64_t>(b) < 0 || static_cast<std::int64_t>(b) >= bits) {
    if constexpr (std::is_signed_v<T>) {
      return a < 0 ? T(-1) : T(0);
    } else {
      return 0;
    }
  }
  return static_cast<T>(a >> static_cast<unsigned>(b));  // arithmetic for signed (C++20)
}
template <class T>
T abs_int(T a) {
  if constexpr (std::is_signed_v<T>) {
    return a < 0 ? wrap_neg(a) : a;  // abs(MIN) is MIN, as in NumPy
  } else {
    return a;
  }
}

// ---- floats -----------------------------------------------------------------------------------

/// NumPy's npy_divmod (numpy/_core/src/npymath/npy_math_internal.h.src), step for step in the
/// type it computes in: C is float for float16/bfloat16/float32 and double for float64.
template <class C>
C npy_divmod(C a, C b, C* modulus) {
  C mod = std::fmod(a, b);
  if (b == C(0)) {
    *modulus = mod;
    return a / b;
  }
  C div = (a - mod) / b;
  if (mod != C(0)) {
    if ((b < C(0)) != (mod < C(0))) {
      mod += b;
      div -= C(1);
    }
  } else {
    mod = std::copysign(C(0), b);
  }
  C floordiv;
  if (div != C(0)) {
    floordiv = std::floor(div);
    if (div - floordiv > C(0.5)) floordiv += C(1);
  } else {
    floordiv = std::copysign(C(0), a / b);
  }
  *modulus = mod;
  return floordiv;
}
template <class C>
C floor_divide_float(C a, C b) {
  if (b == C(0)) return a / b;
  C mod;
  return npy_divmod(a, b, &mod);
}
template <class C>
C remainder_float(C a, C b) {
  if (b == C(0)) return std::fmod(a, b);
  C mod;
  npy_divmod(a, b, &mod);
  return mod;
}

/// maximum/minimum propagate NaN; fmax/fmin return the other operand.
inline real maximum(real a, real b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<real>::quiet_NaN();
  return a < b ? b : a;
}
inline real minimum(real a, real b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<real>::quiet_NaN();
  return b < a ? b : a;
}
inline real sign(real a) {
  if (std::isnan(a)) return a;
  return a > 0 ? 1 : (a < 0 ? -1 : 0);
}
/// np.round(x) (decimals=0) and np.rint: half to even.
inline real round_half_even(real a) {
  if (!std::isfinite(a)) return a;
  const real f = std::floor(a);
  const real d = a - f;
  real r = f;
  if (d > 0.5L || (d == 0.5L && std::fmod(f, 2.0L) != 0)) r = f + 1;
  return r == 0 ? std::copysign(0.0L, a) : r;
}

// ---- complex: NumPy's loops where they are plain formulas, glibc's C99 functions elsewhere ----

/// NumPy multiplies complex numbers by the schoolbook formula (no C99 Annex G recovery of
/// infinities), so inf * (1+0j) has a NaN part, unlike std::complex's operator*.
inline cplx multiply(cplx a, cplx b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}
/// NumPy's complex division (loops.c.src: Smith's algorithm, zero divisors by parts).
inline cplx divide(cplx a, cplx b) {
  const real ar = a.real();
  const real ai = a.imag();
  const real br = b.real();
  const real bi = b.imag();
  const real abs_br = std::fabs(br);
  const real abs_bi = std::fabs(bi);
  if (abs_br >= abs_bi) {
    if (abs_br == 0 && abs_bi == 0) return {ar / abs_br, ai / abs_br};
    const real rat = bi / br;
    const real scl = 1.0L / (br + bi * rat);
    return {(ar + ai * rat) * scl, (ai - ar * rat) * scl};
  }
  const real rat = br / bi;
  const real scl = 1.0L / (bi + br * rat);
  return {(ar * rat + ai) * scl, (ai * rat - ar) * scl};
}
/// NumPy's npy_cpow: 1 for a zero exponent; a zero base gives 0 when Re(e) > 0, else nan+nanj.
inline cplx power(cplx a, cplx b) {
  if (b.real() == 0 && b.imag() == 0) return {1, 0};
  if (a.real() == 0 && a.imag() == 0) {
    if (b.real() > 0) return {0, 0};
    const real nan = std::numeric_limits<real>::quiet_NaN();
    return {nan, nan};
  }
  return std::pow(a, b);
}
inline bool nonzero(cplx a) {
  return a.real() != 0 || a.imag() != 0;
}

}  // namespace ufunc_ref
