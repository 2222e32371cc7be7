/// @file
/// What kind of memory a host pointer range is, as CUDA sees it: pinned over the whole range or not.
/// Builds on the CUDA driver's pointer attributes; the transfer engine picks its path from the answer.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>

namespace ndcuda {

/// What kind of memory a host pointer range is, as the driver sees it.
enum class host_memory_kind {
  pageable,  ///< ordinary host memory (malloc, new, std::vector, mmap), or pinned only in part
  pinned,    ///< page-locked over the whole range: cudaHostAlloc/cudaMallocHost, cudaHostRegister, the pinned pool
  managed,   ///< unified memory (cudaMallocManaged) over the whole range
  device,    ///< device memory, which the host cannot read
};

/// The kind's name, for messages.
[[nodiscard]] const char* to_string(host_memory_kind kind) noexcept;

/// Classifies [p, p + bytes), asking the driver under `device`'s context (so nothing is created on
/// another device). Every byte must be covered: the range is walked allocation by allocation
/// (CU_POINTER_ATTRIBUTE_RANGE_START_ADDR/RANGE_SIZE, else cuMemGetAddressRange, else a binary
/// search on CU_POINTER_ATTRIBUTE_BUFFER_ID), so an interior
/// pointer of a registered buffer is pinned, adjacent registrations together are pinned, and a
/// range that runs past a registration, or whose extent the driver cannot tell, is pageable.
/// Throws error for a range that mixes device memory with host memory.
[[nodiscard]] host_memory_kind classify_host_memory(const void* p, std::size_t bytes, int device);

/// classify_host_memory(p, bytes, device) == host_memory_kind::pinned, except that a range mixing
/// device memory with host memory is simply not pinned (false), not an error.
[[nodiscard]] bool is_pinned(const void* p, std::size_t bytes, int device);

}  // namespace ndcuda

#pragma GCC visibility pop
