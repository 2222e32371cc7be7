/// @file
/// device_pool_resource: the default device memory resource, a caching sub-allocator over cudaMalloc
/// with per-stream free lists. Builds on memory_resource.hpp and pool_interfaces.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <memory>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/memory/memory_resource.hpp>
#include <ndcuda/memory/pool_interfaces.hpp>
#include <ndcuda/memory/stats.hpp>
#include <optional>

namespace ndcuda {

namespace detail {
class NDCUDA_INTERNAL block_pool;  // src/memory/block_pool.hpp: the pool's bookkeeping, not exported
}

/// Settings of a device_pool_resource.
struct pool_options {
  /// The smallest chunk asked of upstream. Growth is geometric: each new chunk is as large as the
  /// pool already is (so the pool doubles), between min_chunk_bytes and max_chunk_bytes, and never
  /// smaller than the request.
  std::size_t min_chunk_bytes = std::size_t{2} << 20;
  std::size_t max_chunk_bytes =
      std::size_t{1}
      << 30;  ///< the largest chunk asked of upstream by growth (a larger request gets a chunk of its own size)
  /// Chunk sizes are rounded up to this (cudaMalloc hands out 2 MiB pages anyway).
  std::size_t chunk_granularity = std::size_t{2} << 20;
  /// A free block is split only when the remainder would be at least this large; a smaller
  /// remainder stays with the allocation (and counts as used).
  std::size_t min_split_bytes = 512;
  /// The most the pool may hold from upstream (reserved bytes). None: only the device's memory.
  std::optional<std::size_t> limit;
  /// allocate/deallocate on a stream that is capturing a CUDA graph throw capture_error (a cached
  /// block baked into a graph would be reused behind the graph's back). Costs one
  /// cudaStreamIsCapturing per call; turn off only if you never capture on the pool's streams.
  bool refuse_during_capture = true;
};

/// A caching sub-allocator in the style of CuPy's and RMM's pools.
///
/// - Blocks are carved best-fit out of chunks obtained from upstream (cudaMalloc), split when the
///   remainder is worth keeping, and merged with free neighbours of the same chunk on free.
/// - Free blocks are kept per stream. A block freed on stream A is handed to stream B only when A
///   has finished all its queued work (cudaStreamQuery), or, when the pool cannot grow, after B is
///   made to wait on an event recorded on A (cudaStreamWaitEvent). A stream with free blocks in the
///   pool is kept alive by the pool (its nd::stream is held); wrapped foreign streams must outlive
///   their blocks' stay in the pool, or call free_all_blocks() first.
/// - Growth asks upstream for a chunk as large as the pool (at least min_chunk_bytes); if upstream
///   is short it halves the request down to what is needed. The limit is reserved before upstream
///   is called and given back if the call fails. Out of memory: release every cached chunk that is
///   entirely free, retry once, then throw out_of_memory naming the request and the pool's state.
/// - Thread-safe (one mutex; the hit path makes no CUDA call besides the capture check).
class device_pool_resource final : public memory_resource {
 public:
  /// A pool over cudaMalloc on `device`. Throws device_error when the device does not exist.
  explicit device_pool_resource(int device, pool_options options = {});
  /// A pool over any upstream and ordering: a simulation in tests, or your own chunk source.
  device_pool_resource(int device, pool_options options, std::shared_ptr<chunk_upstream> upstream,
                       std::shared_ptr<stream_ordering> ordering);
  /// Returns every chunk to upstream. Memory still allocated from the pool is gone with it.
  ~device_pool_resource() override;

  /// Used, cached and reserved bytes, peaks and counts, now.
  [[nodiscard]] memory_stats stats() const;
  /// Restarts the peaks from the current values.
  void reset_peak();
  /// Caps the bytes held from upstream; std::nullopt removes the cap. Lowering it below what is
  /// reserved now does not free anything: later growth fails until blocks are released.
  void set_limit(std::optional<std::size_t> bytes);
  /// The cap on the bytes held from upstream; nullopt when none.
  [[nodiscard]] std::optional<std::size_t> limit() const;
  /// Returns every cached chunk that is entirely free (not split) to upstream, after the streams
  /// that freed into it have finished. Blocks on a capturing stream stay. Returns the bytes released.
  std::size_t free_all_blocks();

 protected:
  void* do_allocate(std::size_t bytes, const stream& s) override;
  void do_deallocate(void* p, std::size_t bytes, const stream& s) override;

 private:
  std::unique_ptr<detail::block_pool> pool_;
};

}  // namespace ndcuda

#pragma GCC visibility pop
