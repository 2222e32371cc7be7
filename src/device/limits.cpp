// Device limits, with the one rule users trip over made explicit: the malloc heap is fixed once a
// kernel that uses device malloc has been loaded.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/limits.hpp>
#include <set>
#include <string>

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

// The hardware's local memory per thread (CUDA C++ Programming Guide, "Maximum amount of local
// memory per thread", every compute capability since 2.0): the stack can be no larger.
constexpr std::size_t local_memory_per_thread = std::size_t{512} << 10;

std::string limit_call(int device, limit which, std::size_t bytes) {
  return "set_limit(" + std::string(to_string(which)) + ", " + std::to_string(bytes) + ") on device " +
         std::to_string(device);
}

}  // namespace

std::size_t max_limit(int device_index, limit which) {
  const device d(device_index);
  const std::size_t total = d.total_memory();
  if (which != limit::stack_size) {
    return total;  // the heap and the printf buffer live in device memory
  }
  // CUDA reserves the stack for every thread the device can hold at once.
  const auto threads = static_cast<std::size_t>(d.multiprocessor_count()) *
                       static_cast<std::size_t>(d.attribute(cudaDevAttrMaxThreadsPerMultiProcessor));
  return std::min(local_memory_per_thread, total / std::max<std::size_t>(threads, 1));
}

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
  // Checked first: CUDA answers a value past the device's capacity with a bare error code (or, for
  // the printf buffer, not at all until the allocation fails).
  if (const std::size_t most = max_limit(device_index, which); bytes > most) {
    throw device_error(limit_call(device_index, which, bytes) + ": the value is too large; the maximum on this " +
                       "device is " + std::to_string(most) + " bytes" +
                       (which == limit::stack_size ? " (per thread: 512 KiB of local memory, and the stack of "
                                                     "every resident thread must fit in device memory)"
                                                   : " (its total memory)") +
                       ". Ask for less");
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
    throw out_of_memory(limit_call(device_index, which, bytes) +
                        ": the device has not enough free memory for this limit; ask for less, or free memory first");
  }
  if (rc == cudaErrorInvalidValue) {
    throw device_error(limit_call(device_index, which, bytes) + ": CUDA refused the value (" + cudaGetErrorName(rc) +
                       "); ask for less");
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
