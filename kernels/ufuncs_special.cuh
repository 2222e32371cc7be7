// Special functions and activations: nd_heaviside (the step), nd_sinc (normalised), nd_i0 (the
// modified Bessel function of order 0) as NumPy computes them, and nd_gelu (cuBLASLt's tanh
// approximation). Builds on numeric.cuh (complex).
#pragma once

#include "ndcuda/numeric.cuh"

namespace ndcuda {

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

// gelu, tanh approximation: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), cuBLASLt's
// epilogue formula; half types compute in float as the other float ufuncs do.
__forceinline__ float nd_gelu(float x) {
  return 0.5f * x * (1.0f + ::tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
}
__forceinline__ double nd_gelu(double x) {
  return 0.5 * x * (1.0 + ::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

}  // namespace ndcuda
