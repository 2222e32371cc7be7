// Test helpers: skip cleanly without a GPU, and fresh random input for host references.
// Builds on ndcuda::device_count(), which never creates a CUDA context.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <ndcuda/device/enumeration.hpp>
#include <random>
#include <type_traits>

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

/// A generator seeded freshly for each test run; the seed is printed so a failure can be replayed.
inline std::mt19937_64& rng() {
  static std::mt19937_64 engine = [] {
    std::random_device device;
    auto seed = (static_cast<std::uint64_t>(device()) << 32) ^ device();
    std::printf("[ ndcuda ] random seed %llu\n", static_cast<unsigned long long>(seed));
    return std::mt19937_64(seed);
  }();
  return engine;
}

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
