// One pool for ndcuda and libtorch: ndcuda memory_resources behind torch's CUDA allocator (CUDAPluggableAllocator),
// and torch's caching allocator as an ndcuda memory_resource. Builds on memory/ and interop/torch.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ATen/Context.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/util/Exception.h>
#include <torch/csrc/cuda/CUDAPluggableAllocator.h>

#include <cstddef>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <ndcuda/interop/torch.hpp>
#include <ndcuda/memory/default_resource.hpp>
#include <ndcuda/memory/memory_resource.hpp>
#include <string>
#include <unordered_map>
#include <utility>

namespace ndcuda {

/// Picks the ndcuda resource that serves torch's allocations on a device.
using torch_resource_picker = std::function<std::shared_ptr<memory_resource>(int device)>;

namespace detail {

/// The state behind a torch allocator made by make_torch_allocator: each device's resource, chosen on the first
/// allocation there (so no device is touched before torch uses it) and kept, so that memory always goes back to
/// the resource it came from even if the picker would choose another one later.
struct torch_allocator_state {
  torch_resource_picker pick;
  std::mutex mutex;
  std::map<int, std::shared_ptr<memory_resource>> resources;

  memory_resource& on(int device) {
    const std::lock_guard lock(mutex);
    std::shared_ptr<memory_resource>& r = resources[device];
    if (r == nullptr) {
      r = pick(device);
      if (r == nullptr) {
        resources.erase(device);
        throw error("make_torch_allocator: the resource picker returned no resource for cuda:" +
                    std::to_string(device) + "; return a device memory_resource for every device torch uses");
      }
    }
    return *r;
  }
};

// Torch's default stream is CUDA's legacy NULL stream, which no ndcuda stream can stand for: the memory is taken
// and returned on the device's default ndcuda stream, with events ordering the legacy stream against it.
[[nodiscard]] inline bool is_torch_legacy(cudaStream_t s) noexcept {
  return s == nullptr || s == cudaStreamLegacy;
}

inline void* torch_allocate(torch_allocator_state& st, std::size_t bytes, int device, cudaStream_t s) {
  memory_resource& mr = st.on(device);
  try {
    if (is_torch_legacy(s)) {
      const stream library = default_stream(device);
      void* p = mr.allocate(bytes, library);
      order_stream_after(cudaStreamLegacy, library.handle(), device);
      return p;
    }
    return mr.allocate(bytes, stream::wrap(s, device));
  } catch (const out_of_memory& e) {
    // As torch's own allocator reports it, so torch's callers (and torch.cuda.OutOfMemoryError) see the usual type.
    TORCH_CHECK_WITH(OutOfMemoryError, false, e.what());
    throw;  // not reached: the check above always throws
  }
}

inline void torch_deallocate(torch_allocator_state& st, void* p, std::size_t bytes, int device,
                             cudaStream_t s) noexcept {
  // Called from torch's deleters, which must not throw: a failure is reported and the memory is left allocated.
  try {
    memory_resource& mr = st.on(device);
    if (is_torch_legacy(s)) {
      const stream library = default_stream(device);
      order_stream_after(library.handle(), cudaStreamLegacy, device);
      mr.deallocate(p, bytes, library);
    } else {
      mr.deallocate(p, bytes, stream::wrap(s, device));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ndcuda: returning %zu bytes of torch's memory to ndcuda failed: %s\n", bytes, e.what());
  }
}

}  // namespace detail

/// A torch CUDA allocator (CUDAPluggableAllocator) that takes every allocation from `pick(device)`, by default
/// ndcuda's default resource of that device (nd::default_resource). Memory is taken on torch's current stream and
/// returned on the stream it was taken on, as memory_resource's contract asks. Install it with
/// use_ndcuda_memory_in_torch before torch allocates anything.
[[nodiscard]] inline std::shared_ptr<c10::cuda::CUDACachingAllocator::CUDAAllocator> make_torch_allocator(
    torch_resource_picker pick = [](int device) { return default_resource(device); }) {
  auto state = std::make_shared<detail::torch_allocator_state>();
  state->pick = std::move(pick);
  return torch::cuda::CUDAPluggableAllocator::createCustomAllocator(
      [state](std::size_t bytes, int device, cudaStream_t s) {
        return detail::torch_allocate(*state, bytes, device, s);
      },
      [state](void* p, std::size_t bytes, int device, cudaStream_t s) {
        detail::torch_deallocate(*state, p, bytes, device, s);
      });
}

/// Makes torch take all its CUDA memory from ndcuda resources (make_torch_allocator(pick)), so that one pool
/// serves both libraries. Torch can swap its allocator only before its first CUDA allocation: call this first
/// thing in main. Throws error when torch has already allocated CUDA memory. Torch's memory statistics
/// (torch::cuda::memory_stats) are not available afterwards; ask the ndcuda resources instead.
inline void use_ndcuda_memory_in_torch(torch_resource_picker pick = [](int device) {
  return default_resource(device);
}) {
  c10::cuda::CUDACachingAllocator::CUDAAllocator* current = c10::cuda::CUDACachingAllocator::get();
  if (current != nullptr && current->initialized()) {
    throw error(
        "use_ndcuda_memory_in_torch: torch has already allocated CUDA memory, and it cannot swap its "
        "allocator afterwards; call use_ndcuda_memory_in_torch first thing in main, before any CUDA tensor "
        "is made");
  }
  torch::cuda::CUDAPluggableAllocator::changeCurrentAllocator(make_torch_allocator(std::move(pick)));
}

/// torch's CUDA allocator (its caching allocator, or whatever allocator torch was given) as an ndcuda
/// memory_resource on `device`, so that ndarrays take their memory from torch's pool:
/// nd::set_default_resource(0, std::make_shared<nd::torch_memory_resource>(0)). Memory is taken on the stream
/// asked for (raw_alloc_with_stream); when it is returned on another stream, the stream it was taken on is first
/// ordered after that one, as torch's caching allocator reuses a block in the order of the stream it was taken on.
/// It cannot allocate while a stream is capturing a graph: torch hands out graph-safe memory only inside its own
/// capture (at::cuda::CUDAGraph); nd::capture takes its memory from nd::capture_resource instead.
class torch_memory_resource final : public memory_resource {
 public:
  /// A resource for `device`'s memory; allocations set `device` current while torch allocates.
  /// Torch sets up its caching allocator lazily, on its first CUDA tensor: this does it here, so
  /// the resource works before torch has made one (raw_alloc_with_stream does not initialise it).
  explicit torch_memory_resource(int device) : memory_resource(memory_kind::device, device) {
    at::globalContext().lazyInitDevice(c10::DeviceType::CUDA);
  }

