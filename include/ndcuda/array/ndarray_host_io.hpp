/// @file
/// ndarray's host I/O, defined out of the class: to_host(), to_host_vector(), copy_to_host() and
/// item(). Builds on array/ndarray_class.hpp, array/detail/host_read.hpp and memory/transfer.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <algorithm>
#include <cstddef>
#include <memory>
#include <ndcuda/array/detail/host_read.hpp>
#include <ndcuda/array/ndarray_class.hpp>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/memory/host_vector.hpp>
#include <ndcuda/memory/transfer.hpp>
#include <type_traits>
#include <vector>

namespace ndcuda {

template <array_element E>
std::vector<E> ndarray<E>::to_host() const {
  const ndcuda::detail::op_range<"ndarray::to_host"> nvtx;
  return read_host<std::vector<E>>("to_host()");
}

template <array_element E>
host_vector<E> ndarray<E>::to_host_vector() const {
  const ndcuda::detail::op_range<"ndarray::to_host_vector"> nvtx;
  return read_host<host_vector<E>>("to_host_vector()");
}

template <array_element E>
void ndarray<E>::copy_to_host(E* dst, const ndcuda::stream& s) const {
  const ndcuda::detail::op_range<"ndarray::copy_to_host"> nvtx;
  if (size() == 0) {
    return;
  }
  detail::order_after(s, stream_);
  detail::retain_for_capture(s, owner_);
  if (is_contiguous()) {
    ndcuda::copy_to_host(dst, data(), nbytes(), s);
  } else {
    // The temporary is released on `s` after the copy, which stream ordering makes safe.
    const ndarray dense = on_stream(s).copy();
    ndcuda::copy_to_host(dst, dense.data(), nbytes(), s);
  }
}

template <array_element E>
E ndarray<E>::item() const {
  const ndcuda::detail::op_range<"ndarray::item"> nvtx;
  if (size() != 1) {
    throw shape_error("can only convert an array of size 1 to a C++ scalar (this array has shape " +
                      format_shape(layout_.shape) + ")");
  }
  E value{};
  read_into(&value, "item()");
  return value;
}

template <array_element E>
template <class Vector>
Vector ndarray<E>::read_host(const char* what) const {
  const auto n = static_cast<std::size_t>(size());
  Vector out = [&] {
    if constexpr (std::is_same_v<Vector, std::vector<E>>) {
      return detail::zeroed_host_vector<E>(n, what);
    } else {
      return detail::uninitialized_host_vector<E>(n, what);
    }
  }();
  if constexpr (std::is_same_v<std::remove_cv_t<E>, bool>) {
    // std::vector<bool> packs bits: read into bytes, then unpack.
    std::unique_ptr<bool[]> bytes = host_array<bool>(n + 1, what);
    read_into(bytes.get(), what);
    std::copy(bytes.get(), bytes.get() + n, out.begin());
  } else {
    read_into(out.data(), what);
  }
  return out;
}

template <array_element E>
void ndarray<E>::read_into(E* dst, const char* what) const {
  detail::refuse_host_wait(stream_, what);
  if (size() == 0) {
    return;
  }
  const ndarray dense = is_contiguous() ? *this : copy();
  ndcuda::copy_to_host(dst, dense.data(), nbytes(), stream_);
  detail::synchronize_for(stream_, what);
}

}  // namespace ndcuda

#pragma GCC visibility pop
