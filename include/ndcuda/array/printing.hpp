/// @file
/// Printing arrays as NumPy does: nd::repr, nd::str and operator<<, which read the data back to the
/// host (waiting). Builds on array/ndarray_host_io.hpp (to_host) and array/format.hpp (the text).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <algorithm>
#include <memory>
#include <ndcuda/array/format.hpp>
#include <ndcuda/array/ndarray_class.hpp>
#include <ndcuda/array/ndarray_host_io.hpp>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace ndcuda {

namespace detail {

/// Copies `a` to the host (waiting) and formats it: `str` picks array_str over array_repr.
template <array_element E>
std::string format_array(const ndarray<E>& a, bool str) {
  refuse_host_wait(a.stream(), "printing an array");
  const std::vector<E> host = a.to_host();
  if constexpr (std::is_same_v<std::remove_cv_t<E>, bool>) {
    std::unique_ptr<bool[]> bytes = host_array<bool>(host.size() + 1, "printing an array");
    std::copy(host.begin(), host.end(), bytes.get());
    const std::span<const bool> values(bytes.get(), host.size());
    return str ? array_str<bool>(values, a.shape()) : array_repr<bool>(values, a.shape());
  } else {
    const std::span<const E> values(host.data(), host.size());
    return str ? array_str<E>(values, a.shape()) : array_repr<E>(values, a.shape());
  }
}

}  // namespace detail

/// NumPy's repr(a) under the thread's print options: "array([1. , 2.5], dtype=float32)". Reads
/// the data back (waits).
template <array_element E>
[[nodiscard]] std::string repr(const ndarray<E>& a) {
  return detail::format_array(a, false);
}
/// NumPy's str(a) under the thread's print options: "[1.  2.5]", a 0-d array as its scalar
/// ("3.0"). Reads the data back (waits).
template <array_element E>
[[nodiscard]] std::string str(const ndarray<E>& a) {
  return detail::format_array(a, true);
}

/// NumPy's repr: array([[1., 2.],\n       [3., 4.]], dtype=float32). Reads the data back (waits).
template <array_element E>
std::ostream& operator<<(std::ostream& os, const ndarray<E>& a) {
  return os << detail::format_array(a, false);
}

}  // namespace ndcuda

#pragma GCC visibility pop
