/// @file
/// async_pool_resource: device memory from a CUDA memory pool (cudaMallocFromPoolAsync), the resource
/// to allocate from inside graph capture. Builds on memory_resource.hpp and the CUDA runtime's pools.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cuda_runtime_api.h>

#include <cstddef>
#include <limits>
#include <memory>
#include <ndcuda/memory/memory_resource.hpp>
#include <ndcuda/memory/stats.hpp>

namespace ndcuda {

/// Settings of an async_pool_resource.
struct async_pool_options {
  /// Bytes the pool keeps reserved across synchronizations (cudaMemPoolAttrReleaseThreshold).
  /// CUDA's default, 0, hands memory back to the driver at every synchronization, which makes
  /// each allocation after a sync a real one; ndcuda keeps everything by default (as RMM does) and
  /// returns it on free_all_blocks().
  std::size_t release_threshold = std::numeric_limits<std::size_t>::max();
  /// Allocate from the device's default pool (the one plain cudaMallocAsync uses, shared with other
  /// libraries) instead of a pool of its own. The threshold is then set on that shared pool.
  bool use_default_pool = false;
};

/// Stream-ordered allocation by the driver (cudaMallocFromPoolAsync / cudaFreeAsync). Reuse across
/// streams is ordered by the driver itself. During graph capture, allocations become graph memory
/// nodes (graph-owned memory), which is why capture code should allocate from this resource; free
/// them inside the capture, or after the graph has run, on a stream ordered after it.
///
/// Statistics: used/peak bytes and counts are kept by ndcuda per call (a captured allocation counts
/// once, however often the graph is launched); reserved bytes come from the pool
/// (cudaMemPoolAttrReservedMemCurrent) and cached = reserved - the pool's used memory.
/// Thread-safe.
class async_pool_resource final : public memory_resource {
 public:
  /// Throws device_error when `device` does not exist or does not support memory pools.
  explicit async_pool_resource(int device, async_pool_options options = {});
  /// Destroys a pool of its own (CUDA defers that until outstanding allocations are freed).
  ~async_pool_resource() override;

  /// The CUDA memory pool, for use with CUDA's own API.
  [[nodiscard]] cudaMemPool_t handle() const noexcept;
  /// Sets the bytes the pool keeps reserved across synchronizations (async_pool_options::release_threshold).
  void set_release_threshold(std::size_t bytes);
  /// The bytes the pool keeps reserved across synchronizations.
  [[nodiscard]] std::size_t release_threshold() const;
  /// Used, cached and reserved bytes, peaks and counts, now.
  [[nodiscard]] memory_stats stats() const;
  /// Restarts the peaks from the current values.
  void reset_peak();
  /// Trims the pool to nothing (cudaMemPoolTrimTo(pool, 0)): memory not backing an allocation goes
  /// back to the driver. Frees still queued on a stream are not released until they have run;
  /// synchronize first for a full release. Returns the bytes the reservation shrank by.
  std::size_t free_all_blocks();

 protected:
  void* do_allocate(std::size_t bytes, const stream& s) override;
  void do_deallocate(void* p, std::size_t bytes, const stream& s) override;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace ndcuda

#pragma GCC visibility pop
