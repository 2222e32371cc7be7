// async_pool_resource: cudaMallocFromPoolAsync with ndcuda's accounting and error messages.
#include <algorithm>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/memory/async_pool_resource.hpp>

#include "memory/format.hpp"
#include "memory/pointer_map.hpp"
#include "memory/record_pool.hpp"
#include "memory/teardown.hpp"

namespace ndcuda {
namespace {

// The size of each live allocation; records are recycled through `next`, so the hot path
// allocates nothing on the host.
struct live_allocation {
  std::size_t bytes = 0;
  live_allocation* next = nullptr;
};

std::size_t pool_attribute(cudaMemPool_t pool, cudaMemPoolAttr attribute) {
  unsigned long long value = 0;  // the attribute type is cuuint64_t
  NDCUDA_CUDA_CHECK(cudaMemPoolGetAttribute(pool, attribute, &value));
  return static_cast<std::size_t>(value);
}

}  // namespace

struct async_pool_resource::impl {
  int device;
  std::size_t total_memory = 0;  // no request beyond it can succeed
  bool owned = false;
  cudaMemPool_t pool = nullptr;

  mutable std::mutex mutex;
  detail::pointer_map<live_allocation> live;
  detail::record_pool<live_allocation, &live_allocation::next> records;
  std::size_t used = 0;
  std::size_t peak_used = 0;
  std::uint64_t allocations = 0;
  std::uint64_t deallocations = 0;

  impl(int d, const async_pool_options& options) : device(d) {
    const ndcuda::device dev(d);
    total_memory = dev.total_memory();
    if (dev.attribute(cudaDevAttrMemoryPoolsSupported) == 0) {
      throw device_error("async_pool_resource: device " + std::to_string(d) + " (" + dev.name() +
                         ") does not support stream-ordered memory pools (cudaMallocAsync); use "
                         "nd::device_pool_resource instead");
    }
    device_guard guard(d);
    if (options.use_default_pool) {
      NDCUDA_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, d));
    } else {
      cudaMemPoolProps props{};
      props.allocType = cudaMemAllocationTypePinned;
      props.handleTypes = cudaMemHandleTypeNone;
      props.location.type = cudaMemLocationTypeDevice;
      props.location.id = d;
      NDCUDA_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
      owned = true;
    }
    try {
      set_threshold(options.release_threshold);
    } catch (...) {
      if (owned) {
        (void)cudaMemPoolDestroy(pool);
      }
      throw;
    }
  }

  ~impl() {
    if (!owned) {
      return;
    }
    try {
      device_guard guard(device);
      if (cudaMemPoolDestroy(pool) != cudaSuccess) {
        (void)cudaGetLastError();
      }
    } catch (...) {  // at exit the runtime may be gone already; the driver reclaims the pool
    }
  }

  void set_threshold(std::size_t bytes) const {
    unsigned long long value = bytes;
    NDCUDA_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &value));
  }

  live_allocation* new_record(std::size_t bytes) {
    live_allocation* r = records.take();
    r->bytes = bytes;
    return r;
  }

  void recycle(live_allocation* r) noexcept { records.give_back(r); }

  // `capturing`: the stream is capturing a graph, so nothing more is asked of CUDA (the pool's
  // state queries included) and the message says the capture goes on.
  [[noreturn]] void throw_out_of_memory(std::size_t bytes, const stream& s, bool capturing) const {
    const bool never = bytes > total_memory;
    std::string message = "out of memory on device " + std::to_string(device) + ": allocate(" + std::to_string(bytes) +
                          " bytes = " + format_bytes(bytes) +
                          ") from the stream-ordered pool (cudaMallocAsync) on stream " +
                          detail::format_pointer(s.handle()) + " failed";
    if (never) {
      message += ": the device has " + format_bytes(total_memory) + " in all, so CUDA was not asked";
    }
    if (!capturing) {
      try {
        message += "; pool: used " + format_bytes(used) + " in " + std::to_string(live.size()) +
                   " allocations, reserved " + format_bytes(pool_attribute(pool, cudaMemPoolAttrReservedMemCurrent)) +
                   ", release threshold " + format_bytes(pool_attribute(pool, cudaMemPoolAttrReleaseThreshold));
        const ndcuda::device dev(device);
        const memory_info info = dev.memory();
        message += "; device " + std::to_string(device) + " (" + dev.name() + "): " + format_bytes(info.free) +
                   " free of " + format_bytes(info.total);
      } catch (...) {
      }
    }
    if (never) {
      message += capturing ? ". The capture goes on without this allocation; work in smaller pieces"
                           : ". Work in smaller pieces";
    } else if (capturing) {
      message +=
          " while the stream captures a CUDA graph (the pool cannot be trimmed during a capture). Free arrays you no "
          "longer need before the capture begins, or capture smaller pieces";
    } else {
      message +=
          ". The pool was trimmed and the allocation retried once. Free arrays you no longer need, synchronize "
          "streams whose frees are still queued, call free_all_blocks() on other pools of this device, or work in "
          "smaller pieces";
    }
    throw out_of_memory(message);
  }
};

async_pool_resource::async_pool_resource(int device, async_pool_options options)
    : memory_resource(memory_kind::device, device), impl_(std::make_unique<impl>(device, options)) {}

async_pool_resource::~async_pool_resource() {
  if (detail::cuda_is_unloading()) {
    (void)impl_.release();  // exit after CUDA's teardown: the driver reclaims the pool
  }
}

cudaMemPool_t async_pool_resource::handle() const noexcept {
  return impl_->pool;
}

