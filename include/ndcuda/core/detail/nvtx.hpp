// NVTX ranges in the "ndcuda" domain, one per public op, named as the user wrote the call
// ("nd::sum"): the one helper every layer uses. Declarations only: NVTX3's macros stay in src/.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <ndcuda/core/detail/internal.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ndcuda::detail {

/// A range name, registered with NVTX (nvtxDomainRegisterString) on its first use, so every later
/// range passes a handle instead of copying the text. Constant-initialised: a `static constinit`
/// name costs no guard and no start-up work.
class nvtx_name {
 public:
  constexpr explicit nvtx_name(const char* text) noexcept : text_(text) {}
  nvtx_name(const nvtx_name&) = delete;
  nvtx_name& operator=(const nvtx_name&) = delete;

  [[nodiscard]] constexpr const char* text() const noexcept { return text_; }
  /// The registered handle (registering on first use; null without a profiler attached).
  [[nodiscard]] void* handle() const noexcept;

 private:
  const char* text_;
  mutable std::atomic<bool> registered_{false};
  mutable std::atomic<void*> handle_{nullptr};
};

/// Registers `text` once per call (the caller keeps the handle): for names built at run time, such
/// as a generated kernel's. The text is recorded for nvtx_registered_names().
NDCUDA_INTERNAL [[nodiscard]] void* nvtx_register(std::string_view text);

/// Pushes/pops a range in the ndcuda domain. With no tool attached NVTX makes each a call through
/// a null-checked pointer (a few ns); with NDCUDA_NVTX=OFF at build time they are empty.
void nvtx_push(void* registered) noexcept;
void nvtx_pop() noexcept;

/// Every range name registered so far in this process, in order of first use (tests, tools).
[[nodiscard]] std::vector<std::string> nvtx_registered_names();

/// True when the library was built with NVTX ranges (the CMake option NDCUDA_NVTX, default ON).
NDCUDA_INTERNAL [[nodiscard]] bool nvtx_enabled() noexcept;

/// A range over the enclosing scope, from a registered handle (elementwise, kernels) or a name.
class nvtx_scope {
 public:
  explicit nvtx_scope(void* registered) noexcept { nvtx_push(registered); }
  explicit nvtx_scope(const nvtx_name& name) noexcept { nvtx_push(name.handle()); }
  ~nvtx_scope() { nvtx_pop(); }
  nvtx_scope(const nvtx_scope&) = delete;
  nvtx_scope& operator=(const nvtx_scope&) = delete;
};

/// A string literal as a template argument, so each op's name gets its own static nvtx_name.
template <std::size_t N>
struct NDCUDA_INTERNAL nvtx_literal {
  char text[N];
  constexpr nvtx_literal(const char (&s)[N]) noexcept {  // NOLINT: implicit, from "nd::sum"
    std::copy_n(s, N, text);
  }
};

template <nvtx_literal Name>
inline constinit nvtx_name nvtx_name_of{Name.text};

/// The range of one public op, one line at its entry: `const detail::op_range<"nd::sort"> range;`.
template <nvtx_literal Name>
class op_range : nvtx_scope {
 public:
  op_range() noexcept : nvtx_scope(nvtx_name_of<Name>) {}
};

}  // namespace ndcuda::detail

#pragma GCC visibility pop
