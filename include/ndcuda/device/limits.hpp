/// @file
/// Per-device resource limits (device malloc heap, stack, printf buffer).
/// Builds on device/device.hpp; the JIT layer tells it when a kernel fixes the heap size.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <ndcuda/core/detail/internal.hpp>

namespace ndcuda {

/// A per-device resource limit (cudaLimit), for set_limit and get_limit.
enum class limit {
  malloc_heap_size,  ///< bytes for malloc/new in device code (CUDA's default is 8 MiB)
  stack_size,        ///< bytes of stack per GPU thread
  printf_fifo_size,  ///< bytes of the buffer device printf writes into
};

/// Sets a limit on `device`. A value above max_limit throws device_error naming the value and the
/// maximum, before CUDA is asked. The malloc heap must be sized before any kernel that calls device
/// malloc/free is loaded or launched on that device; after that CUDA fixes it and this throws
/// device_error saying so.
void set_limit(int device, limit which, std::size_t bytes);
/// Sets a limit on the current device.
void set_limit(limit which, std::size_t bytes);

/// The largest value set_limit accepts for `which` on `device`: the device's total memory for the
/// heap and the printf buffer; for the stack, 512 KiB per thread (the hardware's local memory) or
/// less where the stacks of all the threads the device holds at once would not fit in its memory.
[[nodiscard]] std::size_t max_limit(int device, limit which);

/// The limit in force on `device` (CUDA may round a set value up).
[[nodiscard]] std::size_t get_limit(int device, limit which);
/// The limit in force on the current device.
[[nodiscard]] std::size_t get_limit(limit which);

/// The limit's name, for messages.
[[nodiscard]] const char* to_string(limit which) noexcept;

namespace detail {
/// Called by whoever loads device code that uses malloc/free on `device`: from then on the heap
/// size is fixed, and set_limit(malloc_heap_size) says so before CUDA is asked.
NDCUDA_INTERNAL void note_device_heap_in_use(int device);
}  // namespace detail

}  // namespace ndcuda

#pragma GCC visibility pop
