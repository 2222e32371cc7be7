/// @file
/// NumPy's gathering, scattering and finding functions: take, take_along_axis, put, put_along_axis,
/// compress, extract, nonzero, argwhere, flatnonzero, where(cond), and their nd::size(k) forms.
/// Builds on ops/indexing.hpp (the proxy, plans and kernels).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <ndcuda/core/detail/dependent_type.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/ops/indexing.hpp>
#include <ndcuda/ops/take_mode.hpp>
#include <optional>
#include <vector>

namespace ndcuda {

namespace detail {

template <class I>
ndarray<std::int64_t> nonzero_rows(const I& x, std::optional<index_t> size, std::int64_t fill, const char* what) {
  const auto a = to_array(x);
  return restore<std::int64_t>(nonzero_arrays(erase(a), size, fill, true, a.stream(), what)[0]);
}

template <class I>
std::vector<ndarray<std::int64_t>> nonzero_of(const I& x, std::optional<index_t> size, std::int64_t fill) {
  const auto a = to_array(x);
  if (a.ndim() == 0) {
    throw shape_error("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead.");
  }
  std::vector<ndarray<std::int64_t>> out;
  for (erased_array& e : nonzero_arrays(erase(a), size, fill, false, a.stream(), "nonzero")) {
    out.push_back(restore<std::int64_t>(std::move(e)));
  }
  return out;
}

// An int32/int64 index array for the kernels (other integer types converted).
template <class I>
erased_array index_array(const I& idx, const stream& s) {
  index_arg arg = to_index_arg(idx, s);
  if (arg.entry.k != index_entry::kind::integer_array) {
    throw type_error("an index array of integers is needed here");
  }
  return arg.array;
}

/// a[order] = values for a 1-d `a` and an `order` that names each position at most once, as an
/// argsort does. The caller vouches for that: one plain scatter, without the stable sort of the
/// positions that `a(order) = values` runs so that the last of repeated writers wins (at 2^25
/// positions that sort is most of the time). Indices are still checked (one wait).
template <array_element E>
void scatter_permutation(const ndarray<E>& a, const ndarray<std::int64_t>& order, const ndarray<E>& values) {
  if (a.ndim() != 1 || order.ndim() != 1 || values.shape() != order.shape()) {
    throw shape_error("ndcuda internal error: scatter_permutation of " + format_shape(values.shape()) + " values at " +
                      format_shape(order.shape()) + " positions of an array of shape " + format_shape(a.shape()) +
                      "; please report this");
  }
  const stream& s = a.stream();
  const index_arg arg = to_index_arg(order, s);
  const resolved_index r = resolve_index(erase(a), std::span<const index_arg>(&arg, 1), s);
  const ndarray<E> dense = values.is_contiguous() ? values : values.copy();  // on values' stream
  order_after(s, dense.stream());
  scatter_into(erase(a), r.plan, r.arrays, dense.data(), true, s);
  order_after(dense.stream(), s);  // dense is released on its stream, after the scatter read it
}

// take_along_axis's plan: every axis but `axis` pairs a's axis with the index's (broadcast).
inline index_plan along_axis_plan(const view_layout& a, const shape_t& idx, int axis) {
  if (idx.size() != a.shape.size()) {
    throw shape_error("`indices` and `arr` must have the same number of dimensions");
  }
  index_plan plan;
  plan.advanced = true;
  plan.offset = a.offset;
  for (std::size_t d = 0; d < a.shape.size(); ++d) {
    const bool on_axis = static_cast<int>(d) == axis;
    const index_t n = on_axis ? idx[d] : (a.shape[d] == 1 ? idx[d] : a.shape[d]);
    if (!on_axis && idx[d] != 1 && idx[d] != n) {
      throw shape_error("shape mismatch: objects cannot be broadcast to a single shape: the index of shape " +
                        format_shape(idx) + " and the array of shape " + format_shape(a.shape) + " along axis " +
                        std::to_string(d));
    }
    plan.shape.push_back(n);
    plan.strides.push_back(on_axis || a.shape[d] == 1 ? 0 : a.strides[d]);
  }
  const auto ax = static_cast<std::size_t>(axis);
  plan.advanced_shape = plan.shape;
  plan.arrays.push_back(advanced_source{0, 0, axis, a.shape[ax], a.strides[ax], false});
  return plan;
}

}  // namespace detail

/// np.take(a, indices, axis, mode): a(nd::all, ..., indices) along `axis`; without an axis, of the
/// flattened array. `indices`: an integer array or expression, or a std::vector of integers.
/// `mode` as NumPy's: take_mode::raise (the default) checks the indices and waits for the check;
/// wrap and clip map them into range and never wait (CuPy's take always wraps).
template <array_element E, class I>
[[nodiscard]] ndarray<E> take(const ndarray<E>& a, const I& indices, std::optional<index_t> axis = std::nullopt,
                              take_mode mode = take_mode::raise) {
  if (!axis) {
    return take(a.ravel(), indices, index_t{0}, mode);
  }
  const ndcuda::detail::op_range<"nd::take"> nvtx;
  const int ax = normalize_axis(*axis, a.ndim());
  std::vector<detail::index_arg> args(
      static_cast<std::size_t>(ax),
      detail::index_arg{detail::index_entry{detail::index_entry::kind::basic, all, {}, 0}, {}});
  if constexpr (requires { typename I::value_type; } && std::is_same_v<typename I::value_type, bool>) {
    // NumPy's take reads bools as the integers 0 and 1, never as a mask.
    if constexpr (requires { indices.template astype<std::int64_t>(); }) {
      args.push_back(detail::to_index_arg(indices.template astype<std::int64_t>(), a.stream()));
    } else {
      args.push_back(detail::to_index_arg(std::vector<std::int64_t>(indices.begin(), indices.end()), a.stream()));
    }
  } else {
    args.push_back(detail::to_index_arg(indices, a.stream()));
  }
  return indexed<E>(a, std::move(args)).read(mode);
}

/// np.take_along_axis(a, indices, axis): indices of a's ndim, broadcast against a on the other
/// axes (applies argsort's result: take_along_axis(a, argsort(a, 1), 1)).
template <array_element E, class I>
[[nodiscard]] ndarray<E> take_along_axis(const ndarray<E>& a, const I& indices, index_t axis) {
  const ndcuda::detail::op_range<"nd::take_along_axis"> nvtx;
  const stream& s = a.stream();
  const detail::erased_array idx = detail::index_array(indices, s);
  const detail::index_plan plan = detail::along_axis_plan(a.layout(), idx.layout.shape, normalize_axis(axis, a.ndim()));
  ndarray<E> out = empty<E>(plan.shape, s);
  detail::gather_into(detail::erase(a), plan, std::span<const detail::erased_array>(&idx, 1), out.data(), s);
  return out;
}

/// np.put_along_axis(a, indices, values, axis): the scatter twin of take_along_axis; repeated
/// indices keep the last value.
template <array_element E, class I, class V>
void put_along_axis(const ndarray<E>& a, const I& indices, const V& values, index_t axis) {
  const ndcuda::detail::op_range<"nd::put_along_axis"> nvtx;
  const stream& s = a.stream();
  const detail::erased_array idx = detail::index_array(indices, s);
  const detail::index_plan plan = detail::along_axis_plan(a.layout(), idx.layout.shape, normalize_axis(axis, a.ndim()));
  const ndarray<E> v = [&] {
    if constexpr (detail::element_scalar<V, E>) {
      return full<E>(plan.shape, detail::element_value<E>(values), s);
    } else {
      return detail::to_array(values).on_stream(s).broadcast_to(plan.shape).template astype<E>();
    }
  }();
  detail::scatter_into(detail::erase(a), plan, std::span<const detail::erased_array>(&idx, 1), v.data(), false, s);
}

/// np.put(a, ind, v): a.flat[ind] = v, v repeated (or cut) to ind's length; the last repeat wins.
template <array_element E, class I, class V>
void put(const ndarray<E>& a, const I& ind, const V& v) {
  const ndcuda::detail::op_range<"nd::put"> nvtx;
  if (!a.is_contiguous()) {
    const ndarray<E> dense = a.copy();
    put(dense, ind, v);
    a.assign(dense);
    return;
  }
  const stream& s = a.stream();
  const ndarray<E> flat = a.reshape({-1});
  const detail::index_arg arg = detail::to_index_arg(ind, s);
  const indexed<E> target(flat, std::vector<detail::index_arg>{arg});
  const detail::resolved_index r = target.resolve();
  const index_t n = shape_size(r.plan.shape);
  ndarray<E> values;
  if constexpr (detail::element_scalar<V, E>) {
    values = full<E>(r.plan.shape, detail::element_value<E>(v), s);
  } else {
    const auto x = detail::to_array(v).on_stream(s).ravel();
    if (x.size() == 0 || n == 0) {
      return;
    }
    const ndarray<E> cast = x.template astype<E>();
    values = cast.size() == n ? cast.reshape(r.plan.shape)
                              : take(cast, ndarray<std::int64_t>(arange<detail::dependent_t<std::int64_t, E>>(
                                                                     0, static_cast<double>(n), 1, s) %
                                                                 static_cast<std::int64_t>(cast.size())))
                                    .reshape(r.plan.shape);
  }
  detail::scatter_into(detail::erase(flat), r.plan, r.arrays, values.data(), false, s);
}

/// np.nonzero(x): one int64 array per axis of x (row-major order of the true elements). Waits
/// for the count (capture_error while capturing: use the nd::size form).
template <class X>
[[nodiscard]] std::vector<ndarray<std::int64_t>> nonzero(const X& x) {
  const ndcuda::detail::op_range<"nd::nonzero"> nvtx;
  return detail::nonzero_of(x, std::nullopt, 0);
}
/// JAX's nonzero(x, size=k, fill_value=fill): exactly k per axis, padded with `fill`; no wait,
/// so it captures like any op.
template <class X>
[[nodiscard]] std::vector<ndarray<std::int64_t>> nonzero(const X& x, static_size size, std::int64_t fill = 0) {
  const ndcuda::detail::op_range<"nd::nonzero"> nvtx;
  return detail::nonzero_of(x, size.value, fill);
}
/// np.where(cond) with one argument is np.nonzero(cond).
template <class X>
requires array_operand<X>
[[nodiscard]] std::vector<ndarray<std::int64_t>> where(const X& cond) {
  const ndcuda::detail::op_range<"nd::where"> nvtx;
  return nonzero(cond);
}
/// np.where(cond) with a static size: nonzero(cond, size, fill).
template <class X>
requires array_operand<X>
[[nodiscard]] std::vector<ndarray<std::int64_t>> where(const X& cond, static_size size, std::int64_t fill = 0) {
  const ndcuda::detail::op_range<"nd::where"> nvtx;
  return nonzero(cond, size, fill);
}

/// np.argwhere(x): (N, x.ndim()) int64, one row per true element.
template <class X>
[[nodiscard]] ndarray<std::int64_t> argwhere(const X& x) {
  const ndcuda::detail::op_range<"nd::argwhere"> nvtx;
  return detail::nonzero_rows(x, std::nullopt, 0, "argwhere");
}
/// argwhere with a static size: exactly `size` rows, padded with `fill`; no host wait.
template <class X>
[[nodiscard]] ndarray<std::int64_t> argwhere(const X& x, static_size size, std::int64_t fill = 0) {
  const ndcuda::detail::op_range<"nd::argwhere"> nvtx;
  return detail::nonzero_rows(x, size.value, fill, "argwhere");
}

/// np.flatnonzero(x): the flat (C-order) positions of the true elements.
template <class X>
[[nodiscard]] ndarray<std::int64_t> flatnonzero(const X& x) {
  const ndcuda::detail::op_range<"nd::flatnonzero"> nvtx;
  return nonzero(detail::to_array(x).ravel())[0];
}
/// flatnonzero with a static size: exactly `size` positions, padded with `fill`; no host wait.
template <class X>
[[nodiscard]] ndarray<std::int64_t> flatnonzero(const X& x, static_size size, std::int64_t fill = 0) {
  const ndcuda::detail::op_range<"nd::flatnonzero"> nvtx;
  return nonzero(detail::to_array(x).ravel(), size, fill)[0];
}

/// np.extract(cond, a): the elements of a (flattened) where cond (flattened, read as bool) is true.
template <class C, array_element E>
[[nodiscard]] ndarray<E> extract(const C& cond, const ndarray<E>& a) {
  const ndcuda::detail::op_range<"nd::extract"> nvtx;
  const auto c = detail::to_array(cond).ravel();
  const ndarray<E> flat = a.ravel();
  if (c.size() != flat.size()) {  // NumPy: take(ravel(a), nonzero(ravel(cond))[0])
    return take(flat, nonzero(c)[0]);
  }
  return detail::restore<E>(
      detail::extract_rows(detail::erase(flat), detail::erase(c), std::nullopt, nullptr, a.stream(), "extract"));
}
/// JAX's extract(cond, a, size=k, fill_value=fill): exactly k elements, padded with `fill`; no
/// wait, so it captures. cond and a must have the same size.
template <class C, array_element E>
[[nodiscard]] ndarray<E> extract(const C& cond, const ndarray<E>& a, static_size size, E fill = E{}) {
  const ndcuda::detail::op_range<"nd::extract"> nvtx;
  const auto c = detail::to_array(cond).ravel();
  const ndarray<E> flat = a.ravel();
  if (c.size() != flat.size()) {
    throw shape_error("extract with nd::size needs a condition of the array's size (" + std::to_string(flat.size()) +
                      "), not " + std::to_string(c.size()));
  }
  return detail::restore<E>(
      detail::extract_rows(detail::erase(flat), detail::erase(c), size.value, &fill, a.stream(), "extract"));
}

/// np.compress(cond, a, axis): the slices of a along `axis` (of the flattened a without one) where
/// the 1-d cond is true.
template <class C, array_element E>
[[nodiscard]] ndarray<E> compress(const C& cond, const ndarray<E>& a, std::optional<index_t> axis = std::nullopt) {
  const ndcuda::detail::op_range<"nd::compress"> nvtx;
  const auto c = detail::to_array(cond);
  if (c.ndim() != 1) {
    throw shape_error("condition must be a 1-d array");
  }
  return take(a, nonzero(c)[0], axis);
}

/// take of a lazy value (computed once; array/view_functions.hpp's rule).
template <array_expression X, class I>
[[nodiscard]] auto take(const X& x, const I& indices, std::optional<index_t> axis = std::nullopt,
                        take_mode mode = take_mode::raise) {
  return take(detail::computed(x), indices, axis, mode);
}

}  // namespace ndcuda

#pragma GCC visibility pop
