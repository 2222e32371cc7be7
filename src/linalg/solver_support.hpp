// Helpers shared by the solver sources (solvers.cpp, batched_solvers.cpp): the cuSOLVER element type
// of a dtype, scratch buffers from the pool, device arrays of matrix pointers. Private to ndcuda::linalg.
#pragma once

#include <cuComplex.h>

#include <climits>
#include <initializer_list>
#include <memory>
#include <ndcuda/array/erased_array.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/memory/detail/buffer.hpp>
#include <string>
#include <utility>

#include "linalg/solver_kernels.hpp"

namespace ndcuda::linalg::detail {

inline int to_int(index_t v, const char* what) {
  if (v > INT_MAX) {
    throw shape_error(std::string(what) + ": a matrix extent of " + std::to_string(v) +
                      " exceeds cuSOLVER's 32-bit limit (2^31 - 1)");
  }
  return static_cast<int>(v);
}

/// A buffer of `count` elements of `type` on `s`.
inline std::shared_ptr<const void> scratch(dtype type, index_t count, const stream& s, void** p) {
  return ndcuda::detail::allocate_buffer(static_cast<std::size_t>(count > 0 ? count : 1) * itemsize(type), s, p);
}

/// Calls f.template operator()<T>() with T the cuSOLVER element type of `type`.
template <class F>
decltype(auto) dispatch(dtype type, F&& f) {
  switch (type) {
    case dtype::float32:
      return f.template operator()<float>();
    case dtype::float64:
      return f.template operator()<double>();
    case dtype::complex64:
      return f.template operator()<cuComplex>();
    case dtype::complex128:
      return f.template operator()<cuDoubleComplex>();
    default:
      throw error("ndcuda internal error: no cuSOLVER routines for " + std::string(name(type)));
  }
}

template <class T>
T* element(const erased_array& x, index_t offset) {
  return static_cast<T*>(x.data()) + offset;
}

/// Device arrays of matrix pointers: `groups` arrays of `count` each, over buffers with the given
/// starts and strides (bytes).
inline std::shared_ptr<const void> pointer_arrays(const stream& s, index_t count,
                                                  std::initializer_list<std::pair<void*, index_t>> groups,
                                                  void*** out) {
  void* p = nullptr;
  auto owner = ndcuda::detail::allocate_buffer(sizeof(void*) * static_cast<std::size_t>(count) * groups.size(), s, &p);
  *out = static_cast<void**>(p);
  index_t g = 0;
  for (const auto& [base, stride] : groups) {
    fill_pointer_array(*out + g * count, base, stride, count, s);
    ++g;
  }
  return owner;
}

}  // namespace ndcuda::linalg::detail
