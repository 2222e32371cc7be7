// Arithmetic ufunc helpers: nd_add, nd_subtract, nd_multiply, nd_true_divide, nd_negative,
// nd_positive and nd_abs, with NumPy's wrapping integers. Part of the core (ufuncs_core.cuh) that
// most fused expressions and every reducer call. Builds on ufuncs_common.cuh.
#pragma once

#include "ndcuda/ufuncs_common.cuh"

namespace ndcuda {

// Every helper takes and returns its compute type T (float for half and bfloat16: the host casts
// operands first). T(...) around integer results wraps as NumPy's fixed-width arithmetic does.
template <class T>
__forceinline__ T nd_add(T a, T b) {
  return T(a + b);
}
template <class T>
__forceinline__ T nd_subtract(T a, T b) {
  return T(a - b);
}
template <class T>
__forceinline__ T nd_multiply(T a, T b) {
  return T(a * b);
}
template <class T>
__forceinline__ T nd_true_divide(T a, T b) {
  return a / b;
}
// Floats flip the sign bit, as NumPy's negative does on the host: PTX's neg.f32/f64 may return a
// NaN input with either sign, and np.signbit(-nan) is True.
template <class T>
__forceinline__ T nd_negative(T a) {
  return T(-a);
}
template <>
__forceinline__ float nd_negative(float a) {
  return ::copysignf(a, ::signbit(a) ? 1.0f : -1.0f);
}
template <>
__forceinline__ double nd_negative(double a) {
  return ::copysign(a, ::signbit(a) ? 1.0 : -1.0);
}
template <class T>
__forceinline__ T nd_positive(T a) {
  return a;
}

template <class T>
__forceinline__ T nd_abs(T a) {
  if constexpr (detail::is_int<T>::value) {
    return T(a < T(0) ? T(T(0) - a) : a);
  } else {
    return ::fabs(a);
  }
}
__forceinline__ bool nd_abs(bool a) {
  return a;
}
template <class T>
__forceinline__ T nd_abs(const complex<T>& z) {
  return abs(z);
}

}  // namespace ndcuda