 protected:
  void* do_allocate(std::size_t bytes, const stream& s) override {
    if (bytes == 0) {
      return nullptr;
    }
    if (s.device() != device()) {
      throw error("torch_memory_resource of cuda:" + std::to_string(device()) +
                  " was asked for memory on a stream of " + "device " + std::to_string(s.device()) +
                  "; use the resource of the stream's device");
    }
    if (s.is_capturing()) {
      throw capture_error("torch_memory_resource cannot allocate " + std::to_string(bytes) +
                          " bytes while the stream is capturing a CUDA graph: torch's allocator hands out graph-safe "
                          "memory only inside its own capture (at::cuda::CUDAGraph). Allocate before capturing, or "
                          "let nd::capture take the memory from nd::capture_resource");
    }
    const c10::cuda::CUDAGuard on(static_cast<c10::DeviceIndex>(device()));
    void* p = nullptr;
    try {
      p = c10::cuda::CUDACachingAllocator::raw_alloc_with_stream(bytes, s.handle());
    } catch (const c10::OutOfMemoryError& e) {
      throw out_of_memory("torch_memory_resource: torch's allocator could not give " + std::to_string(bytes) +
                          " bytes on cuda:" + std::to_string(device()) + " (" + e.what_without_backtrace() +
                          "); free tensors or arrays, or release torch's cache (c10::cuda::CUDACachingAllocator::"
                          "emptyCache())");
    }
    const std::lock_guard lock(mutex_);
    taken_on_[p] = s.handle();
    return p;
  }

  void do_deallocate(void* p, std::size_t bytes, const stream& s) override {
    if (p == nullptr) {
      return;
    }
    cudaStream_t taken_on = nullptr;
    {
      const std::lock_guard lock(mutex_);
      const auto it = taken_on_.find(p);
      if (it == taken_on_.end()) {
        throw error("torch_memory_resource::deallocate was given a pointer (" + std::to_string(bytes) +
                    " bytes) that it did not allocate, or that was freed already");
      }
      taken_on = it->second;
      taken_on_.erase(it);
    }
    detail::order_stream_after(taken_on, s.handle(), device());
    const c10::cuda::CUDAGuard on(static_cast<c10::DeviceIndex>(device()));
    c10::cuda::CUDACachingAllocator::raw_delete(p);
  }

 private:
  std::mutex mutex_;
  std::unordered_map<void*, cudaStream_t> taken_on_;
};

}  // namespace ndcuda

#pragma GCC visibility pop
