// Device limits, with the one rule users trip over made explicit: the malloc heap is fixed once a
// kernel that uses device malloc has been loaded.
#include <cuda_runtime_api.h>

#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/limits.hpp>
#include <set>

namespace ndcuda {
namespace {

cudaLimit to_cuda(limit which) {
  switch (which) {
    case limit::malloc_heap_size:
      return cudaLimitMallocHeapSize;
    case limit::stack_size:
      return cudaLimitStackSize;
    case limit::printf_fifo_size:
      return cudaLimitPrintfFifoSize;
  }
  throw error("unknown nd::limit value " + std::to_string(static_cast<int>(which)));
}

struct heap_registry {
  std::mutex mutex;
  std::set<int> frozen;
};

heap_registry& heaps() {
  static heap_registry registry;
  return registry;
}

bool heap_in_use(int device) {
  auto& registry = heaps();
  std::lock_guard lock(registry.mutex);
  return registry.frozen.contains(device);
}

std::string heap_fixed_message(int device, std::size_t bytes, const std::string& cuda_said) {
  return "set_limit(malloc_heap_size, " + std::to_string(bytes) + ") on device " + std::to_string(device) +
         " failed: a kernel that uses device malloc/free has already been loaded or launched on this device, "
         "and CUDA fixes the heap size from then on" +
         cuda_said +
         ". Call nd::set_limit(nd::limit::malloc_heap_size, bytes) before the first such kernel, e.g. at the start "
         "of the program; the limit is per device";
}

}  // namespace

const char* to_string(limit which) noexcept {
  switch (which) {
    case limit::malloc_heap_size:
      return "malloc_heap_size";
    case limit::stack_size:
      return "stack_size";
    case limit::printf_fifo_size:
      return "printf_fifo_size";
  }
  return "unknown";
}

void set_limit(int device_index, limit which, std::size_t bytes) {
  if (which == limit::malloc_heap_size && heap_in_use(device_index)) {
    throw device_error(heap_fixed_message(device_index, bytes, ""));
  }
  device_guard guard(device_index);
  cudaError_t rc = cudaDeviceSetLimit(to_cuda(which), bytes);
  if (rc == cudaSuccess) {
    return;
  }
  (void)cudaGetLastError();
  if (which == limit::malloc_heap_size && rc == cudaErrorInvalidValue) {
    throw device_error(
        heap_fixed_message(device_index, bytes, std::string(" (CUDA said ") + cudaGetErrorName(rc) + ")"));
  }
  if (rc == cudaErrorMemoryAllocation) {
    throw out_of_memory("set_limit(" + std::string(to_string(which)) + ", " + std::to_string(bytes) + ") on device " +
                        std::to_string(device_index) +
                        ": the device has not enough free memory for this limit; ask for less, or free memory first");
  }
  detail::check_cuda(rc, "cudaDeviceSetLimit");
}

void set_limit(limit which, std::size_t bytes) {
  set_limit(current_device().index(), which, bytes);
}

std::size_t get_limit(int device_index, limit which) {
  device_guard guard(device_index);
  std::size_t value = 0;
  NDCUDA_CUDA_CHECK(cudaDeviceGetLimit(&value, to_cuda(which)));
  return value;
}

std::size_t get_limit(limit which) {
  return get_limit(current_device().index(), which);
}

namespace detail {
void note_device_heap_in_use(int device) {
  auto& registry = heaps();
  std::lock_guard lock(registry.mutex);
  registry.frozen.insert(device);
}
}  // namespace detail

}  // namespace ndcuda
