// Division ufunc helpers with NumPy's semantics where C++'s differ: nd_floor_divide, nd_remainder
// (Python's % sign rule) and nd_fmod (C's), for integers (no trap on a zero divisor or MIN / -1)
// and floats (npy_divmod's rounding); divmod calls the first two. Builds on ufuncs_common.cuh.
#pragma once

#include "ndcuda/ufuncs_common.cuh"

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

}  // namespace ndcuda
