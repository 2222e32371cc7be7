// Pinned detection over a whole range through the driver's pointer attributes.
#include "memory/host_memory.hpp"

#include <cuda.h>

#include <cstdint>
#include <limits>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <string>

#include "device/driver_api.hpp"
#include "memory/format.hpp"

namespace ndcuda {

const char* to_string(host_memory_kind kind) noexcept {
  switch (kind) {
    case host_memory_kind::pageable:
      return "pageable";
    case host_memory_kind::pinned:
      return "pinned";
    case host_memory_kind::managed:
      return "managed";
    case host_memory_kind::device:
      return "device";
  }
  return "unknown";
}

namespace detail {
namespace {

// Where the allocation containing `at` ends, clipped to `end`; nullptr when the driver cannot say.
// Asks for the allocation's range first (RANGE_START_ADDR/RANGE_SIZE, then cuMemGetAddressRange);
// failing both, compares buffer ids: an allocation is one contiguous address range, so two
// addresses with the same id enclose only that allocation, and a binary search finds its end.
const char* segment_end(const driver_api& drv, const char* at, const char* end) {
  const auto address = reinterpret_cast<CUdeviceptr>(at);
  CUdeviceptr start = 0;
  std::size_t size = 0;
  bool known = drv.pointer_get_attribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, address) == CUDA_SUCCESS &&
               drv.pointer_get_attribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, address) == CUDA_SUCCESS &&
               size != 0 && start <= address && address - start < size;
  if (!known) {
    start = 0;
    size = 0;
    known = drv.mem_get_address_range(&start, &size, address) == CUDA_SUCCESS && size != 0 && start <= address &&
            address - start < size;
  }
  if (known) {
    const CUdeviceptr stop = start + size;
    const auto limit = reinterpret_cast<CUdeviceptr>(end);
    return stop >= limit ? end : at + (stop - address);
  }
  auto id_of = [&](const char* p, unsigned long long& id) {
    id = 0;
    return drv.pointer_get_attribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, reinterpret_cast<CUdeviceptr>(p)) ==
           CUDA_SUCCESS;
  };
  unsigned long long first = 0;
  unsigned long long id = 0;
  if (!id_of(at, first)) {
    return nullptr;
  }
  if (id_of(end - 1, id) && id == first) {
    return end;
  }
  const char* inside = at;        // known to be in the allocation
  const char* outside = end - 1;  // known not to be
  while (outside - inside > 1) {
    const char* middle = inside + (outside - inside) / 2;
    if (id_of(middle, id) && id == first) {
      inside = middle;
    } else {
      outside = middle;
    }
  }
  return inside + 1;
}

}  // namespace

std::optional<classified_range> try_classify_segments(const void* p, std::size_t bytes) {
  classified_range result;
  if (p == nullptr || bytes == 0) {
    return result;
  }
  // A size no buffer has (a wrapped byte count): refused before `begin + bytes` overflows and the
  // walk below misreads the range (every transfer and is_pinned comes through here).
  if (reinterpret_cast<std::uintptr_t>(p) > std::numeric_limits<std::uintptr_t>::max() - bytes) {
    throw error("host range of " + std::to_string(bytes) + " bytes from " + format_pointer(p) +
                " runs past the end of the address space: that is not the size of a real buffer; pass the number of "
                "bytes the buffer holds");
  }
  const driver_api& drv = driver();
  const auto* begin = static_cast<const char*>(p);
  const char* end = begin + bytes;
  bool any_device = false;
  bool any_host = false;  // pinned or managed
  bool all_pinned = true;
  bool all_managed = true;
  for (const char* at = begin; at < end;) {
    const auto address = reinterpret_cast<CUdeviceptr>(at);
    unsigned int type = 0;
    if (drv.pointer_get_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, address) != CUDA_SUCCESS) {
      // Memory the driver does not know: pageable, so the whole range is (partly pinned = pageable).
      if (any_device) {
        break;  // reported below
      }
      return classified_range{};
    }
    // A "boolean" the driver may write as 1 or 4 bytes: zeroed 8-byte storage reads right either way.
    unsigned long long managed = 0;
    if (drv.pointer_get_attribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, address) != CUDA_SUCCESS) {
      managed = 0;
    }
    const char* stop = segment_end(drv, at, end);
    const bool is_device = managed == 0 && type == CU_MEMORYTYPE_DEVICE;
    if (stop == nullptr || stop <= at) {
      if (is_device) {
        // Let CUDA check the bounds of the copy; one segment to the end.
        result.segments.push_back({at, static_cast<std::size_t>(end - at)});
        any_device = true;
        all_pinned = all_managed = false;
        break;
      }
      return classified_range{};  // cannot prove the range is pinned to its end: treat it as pageable
    }
    result.segments.push_back({at, static_cast<std::size_t>(stop - at)});
    if (is_device) {
      any_device = true;
      all_pinned = all_managed = false;
    } else {
      any_host = true;
      all_pinned = all_pinned && managed == 0 && type == CU_MEMORYTYPE_HOST;
      all_managed = all_managed && managed != 0;
    }
    at = stop;
  }
  if (any_device &&
      (any_host || result.segments.empty() || result.segments.back().ptr + result.segments.back().bytes != end)) {
    return std::nullopt;  // mixes device memory with host memory
  }
  if (any_device) {
    result.kind = host_memory_kind::device;
  } else if (all_pinned) {
    result.kind = host_memory_kind::pinned;
  } else if (all_managed) {
    result.kind = host_memory_kind::managed;
  } else {
    result.segments.clear();  // pinned and managed pieces: host-readable, copy it as pageable
  }
  return result;
}

classified_range classify_segments(const void* p, std::size_t bytes) {
  std::optional<classified_range> result = try_classify_segments(p, bytes);
  if (!result) {
    throw error("the host range [" + format_pointer(p) + ", +" + std::to_string(bytes) +
                " bytes) mixes device memory with host memory; pass a range inside one kind of memory");
  }
  return std::move(*result);
}

}  // namespace detail

host_memory_kind classify_host_memory(const void* p, std::size_t bytes, int device) {
  device_guard guard(device);
  return detail::classify_segments(p, bytes).kind;
}

bool is_pinned(const void* p, std::size_t bytes, int device) {
  device_guard guard(device);
  const std::optional<detail::classified_range> range = detail::try_classify_segments(p, bytes);
  return range && range->kind == host_memory_kind::pinned;
}

}  // namespace ndcuda
