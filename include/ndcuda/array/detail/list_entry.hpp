// One element of a braced list of arrays and lazy values, `nd::stack({nd::ones_like(t), t, t * t},
// 1)`: ndarray<E> and every lazy value of element type E derive from list_entry<E>, so a function
// taking std::initializer_list<list_entry<E>> deduces E from a list that mixes them (a deduction
// through a base class; a list of different types has no other common parameter). As a base it
// is two null pointers (16 bytes on every array and node, no work); as a list element it refers to
// the value it was made from, which lives until the end of the call's full expression, and value()
// evaluates it (or shares an array's buffer).
// Builds on core/dtype.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <initializer_list>
#include <ndcuda/core/dtype.hpp>
#include <type_traits>
#include <vector>

namespace ndcuda {

template <array_element E>
class ndarray;

namespace detail {

template <array_element E>
class list_entry {
 public:
  list_entry() = default;
  /// A list element for `x` (an array or lazy value of element type E): implicit, as a braced
  /// list needs. Preferred over the copy constructor for a derived `x` (an exact match), so a
  /// list element refers to the whole value rather than to its empty base.
  template <class X>
  requires(!std::is_same_v<X, list_entry> && std::is_base_of_v<list_entry, X>) list_entry(const X& x)
  noexcept : source_(&x), value_of_(&value_of<X>) {}  // NOLINT: implicit, a braced-list element

  /// The value as an array: computed now for a lazy value, the same buffer for an array.
  [[nodiscard]] ndarray<E> value() const { return value_of_(source_); }

 private:
  template <class X>
  static ndarray<E> value_of(const void* source) {
    return ndarray<E>(*static_cast<const X*>(source));
  }

  const void* source_ = nullptr;
  ndarray<E> (*value_of_)(const void*) = nullptr;
};

/// A braced list's values as arrays, in order (lazy ones computed now, arrays shared).
template <array_element E>
std::vector<ndarray<E>> values_of(std::initializer_list<list_entry<E>> entries) {
  std::vector<ndarray<E>> out;
  out.reserve(entries.size());
  for (const list_entry<E>& entry : entries) {
    out.push_back(entry.value());
  }
  return out;
}

}  // namespace detail
}  // namespace ndcuda

#pragma GCC visibility pop
