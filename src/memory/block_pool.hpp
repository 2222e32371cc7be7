// Internal: the device pool's algorithm, independent of CUDA. Best fit over size-binned per-stream
// free lists, split and coalesce within a chunk, geometric growth, limit, release of whole chunks.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/memory/device_pool_resource.hpp>
#include <ndcuda/memory/pool_interfaces.hpp>
#include <ndcuda/memory/stats.hpp>
#include <optional>
#include <string>
#include <vector>

#include "memory/pointer_map.hpp"
#include "memory/pool_ledger.hpp"
#include "memory/record_pool.hpp"

namespace ndcuda::detail {

class block_pool {
 public:
  block_pool(int device, pool_options options, std::shared_ptr<chunk_upstream> upstream,
             std::shared_ptr<stream_ordering> ordering);
  ~block_pool();
  block_pool(const block_pool&) = delete;
  block_pool& operator=(const block_pool&) = delete;

  [[nodiscard]] void* allocate(std::size_t bytes, const stream& s);
  void deallocate(void* p, std::size_t bytes, const stream& s);
  std::size_t free_all_blocks();

  [[nodiscard]] memory_stats stats() const;
  void reset_peak();
  void set_limit(std::optional<std::size_t> bytes);
  [[nodiscard]] std::optional<std::size_t> limit() const;

  /// Walks every chunk and list and checks that they agree with each other and with the stats.
  /// Returns an empty string when all is well, else what is wrong. For tests.
  [[nodiscard]] std::string validate() const;

  /// Number of size bins per free list (8 per power of two from 256 B to 2^63 B).
  static constexpr std::size_t bin_count = 448;

 private:
  struct stream_state;
  struct chunk;

  struct block {
    char* ptr = nullptr;
    std::size_t size = 0;
    std::size_t requested = 0;   // what allocate() was asked, while in use
    block* prev_addr = nullptr;  // neighbours within the chunk, in address order
    block* next_addr = nullptr;
    block* prev_free = nullptr;  // links of its bin while free (and of the spare list)
    block* next_free = nullptr;
    stream_state* owner = nullptr;  // the free list holding it; null while in use or detached
    chunk* home = nullptr;
    bool free = false;
  };

  struct chunk {
    char* ptr = nullptr;
    std::size_t size = 0;
    block* first = nullptr;
  };

  struct free_list {
    std::array<block*, bin_count> heads{};
    std::array<std::uint64_t, (bin_count + 63) / 64> occupied{};
    std::size_t blocks = 0;
    std::size_t bytes = 0;
  };

  struct stream_state {
    stream owner;  // keeps an owning stream alive while blocks freed on it wait here
    free_list list;
  };

  struct candidate {
    stream_state* state = nullptr;
    block* fit = nullptr;
  };

  // Free lists.
  static std::size_t bin_of(std::size_t size) noexcept;
  void list_insert(stream_state& st, block* b) noexcept;
  void list_remove(stream_state& st, block* b) noexcept;
  [[nodiscard]] block* best_fit(const free_list& list, std::size_t n) const noexcept;

  // Blocks.
  block* new_block();
  void recycle(block* b) noexcept;
  void free_into(stream_state& st, block* b) noexcept;  // coalesces with same-owner neighbours
  void* hand_out(stream_state& st, block* b, std::size_t n, std::size_t requested);

  // Streams.
  stream_state* find_state(cudaStream_t handle) noexcept;
  stream_state& state_for(const stream& s);
  bool adopt_from_idle_stream(stream_state& dest, std::size_t n);
  bool adopt_by_waiting(stream_state& dest, std::size_t n);
  void adopt_all(stream_state& dest, stream_state& from) noexcept;
  std::vector<candidate> candidates(const stream_state& dest, std::size_t n);

  // Growth and release.
  std::size_t growth_target(std::size_t n) const noexcept;
  void* grow_and_hand_out(std::unique_lock<std::mutex>& lock, const stream& s, std::size_t n, std::size_t requested,
                          bool& limit_blocked);
  std::size_t release_free_chunks(std::unique_lock<std::mutex>& lock);
  [[noreturn]] void throw_out_of_memory(std::size_t bytes, const stream& s, std::size_t released, bool limit_blocked,
                                        const std::string& upstream_error);
  [[noreturn]] void throw_bad_deallocate(void* p, std::size_t bytes) const;

  int device_;
  pool_options options_;  // its limit is only the initial one: ledger_ holds the limit in force
  std::shared_ptr<chunk_upstream> upstream_;
  std::shared_ptr<stream_ordering> ordering_;

  mutable std::mutex mutex_;
  pointer_map<block> live_;                                  // in-use blocks by address
  std::map<std::uintptr_t, std::unique_ptr<chunk>> chunks_;  // by address, for release and diagnostics
  std::vector<std::unique_ptr<stream_state>> states_;
  stream_state* last_state_ = nullptr;                  // the hit path usually repeats the last stream
  record_pool<block, &block::next_free> spare_blocks_;  // block records, recycled
  pool_ledger ledger_;                                  // bytes, counts and the limit
};

}  // namespace ndcuda::detail
