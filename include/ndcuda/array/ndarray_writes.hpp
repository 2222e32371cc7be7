// ndarray's element writes, defined out of the class: assign_elements (an array into a view, through
// a temporary when they overlap) and fill_elements (a scalar). Builds on array/ndarray_class.hpp,
// array/detail/kernels.hpp (copy_cast, fill_pattern) and memory/detail/buffer.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <cstdint>
#include <ndcuda/array/detail/kernels.hpp>
#include <ndcuda/array/ndarray_class.hpp>
#include <ndcuda/array/view_math.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/memory/detail/buffer.hpp>

namespace ndcuda {

template <array_element E>
template <array_element U>
void ndarray<E>::assign_elements(const ndarray<U>& other) const {
  const ndcuda::detail::op_range<"ndarray::assign"> nvtx;
  if (static_cast<const void*>(&other) == static_cast<const void*>(this)) {
    return;
  }
  check_assignable(other.shape(), shape());  // NumPy's message if it does not fit
  if (size() == 0) {
    return;
  }
  detail::order_after(stream_, other.stream());
  detail::retain_for_capture(stream_, owner_);
  detail::retain_for_capture(stream_, other.owner_);
  if (needs_temporary(reinterpret_cast<std::uintptr_t>(data()), sizeof(E), shape(), strides(),
                      reinterpret_cast<std::uintptr_t>(other.data()), sizeof(U), other.shape(), other.strides())) {
    const ndarray<U> dense = other.on_stream(stream_).copy();
    detail::copy_cast(dtype_of<E>, data(), shape(), strides(), dtype_of<U>, dense.data(), dense.shape(),
                      dense.strides(), stream_);
  } else {
    detail::copy_cast(dtype_of<E>, data(), shape(), strides(), dtype_of<U>, other.data(), other.shape(),
                      other.strides(), stream_);
  }
}

template <array_element E>
void ndarray<E>::fill_elements(const E& value) const {
  const ndcuda::detail::op_range<"ndarray::fill"> nvtx;
  if (size() == 0) {
    return;
  }
  detail::retain_for_capture(stream_, owner_);
  // The one axis left when extent-1 axes are dropped, if there is only one: a strided fill.
  int axes = 0;
  index_t stride = 1;
  for (std::size_t i = 0; i < layout_.shape.size(); ++i) {
    if (layout_.shape[i] != 1) {
      ++axes;
      stride = layout_.strides[i];
    }
  }
  if (is_contiguous()) {
    detail::fill_pattern(data(), sizeof(E), &value, size(), 1, stream_);
  } else if (axes <= 1) {
    detail::fill_pattern(data(), sizeof(E), &value, size(), stride, stream_);
  } else {
    // A one-element buffer broadcast by the strided copy kernel (writes each element once,
    // or many times through zero strides, always the same value).
    void* p = nullptr;
    const auto one = detail::allocate_buffer(sizeof(E), stream_, &p);
    detail::fill_pattern(p, sizeof(E), &value, 1, 1, stream_);
    detail::copy_cast(dtype_of<E>, data(), shape(), strides(), dtype_of<E>, p, {}, {}, stream_);
  }
}

}  // namespace ndcuda

#pragma GCC visibility pop
