// The device pool's algorithm. CUDA is reached only through chunk_upstream and stream_ordering, so
// the CPU tests run all of this against a simulation.
#include "memory/block_pool.hpp"

#include <algorithm>
#include <bit>
#include <exception>
#include <limits>
#include <ndcuda/core/error.hpp>
#include <ndcuda/memory/memory_resource.hpp>
#include <sstream>

#include "memory/format.hpp"

namespace ndcuda::detail {
namespace {

constexpr std::size_t max_size = std::numeric_limits<std::size_t>::max();
// Beyond this a request cannot even be rounded to the alignment.
constexpr std::size_t largest_request = max_size - allocation_alignment + 1;
// Streams whose lists are empty are forgotten once this many are known.
constexpr std::size_t states_before_sweep = 16;

std::size_t round_up(std::size_t n, std::size_t multiple) noexcept {
  return (n + multiple - 1) / multiple * multiple;
}

std::size_t saturating_sub(std::size_t a, std::size_t b) noexcept {
  return a > b ? a - b : 0;
}

}  // namespace

block_pool::block_pool(int device, pool_options options, std::shared_ptr<chunk_upstream> upstream,
                       std::shared_ptr<stream_ordering> ordering)
    : device_(device), options_(options), upstream_(std::move(upstream)), ordering_(std::move(ordering)) {
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
  cached_ += b->size;
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
  cached_ = saturating_sub(cached_, b->size);
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
  if (spare_blocks_ == nullptr) {
    constexpr std::size_t slab = 256;
    auto blocks = std::make_unique<block[]>(slab);
    for (std::size_t i = 0; i < slab; ++i) {
      blocks[i].next_free = spare_blocks_;
      spare_blocks_ = &blocks[i];
    }
    block_slabs_.push_back(std::move(blocks));
  }
  block* b = spare_blocks_;
  spare_blocks_ = b->next_free;
  *b = block{};
  return b;
}

void block_pool::recycle(block* b) noexcept {
  *b = block{};
  b->next_free = spare_blocks_;
  spare_blocks_ = b;
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
  used_ += b->size;
  peak_used_ = std::max(peak_used_, used_);
  ++allocations_;
  return b->ptr;
}

// ---- streams ----------------------------------------------------------------------------------

block_pool::stream_state* block_pool::find_state(cudaStream_t handle) noexcept {
  if (last_state_ != nullptr && last_state_->owner.handle() == handle) {
    return last_state_;
  }
  for (auto& st : states_) {
    if (st->owner.handle() == handle) {
      last_state_ = st.get();
      return last_state_;
    }
  }
  return nullptr;
}

block_pool::stream_state& block_pool::state_for(const stream& s) {
  if (stream_state* st = find_state(s.handle())) {
    return *st;
  }
  if (states_.size() >= states_before_sweep) {
    // Forget streams with nothing waiting: only free blocks point at their stream's state.
    std::erase_if(states_, [](const std::unique_ptr<stream_state>& st) { return st->list.blocks == 0; });
    last_state_ = nullptr;
  }
  states_.push_back(std::make_unique<stream_state>(stream_state{s, {}}));
  last_state_ = states_.back().get();
  return *last_state_;
}

std::vector<block_pool::candidate> block_pool::candidates(const stream_state& dest, std::size_t n) {
  std::vector<candidate> found;
  for (auto& st : states_) {
    if (st.get() != &dest && st->list.blocks != 0) {
      if (block* fit = best_fit(st->list, n)) {
        found.push_back({st.get(), fit});
      }
    }
  }
  std::sort(found.begin(), found.end(),
            [](const candidate& a, const candidate& b) { return a.fit->size < b.fit->size; });
  return found;
}

void block_pool::adopt_all(stream_state& dest, stream_state& from) noexcept {
  // Every block in `from` was freed before now, so whatever ordered dest after `from` (its stream
  // idle, or an event recorded now) covers all of them: take them all, merging with dest's own.
  std::vector<block*> moving;
  try {
    moving.reserve(from.list.blocks);
  } catch (...) {
    return;  // out of host memory: leave them where they are
  }
  for (std::size_t bin = 0; bin < bin_count; ++bin) {
    while (block* b = from.list.heads[bin]) {
      list_remove(from, b);
      b->free = true;  // detached: free, but in no list, so no neighbour merges with it yet
      moving.push_back(b);
    }
  }
  for (block* b : moving) {
    free_into(dest, b);
  }
}

bool block_pool::adopt_from_idle_stream(stream_state& dest, std::size_t n) {
  for (const candidate& c : candidates(dest, n)) {
    const stream& producer = c.state->owner;
    // cudaStreamQuery on a capturing stream would invalidate the capture.
    if (!ordering_->capturing(producer) && ordering_->idle(producer)) {
      adopt_all(dest, *c.state);
      return true;
    }
  }
  return false;
}

bool block_pool::adopt_by_waiting(stream_state& dest, std::size_t n) {
  for (const candidate& c : candidates(dest, n)) {
    const stream& producer = c.state->owner;
    if (ordering_->capturing(producer)) {
      continue;
    }
    const stream_ordering::token t = ordering_->record(producer);
    try {
      ordering_->wait(dest.owner, t);
    } catch (...) {
      ordering_->release(t);
      throw;
    }
    ordering_->release(t);
    adopt_all(dest, *c.state);
    return true;
  }
  return false;
}

// ---- growth and release -----------------------------------------------------------------------

std::size_t block_pool::growth_target(std::size_t n) const noexcept {
  // Geometric: a new chunk as large as the pool already is, so the number of cudaMalloc calls
  // grows with the logarithm of the footprint.
  std::size_t target = std::max({n, options_.min_chunk_bytes, std::min(reserved_, options_.max_chunk_bytes)});
  if (target <= max_size - options_.chunk_granularity) {
    target = round_up(target, options_.chunk_granularity);
  }
  return target;
}

void* block_pool::grow_and_hand_out(std::unique_lock<std::mutex>& lock, const stream& s, std::size_t n,
                                    std::size_t requested, bool& limit_blocked) {
  std::size_t target = growth_target(n);
  for (;;) {
    std::size_t room = max_size;
    if (options_.limit) {
      const std::size_t held = reserved_ + in_flight_;
      room = saturating_sub(*options_.limit, held);
    }
    if (room < n) {
      limit_blocked = true;
      return nullptr;
    }
    const std::size_t attempt = std::min(target, room);
    // Reserve before calling upstream (outside the lock, cudaMalloc is slow), so concurrent growth
    // cannot overshoot the limit; give the reservation back whatever happens.
    in_flight_ += attempt;
    lock.unlock();
    void* p = nullptr;
    try {
      p = upstream_->allocate_chunk(attempt, s);
    } catch (...) {
      lock.lock();
      in_flight_ -= attempt;
      throw;
    }
    lock.lock();
    in_flight_ -= attempt;
    if (p != nullptr) {
      if (reinterpret_cast<std::uintptr_t>(p) % allocation_alignment != 0) {
        upstream_->free_chunk(p, attempt);
        throw error("device_pool_resource: the upstream returned " + format_pointer(p) + ", which is not aligned to " +
                    std::to_string(allocation_alignment) + " bytes; a chunk_upstream must align its chunks");
      }
      block* b = nullptr;
      try {
        auto c = std::make_unique<chunk>();
        b = new_block();
        c->ptr = static_cast<char*>(p);
        c->size = attempt;
        c->first = b;
        b->ptr = c->ptr;
        b->size = attempt;
        b->home = c.get();
        chunks_.emplace(reinterpret_cast<std::uintptr_t>(p), std::move(c));
      } catch (...) {
        if (b != nullptr) {
          recycle(b);
        }
        upstream_->free_chunk(p, attempt);
        throw;
      }
      reserved_ += attempt;
      peak_reserved_ = std::max(peak_reserved_, reserved_);
      ++upstream_allocations_;
      stream_state& st = state_for(s);
      list_insert(st, b);
      return hand_out(st, b, n, requested);
    }
    if (attempt <= n) {
      return nullptr;
    }
    std::size_t half = attempt / 2;
    if (half <= max_size - options_.chunk_granularity) {
      half = round_up(half, options_.chunk_granularity);
    }
    target = half >= attempt ? n : std::max(n, half);
  }
}

std::size_t block_pool::release_free_chunks(std::unique_lock<std::mutex>& lock) {
  // Pieces of one chunk freed on different streams never merge on their own, so a chunk can be
  // entirely free yet split. Wait for every stream that holds free blocks (except capturing ones:
  // their work is not real yet); then all those blocks are safe for anyone, merge them into one
  // list, and return the chunks that came out whole. Waiting under the lock stops the world, which
  // is what a release is for; GPU work cannot need this lock.
  std::vector<stream_state*> settled;
  for (auto& st : states_) {
    if (st->list.blocks != 0 && !ordering_->capturing(st->owner)) {
      settled.push_back(st.get());
    }
  }
  if (settled.empty()) {
    return 0;
  }
  for (stream_state* st : settled) {
    const stream_ordering::token t = ordering_->record(st->owner);
    try {
      ordering_->synchronize(t);
    } catch (...) {
      ordering_->release(t);
      throw;
    }
    ordering_->release(t);
  }
  stream_state& keeper = *settled.front();
  for (std::size_t i = 1; i < settled.size(); ++i) {
    adopt_all(keeper, *settled[i]);
  }

  struct doomed_chunk {
    char* ptr;
    std::size_t size;
  };
  std::vector<doomed_chunk> doomed;
  for (auto it = chunks_.begin(); it != chunks_.end();) {
    chunk* c = it->second.get();
    block* b = c->first;
    if (b->free && b->next_addr == nullptr && b->owner == &keeper) {
      doomed.push_back({c->ptr, c->size});
      list_remove(keeper, b);
      recycle(b);
      reserved_ -= c->size;
      in_flight_ += c->size;  // still counts toward the limit until upstream has it back
      it = chunks_.erase(it);
    } else {
      ++it;
    }
  }
  if (doomed.empty()) {
    return 0;
  }
  // cudaFree can be slow: release outside the lock.
  lock.unlock();
  std::exception_ptr failure;
  std::size_t released = 0;
  std::size_t total = 0;
  for (const doomed_chunk& d : doomed) {
    total += d.size;
    try {
      upstream_->free_chunk(d.ptr, d.size);
      released += d.size;
    } catch (...) {
      if (!failure) {
        failure = std::current_exception();
      }
    }
  }
  lock.lock();
  in_flight_ -= total;
  upstream_frees_ += doomed.size();
  if (failure) {
    std::rethrow_exception(failure);
  }
  return released;
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
  used_ = saturating_sub(used_, b->size);
  ++deallocations_;
  free_into(st, b);
}

std::size_t block_pool::free_all_blocks() {
  std::unique_lock lock(mutex_);
  return release_free_chunks(lock);
}

memory_stats block_pool::stats_locked() const noexcept {
  memory_stats st;
  st.used_bytes = used_;
  st.peak_used_bytes = peak_used_;
  st.cached_bytes = cached_;
  st.reserved_bytes = reserved_;
  st.peak_reserved_bytes = peak_reserved_;
  st.allocation_count = allocations_;
  st.deallocation_count = deallocations_;
  st.live_allocations = live_.size();
  st.upstream_allocations = upstream_allocations_;
  st.upstream_frees = upstream_frees_;
  st.limit = options_.limit;
  return st;
}

memory_stats block_pool::stats() const {
  std::lock_guard lock(mutex_);
  return stats_locked();
}

void block_pool::reset_peak() {
  std::lock_guard lock(mutex_);
  peak_used_ = used_;
  peak_reserved_ = reserved_;
}

void block_pool::set_limit(std::optional<std::size_t> bytes) {
  std::lock_guard lock(mutex_);
  options_.limit = bytes;
}

std::optional<std::size_t> block_pool::limit() const {
  std::lock_guard lock(mutex_);
  return options_.limit;
}

// ---- errors -----------------------------------------------------------------------------------

void block_pool::throw_out_of_memory(std::size_t bytes, const stream& s, std::size_t released, bool limit_blocked,
                                     const std::string& upstream_error) {
  const memory_stats st = stats_locked();
  std::string message = "out of memory on device " + std::to_string(device_) + ": allocate(" + std::to_string(bytes) +
                        " bytes = " + format_bytes(bytes) + ") on stream " + format_pointer(s.handle()) +
                        " failed; pool: " + to_string(st);
  if (bytes > largest_request) {
    message += "; the size is too large to be a real request (is it a negative number converted to size_t?)";
  } else if (limit_blocked && st.limit) {
    message += "; the request does not fit under the pool's limit of " + format_bytes(*st.limit) + " with " +
               format_bytes(st.reserved_bytes) + " already reserved";
  }
  std::string upstream;
  try {
    upstream = upstream_->describe();
  } catch (...) {
    upstream = "(the upstream could not describe itself)";
  }
  message += "; upstream: " + upstream;
  if (!upstream_error.empty()) {
    message += " (" + upstream_error + ")";
  }
  if (bytes <= largest_request) {
    message += ". The pool released " + format_bytes(released) +
               " of cached free chunks and retried once. Free arrays you no longer need, call free_all_blocks() on "
               "other pools of this device, work in smaller pieces";
    message += st.limit ? ", or raise the limit with set_limit()" : "";
  }
  throw out_of_memory(message);
}

void block_pool::throw_bad_deallocate(void* p, std::size_t bytes) const {
  const std::string call = "deallocate(" + format_pointer(p) + ", " + std::to_string(bytes) +
                           " bytes) on the device pool of device " + std::to_string(device_) + ": ";
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  auto it = chunks_.upper_bound(address);
  if (it != chunks_.begin()) {
    --it;
    const chunk& c = *it->second;
    if (static_cast<char*>(p) < c.ptr + c.size) {
      for (const block* b = c.first; b != nullptr; b = b->next_addr) {
        if (static_cast<char*>(p) >= b->ptr && static_cast<char*>(p) < b->ptr + b->size) {
          if (b->free) {
            throw error(call +
                        "double free: this memory was already returned to the pool and not allocated again. "
                        "Deallocate each pointer from allocate() exactly once");
          }
          throw error(call + "the pointer lies inside the live allocation at " + format_pointer(b->ptr) + " (" +
                      std::to_string(b->requested) +
                      " bytes) but is not its start; pass the pointer that "
                      "allocate() returned");
        }
      }
    }
  }
  throw error(call +
              "the pointer was not allocated by this pool (or was freed twice and its chunk released since); "
              "return memory to the resource that allocated it");
}

// ---- validation (tests) -----------------------------------------------------------------------

std::string block_pool::validate() const {
  std::lock_guard lock(mutex_);
  std::ostringstream problems;
  std::size_t chunk_bytes = 0;
  std::size_t used = 0;
  std::size_t cached = 0;
  std::size_t in_use = 0;
  for (const auto& [address, c] : chunks_) {
    chunk_bytes += c->size;
    std::size_t covered = 0;
    const block* prev = nullptr;
    for (const block* b = c->first; b != nullptr; b = b->next_addr) {
      if (b->home != c.get()) {
        problems << "block " << format_pointer(b->ptr) << " has the wrong chunk; ";
      }
      if (b->prev_addr != prev) {
        problems << "block " << format_pointer(b->ptr) << " has a bad prev link; ";
      }
      if (b->ptr != c->ptr + covered) {
        problems << "block " << format_pointer(b->ptr) << " is not contiguous; ";
      }
      if (b->size == 0 || b->size % allocation_alignment != 0) {
        problems << "block size " << b->size << " is bad; ";
      }
      if (b->free) {
        cached += b->size;
        if (b->owner == nullptr) {
          problems << "free block " << format_pointer(b->ptr) << " is in no list; ";
        }
        if (prev != nullptr && prev->free && prev->owner == b->owner) {
          problems << "free neighbours " << format_pointer(prev->ptr) << " and " << format_pointer(b->ptr)
                   << " of one stream were not merged; ";
        }
      } else {
        used += b->size;
        ++in_use;
        if (live_.find(b->ptr) != b) {
          problems << "live block " << format_pointer(b->ptr) << " is not in the map; ";
        }
      }
      covered += b->size;
      prev = b;
    }
    if (covered != c->size) {
      problems << "chunk " << format_pointer(c->ptr) << " blocks cover " << covered << " of " << c->size << "; ";
    }
  }
  std::size_t listed_blocks = 0;
  std::size_t listed_bytes = 0;
  for (const auto& st : states_) {
    std::size_t blocks = 0;
    std::size_t bytes = 0;
    for (std::size_t bin = 0; bin < bin_count; ++bin) {
      const bool bit = (st->list.occupied[bin / 64] >> (bin % 64)) & 1U;
      if (bit != (st->list.heads[bin] != nullptr)) {
        problems << "bin " << bin << " occupancy bit is wrong; ";
      }
      for (const block* b = st->list.heads[bin]; b != nullptr; b = b->next_free) {
        if (!b->free || b->owner != st.get()) {
          problems << "listed block " << format_pointer(b->ptr) << " is not free here; ";
        }
        if (bin_of(b->size) != bin) {
          problems << "block in the wrong bin; ";
        }
        ++blocks;
        bytes += b->size;
      }
    }
    if (blocks != st->list.blocks || bytes != st->list.bytes) {
      problems << "a stream list miscounts; ";
    }
    listed_blocks += blocks;
    listed_bytes += bytes;
  }
  if (chunk_bytes != reserved_) {
    problems << "reserved " << reserved_ << " but chunks hold " << chunk_bytes << "; ";
  }
  if (used != used_) {
    problems << "used " << used_ << " but blocks in use hold " << used << "; ";
  }
  if (cached != cached_ || listed_bytes != cached_) {
    problems << "cached " << cached_ << " but free blocks hold " << cached << " and lists " << listed_bytes << "; ";
  }
  if (in_use != live_.size()) {
    problems << in_use << " blocks in use but " << live_.size() << " in the map; ";
  }
  if (used_ + cached_ != reserved_) {
    problems << "used + cached != reserved; ";
  }
  if (allocations_ - deallocations_ != live_.size()) {
    problems << "allocation counts disagree with live blocks; ";
  }
  (void)listed_blocks;
  return problems.str();
}

}  // namespace ndcuda::detail
