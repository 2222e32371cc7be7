// NumPy's Generator distributions on Philox items (philox.cuh), in float and double, and on the
// device the philox_source a fused kernel reads as if it were an input array: element i of a draw
// is computed from its flat index i, with no buffer. Compiles as NVRTC device code (included by
// generated sources before elementwise.cuh / reduction.cuh, whose loads it overloads) and as host
// C++ (the host reference). Builds on philox.cuh and random_math.cuh.
#pragma once

#if defined(__CUDACC_RTC__)
#include "ndcuda/indexer.cuh"
#include "ndcuda/philox.cuh"
#endif

namespace ndcuda {
namespace rng {

// random(): [0, 1) with the precision of the dtype, so that rounding can never give 1.
NDCUDA_RNG_INLINE float random_f32(const item<1, 1>& it) {
  return unit_f32(it.w0);
}
NDCUDA_RNG_INLINE float random_f16(const item<1, 1>& it) {
  return (float)(it.w0 >> 21) * 4.8828125e-04f;
}
NDCUDA_RNG_INLINE float random_bf16(const item<1, 1>& it) {
  return (float)(it.w0 >> 24) * 3.90625e-03f;
}
NDCUDA_RNG_INLINE double random_f64(const item<1, 2>& it) {
  return unit_f64(it.w0, it.w1);
}
NDCUDA_RNG_INLINE u64 random_bits64(const item<1, 2>& it) {
  return ((u64)it.w0 << 32) | it.w1;
}

// standard_normal: the pair's Box-Muller value, computed when the item was made (philox.cuh).
NDCUDA_RNG_INLINE float normal_f32(const item<2, 2>& it) {
  return from_bits(it.w0);
}
NDCUDA_RNG_INLINE double normal_f64(const item<2, 4>& it) {
  return from_bits(((u64)it.w1 << 32) | it.w0);
}

// standard_exponential: -log(1 - U), U in [0, 1), as -log(V) with V in (0, 1].
NDCUDA_RNG_INLINE float exponential_f32(const item<1, 1>& it) {
  return -log_normal_number(unit_open_f32(it.w0));
}
NDCUDA_RNG_INLINE double exponential_f64(const item<1, 2>& it) {
  return -log_normal_number(unit_open_f64(it.w0, it.w1));
}

// The affine maps of normal / uniform / scale parameters, rounded as written (no FMA).
NDCUDA_RNG_INLINE float affine(float z, float loc, float scale) {
  return add(loc, mul(scale, z));
}
NDCUDA_RNG_INLINE double affine(double z, double loc, double scale) {
  return add(loc, mul(scale, z));
}
NDCUDA_RNG_INLINE float between(float u, float low, float high) {
  return add(low, mul(sub(high, low), u));
}
NDCUDA_RNG_INLINE double between(double u, double low, double high) {
  return add(low, mul(sub(high, low), u));
}
NDCUDA_RNG_INLINE float scaled(float x, float scale) {
  return mul(scale, x);
}
NDCUDA_RNG_INLINE double scaled(double x, double scale) {
  return mul(scale, x);
}
NDCUDA_RNG_INLINE double lognormal(double z, double mean, double sigma) {
  return exp(add(mean, mul(sigma, z)));
}
NDCUDA_RNG_INLINE float lognormal(float z, float mean, float sigma) {
  return (float)exp((double)add(mean, mul(sigma, z)));
}

/// An offset in [0, rm1] (rm1 <= 2^32 - 1), unbiased: Lemire's multiply-shift on the element's
/// shared word, with the rare rejections (probability < (rm1 + 1) / 2^32) redrawn from its own stream.
NDCUDA_RNG_INLINE u64 bounded32(const item<1, 1>& it, u64 rm1) {
  if (rm1 > 0xffffffffull) return 0;  // an invalid range; the host refuses scalar ones
  const u64 r = rm1 + 1u;
  u64 m = (u64)it.w0 * r;
  if ((m & 0xffffffffull) < r) {
    const u64 t = (0x100000000ull - r) % r;
    cursor c = it.stream();
    while ((m & 0xffffffffull) < t && c.ok()) m = (u64)c.next() * r;
  }
  return m >> 32;
}
/// The same over 64 bits (two shared words; the 128-bit product's high half).
NDCUDA_RNG_INLINE u64 bounded64(const item<1, 2>& it, u64 rm1) {
  u64 x = ((u64)it.w0 << 32) | it.w1;
  if (rm1 == ~0ull) return x;
  const u64 r = rm1 + 1u;
  u64 lo = x * r;
  if (lo < r) {
    const u64 t = (0ull - r) % r;
    cursor c = it.stream();
    while (lo < t && c.ok()) {
      const u64 hi_word = c.next();
      x = (hi_word << 32) | c.next();
      lo = x * r;
    }
  }
  return mulhi(x, r);
}
template <class T>
NDCUDA_RNG_INLINE T integers32(const item<1, 1>& it, T low, T high, int endpoint) {
  const u64 rm1 = (u64)(long long)high - (u64)(long long)low - (endpoint ? 0u : 1u);
  return (T)((u64)(long long)low + bounded32(it, rm1));
}
template <class T>
NDCUDA_RNG_INLINE T integers64(const item<1, 2>& it, T low, T high, int endpoint) {
  const u64 rm1 = (u64)high - (u64)low - (endpoint ? 0u : 1u);
  return (T)((u64)low + bounded64(it, rm1));
}

// Draws from an element's own stream, for the rejection samplers.
NDCUDA_RNG_INLINE float uniform_from(cursor& c, float) {
  return unit_f32(c.next());
}
NDCUDA_RNG_INLINE double uniform_from(cursor& c, double) {
  const u32 a = c.next();
  return unit_f64(a, c.next());
}
NDCUDA_RNG_INLINE float normal_from(cursor& c, float) {
  const u32 a = c.next();
  return box_muller_f32(a, c.next(), 0);
}
NDCUDA_RNG_INLINE double normal_from(cursor& c, double) {
  const u32 a = c.next();
  const u32 b = c.next();
  const u32 e = c.next();
  return box_muller_f64(a, b, e, c.next(), 0);
}

/// standard_gamma: Marsaglia and Tsang (2000) for k >= 1 (NumPy's method); for k < 1 their
/// boost gamma(k + 1) U^(1/k) (NumPy uses Johnk-type rejection there). k = 0 gives 0.
template <class T>
NDCUDA_RNG_NOINLINE T gamma_from(cursor& c, T k) {
  if (k == (T)0) return (T)0;
  if (!(k > (T)0)) return div(sub(k, k), (T)0);  // NaN (the host refuses scalar ones)
  const bool boost = k < (T)1;
  const T a = boost ? add(k, (T)1) : k;
  const T d = sub(a, (T)(1.0 / 3.0));
  const T cc = div((T)1, sqrt(mul((T)9, d)));
  T result = d;
  while (c.ok()) {
    T x, v;
    do {
      x = normal_from(c, (T)0);
      v = add((T)1, mul(cc, x));
    } while (!(v > (T)0) && c.ok());
    v = mul(mul(v, v), v);
    const T u = uniform_from(c, (T)0);
    const T x2 = mul(x, x);
    if (u < sub((T)1, mul(mul((T)0.0331, x2), x2)) ||
        log(u) < add(mul((T)0.5, x2), mul(d, add(sub((T)1, v), log(v))))) {
      result = mul(d, v);
      break;
    }
  }
  if (boost) {
    const double u = (double)uniform_from(c, (T)0);
    result = (T)mul((double)result, exp(div(log(u), (double)k)));
  }
  return result;
}
NDCUDA_RNG_INLINE float gamma_f32(const item<1, 0>& it, float k) {
  cursor c = it.stream();
  return gamma_from(c, k);
}
NDCUDA_RNG_INLINE double gamma_f64(const item<1, 0>& it, double k) {
  cursor c = it.stream();
  return gamma_from(c, k);
}

/// beta: Johnk's algorithm for a, b <= 1, else Ga / (Ga + Gb), both as NumPy (in double).
NDCUDA_RNG_NOINLINE double beta_f64(const item<1, 0>& it, double a, double b) {
  cursor c = it.stream();
  if (a <= 1.0 && b <= 1.0) {
    while (c.ok()) {
      const double u = uniform_from(c, 0.0);
      const double v = uniform_from(c, 0.0);
      const double lx = div(log(u), a);
      const double ly = div(log(v), b);
      const double x = exp(lx);
      const double y = exp(ly);
      const double xy = add(x, y);
      if (xy <= 1.0 && add(u, v) > 0.0) {
        if (xy > 0.0) return div(x, xy);
        const double m = lx > ly ? lx : ly;
        const double sx = sub(lx, m);
        const double sy = sub(ly, m);
        return exp(sub(sx, log(add(exp(sx), exp(sy)))));
      }
    }
    return 0.5;
  }
  const double ga = gamma_from(c, a);
  const double gb = gamma_from(c, b);
  return div(ga, add(ga, gb));
}

NDCUDA_RNG_INLINE float beta_f32(const item<1, 0>& it, double a, double b) {
  return (float)beta_f64(it, a, b);
}

/// log(Gamma(x)) for x >= 1 (NumPy's random_loggam: Stirling's series, shifted below 7).
NDCUDA_RNG_INLINE double loggam(double x) {
  if (x == 1.0 || x == 2.0) return 0.0;
  const int n = x < 7.0 ? (int)(7.0 - x) : 0;
  double x0 = add(x, (double)n);
  const double r = div(1.0, x0);
  const double x2 = mul(r, r);
  double g = -1.39243221690590e+00;
  g = fma(g, x2, 1.796443723688307e-01);
  g = fma(g, x2, -2.955065359477124e-02);
  g = fma(g, x2, 6.410256410256410e-03);
  g = fma(g, x2, -1.917526917526918e-03);
  g = fma(g, x2, 8.417508417508418e-04);
  g = fma(g, x2, -5.952380952380952e-04);
  g = fma(g, x2, 7.936507936507937e-04);
  g = fma(g, x2, -2.777777777777778e-03);
  g = fma(g, x2, 8.333333333333333e-02);
  double gl = add(sub(add(div(g, x0), 0.9189385332046727), x0), mul(sub(x0, 0.5), log(x0)));
  for (int k = 1; k <= n; ++k) {
    x0 = sub(x0, 1.0);
    gl = sub(gl, log(x0));
  }
  return gl;
}

/// poisson: multiplication of uniforms for lam < 10, Hormann's PTRS (1993) above, as NumPy.
NDCUDA_RNG_NOINLINE long long poisson(const item<1, 0>& it, double lam) {
  if (!(lam > 0.0)) return 0;
  cursor c = it.stream();
  if (lam < 10.0) {
    const double limit = exp(-lam);
    long long x = 0;
    double prod = 1.0;
    while (c.ok()) {
      prod = mul(prod, uniform_from(c, 0.0));
      if (!(prod > limit)) return x;
      ++x;
    }
    return x;
  }
  const double slam = sqrt(lam);
  const double loglam = log(lam);
  const double b = add(0.931, mul(2.53, slam));
  const double a = add(-0.059, mul(0.02483, b));
  const double invalpha = add(1.1239, div(1.1328, sub(b, 3.4)));
  const double vr = sub(0.9277, div(3.6224, sub(b, 2.0)));
  while (c.ok()) {
    const double u = sub(uniform_from(c, 0.0), 0.5);
    const double v = uniform_from(c, 0.0);
    const double us = sub(0.5, u < 0.0 ? -u : u);
    const long long k = (long long)floor(add(add(mul(add(div(mul(2.0, a), us), b), u), lam), 0.43));
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    const double lhs = sub(add(log(v), log(invalpha)), log(add(div(a, mul(us, us)), b)));
    const double rhs = sub(add(-lam, mul((double)k, loglam)), loggam((double)k + 1.0));
    if (lhs <= rhs) return k;
  }
  return (long long)lam;
}

/// log(k!) minus its Stirling approximation (k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2.
NDCUDA_RNG_INLINE double stirling_tail(double k) {
  if (k <= 9.0) {
    const int i = (int)k;
    return i == 0   ? 0.0810614667953272
           : i == 1 ? 0.0413406959554092
           : i == 2 ? 0.0276779256849983
           : i == 3 ? 0.02079067210376509
           : i == 4 ? 0.0166446911898211
           : i == 5 ? 0.0138761288230707
           : i == 6 ? 0.0118967099458917
           : i == 7 ? 0.0104112652619720
           : i == 8 ? 0.00925546218271273
                    : 0.00833056343336287;
  }
  const double kp1 = add(k, 1.0);
  const double kp1sq = mul(kp1, kp1);
  return div(sub(1.0 / 12, div(sub(1.0 / 360, div(1.0 / 1260, kp1sq)), kp1sq)), kp1);
}

/// binomial for p <= 1/2: inversion (NumPy's) when n p < 10, else Hormann's BTRS (1993).
NDCUDA_RNG_NOINLINE long long binomial_low(cursor& c, long long n, double p) {
  const double q = sub(1.0, p);
  const double dn = (double)n;
  const double np = mul(dn, p);
  if (np < 10.0) {
    const double qn = exp(mul(dn, log(q)));
    const double bound_f = add(np, mul(10.0, sqrt(add(mul(np, q), 1.0))));
    const long long bound = bound_f < dn ? (long long)bound_f : n;
    long long x = 0;
    double px = qn;
    double u = uniform_from(c, 0.0);
    while (u > px && c.ok()) {
      ++x;
      if (x > bound) {
        x = 0;
        px = qn;
        u = uniform_from(c, 0.0);
      } else {
        u = sub(u, px);
        px = div(mul(mul((double)(n - x + 1), p), px), mul((double)x, q));
      }
    }
    return x;
  }
  const double spq = sqrt(mul(np, q));
  const double b = add(1.15, mul(2.53, spq));
  const double a = add(add(-0.0873, mul(0.0248, b)), mul(0.01, p));
  const double cc = add(np, 0.5);
  const double vr = sub(0.92, div(4.2, b));
  const double r = div(p, q);
  const double alpha = mul(add(2.83, div(5.1, b)), spq);
  const double m = floor(mul(add(dn, 1.0), p));
  while (c.ok()) {
    const double u = sub(uniform_from(c, 0.0), 0.5);
    double v = uniform_from(c, 0.0);
    const double us = sub(0.5, u < 0.0 ? -u : u);
    const double kf = floor(add(mul(add(div(mul(2.0, a), us), b), u), cc));
    if (kf < 0.0 || kf > dn) continue;
    if (us >= 0.07 && v <= vr) return (long long)kf;
    v = log(div(mul(v, alpha), add(div(a, mul(us, us)), b)));
    const double t1 = mul(add(m, 0.5), log(div(add(m, 1.0), mul(r, add(sub(dn, m), 1.0)))));
    const double t2 = mul(add(dn, 1.0), log(div(add(sub(dn, m), 1.0), add(sub(dn, kf), 1.0))));
    const double t3 = mul(add(kf, 0.5), log(div(mul(r, add(sub(dn, kf), 1.0)), add(kf, 1.0))));
    const double tails =
        sub(sub(add(stirling_tail(m), stirling_tail(sub(dn, m))), stirling_tail(kf)), stirling_tail(sub(dn, kf)));
    if (v <= add(add(add(t1, t2), t3), tails)) return (long long)kf;
  }
  return (long long)np;
}
NDCUDA_RNG_INLINE long long binomial(const item<1, 0>& it, long long n, double p) {
  if (n <= 0 || !(p > 0.0)) return 0;
  if (p >= 1.0) return n;
  cursor c = it.stream();
  return p <= 0.5 ? binomial_low(c, n, p) : n - binomial_low(c, n, sub(1.0, p));
}

}  // namespace rng

#if defined(__CUDACC_RTC__)
namespace detail {

/// A draw as a kernel input: element i (its C-order flat index in the draw's shape, which the
/// engine's strides give as an offset) is item_at(key, *offset, shift + i). The host passes
/// {key0, key1, offset, 0} (src/random: random_source_param, the same 24 bytes).
template <int E, int W>
struct philox_source {
  typedef rng::item<E, W> value_type;
  rng::u32 k0, k1;
  const rng::u64* offset;  // the draw's block offset, written on the device (graph replays)
  rng::u64 shift;
  template <class I>
  __forceinline__ rng::item<E, W> operator[](I i) const {
    return rng::item_at<E, W>(k0, k1, __ldg(offset), shift + (rng::u64)(long long)i);
  }
  template <class I>
  __forceinline__ philox_source operator+(I i) const {
    philox_source s = *this;
    s.shift += (rng::u64)(long long)i;
    return s;
  }
};

template <int E, int W>
struct element_of<philox_source<E, W> > {
  typedef rng::item<E, W> type;
};

template <class T, int VEC>
struct value_vector {
  T v[VEC];
};

// VEC neighbours from element `first`: one Philox block per distinct shared block they read.
template <int VEC, int E, int W>
__forceinline__ value_vector<rng::item<E, W>, VEC> items_from(const philox_source<E, W>& s, rng::u64 first) {
  value_vector<rng::item<E, W>, VEC> r;
  const rng::u64 offset = __ldg(s.offset);
  const int per = rng::per_block<E, W>::value;
  if (W > 0 && VEC % per == 0 && first % per == 0) {
    // Whole blocks (the usual case): each word's place is a constant after unrolling, so the
    // members of a Box-Muller pair hold the same values and the compiler computes their shared
    // log, sqrt and sine/cosine once.
#pragma unroll
    for (int b = 0; b < VEC / per; ++b) {
      const rng::block4 x = rng::shared_block(s.k0, s.k1, offset + first / per + (rng::u64)b);
#pragma unroll
      for (int j = 0; j < per; ++j) {
        r.v[b * per + j] = rng::make_item_at<E, W>(x, (unsigned)((j / E) * W % 4), j % E, s.k0, s.k1, offset,
                                                   first + (rng::u64)(b * per + j));
      }
    }
    return r;
  }
  rng::block4 x = {0u, 0u, 0u, 0u};
  rng::u64 current = ~0ull;
#pragma unroll
  for (int k = 0; k < VEC; ++k) {
    const rng::u64 i = first + (rng::u64)k;
    const rng::u64 b = rng::block_of<E, W>(i);
    if (W > 0 && b != current) {
      x = rng::shared_block(s.k0, s.k1, offset + b);
      current = b;
    }
    r.v[k] = rng::make_item<E, W>(x, s.k0, s.k1, offset, i);
  }
  return r;
}

template <int VEC, int E, int W, class IndexT>
__forceinline__ value_vector<rng::item<E, W>, VEC> load_vector(const philox_source<E, W>& s, IndexT v) {
  return items_from<VEC>(s, s.shift + (rng::u64)(long long)v * VEC);
}

template <int VEC, int E, int W, class IndexT>
__forceinline__ value_vector<rng::item<E, W>, VEC> row_vector(const philox_source<E, W>& s, IndexT inner) {
  if (inner != 0) return items_from<VEC>(s, s.shift);
  value_vector<rng::item<E, W>, VEC> r;
  const rng::item<E, W> one = s[0];
#pragma unroll
  for (int k = 0; k < VEC; ++k) r.v[k] = one;
  return r;
}

}  // namespace detail
#endif

}  // namespace ndcuda
