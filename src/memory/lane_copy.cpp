// Reads from the device into pageable memory over parallel lanes (see lane_copy.hpp for the why).
// Builds on host_threads, events and the pinned pool.
#include "memory/lane_copy.hpp"

#include <algorithm>
#include <cstring>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/event.hpp>

namespace ndcuda::detail {

namespace {

/// One staging block for all lanes, from the pool, returned on `s`. Every DMA into it has been
/// waited for by the host before the block goes back, so returning it on `s` is safe although the
/// DMAs ran on the lanes' streams.
class lane_staging {
 public:
  lane_staging(pinned_pool_resource& pool, const stream& s, std::size_t bytes)
      : pool_(pool), stream_(s), bytes_(bytes), data_(static_cast<char*>(pool.allocate(bytes, s))) {}
  ~lane_staging() {
    try {
      pool_.deallocate(data_, bytes_, stream_);
    } catch (...) {  // only a dead context gets here
    }
  }
  lane_staging(const lane_staging&) = delete;
  lane_staging& operator=(const lane_staging&) = delete;
  [[nodiscard]] char* data() const noexcept { return data_; }

 private:
  pinned_pool_resource& pool_;
  stream stream_;
  std::size_t bytes_;
  char* data_;
};

}  // namespace

std::size_t lane_region_bytes(std::size_t bytes, std::size_t lanes) {
  constexpr std::size_t page = std::size_t{2} << 20;
  // Rounded up twice: a share rounded down lost the last bytes % lanes bytes whenever
  // bytes / lanes was a whole number of pages (a 2^24 + 3 float32 array read over 16 lanes).
  const std::size_t share = (bytes + lanes - 1) / lanes;
  return (share + page - 1) / page * page;
}

lane_region region_of_lane(std::size_t bytes, std::size_t lanes, std::size_t lane) {
  const std::size_t per_lane = lane_region_bytes(bytes, lanes);
  const std::size_t begin = std::min(bytes, lane * per_lane);
  return {begin, std::min(bytes, begin + per_lane)};
}

void lanes_to_host(char* dst, const char* src, std::size_t bytes, const stream& s, pinned_pool_resource& staging,
                   host_threads& workers, const std::vector<stream>& lane_streams, std::size_t chunk_bytes) {
  const std::size_t lanes = std::min<std::size_t>(workers.size(), lane_streams.size());
  const std::size_t chunk = std::min(chunk_bytes, lane_region_bytes(bytes, lanes));
  const lane_staging buffers(staging, s, 2 * lanes * chunk);

  event ready(s.device(), false);
  ready.record(s);  // the source is complete on s
  workers.run(lanes, [&](std::size_t lane) {
    const lane_region region = region_of_lane(bytes, lanes, lane);
    const std::size_t begin = region.begin;
    const std::size_t end = region.end;
    if (begin == end) {
      return;
    }
    const stream& ls = lane_streams[lane];
    try {
      ls.wait(ready);
      char* pair[2] = {buffers.data() + 2 * lane * chunk, buffers.data() + (2 * lane + 1) * chunk};
      event arrived[2] = {event(s.device(), false), event(s.device(), false)};
      const std::size_t chunks = (end - begin + chunk - 1) / chunk;
      auto fetch = [&](std::size_t k) {
        const std::size_t offset = begin + k * chunk;
        NDCUDA_CUDA_CHECK(cudaMemcpyAsync(pair[k % 2], src + offset, std::min(chunk, end - offset),
                                          cudaMemcpyDeviceToHost, ls.handle()));
        arrived[k % 2].record(ls);
      };
      fetch(0);
      if (chunks > 1) {
        fetch(1);
      }
      for (std::size_t k = 0; k < chunks; ++k) {
        const std::size_t offset = begin + k * chunk;
        arrived[k % 2].synchronize();
        std::memcpy(dst + offset, pair[k % 2], std::min(chunk, end - offset));
        if (k + 2 < chunks) {
          fetch(k + 2);  // its buffer is free again: the host has read it
        }
      }
    } catch (...) {
      try {
        ls.synchronize();  // no DMA may still write into the staging block once it is returned
      } catch (...) {
      }
      throw;
    }
  });
}

}  // namespace ndcuda::detail
