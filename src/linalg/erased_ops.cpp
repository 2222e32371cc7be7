// Allocation and strided copies on type-erased arrays, through memory/detail/buffer.hpp and array/detail/kernels.hpp.
#include "linalg/erased_ops.hpp"

#include <ndcuda/array/detail/kernels.hpp>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/memory/detail/buffer.hpp>
#include <vector>

namespace ndcuda::linalg::detail {

erased_array empty_array(dtype type, shape_t shape, const stream& s) {
  // Checked as empty() checks (NumPy's "array is too big"): a product that wrapped would allocate a
  // small buffer that the fill and the transforms then overrun (fft with n = 2**62 lost the context).
  const std::size_t bytes = checked_nbytes(shape, itemsize(type));
  void* p = nullptr;
  auto owner = ndcuda::detail::allocate_buffer(bytes, s, &p);
  return erased_array{std::move(owner), p, contiguous_layout(std::move(shape)), type, s.device(), s};
}

erased_array zeros_array(dtype type, shape_t shape, const stream& s) {
  erased_array a = empty_array(type, std::move(shape), s);
  const index_t n = a.size();
  if (n > 0) {
    // All-zero bytes are zero in every dtype: fill bytes, as wide as the element allows.
    const unsigned char zero[16] = {};
    ndcuda::detail::fill_pattern(a.data(), itemsize(type), zero, n, 1, s);
  }
  return a;
}

erased_array contiguous_copy(const erased_array& x, dtype type, const shape_t& shape) {
  const shape_t& target = shape.empty() ? x.layout.shape : shape;
  erased_array out = empty_array(type, target, x.s);
  if (out.size() > 0) {
    ndcuda::detail::retain_for_capture(x.s, x.owner);
    ndcuda::detail::copy_cast(type, out.data(), out.layout.shape, {}, x.type, x.data(), x.layout.shape,
                              x.layout.strides, x.s);
  }
  return out;
}

erased_array as_contiguous(const erased_array& x, dtype type) {
  if (x.type == type && is_c_contiguous(x.layout.shape, x.layout.strides)) {
    return x;
  }
  return contiguous_copy(x, type);
}

erased_array column_major_copy(const erased_array& x, dtype type, const shape_t& batch) {
  const int nd = x.ndim();
  const index_t rows = x.layout.shape[static_cast<std::size_t>(nd - 2)];
  const index_t cols = x.layout.shape[static_cast<std::size_t>(nd - 1)];
  shape_t stored = batch;  // (batch..., cols, rows), C order
  stored.push_back(cols);
  stored.push_back(rows);
  erased_array buf = empty_array(type, stored, x.s);
  shape_t shape = batch;
  shape.push_back(rows);
  shape.push_back(cols);
  strides_t strides = c_strides(stored);
  std::swap(strides[strides.size() - 1], strides[strides.size() - 2]);
  buf.layout = view_layout{shape, strides, 0};
  if (buf.size() > 0) {
    ndcuda::detail::retain_for_capture(x.s, x.owner);
    ndcuda::detail::copy_cast(type, buf.data(), shape, strides, x.type, x.data(), x.layout.shape, x.layout.strides,
                              x.s);
  }
  return buf;
}

void copy_into(const erased_array& dst, const erased_array& src) {
  if (dst.size() == 0) {
    return;
  }
  ndcuda::detail::order_after(dst.s, src.s);
  ndcuda::detail::retain_for_capture(dst.s, src.owner);
  ndcuda::detail::copy_cast(dst.type, dst.data(), dst.layout.shape, dst.layout.strides, src.type, src.data(),
                            src.layout.shape, src.layout.strides, dst.s);
}

erased_array with_layout(const erased_array& x, view_layout layout) {
  erased_array v = x;
  v.layout = std::move(layout);
  return v;
}

erased_array on_stream(const erased_array& x, const stream& s) {
  ndcuda::detail::order_after(s, x.s);
  ndcuda::detail::retain_for_capture(s, x.owner);
  erased_array v = x;
  v.s = s;
  return v;
}

}  // namespace ndcuda::linalg::detail
