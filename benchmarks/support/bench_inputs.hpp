// The inputs and counters the counting, sorting, indexing and arranging benchmarks share: the same
// values in every run (a fixed seed), made on the host once per size.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <ndcuda/ndcuda.hpp>
#include <random>
#include <vector>

#include "support/gpu_timing.hpp"

namespace ndcuda::bench {

/// n floats uniform in [-1, 1).
inline ndarray<float> random_floats(index_t n) {
  std::vector<float> host(static_cast<std::size_t>(n));
  std::mt19937 g(12345);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& x : host) {
    x = u(g);
  }
  return asarray(host);
}

/// n int32 uniform in [0, bins).
inline ndarray<std::int32_t> random_bins(index_t n, std::int32_t bins) {
  std::vector<std::int32_t> host(static_cast<std::size_t>(n));
  std::mt19937 g(12345);
  std::uniform_int_distribution<std::int32_t> u(0, bins - 1);
  for (auto& x : host) {
    x = u(g);
  }
  return asarray(host);
}

/// Items and bytes per second (n items of bytes_per_item each per iteration), then the bandwidth
/// guard (support/gpu_timing.hpp).
inline void counters(benchmark::State& state, index_t n, std::size_t bytes_per_item) {
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * static_cast<std::int64_t>(bytes_per_item));
  guard_bandwidth(state);
}

}  // namespace ndcuda::bench
