/// @file
/// memory_stats: what a pool or statistics_adaptor reports (used, cached, peak, counts, limit).
/// Builds on nothing but the standard library; every resource with statistics returns one.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace ndcuda {

/// A consistent snapshot of a resource's accounting. Counters never go below zero.
struct memory_stats {
  std::size_t used_bytes = 0;              ///< handed out and not yet freed (as the resource rounded them)
  std::size_t peak_used_bytes = 0;         ///< largest used_bytes since creation or reset_peak()
  std::size_t cached_bytes = 0;            ///< held by the resource, free for reuse
  std::size_t reserved_bytes = 0;          ///< obtained from upstream and not yet returned (used + cached)
  std::size_t peak_reserved_bytes = 0;     ///< largest reserved_bytes since creation or reset_peak()
  std::uint64_t allocation_count = 0;      ///< successful allocations of at least one byte, ever
  std::uint64_t deallocation_count = 0;    ///< successful frees of at least one byte, ever
  std::uint64_t live_allocations = 0;      ///< allocations not yet freed
  std::uint64_t upstream_allocations = 0;  ///< chunks obtained from upstream (cudaMalloc, cudaHostAlloc, ...)
  std::uint64_t upstream_frees = 0;        ///< chunks returned to upstream
  std::optional<std::size_t> limit;        ///< the most reserved_bytes may reach; none when unset
};

/// "used 12 MiB in 3 allocations (peak 20 MiB), cached 64 MiB, reserved 76 MiB, limit none"
[[nodiscard]] std::string to_string(const memory_stats& stats);
/// Writes to_string(stats).
std::ostream& operator<<(std::ostream& os, const memory_stats& stats);

/// Bytes for people: "0 B", "512 B", "1.5 KiB", "12 MiB", "1 PiB".
[[nodiscard]] std::string format_bytes(std::size_t bytes);

}  // namespace ndcuda

#pragma GCC visibility pop
