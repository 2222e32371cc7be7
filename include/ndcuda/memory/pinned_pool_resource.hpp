/// @file
/// pinned_pool_resource: the default host resource, a cache of page-locked (cudaHostAlloc) blocks by
/// size class, and the transfer engine's staging pool. Builds on memory_resource.hpp, pool_interfaces.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <memory>
#include <ndcuda/memory/memory_resource.hpp>
#include <ndcuda/memory/pool_interfaces.hpp>
#include <ndcuda/memory/stats.hpp>
#include <optional>

namespace ndcuda {

/// Settings of a pinned_pool_resource.
struct pinned_pool_options {
  /// The most the pool may hold pinned (reserved bytes). None: whatever the host grants.
  std::optional<std::size_t> limit;
  /// The smallest size class; smaller requests are rounded up to it (a page).
  std::size_t min_class_bytes = 4096;
  /// cudaStreamIsCapturing on each call, refusing with capture_error (see pool_options).
  bool refuse_during_capture = true;
};

/// Caches cudaHostAlloc blocks by size class (four classes per power of two, so at most 25% is
/// wasted) without splitting them.
///
/// Host memory differs from device memory in one way that matters: the host may write into a
/// block the moment allocate() returns, so ordering the next *stream* after the last one is not
/// enough. deallocate(p, bytes, s) therefore records an event on `s`, and the block is handed out
/// again, to any stream, only once that event has completed. This is what keeps a staging buffer
/// (or a source freed right after an async copy) from being overwritten while a DMA still reads it.
///
/// free_all_blocks() returns every cached block whose last stream work has completed to the
/// driver (cudaFreeHost); blocks whose copies are still in flight stay until a later call.
/// Thread-safe.
class pinned_pool_resource final : public memory_resource {
 public:
  /// A pool over cudaHostAlloc.
  explicit pinned_pool_resource(pinned_pool_options options = {});
  /// A pool over any upstream and ordering: a simulation in tests, or your own page-locked memory.
  pinned_pool_resource(pinned_pool_options options, std::shared_ptr<chunk_upstream> upstream,
                       std::shared_ptr<stream_ordering> ordering);
  /// Returns every block, waiting first for copies still in flight.
  ~pinned_pool_resource() override;

  /// Used, cached and reserved bytes, peaks and counts, now.
  [[nodiscard]] memory_stats stats() const;
  /// Restarts the peaks from the current values.
  void reset_peak();
  /// Caps the bytes held pinned; std::nullopt removes the cap. Lowering it frees nothing by itself.
  void set_limit(std::optional<std::size_t> bytes);
  /// The cap on the bytes held pinned; nullopt when none.
  [[nodiscard]] std::optional<std::size_t> limit() const;
  /// Returns cached blocks whose last use has completed to the driver; returns the bytes released.
  std::size_t free_all_blocks();
  /// Cached blocks whose last stream work has not completed yet (not reusable, not releasable).
  [[nodiscard]] std::size_t pending_bytes() const;
  /// True when [p, p + bytes) lies inside one block of this pool (in use or cached). No CUDA call.
  [[nodiscard]] bool contains(const void* p, std::size_t bytes) const;
  /// The size class a request of `bytes` is served from.
  [[nodiscard]] std::size_t size_class(std::size_t bytes) const;

 protected:
  void* do_allocate(std::size_t bytes, const stream& s) override;
  void do_deallocate(void* p, std::size_t bytes, const stream& s) override;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace ndcuda

#pragma GCC visibility pop