void async_pool_resource::set_release_threshold(std::size_t bytes) {
  device_guard guard(device());
  impl_->set_threshold(bytes);
}

std::size_t async_pool_resource::release_threshold() const {
  device_guard guard(device());
  return pool_attribute(impl_->pool, cudaMemPoolAttrReleaseThreshold);
}

memory_stats async_pool_resource::stats() const {
  device_guard guard(device());
  memory_stats st;
  const std::size_t reserved = pool_attribute(impl_->pool, cudaMemPoolAttrReservedMemCurrent);
  const std::size_t pool_used = pool_attribute(impl_->pool, cudaMemPoolAttrUsedMemCurrent);
  std::lock_guard lock(impl_->mutex);
  st.used_bytes = impl_->used;
  st.peak_used_bytes = impl_->peak_used;
  st.reserved_bytes = reserved;
  st.cached_bytes = reserved > pool_used ? reserved - pool_used : 0;
  st.peak_reserved_bytes = pool_attribute(impl_->pool, cudaMemPoolAttrReservedMemHigh);
  st.allocation_count = impl_->allocations;
  st.deallocation_count = impl_->deallocations;
  st.live_allocations = impl_->live.size();
  return st;
}

void async_pool_resource::reset_peak() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->peak_used = impl_->used;
  }
  unsigned long long zero = 0;  // resetting the high-water mark takes 0
  device_guard guard(device());
  NDCUDA_CUDA_CHECK(cudaMemPoolSetAttribute(impl_->pool, cudaMemPoolAttrReservedMemHigh, &zero));
}

std::size_t async_pool_resource::free_all_blocks() {
  device_guard guard(device());
  const std::size_t before = pool_attribute(impl_->pool, cudaMemPoolAttrReservedMemCurrent);
  NDCUDA_CUDA_CHECK(cudaMemPoolTrimTo(impl_->pool, 0));
  const std::size_t after = pool_attribute(impl_->pool, cudaMemPoolAttrReservedMemCurrent);
  return before > after ? before - after : 0;
}

void* async_pool_resource::do_allocate(std::size_t bytes, const stream& s) {
  if (bytes == 0) {
    return nullptr;
  }
  // Host records first, so a failure below leaves nothing half-done.
  live_allocation* record = nullptr;
  {
    std::lock_guard lock(impl_->mutex);
    record = impl_->new_record(bytes);
  }
  // More than the device has can never be met. Refused before CUDA is asked: inside a capture a
  // failed cudaMallocFromPoolAsync invalidates the whole capture, and CUDA reports some huge
  // requests there as invalid values rather than out of memory.
  if (bytes > impl_->total_memory) {
    std::lock_guard lock(impl_->mutex);
    impl_->recycle(record);
    impl_->throw_out_of_memory(bytes, s, s.is_capturing());
  }
  void* p = nullptr;
  {
    // Without a guard, a thread with no current context would make CUDA initialise device 0.
    device_guard guard(device());
    cudaError_t rc = cudaMallocFromPoolAsync(&p, bytes, impl_->pool, s.handle());
    if (rc == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      const bool capturing = s.is_capturing();
      if (!capturing) {
        (void)cudaMemPoolTrimTo(impl_->pool, 0);  // give unused reserve back to the driver, then retry once
        rc = cudaMallocFromPoolAsync(&p, bytes, impl_->pool, s.handle());
      }
      if (rc == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        std::lock_guard lock(impl_->mutex);
        impl_->recycle(record);
        impl_->throw_out_of_memory(bytes, s, capturing);
      }
    }
    if (rc != cudaSuccess) {
      {
        std::lock_guard lock(impl_->mutex);
        impl_->recycle(record);
      }
      NDCUDA_CUDA_CHECK(rc);
    }
  }
  std::lock_guard lock(impl_->mutex);
  impl_->live.insert(p, record);
  impl_->used += bytes;
  impl_->peak_used = std::max(impl_->peak_used, impl_->used);
  ++impl_->allocations;
  return p;
}

void async_pool_resource::do_deallocate(void* p, std::size_t bytes, const stream& s) {
  if (p == nullptr) {
    return;
  }
  live_allocation* record = nullptr;
  {
    std::lock_guard lock(impl_->mutex);
    record = impl_->live.find(p);
    if (record == nullptr) {
      throw error("deallocate(" + detail::format_pointer(p) + ", " + std::to_string(bytes) +
                  " bytes) on the async pool of device " + std::to_string(device()) +
                  ": the pointer is not a live allocation of this pool (a double free, an interior pointer, or memory "
                  "from another resource); deallocate each pointer from allocate() exactly once, on its own resource");
    }
    if (record->bytes != bytes) {
      throw error("deallocate(" + detail::format_pointer(p) + ", " + std::to_string(bytes) +
                  " bytes) on the async pool: that allocation was made with " + std::to_string(record->bytes) +
                  " bytes; pass the size given to allocate()");
    }
    impl_->live.erase(p);
  }
  cudaError_t rc = cudaSuccess;
  {
    device_guard guard(device());
    rc = cudaFreeAsync(p, s.handle());
  }
  std::lock_guard lock(impl_->mutex);
  if (rc != cudaSuccess && !detail::is_teardown_error(rc)) {
    impl_->live.insert(p, record);  // still allocated as far as CUDA is concerned
    detail::throw_cuda_error(rc, "cudaFreeAsync(p, stream)", detail::source_location::current());
  }
  impl_->used = impl_->used > bytes ? impl_->used - bytes : 0;
  ++impl_->deallocations;
  impl_->recycle(record);
}

}  // namespace ndcuda
