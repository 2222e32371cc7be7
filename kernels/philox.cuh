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

/// Element i's item, given its shared block's words `x` (unused when W is 0).
template <int E, int W>
NDCUDA_RNG_INLINE item<E, W> make_item(const block4& x, u32 k0, u32 k1, u64 offset, u64 i) {
  item<E, W> it;
  it.lane = (int)(i % (u64)E);
  it.k0 = k0;
  it.k1 = k1;
  it.offset = offset;
  it.index = i;
  const unsigned first = (unsigned)(((i / (u64)E) * (u64)W) % 4u);
  if (W == 1) {
    it.w0 = first == 0 ? x.x0 : first == 1 ? x.x1 : first == 2 ? x.x2 : x.x3;
    it.w1 = it.w2 = it.w3 = 0;
  } else if (W == 2) {
    it.w0 = first == 0 ? x.x0 : x.x2;
    it.w1 = first == 0 ? x.x1 : x.x3;
    it.w2 = it.w3 = 0;
  } else {
    it.w0 = x.x0;
    it.w1 = x.x1;
    it.w2 = x.x2;
    it.w3 = x.x3;
  }
  return it;
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
