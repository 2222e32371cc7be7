/// @file
/// memory_resource: the stream-ordered allocation interface every ndcuda allocation goes through.
/// Builds on device/stream.hpp; pools, adaptors and the per-device registry implement or hold one.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <cstdint>
#include <ndcuda/device/stream.hpp>
#include <string>

namespace ndcuda {

/// Where a resource's memory lives, and so who may touch it.
enum class memory_kind {
  device,       ///< GPU memory of one device (cudaMalloc, cudaMallocAsync); not host-accessible.
  pinned_host,  ///< Page-locked host memory (cudaHostAlloc): host-accessible, DMA-able by every GPU.
  managed,      ///< Unified memory (cudaMallocManaged): migrates between host and devices on demand.
};

/// The kind's name, for messages.
[[nodiscard]] const char* to_string(memory_kind kind) noexcept;

/// The device index of host resources (CUDA's cudaCpuDeviceId).
inline constexpr int host_device = -1;

/// Every pointer a resource returns is aligned to at least this many bytes (what cudaMalloc gives,
/// and enough for any vector load).
inline constexpr std::size_t allocation_alignment = 256;

/// A stream-ordered memory resource, in the spirit of RMM's device_memory_resource and CCCL's
/// cuda::mr resources.
///
/// The contract:
/// - allocate(bytes, s) returns memory that work queued on `s` after the call may use at once.
///   Other streams must be ordered after `s` (an event) before they touch it.
/// - deallocate(p, bytes, s) may be called as soon as the last use of `p` has been *queued* on
///   `s`; the resource makes sure nobody reuses the memory before that work has run. `bytes`
///   must be the value given to allocate. Freeing a null pointer does nothing.
/// - allocate(0, s) returns nullptr. Failures throw: out_of_memory when memory is short,
///   capture_error when the call cannot be recorded into the graph `s` is capturing, error for
///   misuse (unknown pointer, double free, wrong size).
///
/// To plug in your own memory, derive and implement do_allocate/do_deallocate (see
/// docs/memory.md); pass the kind and the device to this constructor.
class memory_resource {
 public:
  /// A resource of `kind` on `device` (host_device for host memory).
  memory_resource(memory_kind kind, int device) noexcept : kind_(kind), device_(device) {}
  virtual ~memory_resource() = default;
  memory_resource(const memory_resource&) = delete;
  memory_resource& operator=(const memory_resource&) = delete;

  /// `bytes` of memory usable by work queued on `s`, aligned to allocation_alignment.
  [[nodiscard]] void* allocate(std::size_t bytes, const stream& s) {
    void* p = do_allocate(bytes, s);
    if (reinterpret_cast<std::uintptr_t>(p) % allocation_alignment != 0) [[unlikely]] {
      reject_misaligned(p, bytes, s);
    }
    return p;
  }
  /// Returns `p` once the work queued on `s` so far has finished with it.
  void deallocate(void* p, std::size_t bytes, const stream& s) { do_deallocate(p, bytes, s); }

  /// allocate/deallocate on the library's default stream of device() (of the current device for
  /// host resources).
  [[nodiscard]] void* allocate(std::size_t bytes);
  /// deallocate on the library's default stream of device().
  void deallocate(void* p, std::size_t bytes);

  /// Where the memory lives.
  [[nodiscard]] memory_kind kind() const noexcept { return kind_; }
  /// The device the memory belongs to; host_device for host resources.
  [[nodiscard]] int device() const noexcept { return device_; }
  /// True when memory from one may be returned to the other.
  [[nodiscard]] bool is_equal(const memory_resource& other) const noexcept { return do_is_equal(other); }

 protected:
  /// Implements allocate(bytes, s): the contract above, alignment included (allocate checks it).
  virtual void* do_allocate(std::size_t bytes, const stream& s) = 0;
  /// Implements deallocate(p, bytes, s): the contract above.
  virtual void do_deallocate(void* p, std::size_t bytes, const stream& s) = 0;
  /// Implements is_equal; by default a resource equals only itself.
  virtual bool do_is_equal(const memory_resource& other) const noexcept { return this == &other; }

 private:
  [[noreturn]] void reject_misaligned(void* p, std::size_t bytes, const stream& s);
  memory_kind kind_;
  int device_;
};

/// Whether memory from one resource may be returned to the other.
inline bool operator==(const memory_resource& a, const memory_resource& b) noexcept {
  return &a == &b || a.is_equal(b);
}

}  // namespace ndcuda

#pragma GCC visibility pop
