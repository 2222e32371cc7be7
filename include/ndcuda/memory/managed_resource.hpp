/// @file
/// managed_resource: unified memory (cudaMallocManaged), with prefetch and advise helpers.
/// Builds on memory_resource.hpp; for data that the host and one GPU take turns touching.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <memory>
#include <ndcuda/memory/memory_resource.hpp>
#include <ndcuda/memory/stats.hpp>

namespace ndcuda {

/// Unified memory from cudaMallocManaged(cudaMemAttachGlobal), tied to `device` for accounting,
/// prefetching and error messages; pages migrate to whichever processor touches them.
///
/// Managed memory does NOT spread one allocation over several GPUs: an array lives where its pages
/// were last touched or prefetched, and a second GPU that touches it pulls the pages across (or
/// reads them remotely), one page fault at a time. To split an array across GPUs and compute on
/// every part at full bandwidth, use nd::distributed_array.
///
/// cudaMallocManaged and cudaFree are synchronous, not stream-ordered: allocate and deallocate
/// cannot be captured into a graph (capture_error), and deallocate waits for the device.
/// Thread-safe.
class managed_resource final : public memory_resource {
 public:
  /// Throws device_error when `device` does not exist or cannot allocate managed memory.
  explicit managed_resource(int device);
  ~managed_resource() override;

  /// used/peak bytes and counts; nothing is cached.
  [[nodiscard]] memory_stats stats() const;

 protected:
  void* do_allocate(std::size_t bytes, const stream& s) override;
  void do_deallocate(void* p, std::size_t bytes, const stream& s) override;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// Queues a migration of [p, p + bytes) of managed memory to `device` (host_device for host memory)
/// on `s` (cudaMemPrefetchAsync). Needs a device with concurrent managed access (Linux, Pascal and
/// later); throws device_error otherwise.
void prefetch(const void* p, std::size_t bytes, int device, const stream& s);

/// Advice on how managed memory will be used (cudaMemoryAdvise), for advise().
enum class memory_advice {
  read_mostly,               ///< mostly read: every reader gets a read-only copy
  unset_read_mostly,         ///< undoes read_mostly
  preferred_location,        ///< keep the pages on `device` (host_device: in host memory)
  unset_preferred_location,  ///< undoes preferred_location
  accessed_by,               ///< map the pages for `device` so it never faults on them
  unset_accessed_by,         ///< undoes accessed_by for `device`
};

/// Tells the driver how [p, p + bytes) of managed memory will be used (cudaMemAdvise). `device` is
/// the processor the advice names; read_mostly ignores it.
void advise(const void* p, std::size_t bytes, memory_advice advice, int device);

}  // namespace ndcuda

#pragma GCC visibility pop
