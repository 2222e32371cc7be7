// The CUDA implementations of chunk_upstream (cudaMalloc, cudaHostAlloc) and stream_ordering
// (recycled events, cudaStreamWaitEvent, cudaStreamQuery).
//
// Every call CUDA counts as "potentially unsafe" during a capture (allocating, freeing, querying
// or waiting for an event or stream) runs in relaxed capture mode: the pool serves every thread,
// and another thread's global-mode capture must not be invalidated by this thread's allocation or
// free_all_blocks(). The pool never makes these calls on a stream that is capturing (the checks in
// block_pool_supply.cpp, made under detail::capture_begin_mutex()), so relaxing is safe.
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/memory/pool_interfaces.hpp>
#include <ndcuda/memory/stats.hpp>
#include <unordered_map>
#include <vector>

#include "device/driver_api.hpp"
#include "memory/teardown.hpp"

namespace ndcuda {
namespace {

/// Runs a release call, swallowing the errors of a runtime that is shutting down.
template <class Call>
void release_tolerating_teardown(Call&& call, const char* text) {
  cudaError_t rc = cudaSuccess;
  try {
    rc = call();
  } catch (const cuda_error& e) {
    if (detail::is_teardown_error(e.code())) {
      return;
    }
    throw;
  }
  if (rc != cudaSuccess) {
    (void)cudaGetLastError();
    if (!detail::is_teardown_error(rc)) {
      detail::throw_cuda_error(rc, text, detail::source_location::current());
    }
  }
}

class cuda_malloc_upstream final : public chunk_upstream {
 public:
  explicit cuda_malloc_upstream(int device) : device_(device) {}

  void* allocate_chunk(std::size_t bytes, const stream& /*s*/) override {
    device_guard guard(device_);
    const detail::relaxed_capture_mode relaxed;  // see the file comment
    void* p = nullptr;
    const cudaError_t rc = cudaMalloc(&p, bytes);
    if (rc == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // not sticky, but leave no trace for the next launch check
      return nullptr;
    }
    NDCUDA_CUDA_CHECK(rc);
    return p;
  }

  void free_chunk(void* p, std::size_t /*bytes*/) override {
    release_tolerating_teardown(
        [&] {
          device_guard guard(device_);
          const detail::relaxed_capture_mode relaxed;
          return cudaFree(p);
        },
        "cudaFree(chunk)");
  }

  std::string describe() const override {
    std::string text = "cudaMalloc on device " + std::to_string(device_);
    try {
      const ndcuda::device d(device_);
      const memory_info info = d.memory();
      text += " (" + d.name() + "): " + format_bytes(info.free) + " free of " + format_bytes(info.total);
    } catch (const std::exception& e) {
      text += std::string(" (free memory unknown: ") + e.what() + ")";
    }
    return text;
  }

 private:
  int device_;
};

class cuda_host_alloc_upstream final : public chunk_upstream {
 public:
  void* allocate_chunk(std::size_t bytes, const stream& s) override {
    // Under the stream's device, so pinning never creates a context on device 0.
    device_guard guard(s.device());
    const detail::relaxed_capture_mode relaxed;
    void* p = nullptr;
    const cudaError_t rc = cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
    if (rc == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      return nullptr;
    }
    NDCUDA_CUDA_CHECK(rc);
    std::lock_guard lock(mutex_);
    try {
      devices_.emplace(p, s.device());
    } catch (...) {
      (void)cudaFreeHost(p);
      throw;
    }
    return p;
  }

  void free_chunk(void* p, std::size_t /*bytes*/) override {
    int device = 0;
    {
      std::lock_guard lock(mutex_);
      if (auto found = devices_.find(p); found != devices_.end()) {
        device = found->second;
        devices_.erase(found);
      }
    }
    release_tolerating_teardown(
        [&] {
          device_guard guard(device);
          const detail::relaxed_capture_mode relaxed;
          return cudaFreeHost(p);
        },
        "cudaFreeHost(chunk)");
  }

  std::string describe() const override {
    const long pages = sysconf(_SC_AVPHYS_PAGES);
    const long page = sysconf(_SC_PAGESIZE);
    std::string text = "cudaHostAlloc (page-locked host memory)";
    if (pages > 0 && page > 0) {
      text += ": " + format_bytes(static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)) +
              " of host memory available";
    }
    return text;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<void*, int> devices_;  // the device whose context pinned each chunk
};

class cuda_event_ordering final : public stream_ordering {
 public:
  cuda_event_ordering() = default;
  cuda_event_ordering(const cuda_event_ordering&) = delete;
  cuda_event_ordering& operator=(const cuda_event_ordering&) = delete;
  ~cuda_event_ordering() override {
    for (auto& s : slots_) {
      try {
        device_guard guard(s->device);
        (void)cudaEventDestroy(s->event);
      } catch (...) {  // at exit the runtime may be gone; the driver reclaims the events
      }
    }
    (void)cudaGetLastError();
  }

