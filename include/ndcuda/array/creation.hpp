/// @file
/// Array creation: empty/zeros/ones/full, arange/linspace/eye/identity, the *_like forms and asarray
/// from host memory. Builds on array/ndarray.hpp; memory from default_resource(device), work on the
/// given stream or the current device's default stream.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cmath>
#include <concepts>
#include <memory>
#include <ndcuda/array/ndarray.hpp>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/core/error.hpp>
#include <optional>
#include <span>
#include <vector>

namespace ndcuda {

namespace detail {

inline stream stream_or_default(const std::optional<stream>& s) {
  return s ? *s : default_stream();
}

/// A value of E from a double, also for the half types (whose constructors from double are not
/// all host-callable).
template <array_element E>
E element_from(double v) {
  using T = std::remove_cv_t<E>;
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16(static_cast<float>(v));
  } else if constexpr (is_complex(dtype_of<T>)) {
    return T(static_cast<typename T::value_type>(v));
  } else {
    return static_cast<T>(v);
  }
}

/// NumPy's arange length, ceil((stop - start) / step), 0 when negative. shape_error with NumPy's
/// texts when it cannot be computed (NaN) or exceeds int64 (infinite or huge ranges).
[[nodiscard]] index_t arange_count(double start, double stop, double step);

/// start and step of an integer arange in int64, checked: they and the last value, start + (n - 1)
/// * step, must be integers-in-range (shape_error otherwise), so the device computes no overflow.
struct int64_sequence {
  std::int64_t start;
  std::int64_t step;
};
[[nodiscard]] int64_sequence arange_int64(double start, double step, index_t n);

/// linspace's sequence in double: start + i * step, element `last_index` exactly stop (-1: none).
/// Shared by nd::linspace and dist::linspace, so both compute the same values bit for bit.
struct linspace_sequence {
  double step;
  index_t last_index;
};
/// Throws shape_error with NumPy's text for a negative `num`.
[[nodiscard]] inline linspace_sequence linspace_of(double start, double stop, index_t num, bool endpoint) {
  if (num < 0) {
    throw shape_error("Number of samples, " + std::to_string(num) + ", must be non-negative.");
  }
  const index_t div = endpoint ? num - 1 : num;
  return {div > 0 ? (stop - start) / static_cast<double>(div) : 0.0, endpoint && num > 1 ? num - 1 : -1};
}

template <array_element E>
void fill(const ndarray<E>& a, const E& value) {
  fill_pattern(a.data(), sizeof(E), &value, a.size(), 1, a.stream());
}

}  // namespace detail

/// Uninitialised memory of `shape` (C order).
template <array_element E>
ndarray<E> empty(shape_t shape, const std::optional<stream>& s = std::nullopt) {
  // Checked before the stream too: a shape too big is refused even where no device is.
  const std::size_t bytes = checked_nbytes(shape, sizeof(E));
  const stream st = detail::stream_or_default(s);
  void* p = nullptr;
  auto owner = detail::allocate_buffer(bytes, st, &p);
  return ndarray<E>(std::move(owner), static_cast<E*>(p), contiguous_layout(std::move(shape)), st.device(), st);
}

/// NumPy's full: an array of `shape` (C order) with every element `value`.
template <array_element E>
ndarray<E> full(shape_t shape, E value, std::optional<stream> s = std::nullopt) {
  const ndcuda::detail::op_range<"nd::full"> nvtx;
  ndarray<E> a = empty<E>(std::move(shape), s);
  detail::fill(a, value);
  return a;
}
/// NumPy's zeros: an array of `shape` (C order) filled with 0.
template <array_element E>
ndarray<E> zeros(shape_t shape, std::optional<stream> s = std::nullopt) {
  return full<E>(std::move(shape), detail::element_from<E>(0.0), s);
}
/// NumPy's ones: an array of `shape` (C order) filled with 1.
template <array_element E>
ndarray<E> ones(shape_t shape, std::optional<stream> s = std::nullopt) {
  return full<E>(std::move(shape), detail::element_from<E>(1.0), s);
}

