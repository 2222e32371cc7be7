// A float's sign, exponent and neighbours: nd_sign (real and NumPy 2's complex z / |z|),
// nd_copysign, nd_nextafter, nd_spacing, nd_ldexp, nd_frexp, nd_modf and nd_nan_to_num, with
// NumPy's results at zeros, infinities and NaN. Builds on ufuncs_common.cuh (traits).
#pragma once

#include "ndcuda/ufuncs_common.cuh"

namespace ndcuda {

// sign: -1, 0 or 1 (NaN stays NaN).
template <class T>
__forceinline__ T nd_sign(T a) {
  if (a != a) return a;
  return T(a > T(0) ? T(1) : (a < T(0) ? T(-1) : T(0)));
}
// np.sign of a complex number (NumPy 2): z / |z|, 0 at 0, NaN+NaNj when a part is NaN; an infinite
// part gives the unit along it, and both infinite give NaN+NaNj, as NumPy's loop.
template <class T>
__forceinline__ complex<T> nd_sign(const complex<T>& z) {
  const T re = z.real();
  const T im = z.imag();
  const T a = ::hypot(re, im);  // inf when a part is infinite, even beside a NaN (C99)
  if (a != a) return complex<T>(a, a);
  if (a - a != T(0)) {  // infinite
    const bool re_inf = ::isinf(re);
    const bool im_inf = ::isinf(im);  // a NaN part is not infinite: sign(inf+nanj) is 1
    if (re_inf && im_inf) return complex<T>(re - re, re - re);
    if (re_inf) return complex<T>(re > T(0) ? T(1) : T(-1), T(0));
    return complex<T>(T(0), im > T(0) ? T(1) : T(-1));
  }
  if (a == T(0)) return complex<T>(T(0), T(0));
  return complex<T>(re / a, im / a);
}

// float for float16/bfloat16, as every float helper.
__forceinline__ float nd_copysign(float a, float b) {
  return ::copysignf(a, b);
}
__forceinline__ double nd_copysign(double a, double b) {
  return ::copysign(a, b);
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

// np.ldexp: x * 2**e. NumPy's int64 loop clamps the exponent to int; any |e| past 2200 already
// gives 0 or inf for every float type, so clamping there changes no result.
__forceinline__ float nd_ldexp(float x, long long e) {
  return ::ldexpf(x, int(e < -2200 ? -2200 : (e > 2200 ? 2200 : e)));
}
__forceinline__ double nd_ldexp(double x, long long e) {
  return ::ldexp(x, int(e < -2200 ? -2200 : (e > 2200 ? 2200 : e)));
}

// np.frexp: x = m * 2**e with 0.5 <= |m| < 1; zeros, infinities and NaN give (x, 0) as NumPy's
// (C leaves the exponent of inf and NaN unspecified).
__forceinline__ float nd_frexp(float x, int& e) {
  e = 0;
  if (x != x || x == 0.0f || x - x != 0.0f) return x;
  return ::frexpf(x, &e);
}
__forceinline__ double nd_frexp(double x, int& e) {
  e = 0;
  if (x != x || x == 0.0 || x - x != 0.0) return x;
  return ::frexp(x, &e);
}

// np.modf: the fractional part, signed like x (-0.0 for -3.0 and for -inf), and the integral part
// (C's modf, spelled out so inf and NaN need no library guarantee).
template <class T>
__forceinline__ T nd_modf(T x, T& integral) {
  integral = ::trunc(x);
  if (x == x && x - x != T(0)) return ::copysign(T(0), x);  // +-inf
  return ::copysign(x - integral, x);
}

// np.nan_to_num: NaN, +inf and -inf replaced by the given values; complex numbers part by part;
// integers and bools unchanged.
template <class T, class P>
__forceinline__ T nd_nan_to_num(T x, P nan, P posinf, P neginf) {
  if constexpr (detail::is_int<T>::value) {
    return x;
  } else {
    if (x != x) return T(nan);
    if (x - x != T(0)) return x > T(0) ? T(posinf) : T(neginf);
    return x;
  }
}
template <class T, class P>
__forceinline__ complex<T> nd_nan_to_num(const complex<T>& z, P nan, P posinf, P neginf) {
  return complex<T>(nd_nan_to_num(z.real(), nan, posinf, neginf), nd_nan_to_num(z.imag(), nan, posinf, neginf));
}

}  // namespace ndcuda
