// Exponentials and logarithms: nd_exp, nd_exp2, nd_expm1, nd_log, nd_log2, nd_log10, nd_log1p
// (CUDA's functions; complex through complex.cuh where NumPy has a complex loop), and
// nd_logaddexp/nd_logaddexp2 as NumPy computes them. Builds on ufuncs_common.cuh (the macros).
#pragma once

#include "ndcuda/ufuncs_common.cuh"

namespace ndcuda {

NDCUDA_UNARY_MATH(exp, exp, exp(z))
NDCUDA_UNARY_MATH(log, log, log(z))
NDCUDA_UNARY_MATH(log10, log10, log10(z))
NDCUDA_REAL_MATH(exp2, exp2)
NDCUDA_REAL_MATH(expm1, expm1)
NDCUDA_REAL_MATH(log2, log2)
NDCUDA_REAL_MATH(log1p, log1p)

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

}  // namespace ndcuda
