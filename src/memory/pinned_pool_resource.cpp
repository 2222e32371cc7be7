// pinned_pool_resource: size classes of page-locked blocks, each reusable only after the event
// recorded when it was freed has completed.
#include <algorithm>
#include <bit>
#include <deque>
#include <map>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/memory/pinned_pool_resource.hpp>
#include <vector>

#include "memory/format.hpp"
#include "memory/pool_ledger.hpp"
#include "memory/size_math.hpp"
#include "memory/teardown.hpp"

namespace ndcuda {
namespace {

using detail::max_size;
constexpr std::size_t largest_request = max_size / 2;  // its size class still fits in a size_t

}  // namespace

struct pinned_pool_resource::impl {
  struct block {
    char* ptr = nullptr;
    std::size_t size = 0;       // the size class
    std::size_t requested = 0;  // while in use
    bool in_use = false;
    bool pending = false;  // an event marks its last use
    stream_ordering::token last_use = 0;
  };

  pinned_pool_options options;  // its limit is only the initial one: ledger holds the limit in force
  std::shared_ptr<chunk_upstream> upstream;
  std::shared_ptr<stream_ordering> ordering;

  mutable std::mutex mutex;
  std::map<std::uintptr_t, block> blocks;            // every block, by address
  std::map<std::size_t, std::deque<block*>> cached;  // free blocks by class, oldest first
  detail::pool_ledger ledger;                        // bytes, counts and the limit

  impl(pinned_pool_options o, std::shared_ptr<chunk_upstream> u, std::shared_ptr<stream_ordering> ord)
      : options(o), upstream(std::move(u)), ordering(std::move(ord)), ledger(o.limit) {
    if (!upstream || !ordering) {
      throw error(
          "pinned_pool_resource needs an upstream and a stream ordering; pass non-null ones, or use the "
          "constructor without them to get cudaHostAlloc and CUDA events");
    }
    options.min_class_bytes = std::bit_ceil(std::max(options.min_class_bytes, allocation_alignment));
  }

  ~impl() {
    std::lock_guard lock(mutex);
    for (auto& [address, b] : blocks) {
      try {
        if (b.pending) {
          ordering->synchronize(b.last_use);  // never free under a DMA
        }
      } catch (...) {  // at exit the runtime may be gone; the driver reclaims everything then
      }
      if (b.pending) {
        ordering->release(b.last_use);
      }
      try {
        upstream->free_chunk(b.ptr, b.size);
      } catch (...) {
      }
    }
  }

  [[nodiscard]] std::size_t class_of(std::size_t n) const noexcept {
    if (n <= options.min_class_bytes) {
      return options.min_class_bytes;
    }
    // Four classes per power of two: 2^e, 1.25*2^e, 1.5*2^e, 1.75*2^e.
    const auto exponent = static_cast<std::size_t>(std::bit_width(n)) - 1;
    const std::size_t step = std::size_t{1} << (exponent - 2);
    return (n + step - 1) / step * step;
  }

  // A cached block of class c whose last use has finished, taken out of the cache.
  block* take_cached(std::size_t c) {
    auto found = cached.find(c);
    if (found == cached.end()) {
      return nullptr;
    }
    auto& queue = found->second;
    for (auto it = queue.begin(); it != queue.end(); ++it) {
      block* b = *it;
      if (!b->pending || ordering->completed(b->last_use)) {
        settle(*b);
        queue.erase(it);
        ledger.uncache(b->size);
        return b;
      }
    }
    return nullptr;
  }

  void settle(block& b) noexcept {
    if (b.pending) {
      ordering->release(b.last_use);
      b.pending = false;
      b.last_use = 0;
    }
  }

  void* hand_out(block* b, std::size_t bytes) noexcept {
    b->in_use = true;
    b->requested = bytes;
    ledger.hand_out(b->size);
    return b->ptr;
  }

