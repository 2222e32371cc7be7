// Test helpers: skip cleanly without a GPU, and random bit patterns for round trips.
// Builds on ndcuda::device_count(), which never creates a CUDA context, and random_inputs.hpp.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <ndcuda/device/enumeration.hpp>
#include <type_traits>

#include "support/random_inputs.hpp"  // rng(): the tests that include only this header use it

/// Skips the current test unless at least `n` CUDA devices are visible.
#define NDCUDA_REQUIRE_GPUS(n)                                                                 \
  do {                                                                                         \
    if (const int ndcuda_visible_ = ::ndcuda::device_count(); ndcuda_visible_ < (n)) {         \
      GTEST_SKIP() << "needs " << (n) << " CUDA device(s), " << ndcuda_visible_ << " visible"; \
    }                                                                                          \
  } while (false)

/// Skips the current test when no CUDA device is visible.
#define NDCUDA_REQUIRE_GPU() NDCUDA_REQUIRE_GPUS(1)

namespace ndcuda::testing {

/// n values of random bit patterns (NaNs and infinities included, which round trips must keep
/// bit for bit); bools are 0 or 1.
template <class T>
std::unique_ptr<T[]> random_bit_patterns(std::size_t n) {
  std::unique_ptr<T[]> values(new T[n]);
  auto& engine = rng();
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      values[i] = (engine() & 1) != 0;
    } else {
      unsigned char bytes[sizeof(T)];
      for (auto& b : bytes) {
        b = static_cast<unsigned char>(engine());
      }
      std::memcpy(static_cast<void*>(&values[i]), bytes, sizeof(T));
    }
  }
  return values;
}

}  // namespace ndcuda::testing
