// Internal: reads from the device into pageable host memory over several lanes at once, each with
// its own stream, staging pair and host thread. Builds on host_threads and the pinned pool.
#pragma once

#include <cstddef>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/memory/pinned_pool_resource.hpp>
#include <vector>

#include "memory/host_threads.hpp"

namespace ndcuda::detail {

/// Where each lane's region lies: lane `lane` of `lanes` copies [begin, end) of `bytes`. Regions
/// start on 2 MiB (huge-page) boundaries and together cover every byte exactly once; the last ones
/// may be empty.
struct lane_region {
  std::size_t begin;
  std::size_t end;
};
[[nodiscard]] std::size_t lane_region_bytes(std::size_t bytes, std::size_t lanes);
[[nodiscard]] lane_region region_of_lane(std::size_t bytes, std::size_t lanes, std::size_t lane);

/// Copies `bytes` from device memory `src` into pageable `dst`, ordered after `s`, and returns once
/// `dst` holds them. [dst, dst + bytes) is cut into one contiguous region per lane; lane i copies
/// its region chunk by chunk through two staging buffers on lane_streams[i], so the DMA of one chunk
/// overlaps the host memcpy of the other. Each thread thus first-touches only its own pages (a fresh
/// buffer's page faults run in parallel, on distinct huge pages) and no lane waits for another.
/// Needs lane_streams.size() >= workers.size() streams on s's device.
void lanes_to_host(char* dst, const char* src, std::size_t bytes, const stream& s, pinned_pool_resource& staging,
                   host_threads& workers, const std::vector<stream>& lane_streams, std::size_t chunk_bytes);

}  // namespace ndcuda::detail
