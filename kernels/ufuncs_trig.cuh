// Trigonometric and hyperbolic ufunc helpers: nd_sin ... nd_arctan, nd_arctan2, nd_hypot, nd_sinh
// ... nd_arctanh (CUDA's functions for reals, complex.cuh's for complex), nd_deg2rad and
// nd_rad2deg. Builds on ufuncs_common.cuh (the macros).
#pragma once

#include "ndcuda/ufuncs_common.cuh"

namespace ndcuda {

NDCUDA_UNARY_MATH(sin, sin, sin(z))
NDCUDA_UNARY_MATH(cos, cos, cos(z))
NDCUDA_UNARY_MATH(tan, tan, tan(z))
NDCUDA_UNARY_MATH(arcsin, asin, asin(z))
NDCUDA_UNARY_MATH(arccos, acos, acos(z))
NDCUDA_UNARY_MATH(arctan, atan, atan(z))
NDCUDA_UNARY_MATH(sinh, sinh, sinh(z))
NDCUDA_UNARY_MATH(cosh, cosh, cosh(z))
NDCUDA_UNARY_MATH(tanh, tanh, tanh(z))
__forceinline__ float nd_arctan2(float y, float x) {
  return ::atan2(y, x);
}
__forceinline__ double nd_arctan2(double y, double x) {
  return ::atan2(y, x);
}

// float for float16/bfloat16, as every float helper.
__forceinline__ float nd_hypot(float a, float b) {
  return ::hypotf(a, b);  // C99: an infinite operand gives +inf even when the other is NaN
}
__forceinline__ double nd_hypot(double a, double b) {
  return ::hypot(a, b);
}

// arcsinh, arccosh, arctanh: reals through CUDA's functions, complex through complex.cuh.
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

// deg2rad/rad2deg multiply by the constant rounded to T, as NumPy's loops do.
template <class T>
__forceinline__ T nd_deg2rad(T x) {
  return x * T(0.0174532925199432957692369076848861271);
}
template <class T>
__forceinline__ T nd_rad2deg(T x) {
  return x * T(57.2957795130823208767981548141051703);
}

}  // namespace ndcuda
