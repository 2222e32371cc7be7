// Internal: the accounts both pools keep (block_pool behind device_pool_resource, and
// pinned_pool_resource): bytes in use, cached and reserved with their peaks, the counts behind
// memory_stats, the limit, and the two trips to upstream that run outside the pool's lock while
// their bytes still count toward the limit. Builds on chunk_upstream (pool_interfaces.hpp) and
// memory_stats; knows nothing of blocks, lists or streams. Not thread-safe: every call is made
// with the owning pool's lock held (the upstream trips drop and retake it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/memory/pool_interfaces.hpp>
#include <ndcuda/memory/stats.hpp>
#include <optional>
#include <vector>

namespace ndcuda::detail {

class pool_ledger {
 public:
  /// A chunk on its way back to upstream.
  struct returned_chunk {
    char* ptr = nullptr;
    std::size_t size = 0;
  };

  explicit pool_ledger(std::optional<std::size_t> limit) noexcept : limit_(limit) {}

  // Blocks: handed out to a caller and taken back; parked in the cache and taken out of it.
  void hand_out(std::size_t bytes) noexcept;
  void take_back(std::size_t bytes) noexcept;
  void cache(std::size_t bytes) noexcept { cached_ += bytes; }
  void uncache(std::size_t bytes) noexcept;

  /// Bytes the limit still allows a new chunk, counting chunks on their way to or from upstream.
  [[nodiscard]] std::size_t room() const noexcept;
  /// Asks upstream for a chunk of `bytes` with the lock dropped (cudaMalloc is slow), the bytes
  /// counted toward the limit meanwhile so concurrent growth cannot overshoot it. Returns what
  /// upstream returned (nullptr when memory is short); the caller books a chunk it keeps with
  /// add_chunk once its own records of it exist.
  [[nodiscard]] void* obtain_chunk(std::unique_lock<std::mutex>& lock, chunk_upstream& upstream, std::size_t bytes,
                                   const stream& s);
  void add_chunk(std::size_t bytes) noexcept;
  /// Gives `chunks`, already gone from the caller's records, back to upstream with the lock
  /// dropped; they count toward the limit until upstream has them. Every chunk is tried; the
  /// first failure is rethrown afterwards. Returns the bytes upstream took back.
  std::size_t return_chunks(std::unique_lock<std::mutex>& lock, chunk_upstream& upstream,
                            const std::vector<returned_chunk>& chunks);

  [[nodiscard]] std::size_t reserved() const noexcept { return reserved_; }
  [[nodiscard]] memory_stats stats() const noexcept;
  void reset_peak() noexcept;
  void set_limit(std::optional<std::size_t> bytes) noexcept { limit_ = bytes; }
  [[nodiscard]] std::optional<std::size_t> limit() const noexcept { return limit_; }

 private:
  std::optional<std::size_t> limit_;
  std::size_t used_ = 0;
  std::size_t peak_used_ = 0;
  std::size_t cached_ = 0;
  std::size_t reserved_ = 0;   // chunks held
  std::size_t in_flight_ = 0;  // being obtained from or returned to upstream; counts toward the limit
  std::size_t peak_reserved_ = 0;
  std::uint64_t allocations_ = 0;
  std::uint64_t deallocations_ = 0;
  std::uint64_t live_ = 0;
  std::uint64_t upstream_allocations_ = 0;
  std::uint64_t upstream_frees_ = 0;
};

}  // namespace ndcuda::detail
