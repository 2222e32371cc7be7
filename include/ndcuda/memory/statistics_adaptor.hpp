/// @file
/// statistics_adaptor: counts what passes through to any memory_resource (current and peak bytes,
/// allocation counts). Builds on memory_resource.hpp and stats.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <ndcuda/memory/memory_resource.hpp>
#include <ndcuda/memory/stats.hpp>

namespace ndcuda {

/// Forwards every call to `upstream` and counts it. Bytes are the sizes callers asked for (not what
/// the upstream rounded them to); the counters saturate at zero, so a caller passing a wrong size
/// to deallocate cannot make them wrap. Lock-free and thread-safe.
class statistics_adaptor final : public memory_resource {
 public:
  /// Throws error when `upstream` is null.
  explicit statistics_adaptor(std::shared_ptr<memory_resource> upstream);

  /// The resource allocations are forwarded to.
  [[nodiscard]] const std::shared_ptr<memory_resource>& upstream() const noexcept { return upstream_; }
  /// used/peak bytes and counts; reserved mirrors used (the adaptor caches nothing).
  [[nodiscard]] memory_stats stats() const noexcept;
  /// Restarts the peaks from the current values.
  void reset_peak() noexcept;

 protected:
  void* do_allocate(std::size_t bytes, const stream& s) override;
  void do_deallocate(void* p, std::size_t bytes, const stream& s) override;
  bool do_is_equal(const memory_resource& other) const noexcept override;

 private:
  std::shared_ptr<memory_resource> upstream_;
  std::atomic<std::size_t> used_{0};
  std::atomic<std::size_t> peak_{0};
  std::atomic<std::uint64_t> allocations_{0};
  std::atomic<std::uint64_t> deallocations_{0};
  std::atomic<std::uint64_t> live_{0};
};

}  // namespace ndcuda

#pragma GCC visibility pop
