// Internal: reads from the device into pageable host memory over several lanes at once, each with
// its own stream, staging pair and host thread. Builds on host_threads and the pinned pool.
#pragma once

#include <cstddef>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/memory/pinned_pool_resource.hpp>
#include <vector>

#include "memory/host_threads.hpp"

namespace ndcuda::detail {

/// Copies `bytes` from device memory `src` into pageable `dst`, ordered after `s`, and returns once
/// `dst` holds them. [dst, dst + bytes) is cut into one contiguous region per lane; lane i copies
/// its region chunk by chunk through two staging buffers on lane_streams[i], so the DMA of one chunk
/// overlaps the host memcpy of the other. Each thread thus first-touches only its own pages (a fresh
/// buffer's page faults run in parallel, on distinct huge pages) and no lane waits for another.
/// Needs lane_streams.size() >= workers.size() streams on s's device.
void lanes_to_host(char* dst, const char* src, std::size_t bytes, const stream& s, pinned_pool_resource& staging,
                   host_threads& workers, const std::vector<stream>& lane_streams, std::size_t chunk_bytes);

}  // namespace ndcuda::detail
