// Test helper: the device pool's algorithm over a simulated upstream and simulated streams.
// Builds on memory/block_pool.hpp (internal) and support/simulated_memory.hpp.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <ndcuda/memory/device_pool_resource.hpp>

#include "memory/block_pool.hpp"
#include "support/simulated_memory.hpp"

namespace ndcuda::testing {

inline constexpr std::size_t KiB = std::size_t{1} << 10;
inline constexpr std::size_t MiB = std::size_t{1} << 20;
inline constexpr std::size_t GiB = std::size_t{1} << 30;
inline constexpr std::size_t PiB = std::size_t{1} << 50;

/// Chunks of `unit` granularity and floor, so tests can predict every upstream request.
inline pool_options small_options(std::size_t unit = MiB) {
  pool_options o;
  o.min_chunk_bytes = unit;
  o.chunk_granularity = unit;
  o.max_chunk_bytes = 1024 * unit;
  return o;
}

struct sim_pool {
  std::shared_ptr<simulated_upstream> upstream;
  std::shared_ptr<simulated_ordering> ordering;
  std::unique_ptr<detail::block_pool> pool;

  explicit sim_pool(pool_options options = small_options(), std::size_t capacity = 64 * GiB)
      : upstream(std::make_shared<simulated_upstream>(capacity)),
        ordering(std::make_shared<simulated_ordering>()),
        pool(std::make_unique<detail::block_pool>(0, options, upstream, ordering)) {}

  detail::block_pool* operator->() { return pool.get(); }
  /// Every chunk, list and counter agrees with the others.
  void expect_valid() const { EXPECT_EQ(pool->validate(), ""); }
};

}  // namespace ndcuda::testing
