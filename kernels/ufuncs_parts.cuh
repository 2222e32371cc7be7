// Device helpers of the last ufuncs of issue 19: ldexp, frexp, modf (divmod calls nd_floor_divide
// and nd_remainder), round with decimals, complex sign, nan_to_num and isclose. Builds on
// ufuncs.cuh (its traits, nd_abs, nd_isnan), which includes this file through ufuncs_more.cuh.
#pragma once

namespace ndcuda {

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

// np.round(x, decimals) as NumPy computes it: y = x * 10**d (x / 10**-d for d < 0), rint, then
// back; 10**d is built by NumPy's power_of_ten (exact products) and rounded to the float type.
// Integers: unchanged for d >= 0, else rounded through float64 as NumPy does. (bool computes as
// float16 in float, as NumPy's rint of bools: only decimals = 0 reaches here.)
__forceinline__ double nd_power_of_ten(int n) {
  double p = 1.0;
  for (int i = 0; i < n; ++i) p *= 10.0;
  return p;
}
// float64 -> integer as NumPy's cast does on x86 (cvttsd2si), where C leaves out-of-range values
// undefined: types narrower than 32 bits go through int32 and wrap (uint8: 300 -> 44), uint32
// through int64; an int32 or int64 out of range becomes its minimum (the "integer indefinite").
template <class T>
__forceinline__ T nd_float64_to_int(double r) {
  const long long v =
      (r >= -9223372036854775808.0 && r < 9223372036854775808.0) ? (long long)r : -9223372036854775807LL - 1;
  if constexpr (!detail::is_signed_int<T>::value && detail::bits_of<T>::value == 64) {
    return r >= 9223372036854775808.0 && r < 18446744073709551616.0 ? T((unsigned long long)r) : T(v);
  } else if constexpr (detail::bits_of<T>::value == 64 ||
                       (!detail::is_signed_int<T>::value && detail::bits_of<T>::value == 32)) {
    return T(v);
  } else {
    const int w = (v >= -2147483647LL - 1 && v <= 2147483647LL) ? int(v) : -2147483647 - 1;
    return T(w);
  }
}
template <class T>
__forceinline__ T nd_round_decimals(T x, int d) {
  if constexpr (detail::is_int<T>::value) {
    if (d >= 0) return x;
    const double f = nd_power_of_ten(d < -400 ? 400 : -d);
    return nd_float64_to_int<T>(::rint(double(x) / f) * f);
  } else {
    // |d| past 400 gives the same 10**|d| (inf) and keeps -d from overflowing.
    const T f = T(nd_power_of_ten(d < -400 ? 400 : (d < 0 ? -d : (d > 400 ? 400 : d))));
    return d >= 0 ? T(T(::rint(T(x * f))) / f) : T(T(::rint(T(x / f))) * f);
  }
}
template <class T>
__forceinline__ complex<T> nd_round_decimals(const complex<T>& z, int d) {
  return complex<T>(nd_round_decimals(z.real(), d), nd_round_decimals(z.imag(), d));
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

// np.isclose (NumPy 2): |x - y| <= atol + rtol * |y| where y is finite, or x == y (so equal
// infinities are close); NaNs are close to each other only with equal_nan.
template <class T, class P>
__forceinline__ bool nd_isclose(T x, T y, P atol, P rtol, bool equal_nan) {
  const P d = nd_abs(T(x - y));
  bool r = (d <= P(atol + P(rtol * nd_abs(y))) && nd_isfinite(y)) || x == y;
  if (equal_nan) r = r || (nd_isnan(x) && nd_isnan(y));
  return r;
}

}  // namespace ndcuda
