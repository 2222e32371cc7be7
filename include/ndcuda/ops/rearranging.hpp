/// @file
/// NumPy's rearranging functions that make new arrays: pad, roll, tile, repeat, tril/triu/tri,
/// meshgrid and indices, each one pass of the gather kernel (ops/detail/arrange_kernels.hpp).
/// The view-returning ones (flip, rot90, moveaxis, diagonal, ...) are in ops/rearranging_views.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <array>
#include <cstring>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/ops/detail/arrange_kernels.hpp>
#include <ndcuda/ops/joining.hpp>
#include <ndcuda/ops/rearranging_views.hpp>
#include <ndcuda/ops/scans.hpp>
#include <optional>
#include <vector>

namespace ndcuda {

namespace detail {

template <array_element E>
std::array<unsigned char, 16> bytes_of(const E& value) {
  std::array<unsigned char, 16> b{};
  std::memcpy(b.data(), &value, sizeof(E));
  return b;
}

/// A new C-contiguous array of remap_shape(r.axes) gathered from `in` (whose layout has one axis
/// per map) on in's stream.
template <array_element E>
ndarray<E> remap(const ndarray<E>& in, const remap_request& r) {
  ndarray<E> out = empty<E>(remap_shape(r.axes), in.stream());
  retain_for_capture(in.stream(), in.owner());
  remap_copy(erase(in), out.data(), r, in.stream());
  return out;
}

/// `a` as a 1-d array (a view when the strides allow, else a copy), for NumPy's axis=None.
template <array_element E>
ndarray<E> flat_of(const ndarray<E>& a) {
  return a.reshape({a.size()});
}

template <array_element E>
ndarray<E> triangle(const ndarray<E>& m, index_t k, int which) {
  if (m.ndim() == 0) {
    throw shape_error(std::string(which == 1 ? "tril" : "triu") + ": the input must have at least one dimension");
  }
  // NumPy broadcasts a 1-d input against the (n, n) mask: each row is the input.
  const ndarray<E> a = m.ndim() == 1 ? m.broadcast_to({m.shape()[0], m.shape()[0]}) : m;
  remap_request r;
  for (index_t n : a.shape()) {
    r.axes.push_back(remap_axis{n, n, remap_mode::identity, 0});
  }
  r.triangle = which;
  r.k = k;
  return remap(a, r);
}

}  // namespace detail

/// np.pad(a, pad_width, mode, constant_values): widths as NumPy's forms (2, {1, 2},
/// {{1, 2}, {0, 3}}), modes constant (default, with per-axis before/after values), edge,
/// reflect, symmetric and wrap (any width, also wider than the axis). One pass over the result.
template <array_element E>
ndarray<E> pad(const ndarray<E>& a, const pad_width& width, pad_mode mode = pad_mode::constant,
               const pad_values& constant_values = 0.0) {
  const ndcuda::detail::op_range<"nd::pad"> nvtx;
  const auto widths = width.resolve(a.ndim());
  detail::remap_request r;
  r.axes = detail::pad_plan(a.shape(), widths, mode);
  if (mode == pad_mode::constant) {
    for (const auto& [b, f] : constant_values.resolve(a.ndim())) {
      r.before_values.push_back(detail::bytes_of(detail::element_from<E>(b)));
      r.after_values.push_back(detail::bytes_of(detail::element_from<E>(f)));
    }
  }
  return detail::remap(a, r);
}

/// np.roll(a, shift, axis): elements shifted along `axis` (wrapping round); no axis rolls the
/// flattened array and restores the shape.
template <array_element E>
ndarray<E> roll(const ndarray<E>& a, const std::vector<index_t>& shifts, const std::vector<index_t>& axes) {
  const ndcuda::detail::op_range<"nd::roll"> nvtx;
  detail::remap_request r;
  r.axes = detail::roll_plan(a.shape(), shifts, axes);
  return detail::remap(a, r);
}
/// np.roll with one shift, along `axis` or over the flattened array.
template <array_element E>
ndarray<E> roll(const ndarray<E>& a, index_t shift, std::optional<index_t> axis = std::nullopt) {
  if (axis) {
    return roll(a, std::vector<index_t>{shift}, std::vector<index_t>{*axis});
  }
  return roll(detail::flat_of(a), std::vector<index_t>{shift}, std::vector<index_t>{0}).reshape(a.shape());
}

/// np.tile(a, reps): a repeated reps[i] times along each axis (reps and a's shape aligned at the
/// end, the shorter padded with 1s in front).
template <array_element E>
ndarray<E> tile(const ndarray<E>& a, const std::vector<index_t>& reps) {
  const ndcuda::detail::op_range<"nd::tile"> nvtx;
  detail::tile_plan_t plan = detail::tile_plan(a.shape(), reps);
  std::vector<index_t> leading;
  for (std::size_t d = 0; d < plan.in_shape.size() - a.shape().size(); ++d) {
    leading.push_back(static_cast<index_t>(d));
  }
  const ndarray<E> in = leading.empty() ? a : a.expand_dims(leading);
  return detail::remap(in, detail::remap_request{std::move(plan.axes)});
}
/// np.tile with one repetition count (along the last axis).
template <array_element E>
ndarray<E> tile(const ndarray<E>& a, index_t reps) {
  return tile(a, std::vector<index_t>{reps});
}

/// np.repeat(a, count, axis): each element `count` times along `axis` (no axis: of the flattened array).
template <array_element E>
ndarray<E> repeat(const ndarray<E>& a, index_t count, std::optional<index_t> axis = std::nullopt) {
  const ndcuda::detail::op_range<"nd::repeat"> nvtx;
  const ndarray<E> in = axis ? a : detail::flat_of(a);
  const int ax = normalize_axis(axis.value_or(0), in.ndim());
  return detail::remap(in, detail::remap_request{detail::repeat_plan(in.shape(), ax, count)});
}
namespace detail {
/// repeat along `ax` by the running sums `ends` of the counts (on the device, one per element
/// along the axis) that sum to `total`: the table of source indices is built on the device.
template <array_element E>
ndarray<E> repeat_by_ends(const ndarray<E>& in, int ax, const ndarray<std::int64_t>& ends, index_t total) {
  std::vector<remap_axis> axes = repeat_plan(in.shape(), ax, 1);
  axes[static_cast<std::size_t>(ax)].out_extent = total;
  axes[static_cast<std::size_t>(ax)].mode = remap_mode::table;
  const shape_t out_shape = remap_shape(axes);
  (void)checked_nbytes(out_shape, sizeof(E));  // NumPy's "array is too big" before the table is made
  if (total == 0 || in.shape()[static_cast<std::size_t>(ax)] == 0) {
    return empty<E>(out_shape, in.stream());
  }
  const ndarray<std::int64_t> table = empty<std::int64_t>({total}, in.stream());
  repeat_table_device(ends.data(), ends.size(), table.data(), in.stream());
  remap_request r{std::move(axes)};
  r.table = table.data();
  return remap(in, r);
}
}  // namespace detail

/// np.repeat(a, counts, axis) with one count per element along the axis (host counts).
template <array_element E>
ndarray<E> repeat(const ndarray<E>& a, const std::vector<index_t>& counts, std::optional<index_t> axis = std::nullopt) {
  const ndcuda::detail::op_range<"nd::repeat"> nvtx;
  const ndarray<E> in = axis ? a : detail::flat_of(a);
  const int ax = normalize_axis(axis.value_or(0), in.ndim());
  const index_t extent = in.shape()[static_cast<std::size_t>(ax)];
  detail::check_repeat_counts(extent, counts);
  if (counts.size() == 1) {
    return repeat(in, counts[0], ax);
  }
  // The running sums (checked against int64) go to the device, which builds the table: a host
  // table of the total would be as long as the result (16 TiB for {2**40, 2**40}).
  const std::vector<std::int64_t> ends = detail::repeat_ends(counts);
  return detail::repeat_by_ends(in, ax, asarray(ends, shape_t{extent}, in.stream()), ends.empty() ? 0 : ends.back());
}
/// Counts in device memory (any integer dtype, one per element along the axis, or one): their
/// running sums (cumsum) build the table on the device; the total and the smallest count are read
/// back, so this waits for the stream (capture_error inside a capture: pass host counts there).
template <array_element E, array_element C>
requires std::is_integral_v<C> ndarray<E> repeat(const ndarray<E>& a, const ndarray<C>& counts,
                                                 std::optional<index_t> axis = std::nullopt) {
  const ndcuda::detail::op_range<"nd::repeat"> nvtx;
  detail::refuse_host_wait(counts.stream(), "repeat with counts in device memory");
  const ndarray<E> in = axis ? a : detail::flat_of(a);
  const int ax = normalize_axis(axis.value_or(0), in.ndim());
  const index_t extent = in.shape()[static_cast<std::size_t>(ax)];
  const ndarray<C> flat = detail::flat_of(counts);
  detail::check_repeat_count_size(extent, flat.size());
  if (flat.size() == 1) {
    return repeat(in, static_cast<index_t>(flat.item()), ax);
  }
  std::vector<detail::remap_axis> axes = detail::repeat_plan(in.shape(), ax, 1);
  if (extent == 0) {
    return empty<E>(detail::remap_shape(axes), in.stream());
  }
  if (static_cast<std::int64_t>(min(flat).item()) < 0) {
    throw shape_error("repeats may not contain negative values.");
  }
  // The int64 running sums must not wrap (uint64 counts past int64, or a total past it): an
  // approximate sum in double decides, with room to spare, before the exact sums are made.
  if constexpr (std::is_unsigned_v<C> && sizeof(C) == 8) {
    detail::check_repeat_total(static_cast<double>(max(flat).item()));
  }
  detail::check_repeat_total(sum(flat.template astype<double>()).item());
  const ndarray<std::int64_t> ends = cumsum<std::int64_t>(flat, std::optional<index_t>(0), in.stream());
  return detail::repeat_by_ends(in, ax, ends, ends(extent - 1).item());
}

/// np.tril / np.triu: the last two axes' lower (j - i <= k) / upper (j - i >= k) triangle kept,
/// the rest zero. A 1-d input broadcasts to (n, n), as in NumPy.
template <array_element E>
ndarray<E> tril(const ndarray<E>& m, index_t k = 0) {
  const ndcuda::detail::op_range<"nd::tril"> nvtx;
  return detail::triangle(m, k, 1);
}
/// np.triu: the upper triangle (j - i >= k) of the last two axes kept, the rest zero.
template <array_element E>
ndarray<E> triu(const ndarray<E>& m, index_t k = 0) {
  const ndcuda::detail::op_range<"nd::triu"> nvtx;
  return detail::triangle(m, k, 2);
}
/// np.tri(N, M, k): ones at and below diagonal k of an N x M array (float64 by default, as NumPy).
template <array_element E = double>
ndarray<E> tri(index_t n, std::optional<index_t> m = std::nullopt, index_t k = 0,
               std::optional<stream> s = std::nullopt) {
  const ndcuda::detail::op_range<"nd::tri"> nvtx;
  const index_t cols = m.value_or(n);
  if (n < 0 || cols < 0) {
    throw shape_error("negative dimensions are not allowed");
  }
  const ndarray<E> one = full<E>({1}, detail::element_from<E>(1.0), s);
  return tril(one.broadcast_to({n, cols}), k);
}

/// np.meshgrid's indexing: 'xy' (Cartesian, the default: the first two outputs' axes swapped)
/// or 'ij' (matrix).
enum class meshgrid_indexing { xy, ij };

/// np.meshgrid(*xs, indexing, sparse): coordinate arrays (copies, as NumPy's copy=True); sparse
/// keeps each one's extent-1 axes instead of broadcasting.
template <array_element E>
std::vector<ndarray<E>> meshgrid(const std::vector<ndarray<E>>& xs, meshgrid_indexing indexing = meshgrid_indexing::xy,
                                 bool sparse = false) {
  const ndcuda::detail::op_range<"nd::meshgrid"> nvtx;
  const std::size_t n = xs.size();
  std::vector<ndarray<E>> out;
  for (std::size_t i = 0; i < n; ++i) {
    shape_t s(n, 1);
    s[i] = -1;
    if (indexing == meshgrid_indexing::xy && n > 1 && i < 2) {
      s[i] = 1;
      s[1 - i] = -1;
    }
    out.push_back(detail::flat_of(xs[i]).reshape(s));
  }
  if (!sparse) {
    out = broadcast_arrays(out);
  }
  for (ndarray<E>& x : out) {
    x = x.copy();
  }
  return out;
}
/// np.meshgrid of a braced list of arrays (or lazy values).
template <array_element E>
std::vector<ndarray<E>> meshgrid(std::initializer_list<detail::list_entry<E>> xs,
                                 meshgrid_indexing indexing = meshgrid_indexing::xy, bool sparse = false) {
  return meshgrid(detail::values_of(xs), indexing, sparse);
}

/// np.indices(dimensions): shape (len(dimensions), *dimensions), entry i the index along axis i
/// (int64 by default, as NumPy's dtype=int).
template <array_element E = std::int64_t>
ndarray<E> indices(const shape_t& dimensions, std::optional<stream> s = std::nullopt) {
  const ndcuda::detail::op_range<"nd::indices"> nvtx;
  const auto n = static_cast<index_t>(dimensions.size());
  shape_t shape{n};
  shape.insert(shape.end(), dimensions.begin(), dimensions.end());
  ndarray<E> out = empty<E>(shape, s);
  for (index_t i = 0; i < n; ++i) {
    shape_t along(static_cast<std::size_t>(n), 1);
    along[static_cast<std::size_t>(i)] = dimensions[static_cast<std::size_t>(i)];
    out(i).assign(arange<E>(static_cast<double>(dimensions[static_cast<std::size_t>(i)]), out.stream()).reshape(along));
  }
  return out;
}

// Lazy values take the array forms above once computed (array/view_functions.hpp's rule).
/// pad of a lazy value (computed once).
template <array_expression X>
auto pad(const X& x, const pad_width& width, pad_mode mode = pad_mode::constant,
         const pad_values& constant_values = 0.0) {
  return pad(detail::computed(x), width, mode, constant_values);
}
/// roll(x, shifts, axes) of a lazy value (computed once).
template <array_expression X>
auto roll(const X& x, const std::vector<index_t>& shifts, const std::vector<index_t>& axes) {
  return roll(detail::computed(x), shifts, axes);
}
/// roll(x, shift, axis) of a lazy value (computed once).
template <array_expression X>
auto roll(const X& x, index_t shift, std::optional<index_t> axis = std::nullopt) {
  return roll(detail::computed(x), shift, axis);
}
/// tile(x, reps) of a lazy value (computed once).
template <array_expression X>
auto tile(const X& x, const std::vector<index_t>& reps) {
  return tile(detail::computed(x), reps);
}
/// tile(x, n) of a lazy value (computed once).
template <array_expression X>
auto tile(const X& x, index_t reps) {
  return tile(detail::computed(x), reps);
}
/// repeat(x, n, axis) of a lazy value (computed once).
template <array_expression X>
auto repeat(const X& x, index_t count, std::optional<index_t> axis = std::nullopt) {
  return repeat(detail::computed(x), count, axis);
}
/// repeat(x, counts, axis) of a lazy value (computed once).
template <array_expression X>
auto repeat(const X& x, const std::vector<index_t>& counts, std::optional<index_t> axis = std::nullopt) {
  return repeat(detail::computed(x), counts, axis);
}

}  // namespace ndcuda

#pragma GCC visibility pop
