// Internal: NVTX3 ranges in the "ndcuda" domain, named after the op. With no profiler attached
// each push/pop is a call through a pointer to an empty function: a few nanoseconds.
#pragma once

#include <string>

namespace ndcuda::jit::detail {

/// Registers `name` once, so later ranges pass a handle instead of copying the string.
[[nodiscard]] void* nvtx_register(const std::string& name);

void nvtx_push(void* registered_name) noexcept;
void nvtx_pop() noexcept;

class nvtx_range {
 public:
  explicit nvtx_range(void* registered_name) noexcept { nvtx_push(registered_name); }
  ~nvtx_range() { nvtx_pop(); }
  nvtx_range(const nvtx_range&) = delete;
  nvtx_range& operator=(const nvtx_range&) = delete;
};

}  // namespace ndcuda::jit::detail
