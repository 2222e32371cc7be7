// A type-erased array handle: what compiled code above ops/ (src/linalg, src/fft) takes and
// returns, so the public templates stay thin. Builds on array/ndarray.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <memory>
#include <ndcuda/array/ndarray.hpp>
#include <string>
#include <type_traits>

namespace ndcuda::detail {

/// An ndarray without its element type: buffer start, layout relative to it (in elements), dtype.
struct erased_array {
  std::shared_ptr<const void> owner;
  void* base = nullptr;
  view_layout layout;
  dtype type = dtype::float32;
  int device = 0;
  // A placeholder, not `stream()`: a default-constructed stream is a NEW stream on the thread's
  // current device, so every empty index entry (`a(i, nd::all)`) created a stream, and on GPU 0
  // when the array lived on GPU 3 (the isolation test's indexing families).
  ndcuda::stream s = placeholder_stream();

  [[nodiscard]] void* data() const noexcept {
    return static_cast<char*>(base) + layout.offset * static_cast<index_t>(itemsize(type));
  }
  [[nodiscard]] index_t size() const { return shape_size(layout.shape); }
  [[nodiscard]] int ndim() const noexcept { return static_cast<int>(layout.shape.size()); }
};

template <array_element E>
erased_array erase(const ndarray<E>& a) {
  using T = std::remove_cv_t<E>;
  T* base = const_cast<T*>(a.data()) - a.offset();
  return erased_array{a.owner(), static_cast<void*>(base), a.layout(), dtype_of<T>, a.device(), a.stream()};
}

/// The typed handle again; throws when the dtype is not E's (a bug in the caller).
template <array_element E>
ndarray<E> restore(erased_array x) {
  if (x.type != dtype_of<E>) {
    throw error("ndcuda internal error: a " + std::string(name(x.type)) + " result was read as " +
                std::string(name(dtype_of<E>)));
  }
  return ndarray<E>(std::move(x.owner), static_cast<E*>(x.base), std::move(x.layout), x.device, std::move(x.s));
}

}  // namespace ndcuda::detail

#pragma GCC visibility pop
