// memory_resource: the out-of-line parts (default-stream overloads, the alignment guard).
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/memory/memory_resource.hpp>

#include "memory/format.hpp"

namespace ndcuda {
namespace {

stream stream_for(const memory_resource& r) {
  return default_stream(r.device() >= 0 ? r.device() : current_device().index());
}

}  // namespace

const char* to_string(memory_kind kind) noexcept {
  switch (kind) {
    case memory_kind::device:
      return "device";
    case memory_kind::pinned_host:
      return "pinned_host";
    case memory_kind::managed:
      return "managed";
  }
  return "unknown";
}

void* memory_resource::allocate(std::size_t bytes) {
  return allocate(bytes, stream_for(*this));
}

void memory_resource::deallocate(void* p, std::size_t bytes) {
  if (p != nullptr) {
    deallocate(p, bytes, stream_for(*this));
  }
}

void memory_resource::reject_misaligned(void* p, std::size_t bytes, const stream& s) {
  try {
    do_deallocate(p, bytes, s);
  } catch (...) {  // the error below is the one worth reporting
  }
  throw error("a memory_resource (" + std::string(to_string(kind_)) + ", device " + std::to_string(device_) +
              ") returned " + detail::format_pointer(p) + " for " + std::to_string(bytes) +
              " bytes, which is not aligned to " + std::to_string(allocation_alignment) +
              " bytes; every ndcuda resource must return 256-byte aligned memory (round the size up and align "
              "inside your do_allocate)");
}

}  // namespace ndcuda
