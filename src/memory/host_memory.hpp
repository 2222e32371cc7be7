// Internal: the segments of a host range, one per CUDA allocation, for copies that must not cross
// an allocation boundary in one cudaMemcpyAsync.
#pragma once

#include <cstddef>
#include <ndcuda/memory/host_memory.hpp>
#include <optional>
#include <vector>

namespace ndcuda::detail {

struct memory_segment {
  const char* ptr;
  std::size_t bytes;
};

struct classified_range {
  host_memory_kind kind = host_memory_kind::pageable;
  std::vector<memory_segment> segments;  // for pinned/managed/device: cover the range in order
};

/// classify_host_memory with the segments; the caller holds a device_guard for the right device.
/// Throws error for a range that mixes device memory with host memory.
[[nodiscard]] classified_range classify_segments(const void* p, std::size_t bytes);

/// classify_segments, but a range that mixes device memory with host memory comes back as nullopt
/// instead of an error (for is_pinned, whose honest answer for such a range is "no").
[[nodiscard]] std::optional<classified_range> try_classify_segments(const void* p, std::size_t bytes);

}  // namespace ndcuda::detail
