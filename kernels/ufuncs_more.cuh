// Device helpers of the ufuncs of issue 19 (hypot, arcsinh, square, fmod, logaddexp, gcd, sinc,
// i0, ...), with NumPy 2's semantics. Builds on ufuncs.cuh (its traits, nd_power, nd_multiply),
// which includes this file at its end, so every kernel that calls ufuncs sees these too.
#pragma once

namespace ndcuda {

// ---- float functions of one or two reals (float for float16/bfloat16, as in ufuncs.cuh) -------

__forceinline__ float nd_hypot(float a, float b) {
  return ::hypotf(a, b);  // C99: an infinite operand gives +inf even when the other is NaN
}
__forceinline__ double nd_hypot(double a, double b) {
  return ::hypot(a, b);
}
__forceinline__ float nd_copysign(float a, float b) {
  return ::copysignf(a, b);
}
__forceinline__ double nd_copysign(double a, double b) {
  return ::copysign(a, b);
}
template <class T>
__forceinline__ bool nd_signbit(T a) {
  return ::signbit(a) != 0;
}
__forceinline__ float nd_nextafter(float a, float b) {
  return ::nextafterf(a, b);
}
__forceinline__ double nd_nextafter(double a, double b) {
  return ::nextafter(a, b);
}

// np.spacing: the distance to the next value away from zero, signed like x (+0 and -0 both give
// the smallest subnormal); NaN for infinities and NaN.
template <class T>
__forceinline__ T nd_spacing(T x) {
  if (x != x || x - x != T(0)) return x - x;  // NaN, or inf - inf = NaN
  const T away = x < T(0) ? T(-1) / T(0) : T(1) / T(0);
  return T(nd_nextafter(x, away) - x);
}

// npy_logaddexp / npy_logaddexp2: equal operands (infinities included) add log(2) (or 1) instead
// of computing inf - inf; NaN propagates.
template <class T>
__forceinline__ T nd_logaddexp(T x, T y) {
  if (x == y) return x + T(0.693147180559945309417232121458176568);
  const T d = x - y;
  if (d > T(0)) return x + ::log1p(::exp(-d));
  if (d <= T(0)) return y + ::log1p(::exp(d));
  return d;
}
template <class T>
__forceinline__ T nd_logaddexp2(T x, T y) {
  if (x == y) return x + T(1);
  const T d = x - y;
  const T log2e = T(1.442695040888963407359924681001892137);
  if (d > T(0)) return x + log2e * ::log1p(::exp2(-d));
  if (d <= T(0)) return y + log2e * ::log1p(::exp2(d));
  return d;
}
__forceinline__ float nd_logaddexp(float x, float y) {
  if (x == y) return x + 0.693147180559945309f;
  const float d = x - y;
  if (d > 0.0f) return x + ::log1pf(::expf(-d));
  if (d <= 0.0f) return y + ::log1pf(::expf(d));
  return d;
}
__forceinline__ float nd_logaddexp2(float x, float y) {
  if (x == y) return x + 1.0f;
  const float d = x - y;
  if (d > 0.0f) return x + 1.44269504088896341f * ::log1pf(::exp2f(-d));
  if (d <= 0.0f) return y + 1.44269504088896341f * ::log1pf(::exp2f(d));
  return d;
}

// deg2rad/rad2deg multiply by the constant rounded to T, as NumPy's loops do.
template <class T>
__forceinline__ T nd_deg2rad(T x) {
  return x * T(0.0174532925199432957692369076848861271);
}
template <class T>
__forceinline__ T nd_rad2deg(T x) {
  return x * T(57.2957795130823208767981548141051703);
}

// heaviside(x, h0): 0 below zero, h0 at zero (either sign), 1 above, NaN for NaN.
template <class T>
__forceinline__ T nd_heaviside(T x, T h0) {
  if (x != x) return x;
  if (x < T(0)) return T(0);
  if (x > T(0)) return T(1);
  return h0;
}

// np.sinc is normalised: sin(pi x) / (pi x), computed as NumPy's formula, and 1 at 0.
template <class T>
__forceinline__ T nd_sinc(T x) {
  if (x == T(0)) return T(1);
  const T y = T(3.14159265358979323846264338327950288) * x;
  return ::sin(y) / y;
}
__forceinline__ float nd_sinc(float x) {
  if (x == 0.0f) return 1.0f;
  const float y = 3.14159265358979323846f * x;
  return ::sinf(y) / y;
}
template <class T>
__forceinline__ complex<T> nd_sinc(const complex<T>& z) {
  if (z.real() == T(0) && z.imag() == T(0)) return complex<T>(T(1));
  const complex<T> y = z * T(3.14159265358979323846264338327950288);
  return sin(y) / y;
}

// np.i0: the modified Bessel function of the first kind, order 0 (even). NumPy's series gives NaN
// at +-inf (exp(x) / sqrt(x) is inf / inf there), and so does this, to keep ported code's results.
__forceinline__ float nd_i0(float x) {
  return ::isinf(x) ? x - x : ::cyl_bessel_i0f(x);
}
__forceinline__ double nd_i0(double x) {
  return ::isinf(x) ? x - x : ::cyl_bessel_i0(x);
}

// ---- arcsinh, arccosh, arctanh: reals through CUDA's functions, complex through complex.cuh ---

__forceinline__ float nd_arcsinh(float x) {
  return ::asinhf(x);
}
__forceinline__ double nd_arcsinh(double x) {
  return ::asinh(x);
}
__forceinline__ float nd_arccosh(float x) {
  return ::acoshf(x);
}
__forceinline__ double nd_arccosh(double x) {
  return ::acosh(x);
}
__forceinline__ float nd_arctanh(float x) {
  return ::atanhf(x);
}
__forceinline__ double nd_arctanh(double x) {
  return ::atanh(x);
}
template <class T>
__forceinline__ complex<T> nd_arcsinh(const complex<T>& z) {
  return asinh(z);
}
template <class T>
__forceinline__ complex<T> nd_arccosh(const complex<T>& z) {
  return acosh(z);
}
template <class T>
__forceinline__ complex<T> nd_arctanh(const complex<T>& z) {
  return atanh(z);
}

// float_power computes in float64 or complex128: nd_power's real and complex overloads.
template <class T>
__forceinline__ T nd_float_power(T a, T b) {
  return nd_power(a, b);
}

// ---- square, reciprocal, positive: every numeric dtype (bool computes in int8) -----------------

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
template <class T>
__forceinline__ T nd_positive(T a) {
  return a;
}

// fmod: the remainder with the sign of the dividend (C's %); integer x fmod 0 gives 0 and
// MIN fmod -1 gives 0, as NumPy's loops do.
template <class T>
__forceinline__ T nd_fmod(T a, T b) {
  if constexpr (detail::is_int<T>::value) {
    if (b == T(0)) return T(0);
    if (detail::is_signed_int<T>::value && b == T(-1)) return T(0);
    return T(a % b);
  } else {
    return ::fmod(a, b);
  }
}
__forceinline__ float nd_fmod(float a, float b) {
  return ::fmodf(a, b);
}

// gcd/lcm of integers, by Euclid on magnitudes in the unsigned type of the same width, so MIN has
// a magnitude; the result wraps back to T as NumPy's (gcd(MIN, 0) == MIN for signed types).
template <class T>
__forceinline__ T nd_gcd(T a, T b) {
  using U = unsigned long long;  // 0 - MIN wraps to 2^(bits-1) after the mask
  U x = a < T(0) ? U(0) - U(a) : U(a);
  U y = b < T(0) ? U(0) - U(b) : U(b);
  const U mask = detail::bits_of<T>::value < 64 ? (U(1) << (detail::bits_of<T>::value % 64)) - U(1) : ~U(0);
  x &= mask;
  y &= mask;
  while (y != U(0)) {
    const U r = x % y;
    x = y;
    y = r;
  }
  return T(x);
}
// lcm: |a| / gcd * |b| on the magnitudes, wrapped to the width, as NumPy's npy_lcmu.
template <class T>
__forceinline__ T nd_lcm(T a, T b) {
  using U = unsigned long long;
  const U g = U(nd_gcd(a, b));
  U x = a < T(0) ? U(0) - U(a) : U(a);
  U y = b < T(0) ? U(0) - U(b) : U(b);
  const U mask = detail::bits_of<T>::value < 64 ? (U(1) << (detail::bits_of<T>::value % 64)) - U(1) : ~U(0);
  x &= mask;
  y &= mask;
  const U gm = g & mask;
  if (gm == U(0)) return T(0);
  return T((x / gm) * y);
}

// ---- isposinf, isneginf, isreal, iscomplex: bool results ----------------------------------------

template <class T>
__forceinline__ bool nd_isposinf(T a) {
  if constexpr (detail::is_int<T>::value) {
    return false;
  } else {
    return ::isinf(a) && a > T(0);
  }
}
template <class T>
__forceinline__ bool nd_isneginf(T a) {
  if constexpr (detail::is_int<T>::value) {
    return false;
  } else {
    return ::isinf(a) && a < T(0);
  }
}
__forceinline__ bool nd_isposinf(bool) {
  return false;
}
__forceinline__ bool nd_isneginf(bool) {
  return false;
}
// np.isreal / np.iscomplex test the imaginary part (zero or not); real dtypes have none.
template <class T>
__forceinline__ bool nd_isreal(T) {
  return true;
}
template <class T>
__forceinline__ bool nd_isreal(const complex<T>& z) {
  return z.imag() == T(0);
}
template <class T>
__forceinline__ bool nd_iscomplex(T) {
  return false;
}
template <class T>
__forceinline__ bool nd_iscomplex(const complex<T>& z) {
  return z.imag() != T(0);
}

// gelu, tanh approximation: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), cuBLASLt's
// epilogue formula; half types compute in float as the other float ufuncs do.
__forceinline__ float nd_gelu(float x) {
  return 0.5f * x * (1.0f + ::tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
}
__forceinline__ double nd_gelu(double x) {
  return 0.5 * x * (1.0 + ::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

}  // namespace ndcuda

#include "ndcuda/ufuncs_parts.cuh"
