// Device helpers behind ndcuda's operators and ufuncs (nd_add, nd_floor_divide, nd_maximum, ...),
// with NumPy's semantics where C++'s differ. Builds on numeric.cuh and ufuncs_core.cuh (the common
// few, which it includes); ops/ generates calls to them.
#pragma once

#include "ndcuda/numeric.cuh"
#include "ndcuda/ufuncs_core.cuh"

namespace ndcuda {

// Integer division rounds toward minus infinity; a zero divisor gives 0 (NumPy warns and gives
// 0 too), and MIN / -1 wraps to MIN rather than trapping.
template <class T>
__forceinline__ T nd_floor_divide_int(T a, T b) {
  if (b == T(0)) return T(0);
  if (detail::is_signed_int<T>::value && b == T(-1)) return T(T(0) - a);
  T q = T(a / b);
  if (detail::is_signed_int<T>::value && a % b != T(0) && ((a < T(0)) != (b < T(0)))) q = T(q - T(1));
  return q;
}
template <class T>
__forceinline__ T nd_remainder_int(T a, T b) {
  if (b == T(0)) return T(0);
  if (detail::is_signed_int<T>::value && b == T(-1)) return T(0);
  T r = T(a % b);
  if (detail::is_signed_int<T>::value && r != T(0) && ((r < T(0)) != (b < T(0)))) r = T(r + b);
  return r;
}
// Floats follow npy_divmod: fmod, then adjust toward the divisor's sign; exact at the rounding edge.
template <class T>
__forceinline__ T nd_remainder_float(T a, T b) {
  if (b == T(0)) return ::fmod(a, b);
  T mod = ::fmod(a, b);
  if (mod != T(0)) {
    if ((b < T(0)) != (mod < T(0))) mod += b;
  } else {
    mod = ::copysign(T(0), b);
  }
  return mod;
}
template <class T>
__forceinline__ T nd_floor_divide_float(T a, T b) {
  if (b == T(0)) return a / b;
  const T mod = ::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
  if (div == T(0)) return ::copysign(T(0), a / b);
  T floordiv = ::floor(div);
  if (div - floordiv > T(0.5)) floordiv += T(1);
  return floordiv;
}
template <class T>
__forceinline__ T nd_floor_divide(T a, T b) {
  if constexpr (detail::is_int<T>::value) {
    return nd_floor_divide_int(a, b);
  } else {
    return nd_floor_divide_float(a, b);
  }
}
template <class T>
__forceinline__ T nd_remainder(T a, T b) {
  if constexpr (detail::is_int<T>::value) {
    return nd_remainder_int(a, b);
  } else {
    return nd_remainder_float(a, b);
  }
}

// Integer power by squaring in wrapping arithmetic. NumPy refuses negative exponents for integer
// arrays; here they give 1 / a**|b| truncated (0 unless a is 1 or -1).
template <class T>
__forceinline__ T nd_power(T a, T b) {
  if constexpr (detail::is_int<T>::value) {
    if (detail::is_signed_int<T>::value && b < T(0)) {
      if (a == T(1)) return T(1);
      if (a == T(-1)) return (b % T(2) == T(0)) ? T(1) : T(-1);
      return T(0);
    }
    T result = T(1);
    T base = a;
    while (b != T(0)) {
      if (b % T(2) != T(0)) result = T(result * base);
      base = T(base * base);
      b = T(b / T(2));
    }
    return result;
  } else {
    return pow(a, b);
  }
}
__forceinline__ float nd_power(float a, float b) {
  return ::powf(a, b);
}
__forceinline__ double nd_power(double a, double b) {
  return ::pow(a, b);
}
__forceinline__ bool nd_power(bool a, bool b) {
  return a || !b;
}

// Shifts by at least the width give 0 (or -1 for a negative value shifted right), as NumPy does,
// instead of C++'s undefined behaviour; negative counts behave like too-large ones.
template <class T>
__forceinline__ T nd_left_shift(T a, T b) {
  if (b < T(0) || b >= T(detail::bits_of<T>::value)) return T(0);
  return T(a << b);
}
template <class T>
__forceinline__ T nd_right_shift(T a, T b) {
  if (b < T(0) || b >= T(detail::bits_of<T>::value)) return (a < T(0)) ? T(-1) : T(0);
  return T(a >> b);
}
__forceinline__ bool nd_invert(bool a) {
  return !a;
}
template <class T>
__forceinline__ T nd_invert(T a) {
  return T(~a);
}

// sign: -1, 0 or 1 (NaN stays NaN).
template <class T>
__forceinline__ T nd_sign(T a) {
  if (a != a) return a;
  return T(a > T(0) ? T(1) : (a < T(0) ? T(-1) : T(0)));
}

template <class T>
__forceinline__ T nd_real(const complex<T>& z) {
  return z.real();
}
template <class T>
__forceinline__ T nd_imag(const complex<T>& z) {
  return z.imag();
}
template <class T>
__forceinline__ complex<T> nd_conj(const complex<T>& z) {
  return conj(z);
}
template <class T>
__forceinline__ T nd_real(T a) {
  return a;
}
template <class T>
__forceinline__ T nd_imag(T) {
  return T(0);
}
template <class T>
__forceinline__ T nd_conj(T a) {
  return a;
}

// Rounding integers changes nothing (the real overloads below win for float and double);
// np.round with decimals=0 is round-half-to-even, like rint.
template <class T>
__forceinline__ T nd_floor(T a) {
  return a;
}
template <class T>
__forceinline__ T nd_ceil(T a) {
  return a;
}
template <class T>
__forceinline__ T nd_trunc(T a) {
  return a;
}
template <class T>
__forceinline__ T nd_round(T a) {
  return a;
}
__forceinline__ float nd_round(float a) {
  return ::rintf(a);
}
__forceinline__ double nd_round(double a) {
  return ::rint(a);
}

template <class T>
__forceinline__ T nd_where(bool c, T a, T b) {
  return c ? a : b;
}

// Real and complex math under one name: ::f for float/double, ndcuda:: for complex.
#define NDCUDA_UNARY_MATH(name, real_fn, complex_expr)        \
  __forceinline__ float nd_##name(float x) {                  \
    return ::real_fn(x);                                      \
  }                                                           \
  __forceinline__ double nd_##name(double x) {                \
    return ::real_fn(x);                                      \
  }                                                           \
  template <class T>                                          \
  __forceinline__ complex<T> nd_##name(const complex<T>& z) { \
    return complex_expr;                                      \
  }