/// The same shape, on the same stream as `a` (the contents are not copied).
template <array_element E>
ndarray<E> empty_like(const ndarray<E>& a) {
  return empty<E>(a.shape(), a.stream());
}
/// Zeros of `a`'s shape, on `a`'s stream.
template <array_element E>
ndarray<E> zeros_like(const ndarray<E>& a) {
  return zeros<E>(a.shape(), a.stream());
}
/// Ones of `a`'s shape, on `a`'s stream.
template <array_element E>
ndarray<E> ones_like(const ndarray<E>& a) {
  return ones<E>(a.shape(), a.stream());
}
/// `value` in `a`'s shape, on `a`'s stream.
template <array_element E>
ndarray<E> full_like(const ndarray<E>& a, E value) {
  return full<E>(a.shape(), value, a.stream());
}

/// NumPy's arange: ceil((stop - start) / step) values start, start + step, ... Integers are
/// computed exactly in int64, everything else in double and then converted.
template <array_element E>
ndarray<E> arange(double start, double stop, double step = 1.0, const std::optional<stream>& s = std::nullopt) {
  const ndcuda::detail::op_range<"nd::arange"> nvtx;
  static_assert(!is_complex(dtype_of<E>) && dtype_of<E> != dtype::bool_, "arange: real numeric types only");
  if (step == 0) {
    throw shape_error("arange: step must not be zero (NumPy: Maximum allowed size exceeded)");
  }
  const index_t n = detail::arange_count(start, stop, step);
  (void)checked_bytes(n, sizeof(double));  // the sequence is made in 8-byte values; before the stream
  if constexpr (is_integral(dtype_of<E>)) {
    const auto [first, increment] = detail::arange_int64(start, step, n);
    const stream st = detail::stream_or_default(s);
    ndarray<std::int64_t> seq = empty<std::int64_t>({n}, st);
    detail::sequence_i64(seq.data(), first, increment, n, st);
    return seq.template astype<E>();
  } else {
    const stream st = detail::stream_or_default(s);
    ndarray<double> seq = empty<double>({n}, st);
    detail::sequence_f64(seq.data(), start, step, n, nullptr, false, st);
    return seq.template astype<E>();
  }
}
/// 0, 1, ..., stop - 1.
template <array_element E>
ndarray<E> arange(double stop, std::optional<stream> s = std::nullopt) {
  return arange<E>(0.0, stop, 1.0, s);
}

/// `num` evenly spaced values over [start, stop] (or [start, stop) without the endpoint), computed
/// in double as NumPy does (start + i * step, the last one exactly stop); integer types round down.
template <array_element E>
ndarray<E> linspace(double start, double stop, index_t num = 50, bool endpoint = true,
                    const std::optional<stream>& s = std::nullopt) {
  const ndcuda::detail::op_range<"nd::linspace"> nvtx;
  static_assert(!is_complex(dtype_of<E>) && dtype_of<E> != dtype::bool_, "linspace: real numeric types only");
  const detail::linspace_sequence seq_of = detail::linspace_of(start, stop, num, endpoint);
  (void)checked_bytes(num, sizeof(double));  // before the stream: refused even where no device is
  const stream st = detail::stream_or_default(s);
  ndarray<double> seq = empty<double>({num}, st);
  detail::sequence_block_f64(dtype::float64, seq.data(), 0, num, start, seq_of.step, seq_of.last_index, stop,
                             is_integral(dtype_of<E>), st);
  return seq.template astype<E>();
}

/// n x m (m = n by default) with ones on diagonal k (k > 0 above the main one, k < 0 below).
template <array_element E>
ndarray<E> eye(index_t n, std::optional<index_t> m = std::nullopt, index_t k = 0,
               std::optional<stream> s = std::nullopt) {
  const index_t cols = m.value_or(n);
  ndarray<E> a = zeros<E>({n, cols}, s);  // n, cols >= 0 from here on
  // Written so that no k (INT64_MIN included) overflows: a diagonal outside the matrix is empty.
  index_t row0 = 0;
  index_t col0 = 0;
  index_t len = 0;
  if (k >= 0 && k < cols) {
    col0 = k;
    len = std::min(n, cols - k);
  } else if (k < 0 && k > -n) {
    row0 = -k;
    len = std::min(n - row0, cols);
  }
  if (len > 0) {
    const E one = detail::element_from<E>(1.0);
    detail::fill_pattern(a.data() + row0 * cols + col0, sizeof(E), &one, len, cols + 1, a.stream());
  }
  return a;
}
/// NumPy's identity: the n x n identity matrix, eye(n, n).
template <array_element E>
ndarray<E> identity(index_t n, std::optional<stream> s = std::nullopt) {
  const ndcuda::detail::op_range<"nd::identity"> nvtx;
  return eye<E>(n, n, 0, s);
}

