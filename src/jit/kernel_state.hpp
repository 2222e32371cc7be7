// Internal: one kernel source and its per-device resolution, the state behind raw_kernel and
// each variant of an elementwise kernel. The launch path is one atomic load per call.
#pragma once

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <ndcuda/device/device.hpp>
#include <ndcuda/jit/launch.hpp>
#include <string>
#include <vector>

#include "jit/module.hpp"
#include "jit/program_cache.hpp"

namespace ndcuda::jit::detail {

struct kernel_state {
  kernel_state(std::string source_text, std::string name_expression, std::vector<std::string> nvrtc_options,
               program_cache* programs = nullptr, bool waits_first = false, std::string what = {});

  std::string source;
  std::string name;  ///< the name expression of the kernel
  std::vector<std::string> options;
  std::string program_name;  ///< "<name>.cu", what NVRTC calls the source in its messages
  program_cache* cache;      ///< the global one unless a test gives its own
  /// The source opens every kernel with ndcuda::dependent_launch_prologue() (the generators say
  /// so): it may then be launched with programmatic dependent launch. Never for raw_kernel.
  bool waits_first;
  /// What the kernel computes, for jit::compile_event (an elementwise body); may be empty.
  std::string description;

  /// The kernel loaded on `device`, compiled or fetched from the caches on first use there.
  [[nodiscard]] const loaded_kernel& on_device(int device) const {
    if (device >= 0 && device < fast_devices) {
      if (const loaded_kernel* k = resolved_[static_cast<std::size_t>(device)].load(std::memory_order_acquire)) {
        return *k;
      }
    }
    return resolve(device);
  }

  /// The key for `target` (the same one a device of that architecture uses).
  [[nodiscard]] kernel_key key_for(compile_target target) const;

  /// Whether the kernel is surely not resolved on `device` yet, so that on_device(device) will
  /// compile or load it (a first-call path asks, to start other work early). False when unknown.
  [[nodiscard]] bool unresolved_on(int device) const {
    return device >= 0 && device < fast_devices &&
           resolved_[static_cast<std::size_t>(device)].load(std::memory_order_acquire) == nullptr;
  }

  /// Tiered first calls: whether on_device(device) can answer without compiling on this thread
  /// now (resolved there, its background compile done, or its program in memory or on disk).
  /// Otherwise starts that compile on a background thread, once, and returns false: the caller
  /// runs tier 0 meanwhile (jit/tier0_program.hpp).
  [[nodiscard]] bool ready_without_waiting(int device) const;

 private:
  static constexpr int fast_devices = 64;
  const loaded_kernel& resolve(int device) const;

  mutable std::array<std::atomic<const loaded_kernel*>, fast_devices> resolved_{};
  mutable std::mutex mutex_;
  mutable std::map<int, const loaded_kernel*> other_devices_;
  mutable std::vector<std::shared_ptr<const program>> programs_;  // keeps resolved kernels alive
  /// Set when a background compile started: true once it ended (a failure is reported by the
  /// next on_device, which compiles again on its own thread).
  mutable std::shared_ptr<std::atomic<bool>> background_done_;
};

/// Starts the kernel's compile for `device` on a background thread unless it is ready there, or
/// tiered calls are off (NDCUDA_JIT_TIERED=0: every compile on the caller's thread). Never waits.
void start_compile(const kernel_state& kernel, int device);

/// The program_name for a kernel name: identifier characters kept, the rest replaced by '_'.
[[nodiscard]] std::string program_name_for(std::string_view name);

}  // namespace ndcuda::jit::detail
