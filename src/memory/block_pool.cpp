// The device pool's algorithm: free lists, blocks and the public operations. CUDA is reached only
// through chunk_upstream and stream_ordering, so the CPU tests run all of this against a simulation.
#include "memory/block_pool.hpp"

#include <algorithm>
#include <bit>
#include <ndcuda/core/error.hpp>
#include <ndcuda/memory/memory_resource.hpp>

#include "memory/format.hpp"
#include "memory/size_math.hpp"

namespace ndcuda::detail {

block_pool::block_pool(int device, pool_options options, std::shared_ptr<chunk_upstream> upstream,
                       std::shared_ptr<stream_ordering> ordering)
    : device_(device),
      options_(options),
      upstream_(std::move(upstream)),
      ordering_(std::move(ordering)),
      ledger_(options.limit) {
  if (!upstream_ || !ordering_) {
    throw error(
        "device_pool_resource needs an upstream and a stream ordering; pass non-null ones, or use the "
        "constructor that takes only the device to get cudaMalloc and CUDA events");
  }
  if (options_.min_chunk_bytes > options_.max_chunk_bytes) {
    throw error("pool_options: min_chunk_bytes (" + format_bytes(options_.min_chunk_bytes) +
                ") is larger than max_chunk_bytes (" + format_bytes(options_.max_chunk_bytes) + ")");
  }
  // Sizes are multiples of the alignment, so these must be too.
  options_.chunk_granularity =
      round_up(std::max(options_.chunk_granularity, allocation_alignment), allocation_alignment);
  options_.min_split_bytes = std::max(options_.min_split_bytes, allocation_alignment);
}

block_pool::~block_pool() {
  std::unique_lock lock(mutex_);
  try {
    (void)release_free_chunks(lock);
  } catch (...) {  // at process exit the runtime may be gone; the driver reclaims everything then
  }
  for (auto& [address, c] : chunks_) {
    try {
      upstream_->free_chunk(c->ptr, c->size);
    } catch (...) {
    }
  }
}

// ---- free lists -------------------------------------------------------------------------------

std::size_t block_pool::bin_of(std::size_t size) noexcept {
  // 8 bins per power of two: the exponent picks the octave, the next three bits the eighth.
  const auto exponent = static_cast<std::size_t>(std::bit_width(size)) - 1;  // size >= 256
  const std::size_t eighth = (size >> (exponent - 3)) & 7U;
  return (exponent - 8) * 8 + eighth;
}

void block_pool::list_insert(stream_state& st, block* b) noexcept {
  free_list& list = st.list;
  const std::size_t bin = bin_of(b->size);
  b->prev_free = nullptr;
  b->next_free = list.heads[bin];
  if (b->next_free != nullptr) {
    b->next_free->prev_free = b;
  }
  list.heads[bin] = b;
  list.occupied[bin / 64] |= std::uint64_t{1} << (bin % 64);
  ++list.blocks;
  list.bytes += b->size;
  b->owner = &st;
  b->free = true;
  ledger_.cache(b->size);
}

void block_pool::list_remove(stream_state& st, block* b) noexcept {
  free_list& list = st.list;
  const std::size_t bin = bin_of(b->size);
  if (b->prev_free != nullptr) {
    b->prev_free->next_free = b->next_free;
  } else {
    list.heads[bin] = b->next_free;
    if (list.heads[bin] == nullptr) {
      list.occupied[bin / 64] &= ~(std::uint64_t{1} << (bin % 64));
    }
  }
  if (b->next_free != nullptr) {
    b->next_free->prev_free = b->prev_free;
  }
  b->prev_free = b->next_free = nullptr;
  --list.blocks;
  list.bytes -= b->size;
  b->owner = nullptr;
  ledger_.uncache(b->size);
}

block_pool::block* block_pool::best_fit(const free_list& list, std::size_t n) const noexcept {
  // The bin of n may hold blocks a little smaller than n: take the smallest that fits, stopping at
  // an exact fit. Every block in a higher bin is larger than every block in a lower one, so
  // otherwise the smallest block of the first occupied higher bin is the best fit.
  const std::size_t home_bin = bin_of(n);
  block* best = nullptr;
  for (block* b = list.heads[home_bin]; b != nullptr; b = b->next_free) {
    if (b->size >= n && (best == nullptr || b->size < best->size)) {
      best = b;
      if (b->size == n) {
        break;
      }
    }
  }
  if (best != nullptr) {
    return best;
  }
  std::size_t bin = home_bin + 1;
  if (bin >= bin_count) {
    return nullptr;
  }
  std::size_t word = bin / 64;
  std::uint64_t bits = list.occupied[word] & (~std::uint64_t{0} << (bin % 64));
  while (bits == 0) {
    if (++word == list.occupied.size()) {
      return nullptr;
    }
    bits = list.occupied[word];
  }
  bin = word * 64 + static_cast<std::size_t>(std::countr_zero(bits));
  for (block* b = list.heads[bin]; b != nullptr; b = b->next_free) {
    if (best == nullptr || b->size < best->size) {
      best = b;
    }
  }
  return best;
}

// ---- blocks -----------------------------------------------------------------------------------

block_pool::block* block_pool::new_block() {
  return spare_blocks_.take();
}

void block_pool::recycle(block* b) noexcept {
  spare_blocks_.give_back(b);
}

void block_pool::free_into(stream_state& st, block* b) noexcept {
  b->requested = 0;
  // Merge only with neighbours waiting in the same stream's list: a neighbour freed on another
  // stream may still be in use by that stream's queued work.
  if (block* prev = b->prev_addr; prev != nullptr && prev->free && prev->owner == &st) {
    list_remove(st, prev);
    prev->size += b->size;
    prev->next_addr = b->next_addr;
    if (b->next_addr != nullptr) {
      b->next_addr->prev_addr = prev;
    }
    recycle(b);
    b = prev;
  }
  if (block* next = b->next_addr; next != nullptr && next->free && next->owner == &st) {
    list_remove(st, next);
    b->size += next->size;
    b->next_addr = next->next_addr;
    if (next->next_addr != nullptr) {
      next->next_addr->prev_addr = b;
    }
    recycle(next);
  }
  list_insert(st, b);
}

void* block_pool::hand_out(stream_state& st, block* b, std::size_t n, std::size_t requested) {
  // Everything that can throw (host allocations) happens before the lists change.
  const bool split = b->size - n >= options_.min_split_bytes;
  block* rest = split ? new_block() : nullptr;
  live_.insert(b->ptr, b);
  list_remove(st, b);
  if (rest != nullptr) {
    rest->ptr = b->ptr + n;
    rest->size = b->size - n;
    rest->home = b->home;
    rest->prev_addr = b;
    rest->next_addr = b->next_addr;
    if (b->next_addr != nullptr) {
      b->next_addr->prev_addr = rest;
    }
    b->next_addr = rest;
    b->size = n;
    list_insert(st, rest);
  }
  b->free = false;
  b->requested = requested;
  ledger_.hand_out(b->size);
  return b->ptr;
}

// ---- public operations ------------------------------------------------------------------------

void* block_pool::allocate(std::size_t bytes, const stream& s) {
  if (bytes == 0) {
    return nullptr;
  }
  if (options_.refuse_during_capture && ordering_->capturing(s)) {
    throw capture_error("device_pool_resource::allocate(" + std::to_string(bytes) + " bytes) on device " +
                        std::to_string(device_) +
                        " was called on a stream that is capturing a CUDA graph: a cached block would be baked "
                        "into the graph and handed to someone else while the graph still uses it. Allocate before "
                        "the capture begins, or use nd::async_pool_resource (cudaMallocAsync), whose allocations "
                        "become graph-owned memory");
  }
  std::unique_lock lock(mutex_);
  if (bytes > largest_request) {
    throw_out_of_memory(bytes, s, 0, false, "");
  }
  const std::size_t n = round_up(bytes, allocation_alignment);
  if (stream_state* st = find_state(s.handle())) {
    if (block* b = best_fit(st->list, n)) {
      return hand_out(*st, b, n, bytes);
    }
  }
  {
    stream_state& st = state_for(s);
    if (adopt_from_idle_stream(st, n)) {
      if (block* b = best_fit(st.list, n)) {
        return hand_out(st, b, n, bytes);
      }
    }
  }
  bool limit_blocked = false;
  if (void* p = grow_and_hand_out(lock, s, n, bytes, limit_blocked)) {
    return p;
  }
  {
    // The lock was dropped while upstream was asked: look up the state again.
    stream_state& st = state_for(s);
    if (block* b = best_fit(st.list, n)) {
      return hand_out(st, b, n, bytes);
    }
    if (adopt_by_waiting(st, n)) {
      if (block* b = best_fit(st.list, n)) {
        return hand_out(st, b, n, bytes);
      }
    }
  }
  const std::size_t released = release_free_chunks(lock);
  limit_blocked = false;
  if (void* p = grow_and_hand_out(lock, s, n, bytes, limit_blocked)) {
    return p;
  }
  throw_out_of_memory(bytes, s, released, limit_blocked, "");
}

void block_pool::deallocate(void* p, std::size_t bytes, const stream& s) {
  if (p == nullptr) {
    return;
  }
  if (options_.refuse_during_capture && ordering_->capturing(s)) {
    throw capture_error("device_pool_resource::deallocate(" + format_pointer(p) + ", " + std::to_string(bytes) +
                        " bytes) on device " + std::to_string(device_) +
                        " was called on a stream that is capturing a CUDA graph: the pool would hand the block to "
                        "someone else while launches of the graph still use it. Deallocate after the capture ends "
                        "(and after the graph's last launch), or use nd::async_pool_resource");
  }
  std::lock_guard lock(mutex_);
  block* b = live_.find(p);
  if (b == nullptr) {
    throw_bad_deallocate(p, bytes);
  }
  if (b->requested != bytes) {
    throw error("deallocate(" + format_pointer(p) + ", " + std::to_string(bytes) +
                " bytes) on the device pool of device " + std::to_string(device_) + ": that allocation was made with " +
                std::to_string(b->requested) + " bytes; pass the size given to allocate()");
  }
  stream_state& st = state_for(s);  // may allocate: before anything changes
  live_.erase(p);
  ledger_.take_back(b->size);
  free_into(st, b);
}

std::size_t block_pool::free_all_blocks() {
  std::unique_lock lock(mutex_);
  return release_free_chunks(lock);
}

memory_stats block_pool::stats() const {
  std::lock_guard lock(mutex_);
  return ledger_.stats();
}

void block_pool::reset_peak() {
  std::lock_guard lock(mutex_);
  ledger_.reset_peak();
}

void block_pool::set_limit(std::optional<std::size_t> bytes) {
  std::lock_guard lock(mutex_);
  ledger_.set_limit(bytes);
}

std::optional<std::size_t> block_pool::limit() const {
  std::lock_guard lock(mutex_);
  return ledger_.limit();
}

}  // namespace ndcuda::detail
