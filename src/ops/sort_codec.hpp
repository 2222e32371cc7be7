// The element <-> unsigned key transforms of the sort family, as host and device code: the .cu
// kernels apply them, and CPU tests check them against NumPy's order without a GPU.
#pragma once

#include <cstdint>
#include <ndcuda/ops/detail/device_algorithms.hpp>

#if defined(__CUDACC__)
#define NDCUDA_HOST_DEVICE __host__ __device__
#else
#define NDCUDA_HOST_DEVICE
#endif

namespace ndcuda::detail {

/// The transform of one key format, with its constants precomputed on the host.
template <class U>
struct codec {
  key_mode mode;
  U sign;       // top bit
  U inf;        // +inf's bits (floats)
  U quiet_nan;  // the one NaN float_canonical maps every NaN to: +inf with the top mantissa bit
  U nan_count;  // NaNs of one sign (float_total rotates the negative ones above +inf)

  // Floats ordered as unsigned integers: negatives reversed below the positives.
  NDCUDA_HOST_DEVICE U order(U x) const { return (x & sign) ? static_cast<U>(~x) : static_cast<U>(x | sign); }
  NDCUDA_HOST_DEVICE U unorder(U k) const { return (k & sign) ? static_cast<U>(k ^ sign) : static_cast<U>(~k); }

  NDCUDA_HOST_DEVICE U encode(U x) const {
    switch (mode) {
      case key_mode::identity:
        return x;
      case key_mode::flip_sign:
        return static_cast<U>(x ^ sign);
      case key_mode::float_canonical: {
        const U magnitude = static_cast<U>(x & ~sign);
        if (magnitude > inf) {
          x = quiet_nan;
        } else if (magnitude == 0) {
          x = 0;
        }
        return order(x);
      }
      case key_mode::float_total:
        // order() puts the negative NaNs at [0, nan_count): moving every key down by nan_count
        // (mod 2^bits) lifts them above the positive NaNs, a bijection that keeps the bits.
        return static_cast<U>(order(x) - nan_count);
    }
    return x;
  }
  NDCUDA_HOST_DEVICE U decode(U k) const {
    switch (mode) {
      case key_mode::identity:
        return k;
      case key_mode::flip_sign:
        return static_cast<U>(k ^ sign);
      case key_mode::float_canonical:
        return unorder(k);
      case key_mode::float_total:
        return unorder(static_cast<U>(k + nan_count));
    }
    return k;
  }
};

/// NumPy's sort order of a complex number (real and imaginary bits `re`, `im` of U's width) as a
/// pair of unsigned keys compared lexicographically: real part, then imaginary part, and the NaNs
/// last in NumPy's documented order [R + Rj, R + nanj, nan + Rj, nan + nanj], each class ordered by
/// its non-NaN part. -0.0 equals +0.0 and every NaN is one NaN. Class 0 uses hi = the real part's
/// key, which is at most ord(+inf); the NaN classes take the free hi values just above it.
template <class U>
struct complex_key {
  U hi;
  U lo;
};
template <class U>
NDCUDA_HOST_DEVICE constexpr U complex_inf_bits() {
  return sizeof(U) == 4 ? static_cast<U>(0x7f800000u) : static_cast<U>(0x7ff0000000000000ull);
}
/// The ordered key of a non-NaN part: -0.0 as +0.0, negatives reversed below the positives.
template <class U>
NDCUDA_HOST_DEVICE constexpr U complex_part_key(U x) {
  constexpr U sign = static_cast<U>(U{1} << (8 * sizeof(U) - 1));
  if ((x & static_cast<U>(~sign)) == 0) {
    x = 0;
  }
  return (x & sign) ? static_cast<U>(~x) : static_cast<U>(x | sign);
}
template <class U>
NDCUDA_HOST_DEVICE constexpr complex_key<U> complex_sort_key(U re, U im) {
  constexpr U sign = static_cast<U>(U{1} << (8 * sizeof(U) - 1));
  constexpr U inf = complex_inf_bits<U>();
  constexpr U top = static_cast<U>(inf | sign);  // complex_part_key(+inf)
  const bool re_nan = static_cast<U>(re & static_cast<U>(~sign)) > inf;
  const bool im_nan = static_cast<U>(im & static_cast<U>(~sign)) > inf;
  if (!re_nan && !im_nan) {
    return {complex_part_key(re), complex_part_key(im)};
  }
  if (!re_nan) {
    return {static_cast<U>(top + 1), complex_part_key(re)};
  }
  if (!im_nan) {
    return {static_cast<U>(top + 2), complex_part_key(im)};
  }
  return {static_cast<U>(top + 3), 0};
}
template <class U>
NDCUDA_HOST_DEVICE constexpr bool complex_key_less(const complex_key<U>& a, const complex_key<U>& b) {
  return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}
/// Whether two complex numbers are one element to np.unique (equal_nan=True): equal keys, or both
/// with a NaN part (NumPy 2 treats every complex NaN as one).
template <class U>
NDCUDA_HOST_DEVICE constexpr bool complex_same_element(const complex_key<U>& a, const complex_key<U>& b) {
  constexpr U top = static_cast<U>(complex_inf_bits<U>() | static_cast<U>(U{1} << (8 * sizeof(U) - 1)));
  return (a.hi > top && b.hi > top) || (a.hi == b.hi && a.lo == b.lo);
}

template <class U>
codec<U> make_codec(const key_format& f) {
  codec<U> c{};
  c.mode = f.mode;
  c.sign = static_cast<U>(f.sign_bit);
  c.inf = static_cast<U>(f.inf_bits);
  const U lowest_exponent_bit = static_cast<U>(c.inf & static_cast<U>(~c.inf + 1u));
  c.quiet_nan = static_cast<U>(c.inf | (lowest_exponent_bit >> 1));
  c.nan_count = static_cast<U>(lowest_exponent_bit - 1u);
  return c;
}

}  // namespace ndcuda::detail
