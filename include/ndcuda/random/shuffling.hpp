/// @file
/// The generator's sampling and shuffling methods (NumPy's permutation, shuffle, permuted, choice):
/// random 64-bit keys sorted by nd::argsort, then rows gathered. Eager: they return arrays.
/// Builds on the class in random/generator_class.hpp and on
/// ops/{sorting,scans,reductions,functions}.hpp; <ndcuda/random/generator.hpp> includes this file.
#pragma once

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

inline ndarray<std::int64_t> generator::permutation(index_t n, stream_arg sa) const {
  const ndcuda::detail::op_range<"generator::permutation"> nvtx;
  const stream s = sa.get();
  if (n < 0) {
    throw value_error("permutation: n = " + std::to_string(n) + " is negative; pass a size >= 0");
  }
  const ndarray<std::uint64_t> keys = random_bits({n}, s);
  return argsort(keys, 0, s);
}

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

inline ndarray<std::int64_t> generator::choice_indices(index_t n, index_t k, bool replace,
                                                       const std::optional<ndarray<double>>& p, stream_arg sa) const {
  const stream s = sa.get();
  if (n == 0 && k > 0) {
    throw value_error("choice: a cannot be empty unless no samples are taken (NumPy's ValueError)");
  }
  if (p && (p->ndim() != 1 || p->size() != n)) {
    throw shape_error("choice: p must be 1-dimensional and as long as a (" + std::to_string(n) + "), got shape " +
                      format_shape(p->shape()));
  }
  if (!replace && k > n) {
    throw value_error("choice: cannot take a larger sample (" + std::to_string(k) + ") than the population (" +
                      std::to_string(n) + ") when replace is false (NumPy's ValueError)");
  }
  if (!p) {
    if (replace) {
      return integers<std::int64_t>(std::int64_t{0}, static_cast<std::int64_t>(n), shape_t{k}, false, s);
    }
    return permutation(n, s)(slice(0, k)).copy();
  }
  const ndarray<double> weights = p->on_stream(s);
  // NumPy's checks, for both methods: every weight finite and non-negative, and the sum 1 within
  // sqrt(eps). ({1.5, -0.5, 0, 0, 0} sums to 1 and was accepted.)
  if (n > 0) {
    const double smallest = min(weights).item();
    if (!(smallest >= 0.0) || !std::isfinite(max(weights).item())) {
      throw value_error("choice: probabilities are not non-negative (p holds " + std::to_string(smallest) +
                        "; every entry must be finite and >= 0; NumPy's ValueError)");
    }
  }
  if (!replace) {
    // Efraimidis-Spirakis: the k smallest E_i / p_i (E_i exponential) are a weighted sample
    // without replacement, drawn as NumPy's sequential method draws it.
    if (nd_count(weights) < k) {
      throw value_error("choice: fewer non-zero entries in p than size (NumPy's ValueError)");
    }
    if (const double total = sum(weights).item(); !(std::abs(total - 1.0) <= std::sqrt(2.220446049250313e-16))) {
      throw value_error("choice: probabilities do not sum to 1 (they sum to " + std::to_string(total) +
                        "; NumPy's ValueError)");
    }
    const ndarray<double> keys = standard_exponential<double>({n}, s) / weights;
    return argsort(keys, 0, s)(slice(0, k)).copy();
  }
  const ndarray<double> cdf = cumsum(weights, 0, s);
  const double total = cdf(n - 1).item();
  if (!(std::abs(total - 1.0) <= std::sqrt(2.220446049250313e-16))) {
    throw value_error("choice: probabilities do not sum to 1 (they sum to " + std::to_string(total) +
                      "; NumPy's ValueError)");
  }
  const ndarray<double> u = random<double>({k}, s) * total;
  const ndarray<std::int64_t> idx = searchsorted(cdf, u, side::right, s);
  return where(idx > std::int64_t{n - 1}, std::int64_t{n - 1}, idx);
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

inline ndarray<std::int64_t> generator::choice(index_t n, const size_arg& size_given, bool replace,
                                               const choice_weights& p, stream_arg sa) const {
  const ndcuda::detail::op_range<"generator::choice"> nvtx;
  const stream s = sa.get();
  if (n < 0) {
    throw value_error("choice: a must be a positive integer, got " + std::to_string(n));
  }
  const shape_t size = size_given.or_scalar();  // none: one value, 0-d
  return choice_indices(n, shape_size(size), replace, p.get(), s).reshape(size);
}

inline index_t generator::nd_count(const ndarray<double>& w) {
  return static_cast<index_t>(count_nonzero(w).item());
}

}  // namespace ndcuda::random
