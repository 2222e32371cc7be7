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
