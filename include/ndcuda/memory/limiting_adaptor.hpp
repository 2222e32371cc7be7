/// @file
/// limiting_adaptor: caps the bytes any memory_resource may have handed out at once.
/// Builds on memory_resource.hpp; throws out_of_memory like the pools do.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <atomic>
#include <cstddef>
#include <memory>
#include <ndcuda/memory/memory_resource.hpp>

namespace ndcuda {

/// Refuses an allocation that would take the bytes outstanding above `limit`. The request (rounded
/// up to allocation_alignment) is reserved before upstream is called and given back if upstream
/// throws, so concurrent callers can never overshoot. Lock-free and thread-safe.
class limiting_adaptor final : public memory_resource {
 public:
  /// Throws error when `upstream` is null.
  limiting_adaptor(std::shared_ptr<memory_resource> upstream, std::size_t limit);

  /// The resource allocations are forwarded to.
  [[nodiscard]] const std::shared_ptr<memory_resource>& upstream() const noexcept { return upstream_; }
  /// Lowering the limit below what is outstanding frees nothing; later allocations fail until enough is freed.
  void set_limit(std::size_t bytes) noexcept { limit_.store(bytes); }
  /// The most bytes that may be outstanding.
  [[nodiscard]] std::size_t limit() const noexcept { return limit_.load(); }
  /// Bytes outstanding (rounded up to allocation_alignment per allocation).
  [[nodiscard]] std::size_t used() const noexcept { return used_.load(); }

 protected:
  void* do_allocate(std::size_t bytes, const stream& s) override;
  void do_deallocate(void* p, std::size_t bytes, const stream& s) override;
  bool do_is_equal(const memory_resource& other) const noexcept override;

 private:
  std::shared_ptr<memory_resource> upstream_;
  std::atomic<std::size_t> limit_;
  std::atomic<std::size_t> used_{0};
};

}  // namespace ndcuda

#pragma GCC visibility pop