/// A device copy of `host` (C order) viewed as `shape`. `host` may be reused as soon as this
/// returns, whatever memory it is: pinned input is copied directly (no staging) and then waited
/// for, pageable input goes through the transfer engine's staging buffers. To overlap a pinned
/// copy with other work, use the shared_ptr overload, which keeps the host memory alive instead of
/// waiting.
template <array_element E>
ndarray<E> asarray(std::span<const E> host, shape_t shape, std::optional<stream> s = std::nullopt) {
  const ndcuda::detail::op_range<"nd::asarray"> nvtx;
  if (shape_size(shape) != static_cast<index_t>(host.size())) {
    throw shape_error("asarray: " + std::to_string(host.size()) + " host values cannot have shape " +
                      format_shape(shape));
  }
  ndarray<E> a = empty<E>(std::move(shape), s);
  if (a.size() > 0) {
    const transfer_path path = copy_to_device(a.data(), host.data(), a.nbytes(), a.stream());
    if (path == transfer_path::direct && !a.stream().is_capturing()) {
      a.stream().synchronize();
    }
  }
  return a;
}
/// A device copy of a host vector (C order) viewed as `shape`; vector<bool> is handled too.
template <array_element E>
ndarray<E> asarray(const std::vector<E>& host, shape_t shape, std::optional<stream> s = std::nullopt) {
  if constexpr (std::is_same_v<E, bool>) {
    std::unique_ptr<bool[]> bytes = host_array<bool>(host.size() + 1, "asarray");
    std::copy(host.begin(), host.end(), bytes.get());
    return asarray<bool>(std::span<const bool>(bytes.get(), host.size()), std::move(shape), s);
  } else {
    return asarray<E>(std::span<const E>(host), std::move(shape), s);
  }
}
/// A 1-d copy of a vector.
template <array_element E>
ndarray<E> asarray(const std::vector<E>& host) {
  return asarray<E>(host, shape_t{static_cast<index_t>(host.size())});
}
/// A 1-d copy of a vector, on `s`. The stream is a deduced parameter so that a braced shape such
/// as `asarray(v, {4})` can never be read as a stream (whose constructor takes a device index).
template <array_element E, std::same_as<stream> S>
ndarray<E> asarray(const std::vector<E>& host, const S& s) {
  return asarray<E>(host, shape_t{static_cast<index_t>(host.size())}, s);
}
/// `shape_size(shape)` values from `host`.
template <array_element E>
ndarray<E> asarray(const E* host, shape_t shape, std::optional<stream> s = std::nullopt) {
  const ndcuda::detail::op_range<"nd::asarray"> nvtx;
  const auto n = checked_nbytes(shape, sizeof(E)) / sizeof(E);
  return asarray<E>(std::span<const E>(host, n), std::move(shape), s);
}
/// Asynchronous: `host` is kept alive until the copy has completed on the stream (pinned memory is
/// copied directly, without waiting). Not usable during graph capture (the memory layer's rule).
template <array_element E>
ndarray<E> asarray(std::shared_ptr<const E[]> host, shape_t shape, std::optional<stream> s = std::nullopt) {
  const ndcuda::detail::op_range<"nd::asarray"> nvtx;
  ndarray<E> a = empty<E>(std::move(shape), s);
  if (a.size() > 0) {
    copy_to_device(a.data(), std::shared_ptr<const void>(host, host.get()), a.nbytes(), a.stream());
  }
  return a;
}

}  // namespace ndcuda

#pragma GCC visibility pop
