// Test helpers for the distributed tests: a communicator over the visible GPUs, and extents that split unevenly.
// Builds on ndcuda/dist.hpp (the communicator).
#pragma once

#include <algorithm>
#include <chrono>
#include <ndcuda/device/enumeration.hpp>
#include <ndcuda/dist.hpp>
#include <vector>

namespace ndcuda::testing {

/// A communicator over GPUs 0 .. count - 1, one rank each, with a 2-minute timeout.
inline dist::communicator first_gpus(int count) {
  std::vector<int> devices(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    devices[static_cast<std::size_t>(i)] = i;
  }
  return dist::communicator(devices, {std::chrono::seconds(120)});
}

/// A communicator over the first visible GPUs (at most 4).
inline dist::communicator all_gpus() {
  return first_gpus(std::min(device_count(), 4));
}

/// An extent that leaves a remainder over p ranks and gives every rank at least one element.
inline index_t uneven(int p, index_t per_rank) {
  return per_rank * p + (p > 1 ? p - 1 : 0);
}

}  // namespace ndcuda::testing
