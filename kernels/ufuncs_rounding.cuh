// Rounding ufunc helpers: nd_floor, nd_ceil, nd_trunc, nd_rint, nd_round (decimals = 0) and
// nd_round_decimals (np.round(x, decimals) as NumPy computes it, with NumPy's float64 -> integer
// cast on x86). Builds on ufuncs_common.cuh (traits, NDCUDA_REAL_MATH).
#pragma once

#include "ndcuda/ufuncs_common.cuh"

namespace ndcuda {

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
NDCUDA_REAL_MATH(floor, floor)
NDCUDA_REAL_MATH(ceil, ceil)
NDCUDA_REAL_MATH(trunc, trunc)
NDCUDA_REAL_MATH(rint, rint)

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

}  // namespace ndcuda
