// The host block cache behind nd::host_vector: big blocks released by one read are handed to the
// next read of the same size, with their pages still resident. Builds on nothing but the C++
// runtime; the blocks are the allocator's (2 MiB-aligned operator new).
#include <algorithm>
#include <cstddef>
#include <mutex>
#include <ndcuda/memory/host_vector.hpp>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace ndcuda {

namespace {

class host_block_cache {
 public:
  void* take(std::size_t bytes) noexcept {
    const std::lock_guard lock(mutex_);
    const auto it = std::find_if(blocks_.begin(), blocks_.end(), [&](const block& b) { return b.bytes == bytes; });
    if (it == blocks_.end()) {
      return nullptr;
    }
    void* p = it->p;
    kept_ -= bytes;
    blocks_.erase(it);
    return p;
  }

  bool keep(void* p, std::size_t bytes) noexcept {
    const std::lock_guard lock(mutex_);
    if (bytes > limit_) {
      return false;
    }
    try {
      blocks_.push_back({p, bytes});
    } catch (...) {  // no memory for the bookkeeping: the caller frees the block
      return false;
    }
    kept_ += bytes;
    // Oldest first: a program that reads arrays of a new size stops reusing the old ones.
    evict_to(limit_);
    return true;
  }

  std::size_t set_limit(std::size_t bytes) noexcept {
    const std::lock_guard lock(mutex_);
    const std::size_t previous = std::exchange(limit_, bytes);
    evict_to(limit_);
    return previous;
  }

  void release() noexcept {
    const std::lock_guard lock(mutex_);
    evict_to(0);
  }

  std::size_t kept() noexcept {
    const std::lock_guard lock(mutex_);
    return kept_;
  }

 private:
  struct block {
    void* p;
    std::size_t bytes;
  };

  // Frees the oldest blocks until at most `bytes` are kept. Under the lock: munmap of a big block
  // takes a while, but readers only wait for it when they release a block at the same time.
  void evict_to(std::size_t bytes) noexcept {
    while (kept_ > bytes) {
      const block oldest = blocks_.front();
      blocks_.erase(blocks_.begin());
      kept_ -= oldest.bytes;
      // Unsized, as host_allocator frees: the sized form is declared only under
      // -fsized-deallocation, which clang before 19 leaves off.
      ::operator delete (oldest.p, std::align_val_t{detail::huge_block_alignment});
    }
  }

  std::mutex mutex_;
  // Oldest first. A vector rather than a deque, whose constructor allocates: this one cannot throw,
  // so cache() cannot fail. Dropping the front moves the others, a few thousand at most (blocks are
  // 2 MiB or more under a 4 GiB limit by default), which is nothing beside the munmap it comes with.
  std::vector<block> blocks_;
  std::size_t kept_ = 0;
  std::size_t limit_ = std::size_t{4} << 30;
};

static_assert(std::is_nothrow_default_constructible_v<host_block_cache>);

// Never destroyed: host_vectors with static storage may release their blocks after it would be.
// Built in static storage, not on the heap, so the first call allocates nothing and cannot fail.
host_block_cache& cache() noexcept {
  alignas(host_block_cache) static std::byte storage[sizeof(host_block_cache)];
  static host_block_cache* const instance = ::new (static_cast<void*>(storage)) host_block_cache;
  return *instance;
}

}  // namespace

namespace detail {

void* reuse_host_block(std::size_t bytes) noexcept {
  return cache().take(bytes);
}

bool keep_host_block(void* p, std::size_t bytes) noexcept {
  return cache().keep(p, bytes);
}

}  // namespace detail

std::size_t set_host_block_cache_limit(std::size_t bytes) noexcept {
  return cache().set_limit(bytes);
}

void release_host_block_cache() noexcept {
  cache().release();
}

std::size_t host_block_cache_bytes() noexcept {
  return cache().kept();
}

}  // namespace ndcuda
