/// @file
/// The generator's sampling and shuffling methods (NumPy's permutation, shuffle, permuted, choice):
/// random 64-bit keys sorted by nd::argsort, then rows gathered. Eager: they return arrays.
/// Builds on the class in random/generator_class.hpp and on
/// ops/{sorting,scans,reductions,functions}.hpp; <ndcuda/random/generator.hpp> includes this file.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cmath>
#include <cstdint>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/ops/functions.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <ndcuda/ops/scans.hpp>
#include <ndcuda/ops/sorting.hpp>
#include <ndcuda/random/generator_class.hpp>
#include <optional>
#include <string>

namespace ndcuda::random::detail {

/// out[r, :] = in[idx[r], :] for `rows` rows of `row_bytes` bytes (dense), on `s`.
void gather_rows(const void* in, void* out, const std::int64_t* idx, index_t rows, std::size_t row_bytes,
                 const stream& s);
/// out[r, j] = in[r, idx[r, j]] for `rows` dense rows of `length` elements of `itemsize` bytes.
void gather_within_rows(const void* in, void* out, const std::int64_t* idx, index_t rows, index_t length,
                        std::size_t itemsize, const stream& s);

/// `x` with `axis` moved to the front, as a fresh C-contiguous array ordered on `s`.
template <class T>
ndarray<T> front_copy(const ndarray<T>& x, int axis, const stream& s) {
  return x.on_stream(s).swapaxes(0, axis).copy();
}

/// Rows `idx` (int64, 1-d) of `a` along axis 0: shape (idx.size(),) + a.shape()[1:].
template <class T>
ndarray<T> take_rows(const ndarray<T>& a, const ndarray<std::int64_t>& idx, const stream& s) {
  const ndarray<T> dense = a.is_contiguous() ? a.on_stream(s) : a.on_stream(s).copy();
  shape_t shape = dense.shape();
  shape[0] = idx.size();
  ndarray<T> out = empty<T>(shape, s);
  const auto row = static_cast<std::size_t>(a.shape()[0] == 0 ? 0 : a.size() / a.shape()[0]);
  gather_rows(dense.data(), out.data(), idx.data(), idx.size(), row * sizeof(T), s);
  return out;
}

}  // namespace ndcuda::random::detail

namespace ndcuda::random {

template <class T>
ndarray<T> generator::permutation(const ndarray<T>& x, int axis, stream_arg sa) const {
  const ndcuda::detail::op_range<"generator::permutation"> nvtx;
  const stream s = sa.get();
  if (x.ndim() == 0) {
    throw value_error("permutation: x must be an integer or at least 1-dimensional (NumPy's message)");
  }
  const int ax = normalize_axis(axis, x.ndim());
  const ndarray<std::int64_t> idx = permutation(x.shape()[static_cast<std::size_t>(ax)], s);
  ndarray<T> out = detail::take_rows(detail::front_copy(x, ax, s), idx, s);
  return ax == 0 ? out : out.swapaxes(0, ax).copy();
}

template <class T>
void generator::shuffle(const ndarray<T>& x, int axis, stream_arg sa) const {
  const ndcuda::detail::op_range<"generator::shuffle"> nvtx;
  const stream s = sa.get();
  const ndarray<T> shuffled = permutation(x, axis, s);
  x.on_stream(s)(ellipsis) = shuffled;
}

template <class T>
ndarray<T> generator::permuted(const ndarray<T>& x, std::optional<int> axis, stream_arg sa) const {
  const ndcuda::detail::op_range<"generator::permuted"> nvtx;
  const stream s = sa.get();
  if (!axis) {
    return permutation(x.on_stream(s).copy().reshape({-1}), 0, s).reshape(x.shape());
  }
  const int ax = normalize_axis(*axis, x.ndim());
  const int last = x.ndim() - 1;
  const ndarray<T> moved = x.on_stream(s).swapaxes(ax, last).copy();
  const ndarray<std::uint64_t> keys = random_bits(moved.shape(), s);
  const ndarray<std::int64_t> idx = argsort(keys, -1, s);
  ndarray<T> out = empty<T>(moved.shape(), s);
  const index_t length = moved.shape()[static_cast<std::size_t>(last)];
  detail::gather_within_rows(moved.data(), out.data(), idx.data(), length == 0 ? 0 : moved.size() / length, length,
                             sizeof(T), s);
  return ax == last ? out : out.swapaxes(ax, last).copy();
}

template <class T>
ndarray<T> generator::choice(const ndarray<T>& a, const size_arg& size_given, bool replace, const choice_weights& p,
                             stream_arg sa) const {
  const ndcuda::detail::op_range<"generator::choice"> nvtx;
  const stream s = sa.get();
  if (a.ndim() == 0) {
    throw value_error("choice: a must be a positive integer or at least 1-dimensional (NumPy's ValueError)");
  }
  const shape_t size = size_given.or_scalar();  // none: one row
  const ndarray<std::int64_t> idx = choice_indices(a.shape()[0], shape_size(size), replace, p.get(), s);
  ndarray<T> rows = detail::take_rows(a, idx, s);
  shape_t shape = size;
  shape.insert(shape.end(), a.shape().begin() + 1, a.shape().end());
  return rows.reshape(shape);
}

}  // namespace ndcuda::random

#pragma GCC visibility pop