  // The hot path of every pool call: the driver's query needs no current context (a runtime call
  // from a thread without one would create device 0's) and skips the runtime's layer.
  bool capturing(const stream& s) override {
    const detail::driver_api* drv = driver_.load(std::memory_order_relaxed);
    if (drv == nullptr) {  // resolved on first use: constructing a pool must work without a driver
      drv = &detail::driver();
      driver_.store(drv, std::memory_order_relaxed);
    }
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    NDCUDA_DRIVER_CHECK(drv->stream_is_capturing(reinterpret_cast<CUstream>(s.handle()), &status));
    return status != CU_STREAM_CAPTURE_STATUS_NONE;
  }

  // The rest is the slow path: each call runs under its device, so no other device is touched.
  bool idle(const stream& s) override {
    device_guard guard(s.device());
    const detail::relaxed_capture_mode relaxed;
    return s.query();
  }

  token record(const stream& s) override {
    slot* sl = take(s.device());
    device_guard guard(s.device());
    const cudaError_t rc = cudaEventRecord(sl->event, s.handle());
    if (rc != cudaSuccess) {
      give_back(sl);
      detail::throw_cuda_error(rc, "cudaEventRecord(event, stream)", detail::source_location::current());
    }
    return reinterpret_cast<token>(sl);
  }

  bool completed(token t) override {
    device_guard guard(as_slot(t)->device);
    const detail::relaxed_capture_mode relaxed;
    const cudaError_t rc = cudaEventQuery(as_slot(t)->event);
    if (rc == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    NDCUDA_CUDA_CHECK(rc);
    return true;
  }

  void wait(const stream& s, token t) override {
    device_guard guard(s.device());
    NDCUDA_CUDA_CHECK(cudaStreamWaitEvent(s.handle(), as_slot(t)->event, 0));
  }

  void synchronize(token t) override {
    device_guard guard(as_slot(t)->device);
    const detail::relaxed_capture_mode relaxed;
    NDCUDA_CUDA_CHECK(cudaEventSynchronize(as_slot(t)->event));
  }

  void release(token t) noexcept override { give_back(as_slot(t)); }

 private:
  struct slot {
    cudaEvent_t event = nullptr;
    int device = 0;
    slot* next = nullptr;
  };

  // Tokens are opaque integers handed out by this class from slot addresses; this undoes that.
  static slot* as_slot(token t) noexcept { return reinterpret_cast<slot*>(t); }  // NOLINT(performance-no-int-to-ptr)

  slot* take(int device) {
    {
      std::lock_guard lock(mutex_);
      for (slot** link = &spare_; *link != nullptr; link = &(*link)->next) {
        if ((*link)->device == device) {
          slot* found = *link;
          *link = found->next;
          return found;
        }
      }
    }
    auto fresh = std::make_unique<slot>();
    fresh->device = device;
    {
      device_guard guard(device);  // events belong to the device current at creation
      NDCUDA_CUDA_CHECK(cudaEventCreateWithFlags(&fresh->event, cudaEventDisableTiming));
    }
    std::lock_guard lock(mutex_);
    slots_.push_back(std::move(fresh));
    return slots_.back().get();
  }

  void give_back(slot* sl) noexcept {
    std::lock_guard lock(mutex_);
    sl->next = spare_;
    spare_ = sl;
  }

  std::atomic<const detail::driver_api*> driver_{nullptr};
  std::mutex mutex_;
  std::vector<std::unique_ptr<slot>> slots_;
  slot* spare_ = nullptr;
};

}  // namespace

std::shared_ptr<chunk_upstream> make_cuda_malloc_upstream(int device) {
  return std::make_shared<cuda_malloc_upstream>(device);
}

std::shared_ptr<chunk_upstream> make_cuda_host_alloc_upstream() {
  return std::make_shared<cuda_host_alloc_upstream>();
}

std::shared_ptr<stream_ordering> make_cuda_event_ordering() {
  return std::make_shared<cuda_event_ordering>();
}

}  // namespace ndcuda
