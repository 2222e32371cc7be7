// Portable math for the random distributions: log, exp and sin/cos of a quadrant-reduced angle
// built only from IEEE operations that round the same on the host and the device (+, -, *, /,
// sqrt, fma, each rounded to nearest and never contracted), so the host reference in
// src/random/ reproduces the GPU's values bit for bit. Compiles as NVRTC device code and as host
// C++ (src/random/host_reference.cpp includes it); builds on nothing.
#pragma once

#if defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__)
#define NDCUDA_RNG_DEVICE 1
#define NDCUDA_RNG_INLINE __forceinline__
// The rejection samplers' loops: one copy per kernel rather than one per unrolled vector lane,
// which keeps NVRTC's compile of a vectorised kernel near a quarter of a second.
#define NDCUDA_RNG_NOINLINE __noinline__
#else
#define NDCUDA_RNG_NOINLINE inline
#include <cmath>
#include <cstring>
#define NDCUDA_RNG_INLINE inline
#endif

namespace ndcuda {
namespace rng {

typedef unsigned int u32;
typedef unsigned long long u64;

// Every floating operation goes through these: on the device the _rn intrinsics are never fused
// into an FMA by -fmad (NVRTC's default), and on the host (ISO C++, no -ffp-contract=fast) plain
// operators round the same way.
#if defined(NDCUDA_RNG_DEVICE)
NDCUDA_RNG_INLINE float add(float a, float b) {
  return __fadd_rn(a, b);
}
NDCUDA_RNG_INLINE float sub(float a, float b) {
  return __fsub_rn(a, b);
}
NDCUDA_RNG_INLINE float mul(float a, float b) {
  return __fmul_rn(a, b);
}
NDCUDA_RNG_INLINE float div(float a, float b) {
  return __fdiv_rn(a, b);
}
NDCUDA_RNG_INLINE float fma(float a, float b, float c) {
  return __fmaf_rn(a, b, c);
}
NDCUDA_RNG_INLINE float sqrt(float a) {
  return __fsqrt_rn(a);
}
NDCUDA_RNG_INLINE double add(double a, double b) {
  return __dadd_rn(a, b);
}
NDCUDA_RNG_INLINE double sub(double a, double b) {
  return __dsub_rn(a, b);
}
NDCUDA_RNG_INLINE double mul(double a, double b) {
  return __dmul_rn(a, b);
}
NDCUDA_RNG_INLINE double div(double a, double b) {
  return __ddiv_rn(a, b);
}
NDCUDA_RNG_INLINE double fma(double a, double b, double c) {
  return __fma_rn(a, b, c);
}
NDCUDA_RNG_INLINE double sqrt(double a) {
  return __dsqrt_rn(a);
}
NDCUDA_RNG_INLINE double floor(double a) {
  return ::floor(a);
}
NDCUDA_RNG_INLINE u32 bits(float a) {
  return __float_as_uint(a);
}
NDCUDA_RNG_INLINE float from_bits(u32 a) {
  return __uint_as_float(a);
}
NDCUDA_RNG_INLINE u64 bits(double a) {
  return (u64)__double_as_longlong(a);
}
NDCUDA_RNG_INLINE double from_bits(u64 a) {
  return __longlong_as_double((long long)a);
}
NDCUDA_RNG_INLINE u32 mulhi(u32 a, u32 b) {
  return __umulhi(a, b);
}
NDCUDA_RNG_INLINE u64 mulhi(u64 a, u64 b) {
  return __umul64hi(a, b);
}
#else
NDCUDA_RNG_INLINE float add(float a, float b) {
  return a + b;
}
NDCUDA_RNG_INLINE float sub(float a, float b) {
  return a - b;
}
NDCUDA_RNG_INLINE float mul(float a, float b) {
  return a * b;
}
NDCUDA_RNG_INLINE float div(float a, float b) {
  return a / b;
}
NDCUDA_RNG_INLINE float fma(float a, float b, float c) {
  return std::fma(a, b, c);
}
NDCUDA_RNG_INLINE float sqrt(float a) {
  return std::sqrt(a);
}
NDCUDA_RNG_INLINE double add(double a, double b) {
  return a + b;
}
NDCUDA_RNG_INLINE double sub(double a, double b) {
  return a - b;
}
NDCUDA_RNG_INLINE double mul(double a, double b) {
  return a * b;
}
NDCUDA_RNG_INLINE double div(double a, double b) {
  return a / b;
}
NDCUDA_RNG_INLINE double fma(double a, double b, double c) {
  return std::fma(a, b, c);
}
NDCUDA_RNG_INLINE double sqrt(double a) {
  return std::sqrt(a);
}
NDCUDA_RNG_INLINE double floor(double a) {
  return std::floor(a);
}
NDCUDA_RNG_INLINE u32 bits(float a) {
  u32 r;
  std::memcpy(&r, &a, 4);
  return r;
}
NDCUDA_RNG_INLINE float from_bits(u32 a) {
  float r;
  std::memcpy(&r, &a, 4);
  return r;
}
NDCUDA_RNG_INLINE u64 bits(double a) {
  u64 r;
  std::memcpy(&r, &a, 8);
  return r;
}
NDCUDA_RNG_INLINE double from_bits(u64 a) {
  double r;
  std::memcpy(&r, &a, 8);
  return r;
}
NDCUDA_RNG_INLINE u32 mulhi(u32 a, u32 b) {
  return (u32)(((u64)a * b) >> 32);
}
NDCUDA_RNG_INLINE u64 mulhi(u64 a, u64 b) {
  const u64 a0 = a & 0xffffffffull, a1 = a >> 32, b0 = b & 0xffffffffull, b1 = b >> 32;
  const u64 lo = a0 * b0, m1 = a1 * b0 + (lo >> 32), m2 = a0 * b1 + (m1 & 0xffffffffull);
  return a1 * b1 + (m1 >> 32) + (m2 >> 32);
}
#endif

/// log of a normal positive float (no zero, subnormal, infinity or NaN: the uniforms Box-Muller and
/// the exponential take, in [2^-24, 1]), branch-free: Cephes' polynomial as in log() below.
NDCUDA_RNG_INLINE float log_normal_number(float x) {
  const u32 b = bits(x);
  const u32 m = b & 0x7fffffu;
  const bool upper = m > 0x3504f3u;  // m >= sqrt(2): use m / 2
  const float ef = (float)((int)(b >> 23) - 127 + (upper ? 1 : 0));
  const float f = sub(from_bits(m | (upper ? 0x3f000000u : 0x3f800000u)), 1.0f);
  const float z = mul(f, f);
  float p = fma(7.0376836292e-2f, f, -1.1514610310e-1f);
  p = fma(p, f, 1.1676998740e-1f);
  p = fma(p, f, -1.2420140846e-1f);
  p = fma(p, f, 1.4249322787e-1f);
  p = fma(p, f, -1.6668057665e-1f);
  p = fma(p, f, 2.0000714765e-1f);
  p = fma(p, f, -2.4999993993e-1f);
  p = fma(p, f, 3.3333331174e-1f);
  float y = mul(mul(p, f), z);
  y = fma(ef, -2.12194440e-4f, y);
  y = fma(-0.5f, z, y);
  return fma(ef, 0.693359375f, add(f, y));
}

/// Natural log of a float, about 1 ulp: log(0) = -inf, NaN below 0; subnormals scaled first.
NDCUDA_RNG_INLINE float log(float x) {
  if (!(x > 0.0f)) return x == 0.0f ? -from_bits(0x7f800000u) : from_bits(0x7fc00000u);
  if (!(x < from_bits(0x7f800000u))) return x;
  if (x < 1.17549435e-38f) return sub(log_normal_number(mul(x, 8388608.0f)), 15.9423851f);  // 23 ln 2
  return log_normal_number(x);
}

/// log of a normal positive double, branch-free: x = m 2^e with m in [sqrt(1/2), sqrt(2)), then
/// log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.1716, by its series to s^23 (error < 1e-17
/// relative).
NDCUDA_RNG_INLINE double log_normal_number(double x) {
  const u64 b = bits(x);
  const u64 m = b & 0xfffffffffffffull;
  const bool upper = m > 0x6a09e667f3bcdull;
  const double ed = (double)((int)(b >> 52) - 1023 + (upper ? 1 : 0));
  const double f = from_bits(m | (upper ? 0x3fe0000000000000ull : 0x3ff0000000000000ull));
  const double s = div(sub(f, 1.0), add(f, 1.0));
  const double z = mul(s, s);
  double r = 1.0 / 23.0;
  r = fma(z, r, 1.0 / 21.0);
  r = fma(z, r, 1.0 / 19.0);
  r = fma(z, r, 1.0 / 17.0);
  r = fma(z, r, 1.0 / 15.0);
  r = fma(z, r, 1.0 / 13.0);
  r = fma(z, r, 1.0 / 11.0);
  r = fma(z, r, 1.0 / 9.0);
  r = fma(z, r, 1.0 / 7.0);
  r = fma(z, r, 1.0 / 5.0);
  r = fma(z, r, 1.0 / 3.0);
  r = mul(z, r);
  const double two_s = add(s, s);
  // ln2 = hi + lo, hi with its low 32 bits zero so that e * hi is exact.
  return add(fma(ed, 6.93147180369123816490e-01, fma(two_s, r, mul(ed, 1.90821492927058770002e-10))), two_s);
}

/// Natural log of a double: log(0) = -inf, NaN below 0, inf for inf; subnormals scaled first.
NDCUDA_RNG_INLINE double log(double x) {
  if (!(x > 0.0)) return x == 0.0 ? -from_bits((u64)0x7ff0000000000000ull) : from_bits((u64)0x7ff8000000000000ull);
  if (!(x < from_bits((u64)0x7ff0000000000000ull))) return x;
  if (x < 2.2250738585072014e-308) return sub(log_normal_number(mul(x, 4503599627370496.0)), 36.04365338911715);
  return log_normal_number(x);
}

/// e^x in double: x = k ln2 + r, |r| <= ln2 / 2, e^r by its Taylor series to r^14, times 2^k.
NDCUDA_RNG_INLINE double exp(double x) {
  if (x != x) return x;
  if (x > 709.782712893384) return from_bits((u64)0x7ff0000000000000ull);
  if (x < -745.2) return 0.0;
  const double k = floor(fma(x, 1.44269504088896338700, 0.5));
  const double r = sub(sub(x, mul(k, 6.93147180369123816490e-01)), mul(k, 1.90821492927058770002e-10));
  double p = 1.0 / 87178291200.0;  // 1/14!
  p = fma(p, r, 1.0 / 6227020800.0);
  p = fma(p, r, 1.0 / 479001600.0);
  p = fma(p, r, 1.0 / 39916800.0);
  p = fma(p, r, 1.0 / 3628800.0);
  p = fma(p, r, 1.0 / 362880.0);
  p = fma(p, r, 1.0 / 40320.0);
  p = fma(p, r, 1.0 / 5040.0);
  p = fma(p, r, 1.0 / 720.0);
  p = fma(p, r, 1.0 / 120.0);
  p = fma(p, r, 1.0 / 24.0);
  p = fma(p, r, 1.0 / 6.0);
  p = fma(p, r, 0.5);
  p = fma(p, r, 1.0);
  p = fma(p, r, 1.0);
  int n = (int)k;
  if (n > 1023) {  // only for x just below the overflow bound
    p = mul(p, 2.0);
    n -= 1;
  }
  if (n < -1022) {  // subnormal results: two exact-ish steps
    p = mul(p, from_bits((u64)(n + 600 + 1023) << 52));
    return mul(p, from_bits((u64)(-600 + 1023) << 52));
  }
  return mul(p, from_bits((u64)(n + 1023) << 52));
}

/// sin and cos of x (|x| <= pi/4), float: Taylor series to x^9 / x^10.
NDCUDA_RNG_INLINE void sincos_quarter(float x, float* s, float* c) {
  const float z = mul(x, x);
  float ps = fma(z, 2.75573192e-06f, -1.98412698e-04f);
  ps = fma(z, ps, 8.33333333e-03f);
  ps = fma(z, ps, -1.66666667e-01f);
  *s = fma(mul(z, x), ps, x);
  float pc = fma(z, -2.75573192e-07f, 2.48015873e-05f);
  pc = fma(z, pc, -1.38888889e-03f);
  pc = fma(z, pc, 4.16666667e-02f);
  pc = fma(z, pc, -0.5f);
  *c = fma(z, pc, 1.0f);
}

/// The same in double: Taylor series to x^17 / x^18.
NDCUDA_RNG_INLINE void sincos_quarter(double x, double* s, double* c) {
  const double z = mul(x, x);
  double ps = 1.0 / 355687428096000.0;  // 1/17!
  ps = fma(z, ps, -1.0 / 1307674368000.0);
  ps = fma(z, ps, 1.0 / 6227020800.0);
  ps = fma(z, ps, -1.0 / 39916800.0);
  ps = fma(z, ps, 1.0 / 362880.0);
  ps = fma(z, ps, -1.0 / 5040.0);
  ps = fma(z, ps, 1.0 / 120.0);
  ps = fma(z, ps, -1.0 / 6.0);
  *s = fma(mul(z, x), ps, x);
  double pc = -1.0 / 6402373705728000.0;  // -1/18!
  pc = fma(z, pc, 1.0 / 20922789888000.0);
  pc = fma(z, pc, -1.0 / 87178291200.0);
  pc = fma(z, pc, 1.0 / 479001600.0);
  pc = fma(z, pc, -1.0 / 3628800.0);
  pc = fma(z, pc, 1.0 / 40320.0);
  pc = fma(z, pc, -1.0 / 720.0);
  pc = fma(z, pc, 1.0 / 24.0);
  pc = fma(z, pc, -0.5);
  *c = fma(z, pc, 1.0);
}

/// sin and cos of (k + r) pi/2 for |r| <= 1/2: the quadrant k only swaps and negates.
template <class T>
NDCUDA_RNG_INLINE void sincos_quadrant(unsigned k, T r, T* s, T* c) {
  T a, b;
  sincos_quarter(mul(r, (T)1.5707963267948966), &a, &b);
  // Branch-free (selects), so that two calls on the same inputs are one to the compiler.
  const T sa = (k & 1u) ? b : a;
  const T ca = (k & 1u) ? a : b;
  *s = (k & 2u) ? -sa : sa;
  *c = ((k + 1u) & 2u) ? -ca : ca;
}

}  // namespace rng
}  // namespace ndcuda
