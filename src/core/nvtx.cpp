// The NVTX helper of core/detail/nvtx.hpp: the library's one use of NVTX3 (header-only), so its
// static state (the "ndcuda" domain, the loaded tool, if any) lives in one place.
#include <mutex>
#include <ndcuda/core/detail/nvtx.hpp>
#include <string>
#include <vector>

#ifndef NDCUDA_NVTX  // set by CMake (option NDCUDA_NVTX) for this file only
#define NDCUDA_NVTX 1
#endif
#if NDCUDA_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace ndcuda::detail {
namespace {

#if NDCUDA_NVTX
nvtxDomainHandle_t domain() {
  static const nvtxDomainHandle_t handle = nvtxDomainCreateA("ndcuda");
  return handle;
}
#endif

// The names registered so far: for tests and tools, never on a hot path (each name once).
struct name_log {
  std::mutex mutex;
  std::vector<std::string> names;
};

name_log& log() {
  static auto* l = new name_log;  // leaked: ranges may still be named during static destruction
  return *l;
}

}  // namespace

void* nvtx_register(std::string_view text) {
  {
    name_log& l = log();
    std::lock_guard lock(l.mutex);
    l.names.emplace_back(text);
  }
#if NDCUDA_NVTX
  const std::string copy(text);  // NVTX wants a NUL-terminated string
  return static_cast<void*>(nvtxDomainRegisterStringA(domain(), copy.c_str()));
#else
  return nullptr;
#endif
}

void* nvtx_name::handle() const noexcept {
  if (registered_.load(std::memory_order_acquire)) {
    return handle_.load(std::memory_order_relaxed);
  }
  // Two threads may both register on first use: NVTX returns the same handle for equal strings,
  // and a name logged twice does no harm.
  void* h = nullptr;
  try {
    h = nvtx_register(text_);
  } catch (...) {
    return nullptr;  // out of memory while logging: this range goes unnamed
  }
  handle_.store(h, std::memory_order_relaxed);
  registered_.store(true, std::memory_order_release);
  return h;
}

void nvtx_push([[maybe_unused]] void* registered) noexcept {
#if NDCUDA_NVTX
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attributes.message.registered = static_cast<nvtxStringHandle_t>(registered);
  nvtxDomainRangePushEx(domain(), &attributes);
#endif
}

void nvtx_pop() noexcept {
#if NDCUDA_NVTX
  nvtxDomainRangePop(domain());
#endif
}

std::vector<std::string> nvtx_registered_names() {
  name_log& l = log();
  std::lock_guard lock(l.mutex);
  return l.names;
}

bool nvtx_enabled() noexcept {
  return NDCUDA_NVTX != 0;
}

}  // namespace ndcuda::detail