NDCUDA_UNARY_MATH(sqrt, sqrt, sqrt(z))
NDCUDA_UNARY_MATH(exp, exp, exp(z))
NDCUDA_UNARY_MATH(log, log, log(z))
NDCUDA_UNARY_MATH(log10, log10, log10(z))
NDCUDA_UNARY_MATH(sin, sin, sin(z))
NDCUDA_UNARY_MATH(cos, cos, cos(z))
NDCUDA_UNARY_MATH(tan, tan, tan(z))
NDCUDA_UNARY_MATH(arcsin, asin, asin(z))
NDCUDA_UNARY_MATH(arccos, acos, acos(z))
NDCUDA_UNARY_MATH(arctan, atan, atan(z))
NDCUDA_UNARY_MATH(sinh, sinh, sinh(z))
NDCUDA_UNARY_MATH(cosh, cosh, cosh(z))
NDCUDA_UNARY_MATH(tanh, tanh, tanh(z))
#undef NDCUDA_UNARY_MATH
#define NDCUDA_REAL_MATH(name, real_fn)        \
  __forceinline__ float nd_##name(float x) {   \
    return ::real_fn(x);                       \
  }                                            \
  __forceinline__ double nd_##name(double x) { \
    return ::real_fn(x);                       \
  }
NDCUDA_REAL_MATH(cbrt, cbrt)
NDCUDA_REAL_MATH(exp2, exp2)
NDCUDA_REAL_MATH(expm1, expm1)
NDCUDA_REAL_MATH(log2, log2)
NDCUDA_REAL_MATH(log1p, log1p)
NDCUDA_REAL_MATH(floor, floor)
NDCUDA_REAL_MATH(ceil, ceil)
NDCUDA_REAL_MATH(trunc, trunc)
NDCUDA_REAL_MATH(rint, rint)
#undef NDCUDA_REAL_MATH
__forceinline__ float nd_arctan2(float y, float x) {
  return ::atan2(y, x);
}
__forceinline__ double nd_arctan2(double y, double x) {
  return ::atan2(y, x);
}

}  // namespace ndcuda

// The ufuncs of issue 19 (hypot, fmod, gcd, sinc, ...): a file of their own, to keep each small.
#include "ndcuda/ufuncs_more.cuh"
