// The device pool's supply side: streams and cross-stream adoption, growth from upstream, and
// the release of whole chunks.
#include <algorithm>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/memory/memory_resource.hpp>
#include <shared_mutex>

#include "memory/block_pool.hpp"
#include "memory/format.hpp"
#include "memory/size_math.hpp"

namespace ndcuda::detail {
namespace {

// Streams whose lists are empty are forgotten once this many are known.
constexpr std::size_t states_before_sweep = 16;

}  // namespace

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
  // From each "not capturing" check through its record: no capture may begin in between.
  const std::shared_lock no_capture_begins(ndcuda::detail::capture_begin_mutex());
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
  std::size_t target = std::max({n, options_.min_chunk_bytes, std::min(ledger_.reserved(), options_.max_chunk_bytes)});
  if (target <= max_size - options_.chunk_granularity) {
    target = round_up(target, options_.chunk_granularity);
  }
  return target;
}

void* block_pool::grow_and_hand_out(std::unique_lock<std::mutex>& lock, const stream& s, std::size_t n,
                                    std::size_t requested, bool& limit_blocked) {
  std::size_t target = growth_target(n);
  for (;;) {
    const std::size_t room = ledger_.room();
    if (room < n) {
      limit_blocked = true;
      return nullptr;
    }
    const std::size_t attempt = std::min(target, room);
    void* p = ledger_.obtain_chunk(lock, *upstream_, attempt, s);
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
      ledger_.add_chunk(attempt);
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
  // From the "not capturing" checks through the records and waits: no capture may begin in
  // between, or the event would be recorded into it (issue 37: one capture in 200 was invalidated).
  const std::shared_lock no_capture_begins(ndcuda::detail::capture_begin_mutex());
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

  std::vector<pool_ledger::returned_chunk> doomed;
  for (auto it = chunks_.begin(); it != chunks_.end();) {
    chunk* c = it->second.get();
    block* b = c->first;
    if (b->free && b->next_addr == nullptr && b->owner == &keeper) {
      doomed.push_back({c->ptr, c->size});
      list_remove(keeper, b);
      recycle(b);
      it = chunks_.erase(it);
    } else {
      ++it;
    }
  }
  return ledger_.return_chunks(lock, *upstream_, doomed);  // outside the lock: cudaFree can be slow
}

}  // namespace ndcuda::detail
