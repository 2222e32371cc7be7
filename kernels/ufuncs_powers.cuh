// Powers and roots: nd_power (integers by squaring, wrapping), nd_float_power, nd_square,
// nd_reciprocal, nd_sqrt and nd_cbrt, with NumPy's integer and complex rules. Builds on
// ufuncs_arithmetic.cuh (nd_multiply) and ufuncs_common.cuh (traits, NDCUDA_UNARY_MATH).
#pragma once

#include "ndcuda/ufuncs_arithmetic.cuh"
#include "ndcuda/ufuncs_common.cuh"

namespace ndcuda {

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

// float_power computes in float64 or complex128: nd_power's real and complex overloads.
template <class T>
__forceinline__ T nd_float_power(T a, T b) {
  return nd_power(a, b);
}

// square and reciprocal: every numeric dtype (bool computes in int8).
template <class T>
__forceinline__ T nd_square(T a) {
  return nd_multiply(a, a);
}
template <class T>
__forceinline__ complex<T> nd_square(const complex<T>& z) {
  return z * z;
}
// Integers: C's 1 / x (0 unless |x| is 1). 1 / 0 gives what NumPy 2 gives on x86: MIN for signed
// 32- and 64-bit types, 0 for the others.
template <class T>
__forceinline__ T nd_reciprocal(T a) {
  if constexpr (detail::is_int<T>::value) {
    if (a == T(0)) {
      const bool wide_signed = detail::is_signed_int<T>::value && detail::bits_of<T>::value >= 32;
      return wide_signed ? T(1ULL << (detail::bits_of<T>::value - 1)) : T(0);
    }
    return T(T(1) / a);
  } else {
    return T(1) / a;
  }
}
// Complex: NumPy's loop (Smith's method on 1 / z), so 1 / 0j is nan+nanj as in NumPy.
template <class T>
__forceinline__ complex<T> nd_reciprocal(const complex<T>& z) {
  const T re = z.real();
  const T im = z.imag();
  if (::fabs(re) >= ::fabs(im)) {
    const T r = im / re;
    const T d = re + im * r;
    return complex<T>(T(1) / d, -r / d);
  }
  const T r = re / im;
  const T d = re * r + im;
  return complex<T>(r / d, T(-1) / d);
}

NDCUDA_UNARY_MATH(sqrt, sqrt, sqrt(z))
NDCUDA_REAL_MATH(cbrt, cbrt)

}  // namespace ndcuda
