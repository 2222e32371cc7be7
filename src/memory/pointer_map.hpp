// Internal: an open-addressing hash map from allocation address to its record, with no allocation
// per insert. The pools look up every deallocate here, so it sits on the hot path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ndcuda::detail {

/// Keys are non-null addresses; values are pointers. Linear probing with backward-shift deletion,
/// so there are no tombstones and lookups stay short after long churn.
template <class Value>
class pointer_map {
 public:
  pointer_map() : slots_(16) {}

  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  [[nodiscard]] Value* find(const void* key) const noexcept {
    const auto k = reinterpret_cast<std::uintptr_t>(key);
    for (std::size_t i = home(k);; i = next(i)) {
      const slot& s = slots_[i];
      if (s.key == k) {
        return s.value;
      }
      if (s.key == 0) {
        return nullptr;
      }
    }
  }

  /// Inserts or overwrites.
  void insert(const void* key, Value* value) {
    if ((size_ + 1) * 2 > slots_.size()) {
      rehash(slots_.size() * 2);
    }
    place(reinterpret_cast<std::uintptr_t>(key), value);
  }

  /// Removes and returns the value, or nullptr when the key is absent.
  Value* erase(const void* key) noexcept {
    const auto k = reinterpret_cast<std::uintptr_t>(key);
    std::size_t i = home(k);
    while (slots_[i].key != k) {
      if (slots_[i].key == 0) {
        return nullptr;
      }
      i = next(i);
    }
    Value* value = slots_[i].value;
    // Backward shift: pull later members of the probe run into the hole when that moves them no
    // further from home than they were.
    std::size_t hole = i;
    for (std::size_t j = next(i);; j = next(j)) {
      if (slots_[j].key == 0) {
        break;
      }
      const std::size_t h = home(slots_[j].key);
      const bool movable = (hole <= j) ? (h <= hole || h > j) : (h <= hole && h > j);
      if (movable) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole] = slot{};
    --size_;
    return value;
  }

  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const slot& s : slots_) {
      if (s.key != 0) {
        fn(reinterpret_cast<void*>(s.key), s.value);
      }
    }
  }

  void clear() noexcept {
    for (slot& s : slots_) {
      s = slot{};
    }
    size_ = 0;
  }

 private:
  struct slot {
    std::uintptr_t key = 0;
    Value* value = nullptr;
  };

  [[nodiscard]] std::size_t home(std::uintptr_t k) const noexcept {
    // Allocations are 256-byte aligned: drop those bits, then mix (Fibonacci hashing).
    const std::uint64_t mixed = static_cast<std::uint64_t>(k >> 8) * 0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(mixed >> 32) & (slots_.size() - 1);
  }
  [[nodiscard]] std::size_t next(std::size_t i) const noexcept { return (i + 1) & (slots_.size() - 1); }

  void place(std::uintptr_t k, Value* value) {
    std::size_t i = home(k);
    while (slots_[i].key != 0 && slots_[i].key != k) {
      i = next(i);
    }
    if (slots_[i].key == 0) {
      ++size_;
    }
    slots_[i] = slot{k, value};
  }

  void rehash(std::size_t capacity) {
    std::vector<slot> old(capacity);
    old.swap(slots_);
    size_ = 0;
    for (const slot& s : old) {
      if (s.key != 0) {
        place(s.key, s.value);
      }
    }
  }

  std::vector<slot> slots_;
  std::size_t size_ = 0;
};

}  // namespace ndcuda::detail
