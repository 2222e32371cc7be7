// The one cache every engine path keeps its compiled kernels in: per tree type (the Owner tag), a
// list of (key, value) entries built on first use and never freed, so a reference handed out stays
// valid. The first entry is also published through an atomic pointer: the usual call (one key per
// tree type) is found with one load and a compare, no lock and no string built. Builds on the
// standard library only.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <atomic>
#include <memory>
#include <mutex>
#include <ndcuda/core/detail/internal.hpp>
#include <vector>

namespace ndcuda::detail {

/// Names an engine path and the types it caches for: kernel_cache<cache_tag<path, Out, X>, ...>.
template <class... T>
struct cache_tag {};

/// The cached values of one Owner, found by Key (equality-comparable); Make builds a missing value.
/// NDCUDA_INTERNAL: the library's own caches stay inside a shared build; a program keeps its own
/// (a second lookup of a kernel the library already uses is one more cache entry, never a compile).
template <class Owner, class Key, class Value>
class NDCUDA_INTERNAL kernel_cache {
 public:
  template <class Make>
  static const Value& get(const Key& key, const Make& make) {
    if (const entry* e = first_.load(std::memory_order_acquire); e != nullptr && e->key == key) {
      return e->value;
    }
    std::lock_guard lock(mutex_);
    for (const auto& e : entries_) {
      if (e->key == key) {
        return e->value;
      }
    }
    entries_.push_back(std::make_unique<entry>(entry{key, make()}));
    const entry* added = entries_.back().get();
    if (first_.load(std::memory_order_relaxed) == nullptr) {
      first_.store(added, std::memory_order_release);
    }
    return added->value;
  }

 private:
  struct entry {
    Key key;
    Value value;
  };
  // Static data members, not statics of get: get is a template on Make, and each call site's
  // lambda would otherwise get a cache of its own.
  static inline std::atomic<const entry*> first_{nullptr};
  static inline std::mutex mutex_;
  static inline std::vector<std::unique_ptr<entry>> entries_;
};

}  // namespace ndcuda::detail

#pragma GCC visibility pop
