// Internal: recycled fixed-size records (pool blocks, live-allocation entries) carved from slabs,
// so the allocation hot paths never call the host allocator once warm. Not thread-safe: callers
// hold their pool's lock.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace ndcuda::detail {

/// Hands out T records linked through the member `Next` while spare. Records live as long as the
/// record_pool; take() value-initialises the record it returns.
template <class T, T* T::*Next>
class record_pool {
 public:
  [[nodiscard]] T* take() {
    if (spare_ == nullptr) {
      constexpr std::size_t slab_records = 256;
      auto slab = std::make_unique<T[]>(slab_records);
      for (std::size_t i = 0; i < slab_records; ++i) {
        slab[i].*Next = spare_;
        spare_ = &slab[i];
      }
      slabs_.push_back(std::move(slab));
    }
    T* record = spare_;
    spare_ = record->*Next;
    *record = T{};
    return record;
  }

  void give_back(T* record) noexcept {
    *record = T{};
    record->*Next = spare_;
    spare_ = record;
  }

 private:
  std::vector<std::unique_ptr<T[]>> slabs_;
  T* spare_ = nullptr;
};

}  // namespace ndcuda::detail
