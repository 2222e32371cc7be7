// Philox-4x32-10 (Salmon et al., SC'11; Random123) and how ndcuda lays its counters out: every
// random value is a pure function of (key, the draw's block offset, the element's flat index).
// A draw's element i reads the words of its group from the shared block (offset + i*W/E/4, 0, 0)
// and, for rejection samplers, its own stream of blocks (offset + j, i + 1). Compiles as NVRTC
// device code and as host C++ (the host reference); builds on random_math.cuh.
#pragma once

#if defined(__CUDACC_RTC__)
#include "ndcuda/random_math.cuh"
#endif

namespace ndcuda {
namespace rng {

struct block4 {
  u32 x0, x1, x2, x3;
};

/// One Philox-4x32-10 block: 10 rounds, the key bumped by Weyl constants between rounds.
NDCUDA_RNG_INLINE block4 philox4x32_10(block4 c, u32 k0, u32 k1) {
#if defined(NDCUDA_RNG_DEVICE)
#pragma unroll
#endif
  for (int round = 0; round < 10; ++round) {
    const u32 hi0 = mulhi(0xD2511F53u, c.x0);
    const u32 lo0 = 0xD2511F53u * c.x0;
    const u32 hi1 = mulhi(0xCD9E8D57u, c.x2);
    const u32 lo1 = 0xCD9E8D57u * c.x2;
    c = block4{hi1 ^ c.x1 ^ k0, lo1, hi0 ^ c.x3 ^ k1, lo0};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}

/// The shared block `b` (absolute, offset included) of a draw.
NDCUDA_RNG_INLINE block4 shared_block(u32 k0, u32 k1, u64 b) {
  return philox4x32_10(block4{(u32)b, (u32)(b >> 32), 0u, 0u}, k0, k1);
}

/// Blocks a rejection sampler may take from its own stream per element: a draw that uses those
/// streams advances the generator by at least this many, so that no two draws share a counter.
#define NDCUDA_RNG_PRIVATE_BLOCKS (1ull << 20)

/// One element's own stream: block j is (offset + j, index + 1), j < NDCUDA_RNG_PRIVATE_BLOCKS.
/// Words come out in order x0, x1, x2, x3 of block 0, then block 1, ...
struct cursor {
  u32 k0, k1;
  u64 offset, index;
  u64 j;
  u32 a, b, c, d;
  int left;

  NDCUDA_RNG_INLINE bool ok() const { return j < NDCUDA_RNG_PRIVATE_BLOCKS; }
  NDCUDA_RNG_INLINE u32 next() {
    if (left == 0) {
      const u64 ctr = offset + j;
      const u64 id = index + 1;
      const block4 r = philox4x32_10(block4{(u32)ctr, (u32)(ctr >> 32), (u32)id, (u32)(id >> 32)}, k0, k1);
      a = r.x0;
      b = r.x1;
      c = r.x2;
      d = r.x3;
      left = 4;
      ++j;
    }
    const u32 w = a;
    a = b;
    b = c;
    c = d;
    --left;
    return w;
  }
};

/// What a fused kernel sees for one element of a draw whose groups of E elements (1 or 2) share W
/// words (0, 1, 2 or 4): the group's words w0..w(W-1), the element's place in its group, and what
/// its own stream needs.
template <int E, int W>
struct item {
  u32 w0, w1, w2, w3;
  int lane;
  u32 k0, k1;
  u64 offset, index;

  NDCUDA_RNG_INLINE cursor stream() const {
    cursor c;
    c.k0 = k0;
    c.k1 = k1;
    c.offset = offset;
    c.index = index;
    c.j = 0;
    c.a = c.b = c.c = c.d = 0;
    c.left = 0;
    return c;
  }
};

/// The shared block element i of an (E, W) draw reads.
template <int E, int W>
NDCUDA_RNG_INLINE u64 block_of(u64 i) {
  return (i / (u64)E) * (u64)W / 4u;
}

// Uniform values from 32-bit words: exact multiples of 2^-24 (float) or 2^-53 (double).
NDCUDA_RNG_INLINE float unit_f32(u32 w) {
  return (float)(w >> 8) * 5.9604644775390625e-08f;
}
NDCUDA_RNG_INLINE float unit_open_f32(u32 w) {
  return (float)((w >> 8) + 1u) * 5.9604644775390625e-08f;
}
NDCUDA_RNG_INLINE u64 bits53(u32 a, u32 b) {
  return ((u64)(a >> 5) << 26) | (u64)(b >> 6);
}
NDCUDA_RNG_INLINE double unit_f64(u32 a, u32 b) {
  return (double)bits53(a, b) * 1.1102230246251565e-16;
}
NDCUDA_RNG_INLINE double unit_open_f64(u32 a, u32 b) {
  return (double)(bits53(a, b) + 1u) * 1.1102230246251565e-16;
}

// Box-Muller from u in (0, 1] and an angle 2 pi (t + 1/2) / 2^bits, reduced to a quadrant k and
// r in (-1/2, 1/2) exactly in integers. Lane 0 of a pair takes r cos, lane 1 r sin.
NDCUDA_RNG_INLINE float box_muller_f32(u32 wu, u32 wt, int lane) {
  const float rad = sqrt(mul(-2.0f, log_normal_number(unit_open_f32(wu))));
  const u32 t = wt >> 8;
  const u32 k = (t + (1u << 21)) >> 22;
  const int d = (int)t - (int)(k << 22);
  float s, c;
  sincos_quadrant(k, (float)(2 * d + 1) * 1.1920928955078125e-07f, &s, &c);
  return mul(rad, lane == 0 ? c : s);
}
NDCUDA_RNG_INLINE double box_muller_f64(u32 a, u32 b, u32 e, u32 f, int lane) {
  const double rad = sqrt(mul(-2.0, log_normal_number(unit_open_f64(a, b))));
  const u64 t = bits53(e, f);
  const u64 k = (t + (1ull << 50)) >> 51;
  const long long d = (long long)t - (long long)(k << 51);
  double s, c;
  sincos_quadrant((unsigned)k, (double)(2 * d + 1) * 2.220446049250313e-16, &s, &c);
  return mul(rad, lane == 0 ? c : s);
}
/// Elements of an (E, W) draw per shared block.
template <int E, int W>
struct per_block {
  static const int value = W > 0 ? 4 * E / W : 1;
};

/// Element i's item, given its shared block's words `x`, its group's first word in the block
/// (`word`) and its place in the group (`lane`).
template <int E, int W>
NDCUDA_RNG_INLINE item<E, W> make_item_at(const block4& x, unsigned word, int lane, u32 k0, u32 k1, u64 offset, u64 i) {
  item<E, W> it;
  it.lane = lane;
  it.k0 = k0;
  it.k1 = k1;
  it.offset = offset;
  it.index = i;
  if (W == 1) {
    it.w0 = word == 0 ? x.x0 : word == 1 ? x.x1 : word == 2 ? x.x2 : x.x3;
    it.w1 = it.w2 = it.w3 = 0;
  } else if (W == 2) {
    it.w0 = word == 0 ? x.x0 : x.x2;
    it.w1 = word == 0 ? x.x1 : x.x3;
    it.w2 = it.w3 = 0;
    // E = 2 is the Box-Muller pair layout (standard_normal and what builds on it): the item holds
    // the element's normal value, computed here so that the two members of a pair made together
    // (a vector load) share their log, sqrt and sine/cosine.
    if (E == 2) it.w0 = bits(box_muller_f32(it.w0, it.w1, lane));
  } else if (E == 2) {
    const u64 z = bits(box_muller_f64(x.x0, x.x1, x.x2, x.x3, lane));
    it.w0 = (u32)z;
    it.w1 = (u32)(z >> 32);
    it.w2 = it.w3 = 0;
  } else {
    it.w0 = x.x0;
    it.w1 = x.x1;
    it.w2 = x.x2;
    it.w3 = x.x3;
  }
  return it;
}

/// Element i's item, given its shared block's words `x` (unused when W is 0).
template <int E, int W>
NDCUDA_RNG_INLINE item<E, W> make_item(const block4& x, u32 k0, u32 k1, u64 offset, u64 i) {
  return make_item_at<E, W>(x, (unsigned)(((i / (u64)E) * (u64)W) % 4u), (int)(i % (u64)E), k0, k1, offset, i);
}

/// Element i of an (E, W) draw at block offset `offset`, computed on its own.
template <int E, int W>
NDCUDA_RNG_INLINE item<E, W> item_at(u32 k0, u32 k1, u64 offset, u64 i) {
  block4 x = {0u, 0u, 0u, 0u};
  if (W > 0) x = shared_block(k0, k1, offset + block_of<E, W>(i));
  return make_item<E, W>(x, k0, k1, offset, i);
}

/// Shared blocks an (E, W) draw of n elements uses: how far the generator advances for it (a draw
/// that also uses its elements' own streams advances by at least NDCUDA_RNG_PRIVATE_BLOCKS).
template <int E, int W>
NDCUDA_RNG_INLINE u64 shared_blocks(u64 n) {
  return ((n + (u64)E - 1) / (u64)E * (u64)W + 3u) / 4u;
}

}  // namespace rng
}  // namespace ndcuda