  // Releases every cached block whose last use has completed. Called with the lock held.
  std::size_t release_completed(std::unique_lock<std::mutex>& lock) {
    std::vector<detail::pool_ledger::returned_chunk> doomed;
    for (auto& [c, queue] : cached) {
      for (auto it = queue.begin(); it != queue.end();) {
        block* b = *it;
        if (!b->pending || ordering->completed(b->last_use)) {
          settle(*b);
          doomed.push_back({b->ptr, b->size});
          it = queue.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (const auto& d : doomed) {
      blocks.erase(reinterpret_cast<std::uintptr_t>(d.ptr));
      ledger.uncache(d.size);
    }
    return ledger.return_chunks(lock, *upstream, doomed);
  }

  // One attempt to pin a new block of class c; nullptr when the limit or upstream says no.
  block* grow(std::unique_lock<std::mutex>& lock, std::size_t c, const stream& s, bool& limit_blocked) {
    if (c > ledger.room()) {
      limit_blocked = true;
      return nullptr;
    }
    void* p = ledger.obtain_chunk(lock, *upstream, c, s);
    if (p == nullptr) {
      return nullptr;
    }
    try {
      block& b = blocks[reinterpret_cast<std::uintptr_t>(p)];
      b = block{static_cast<char*>(p), c, 0, false, false, 0};
      ledger.add_chunk(c);
      return &b;
    } catch (...) {
      upstream->free_chunk(p, c);
      throw;
    }
  }

  void* allocate(std::size_t bytes, const stream& s) {
    if (bytes == 0) {
      return nullptr;
    }
    if (options.refuse_during_capture && ordering->capturing(s)) {
      throw capture_error("pinned_pool_resource::allocate(" + std::to_string(bytes) +
                          " bytes) was called on a stream that is capturing a CUDA graph: pinned blocks are "
                          "recycled with events, which a graph cannot replay. Allocate pinned buffers before the "
                          "capture begins and keep them alive for as long as the graph is launched");
    }
    std::unique_lock lock(mutex);
    if (bytes > largest_request) {
      throw_out_of_memory(bytes, 0, 0, false);
    }
    const std::size_t c = class_of(bytes);
    if (block* b = take_cached(c)) {
      return hand_out(b, bytes);
    }
    bool limit_blocked = false;
    if (block* b = grow(lock, c, s, limit_blocked)) {
      return hand_out(b, bytes);
    }
    // Out of memory: give back what has finished, and try once more.
    const std::size_t released = release_completed(lock);
    if (block* b = take_cached(c)) {  // another thread may have freed one meanwhile
      return hand_out(b, bytes);
    }
    limit_blocked = false;
    if (block* b = grow(lock, c, s, limit_blocked)) {
      return hand_out(b, bytes);
    }
    throw_out_of_memory(bytes, c, released, limit_blocked);
  }

  void deallocate(void* p, std::size_t bytes, const stream& s) {
    if (p == nullptr) {
      return;
    }
    if (options.refuse_during_capture && ordering->capturing(s)) {
      throw capture_error("pinned_pool_resource::deallocate(" + detail::format_pointer(p) +
                          ") was called on a stream that is capturing a CUDA graph: the block's reuse cannot be "
                          "ordered after launches of the graph. Deallocate after the capture ends (and after the "
                          "graph's last launch)");
    }
    std::lock_guard lock(mutex);
    auto found = blocks.find(reinterpret_cast<std::uintptr_t>(p));
    if (found == blocks.end() || !found->second.in_use) {
      throw_bad_deallocate(p, bytes, found != blocks.end());
    }
    block& b = found->second;
    if (b.requested != bytes) {
      throw error("deallocate(" + detail::format_pointer(p) + ", " + std::to_string(bytes) +
                  " bytes) on the pinned pool: that allocation was made with " + std::to_string(b.requested) +
                  " bytes; pass the size given to allocate()");
    }
    auto& queue = cached[b.size];  // may allocate: before anything changes
    const stream_ordering::token t = ordering->record(s);
    try {
      queue.push_back(&b);
    } catch (...) {
      ordering->release(t);
      throw;
    }
    b.in_use = false;
    b.requested = 0;
    b.pending = true;
    b.last_use = t;
    ledger.take_back(b.size);
    ledger.cache(b.size);
  }

  [[noreturn]] void throw_bad_deallocate(void* p, std::size_t bytes, bool cached_block) const {
    const std::string call =
        "deallocate(" + detail::format_pointer(p) + ", " + std::to_string(bytes) + " bytes) on the pinned pool: ";
    if (cached_block) {
      throw error(call +
                  "double free: this block was already returned to the pool. Deallocate each pointer from "
                  "allocate() exactly once");
    }
    auto it = blocks.upper_bound(reinterpret_cast<std::uintptr_t>(p));
    if (it != blocks.begin()) {
      --it;
      const block& b = it->second;
      if (static_cast<char*>(p) < b.ptr + b.size) {
        throw error(call + "the pointer lies inside the block at " + detail::format_pointer(b.ptr) +
                    " but is not its start; pass the pointer that allocate() returned");
      }
    }
    throw error(call + "the pointer was not allocated by this pool; return memory to the resource that allocated it");
  }

  [[noreturn]] void throw_out_of_memory(std::size_t bytes, std::size_t c, std::size_t released, bool limit_blocked) {
    const memory_stats st = ledger.stats();
    std::string message =
        "out of pinned host memory: allocate(" + std::to_string(bytes) + " bytes = " + format_bytes(bytes) + ")";
    if (c != 0) {
      message += " (size class " + format_bytes(c) + ")";
    }
    message += " failed; pinned pool: " + to_string(st);
    if (c == 0) {
      message += "; the size is too large to be a real request (is it a negative number converted to size_t?)";
    } else if (limit_blocked && st.limit) {
      message += "; the request does not fit under the pool's limit of " + format_bytes(*st.limit);
    }
    try {
      message += "; upstream: " + upstream->describe();
    } catch (...) {
    }
    if (c != 0) {
      message += ". The pool released " + format_bytes(released) +
                 " of cached blocks whose copies had completed and retried once. Free pinned buffers you no longer "
                 "need, wait for pending copies (stream.synchronize()) and call free_all_blocks()";
      message += st.limit ? ", or raise the limit with set_limit()" : "";
    }
    throw out_of_memory(message);
  }
};

pinned_pool_resource::pinned_pool_resource(pinned_pool_options options)
    : pinned_pool_resource(options, make_cuda_host_alloc_upstream(), make_cuda_event_ordering()) {}

pinned_pool_resource::pinned_pool_resource(pinned_pool_options options, std::shared_ptr<chunk_upstream> upstream,
                                           std::shared_ptr<stream_ordering> ordering)
    : memory_resource(memory_kind::pinned_host, host_device),
      impl_(std::make_unique<impl>(options, std::move(upstream), std::move(ordering))) {}

pinned_pool_resource::~pinned_pool_resource() {
  if (detail::cuda_is_unloading()) {
    (void)impl_.release();  // exit after CUDA's teardown: the driver reclaims the memory
  }
}

memory_stats pinned_pool_resource::stats() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->ledger.stats();
}

void pinned_pool_resource::reset_peak() {
  std::lock_guard lock(impl_->mutex);
  impl_->ledger.reset_peak();
}

void pinned_pool_resource::set_limit(std::optional<std::size_t> bytes) {
  std::lock_guard lock(impl_->mutex);
  impl_->ledger.set_limit(bytes);
}

std::optional<std::size_t> pinned_pool_resource::limit() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->ledger.limit();
}

std::size_t pinned_pool_resource::free_all_blocks() {
  std::unique_lock lock(impl_->mutex);
  return impl_->release_completed(lock);
}

std::size_t pinned_pool_resource::pending_bytes() const {
  std::lock_guard lock(impl_->mutex);
  std::size_t bytes = 0;
  for (const auto& [c, queue] : impl_->cached) {
    for (const auto* b : queue) {
      if (b->pending && !impl_->ordering->completed(b->last_use)) {
        bytes += b->size;
      }
    }
  }
  return bytes;
}

bool pinned_pool_resource::contains(const void* p, std::size_t bytes) const {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard lock(impl_->mutex);
  auto it = impl_->blocks.upper_bound(address);
  if (it == impl_->blocks.begin()) {
    return false;
  }
  --it;
  const std::size_t offset = address - it->first;
  return offset < it->second.size && bytes <= it->second.size - offset;
}

std::size_t pinned_pool_resource::size_class(std::size_t bytes) const {
  return impl_->class_of(bytes);
}

void* pinned_pool_resource::do_allocate(std::size_t bytes, const stream& s) {
  return impl_->allocate(bytes, s);
}

void pinned_pool_resource::do_deallocate(void* p, std::size_t bytes, const stream& s) {
  impl_->deallocate(p, bytes, s);
}

}  // namespace ndcuda
