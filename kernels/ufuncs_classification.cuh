// Classification ufunc helpers, all with bool results: nd_isnan, nd_isinf, nd_isfinite,
// nd_isposinf, nd_isneginf, nd_signbit, nd_isreal, nd_iscomplex. Part of the core
// (ufuncs_core.cuh): reducers test NaN. Builds on ufuncs_common.cuh.
#pragma once

#include "ndcuda/ufuncs_common.cuh"

namespace ndcuda {

template <class T>
__forceinline__ bool nd_isnan(T a) {
  return a != a;
}
template <class T>
__forceinline__ bool nd_isinf(T a) {
  if constexpr (detail::is_int<T>::value) {
    return false;
  } else {
    return ::isinf(a);
  }
}
template <class T>
__forceinline__ bool nd_isfinite(T a) {
  if constexpr (detail::is_int<T>::value) {
    return true;
  } else {
    return ::isfinite(a);
  }
}
// bool is neither an integer trait nor has ::isinf: never infinite, always finite (as NumPy).
__forceinline__ bool nd_isinf(bool) {
  return false;
}
__forceinline__ bool nd_isfinite(bool) {
  return true;
}
template <class T>
__forceinline__ bool nd_isnan(const complex<T>& z) {
  return z.real() != z.real() || z.imag() != z.imag();
}
template <class T>
__forceinline__ bool nd_isinf(const complex<T>& z) {
  return ::isinf(z.real()) || ::isinf(z.imag());
}
template <class T>
__forceinline__ bool nd_isfinite(const complex<T>& z) {
  return ::isfinite(z.real()) && ::isfinite(z.imag());
}

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

template <class T>
__forceinline__ bool nd_signbit(T a) {
  return ::signbit(a) != 0;
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

}  // namespace ndcuda
