// Comparison and selection ufunc helpers: nd_maximum, nd_minimum, nd_fmax, nd_fmin (NaN rules and
// NumPy 2's complex order), nd_where and nd_isclose. (==, <, && and the like need no helper: the
// generated code spells them.) Part of the core (ufuncs_core.cuh). Builds on ufuncs_arithmetic.cuh
// (nd_abs) and ufuncs_classification.cuh (nd_isnan, nd_isfinite).
#pragma once

#include "ndcuda/ufuncs_arithmetic.cuh"
#include "ndcuda/ufuncs_classification.cuh"

namespace ndcuda {

// maximum/minimum propagate NaN (either operand); fmax/fmin ignore it, as in NumPy.
template <class T>
__forceinline__ T nd_maximum(T a, T b) {
  if (a != a) return a;
  if (b != b) return b;
  return a > b ? a : b;
}
template <class T>
__forceinline__ T nd_minimum(T a, T b) {
  if (a != a) return a;
  if (b != b) return b;
  return a < b ? a : b;
}
template <class T>
__forceinline__ T nd_fmax(T a, T b) {
  if (a != a) return b;
  if (b != b) return a;
  return a > b ? a : b;
}
template <class T>
__forceinline__ T nd_fmin(T a, T b) {
  if (a != a) return b;
  if (b != b) return a;
  return a < b ? a : b;
}

// Complex: NumPy 2's loops. maximum/minimum return the first operand with a NaN part, else the
// lexicographically larger/smaller (the first on a tie); fmax/fmin return the other operand when
// one has a NaN part (the first when both do).
template <class T>
__forceinline__ complex<T> nd_maximum(complex<T> a, complex<T> b) {
  if (a != a) return a;
  if (b != b) return b;
  return a >= b ? a : b;
}
template <class T>
__forceinline__ complex<T> nd_minimum(complex<T> a, complex<T> b) {
  if (a != a) return a;
  if (b != b) return b;
  return a <= b ? a : b;
}
template <class T>
__forceinline__ complex<T> nd_fmax(complex<T> a, complex<T> b) {
  if (b != b) return a;
  if (a != a) return b;
  return a >= b ? a : b;
}
template <class T>
__forceinline__ complex<T> nd_fmin(complex<T> a, complex<T> b) {
  if (b != b) return a;
  if (a != a) return b;
  return a <= b ? a : b;
}

template <class T>
__forceinline__ T nd_where(bool c, T a, T b) {
  return c ? a : b;
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
