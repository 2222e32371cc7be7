/// @file
/// The transfer engine: host<->device copies that use pinned input as it is and pipeline pageable
/// input through pinned staging buffers. Builds on pinned_pool_resource.hpp and host_memory.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <memory>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/memory/pinned_pool_resource.hpp>

namespace ndcuda {

/// How a copy was carried out.
enum class transfer_path {
  direct,         ///< one cudaMemcpyAsync per allocation from pinned (or managed) memory: no staging
  staged,         ///< ndcuda's pipeline through pinned staging buffers (pageable memory)
  driver_staged,  ///< handed to CUDA as pageable memory (small copies, or no staging memory left)
};

/// The path's name, for messages.
[[nodiscard]] const char* to_string(transfer_path path) noexcept;

/// Settings of a transfer_engine's staging pipeline.
struct transfer_options {
  /// Bytes per staging buffer: each is filled by the host while the previous one is in DMA.
  std::size_t chunk_bytes = std::size_t{8} << 20;
  /// Staging buffers in flight (at least 2: double buffering).
  unsigned buffers = 3;
  /// Threads that copy into and out of staging buffers, the caller included. 0: the hardware
  /// threads, between 1 and 16.
  unsigned host_threads = 0;
  /// A chunk is split among the threads in slices of at least this many bytes.
  std::size_t slice_bytes = std::size_t{1} << 20;
  /// Reads into pageable memory of at least this many bytes run as parallel lanes: each host thread
  /// copies its own contiguous part through its own stream and staging pair, so a fresh buffer's
  /// page faults happen in parallel and no thread waits for another.
  std::size_t lane_read_bytes = std::size_t{64} << 20;
  /// Bytes per staging buffer of a lane (two per lane).
  std::size_t lane_chunk_bytes = std::size_t{2} << 20;
  /// Pageable copies up to this size go to CUDA as they are: staging would cost more than it saves.
  std::size_t small_copy_bytes = std::size_t{64} << 10;
};

/// Copies between host and device memory on a stream.
///
/// - Pinned host memory (cudaHostAlloc, cudaHostRegister, the pinned pool), checked over the whole
///   [ptr, ptr + bytes) range: copied directly, asynchronously. No staging, and the staging pool
///   does not grow. The host memory must stay valid until the copy has run on the stream; the
///   shared_ptr overloads keep it alive until then for you.
/// - Pageable memory, including a range only partly pinned: chunked through pinned staging buffers
///   from the staging pool, host memcpy of chunk k+1 (on several threads) overlapping the DMA of
///   chunk k. Reads of transfer_options::lane_read_bytes or more run as parallel lanes instead:
///   each host thread copies its own contiguous part through its own stream and staging pair.
///   copy_to_device returns once the source has been read (the DMAs may still run; the
///   source may be reused at once); copy_to_host returns once the data is in the destination.
///   Staging buffers go back to the pool, which reuses them only after the DMAs using them have
///   completed. A pageable copy cannot be captured into a graph: capture_error, before CUDA is called.
/// Thread-safe; several copies may run at once.
class transfer_engine {
 public:
  /// `staging` nullptr: nd::default_pinned_pool().
  explicit transfer_engine(std::shared_ptr<pinned_pool_resource> staging = nullptr, transfer_options options = {});
  /// Waits for copies whose sources or destinations it keeps alive.
  ~transfer_engine();
  transfer_engine(const transfer_engine&) = delete;
  transfer_engine& operator=(const transfer_engine&) = delete;

  /// Host to device. `dst` is device (or managed) memory.
  transfer_path copy_to_device(void* dst, const void* src_host, std::size_t bytes, const stream& s);
  /// Host to device, keeping `src_host` alive until the copy has completed on `s`.
  transfer_path copy_to_device(void* dst, std::shared_ptr<const void> src_host, std::size_t bytes, const stream& s);
  /// Device to host. Into pageable memory this returns when the data has arrived.
  transfer_path copy_to_host(void* dst_host, const void* src, std::size_t bytes, const stream& s);
  /// Device to host, keeping `dst_host` alive until the copy has completed on `s`.
  transfer_path copy_to_host(std::shared_ptr<void> dst_host, const void* src, std::size_t bytes, const stream& s);

  /// Makes the pages of a fresh host buffer resident, split among the engine's host threads, so
  /// that the serial fill a std::vector does next runs on resident memory. Advice only: nothing
  /// happens where the kernel cannot populate pages, and the contents are not touched.
  void populate(void* host, std::size_t bytes);

  /// Drops the buffers kept alive for copies that have completed; returns how many are still kept.
  /// Every copy call does this too.
  std::size_t collect();

  /// The pool staging buffers come from.
  [[nodiscard]] const std::shared_ptr<pinned_pool_resource>& staging_pool() const noexcept;
  /// The pipeline's settings.
  [[nodiscard]] const transfer_options& options() const noexcept;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// The engine the free functions use: stages through nd::default_pinned_pool(); lives until exit.
[[nodiscard]] transfer_engine& default_transfer_engine();

/// Host to device through default_transfer_engine().
inline transfer_path copy_to_device(void* dst, const void* src_host, std::size_t bytes, const stream& s) {
  return default_transfer_engine().copy_to_device(dst, src_host, bytes, s);
}
/// Host to device through default_transfer_engine(), keeping `src_host` alive until the copy has run.
inline transfer_path copy_to_device(void* dst, std::shared_ptr<const void> src_host, std::size_t bytes,
                                    const stream& s) {
  return default_transfer_engine().copy_to_device(dst, std::move(src_host), bytes, s);
}
/// Device to host through default_transfer_engine(); into pageable memory it returns when the data has arrived.
inline transfer_path copy_to_host(void* dst_host, const void* src, std::size_t bytes, const stream& s) {
  return default_transfer_engine().copy_to_host(dst_host, src, bytes, s);
}
/// Device to host through default_transfer_engine(), keeping `dst_host` alive until the copy has run.
inline transfer_path copy_to_host(std::shared_ptr<void> dst_host, const void* src, std::size_t bytes, const stream& s) {
  return default_transfer_engine().copy_to_host(std::move(dst_host), src, bytes, s);
}

}  // namespace ndcuda

#pragma GCC visibility pop
