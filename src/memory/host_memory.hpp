// Internal: the segments of a host range, one per CUDA allocation, for copies that must not cross
// an allocation boundary in one cudaMemcpyAsync.
#pragma once

#include <cstddef>
#include <ndcuda/memory/host_memory.hpp>
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
[[nodiscard]] classified_range classify_segments(const void* p, std::size_t bytes);

}  // namespace ndcuda::detail
