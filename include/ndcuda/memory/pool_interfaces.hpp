/// @file
/// The two seams of ndcuda's pools: where chunks come from (chunk_upstream) and how streams are
/// ordered (stream_ordering). Builds on device/stream.hpp; CUDA and test simulations implement them.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <cstdint>
#include <memory>
#include <ndcuda/device/stream.hpp>
#include <string>

namespace ndcuda {

/// Where a pool gets its memory from: cudaMalloc for the device pool, cudaHostAlloc for the pinned
/// pool, or anything else (a simulation in the CPU tests, a VMM arena, a foreign allocator).
class chunk_upstream {
 public:
  virtual ~chunk_upstream() = default;
  /// A chunk of `bytes`, aligned to at least 256 bytes, for use with streams like `s` (the pinned
  /// upstream allocates under s's device so no other device is touched). Returns nullptr when
  /// memory is short: the pool then asks for less, or releases cached chunks and retries. Any
  /// other failure throws.
  [[nodiscard]] virtual void* allocate_chunk(std::size_t bytes, const stream& s) = 0;
  /// Returns a chunk. Tolerates a CUDA runtime that is unloading at process exit.
  virtual void free_chunk(void* p, std::size_t bytes) = 0;
  /// One line for out-of-memory messages: what the upstream is and how much memory is left,
  /// e.g. "cudaMalloc on device 0 (NVIDIA H100 80GB HBM3): 1.5 GiB free of 79.1 GiB".
  [[nodiscard]] virtual std::string describe() const = 0;
};

/// How a pool orders the reuse of a block across streams, and how it learns that work is done.
/// The CUDA implementation uses events (cudaEventRecord/Query/Synchronize, cudaStreamWaitEvent)
/// and cudaStreamQuery/cudaStreamIsCapturing; the CPU tests substitute a simulation. All calls
/// may come from several threads at once.
class stream_ordering {
 public:
  /// An opaque mark of "the work queued on a stream so far" (an event).
  using token = std::uintptr_t;

  virtual ~stream_ordering() = default;
  /// True while `s` is capturing a CUDA graph.
  [[nodiscard]] virtual bool capturing(const stream& s) = 0;
  /// True when all work queued on `s` so far has finished. Never blocks. `s` is not capturing.
  [[nodiscard]] virtual bool idle(const stream& s) = 0;
  /// Marks the work queued on `s` so far.
  [[nodiscard]] virtual token record(const stream& s) = 0;
  /// True when the work marked by `t` has finished. Never blocks.
  [[nodiscard]] virtual bool completed(token t) = 0;
  /// Makes work queued on `s` from now on wait for `t`; the host does not block.
  virtual void wait(const stream& s, token t) = 0;
  /// Blocks the host until the work marked by `t` has finished.
  virtual void synchronize(token t) = 0;
  /// Gives `t` back; it is not used again. Never throws.
  virtual void release(token t) noexcept = 0;
};

/// cudaMalloc/cudaFree on `device` (run under a device_guard, so no other device is touched).
[[nodiscard]] std::shared_ptr<chunk_upstream> make_cuda_malloc_upstream(int device);
/// cudaHostAlloc(cudaHostAllocPortable)/cudaFreeHost, under the device of the requesting stream.
[[nodiscard]] std::shared_ptr<chunk_upstream> make_cuda_host_alloc_upstream();
/// Events recycled per device, cudaStreamWaitEvent, cudaStreamQuery and cudaStreamIsCapturing.
[[nodiscard]] std::shared_ptr<stream_ordering> make_cuda_event_ordering();

}  // namespace ndcuda

#pragma GCC visibility pop
