// managed_resource and the prefetch/advise helpers, written once for the CUDA 12 (device ordinal)
// and CUDA 13 (cudaMemLocation) signatures.
#include <algorithm>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/memory/managed_resource.hpp>
#include <optional>
#include <unordered_map>

#include "memory/format.hpp"
#include "memory/teardown.hpp"

namespace ndcuda {
namespace {

#if CUDART_VERSION >= 13000
cudaMemLocation location_of(int device) {
  cudaMemLocation location{};
  location.type = device == host_device ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
  location.id = device == host_device ? 0 : device;
  return location;
}
#endif

cudaMemoryAdvise to_cuda(memory_advice advice) {
  switch (advice) {
    case memory_advice::read_mostly:
      return cudaMemAdviseSetReadMostly;
    case memory_advice::unset_read_mostly:
      return cudaMemAdviseUnsetReadMostly;
    case memory_advice::preferred_location:
      return cudaMemAdviseSetPreferredLocation;
    case memory_advice::unset_preferred_location:
      return cudaMemAdviseUnsetPreferredLocation;
    case memory_advice::accessed_by:
      return cudaMemAdviseSetAccessedBy;
    case memory_advice::unset_accessed_by:
      return cudaMemAdviseUnsetAccessedBy;
  }
  throw error("unknown nd::memory_advice value " + std::to_string(static_cast<int>(advice)));
}

void refuse_capture(const stream& s, const char* what) {
  device_guard guard(s.device());  // a runtime query from a thread with no context would create device 0's
  if (s.is_capturing()) {
    throw capture_error(std::string("managed_resource::") + what +
                        " was called on a stream that is capturing a CUDA graph: cudaMallocManaged and cudaFree are "
                        "synchronous and cannot be recorded. Allocate before the capture, or use "
                        "nd::async_pool_resource for memory used inside the graph");
  }
}

}  // namespace

struct managed_resource::impl {
  std::mutex mutex;
  std::unordered_map<void*, std::size_t> live;
  std::size_t used = 0;
  std::size_t peak_used = 0;
  std::uint64_t allocations = 0;
  std::uint64_t deallocations = 0;
};

managed_resource::managed_resource(int device)
    : memory_resource(memory_kind::managed, device), impl_(std::make_unique<impl>()) {
  const ndcuda::device dev(device);
  if (dev.attribute(cudaDevAttrManagedMemory) == 0) {
    throw device_error("managed_resource: device " + std::to_string(device) + " (" + dev.name() +
                       ") cannot allocate managed memory; use nd::device_pool_resource and explicit copies");
  }
}

managed_resource::~managed_resource() = default;

memory_stats managed_resource::stats() const {
  std::lock_guard lock(impl_->mutex);
  memory_stats st;
  st.used_bytes = impl_->used;
  st.peak_used_bytes = impl_->peak_used;
  st.reserved_bytes = impl_->used;
  st.peak_reserved_bytes = impl_->peak_used;
  st.allocation_count = impl_->allocations;
  st.deallocation_count = impl_->deallocations;
  st.live_allocations = impl_->live.size();
  st.upstream_allocations = impl_->allocations;
  st.upstream_frees = impl_->deallocations;
  return st;
}

void* managed_resource::do_allocate(std::size_t bytes, const stream& s) {
  if (bytes == 0) {
    return nullptr;
  }
  refuse_capture(s, "allocate");
  std::lock_guard lock(impl_->mutex);
  impl_->live.reserve(impl_->live.size() + 1);  // host allocation first: nothing to undo later
  void* p = nullptr;
  {
    device_guard guard(device());
    const cudaError_t rc = cudaMallocManaged(&p, bytes, cudaMemAttachGlobal);
    if (rc == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      throw out_of_memory("out of managed memory on device " + std::to_string(device()) + ": allocate(" +
                          std::to_string(bytes) + " bytes = " + format_bytes(bytes) +
                          ") with cudaMallocManaged failed; this resource holds " + format_bytes(impl_->used) + " in " +
                          std::to_string(impl_->live.size()) +
                          " allocations. Free managed arrays you no longer need or allocate less");
    }
    NDCUDA_CUDA_CHECK(rc);
  }
  impl_->live.emplace(p, bytes);
  impl_->used += bytes;
  impl_->peak_used = std::max(impl_->peak_used, impl_->used);
  ++impl_->allocations;
  return p;
}

void managed_resource::do_deallocate(void* p, std::size_t bytes, const stream& s) {
  if (p == nullptr) {
    return;
  }
  refuse_capture(s, "deallocate");
  std::lock_guard lock(impl_->mutex);
  auto found = impl_->live.find(p);
  if (found == impl_->live.end()) {
    throw error("deallocate(" + detail::format_pointer(p) + ", " + std::to_string(bytes) +
                " bytes) on the managed resource of device " + std::to_string(device()) +
                ": the pointer is not a live allocation of this resource (a double free, an interior pointer, or "
                "memory from another resource)");
  }
  if (found->second != bytes) {
    throw error("deallocate(" + detail::format_pointer(p) + ", " + std::to_string(bytes) +
                " bytes) on the managed resource: that allocation was made with " + std::to_string(found->second) +
                " bytes; pass the size given to allocate()");
  }
  cudaError_t rc = cudaSuccess;
  {
    device_guard guard(device());
    rc = cudaFree(p);  // waits for the device: managed memory is not stream-ordered
  }
  if (rc != cudaSuccess) {
    (void)cudaGetLastError();
    if (!detail::is_teardown_error(rc)) {
      detail::throw_cuda_error(rc, "cudaFree(managed)", detail::source_location::current());
    }
  }
  impl_->used = impl_->used > bytes ? impl_->used - bytes : 0;
  ++impl_->deallocations;
  impl_->live.erase(found);
}

void prefetch(const void* p, std::size_t bytes, int device, const stream& s) {
  if (p == nullptr || bytes == 0) {
    return;
  }
  device_guard guard(s.device());
  if (device != host_device) {
    const ndcuda::device target(device);
    if (target.attribute(cudaDevAttrConcurrentManagedAccess) == 0) {
      throw device_error("prefetch to device " + std::to_string(device) + " (" + target.name() +
                         "): the device has no concurrent managed access (needed for cudaMemPrefetchAsync); "
                         "managed memory migrates on kernel launch there instead");
    }
  }
#if CUDART_VERSION >= 13000
  NDCUDA_CUDA_CHECK(cudaMemPrefetchAsync(p, bytes, location_of(device), 0, s.handle()));
#else
  NDCUDA_CUDA_CHECK(cudaMemPrefetchAsync(p, bytes, device == host_device ? cudaCpuDeviceId : device, s.handle()));
#endif
}

void advise(const void* p, std::size_t bytes, memory_advice advice, int device) {
  if (p == nullptr || bytes == 0) {
    return;
  }
  const cudaMemoryAdvise cuda_advice = to_cuda(advice);
  std::optional<device_guard> guard;  // a host advice runs under whatever device is current
  if (device != host_device) {
    guard.emplace(device);
  }
#if CUDART_VERSION >= 13000
  NDCUDA_CUDA_CHECK(cudaMemAdvise(p, bytes, cuda_advice, location_of(device)));
#else
  NDCUDA_CUDA_CHECK(cudaMemAdvise(p, bytes, cuda_advice, device == host_device ? cudaCpuDeviceId : device));
#endif
}

}  // namespace ndcuda
