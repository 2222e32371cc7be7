// NVTX3 is header-only; this is its one user in ndcuda, so its static state lives in one place.
#include "jit/nvtx.hpp"

#include <nvtx3/nvToolsExt.h>

namespace ndcuda::jit::detail {
namespace {

nvtxDomainHandle_t domain() {
  static const nvtxDomainHandle_t handle = nvtxDomainCreateA("ndcuda");
  return handle;
}

}  // namespace

void* nvtx_register(const std::string& name) {
  return static_cast<void*>(nvtxDomainRegisterStringA(domain(), name.c_str()));
}

void nvtx_push(void* registered_name) noexcept {
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attributes.message.registered = static_cast<nvtxStringHandle_t>(registered_name);
  nvtxDomainRangePushEx(domain(), &attributes);
}

void nvtx_pop() noexcept {
  nvtxDomainRangePop(domain());
}

}  // namespace ndcuda::jit::detail
