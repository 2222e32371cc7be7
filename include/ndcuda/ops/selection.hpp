/// @file
/// NumPy's partition, argpartition, choose, select and copyto, and topk (the k largest or smallest
/// elements, sorted, with their indices). Builds on ops/sorting.hpp, ops/functions.hpp (where) and
/// the topk kernels of ops/detail/selection_kernels.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <limits>
#include <ndcuda/core/detail/dependent_type.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/promotion.hpp>
#include <ndcuda/ops/counting_support.hpp>
#include <ndcuda/ops/detail/selection_kernels.hpp>
#include <ndcuda/ops/elementwise.hpp>
#include <ndcuda/ops/sorting.hpp>
#include <string>
#include <utility>
#include <vector>

namespace ndcuda {

// ---------------------------------------------------------------------------------------------
// topk

/// What topk returns: the selected values and their int64 positions along the axis.
template <class T>
struct topk_result {
  ndarray<T> values;              ///< the selected elements, sorted
  ndarray<std::int64_t> indices;  ///< their positions along the axis
};

/// The k largest elements of x along `axis` (largest = false: the k smallest), SORTED (largest
/// first, or smallest first), with their int64 positions along the axis; both C-contiguous, of x's
/// shape with that axis k long. NaN is the largest value (NumPy's sort order), so NaNs come first
/// in a largest-first topk. Of tied elements any may be chosen. ★ NumPy has no topk; it is
/// np.argpartition followed by sorting the k values. One long row: a radix select that reads the
/// data four or five times and sorts only the k candidates; many rows: a segmented sort.
template <array_operand X>
[[nodiscard]] auto topk(const X& x, index_t k, index_t axis, bool largest, const stream& s) {
  const ndcuda::detail::op_range<"nd::topk"> nvtx;
  const auto a = detail::as_array(x);
  using T = typename decltype(a)::value_type;
  detail::check_sortable(dtype_of<T>, "topk");
  if (a.ndim() == 0) {
    throw shape_error("topk: x is 0-d; topk selects along an axis, so give it at least one dimension");
  }
  const int ax = normalize_axis(axis, a.ndim());
  const index_t length = a.shape()[static_cast<std::size_t>(ax)];
  if (k < 0 || k > length) {
    throw value_error("topk: k=" + std::to_string(k) + " is out of range for axis " + std::to_string(ax) +
                      " of length " + std::to_string(length) + "; k must be between 0 and the axis length");
  }
  std::vector<index_t> perm;
  std::vector<index_t> inverse(static_cast<std::size_t>(a.ndim()));
  for (int d = 0; d < a.ndim(); ++d) {
    if (d != ax) {
      perm.push_back(d);
    }
  }
  perm.push_back(ax);
  for (std::size_t i = 0; i < perm.size(); ++i) {
    inverse[static_cast<std::size_t>(perm[i])] = static_cast<index_t>(i);
  }
  const ndarray<T> moved = a.transpose(perm);
  shape_t out_shape = moved.shape();
  out_shape.back() = k;
  ndarray<T> values = empty<T>(out_shape, s);
  ndarray<std::int64_t> indices = empty<std::int64_t>(out_shape, s);
  detail::topk_into(detail::leaf_of(moved), k, largest, values.data(), indices.data(), s);
  if (ax == a.ndim() - 1) {
    return topk_result<T>{values, indices};
  }
  return topk_result<T>{values.transpose(inverse).copy(), indices.transpose(inverse).copy()};
}
/// topk on x's stream.
template <array_operand X>
[[nodiscard]] auto topk(const X& x, index_t k, index_t axis = -1, bool largest = true) {
  const auto a = detail::as_array(x);
  return topk(a, k, axis, largest, a.stream());
}

// ---------------------------------------------------------------------------------------------
// partition, argpartition

namespace detail {
inline void check_kth(const std::vector<index_t>& kth, index_t length) {
  for (index_t k : kth) {
    if (k < -length || k >= length) {
      // NumPy reports a negative kth after adding the length.
      throw value_error("kth(=" + std::to_string(k < 0 ? k + length : k) + ") out of bounds (" +
                        std::to_string(length) + ")");
    }
  }
}
template <class T>
void check_partition_axis(const ndarray<T>& a, index_t axis, const std::vector<index_t>& kth, const char* what) {
  check_sortable(dtype_of<T>, what);
  const int ax = normalize_axis(axis, a.ndim());
  check_kth(kth, a.shape()[static_cast<std::size_t>(ax)]);
}
}  // namespace detail

/// NumPy's np.partition(x, kth, axis): every kth element is where a sort would put it, smaller
/// (or equal) ones before, larger after. NumPy guarantees only that; this returns the FULLY
/// sorted array along the axis (one sort, NaN last), which meets the guarantee for every kth.
template <array_operand X>
[[nodiscard]] auto partition(const X& x, const std::vector<index_t>& kth, index_t axis = -1) {
  const ndcuda::detail::op_range<"nd::partition"> nvtx;
  const auto a = detail::as_array(x);
  detail::check_partition_axis(a, axis, kth, "partition");
  return sort(a, axis);
}
/// np.partition with one kth.
template <array_operand X>
[[nodiscard]] auto partition(const X& x, index_t kth, index_t axis = -1) {
  return partition(x, std::vector<index_t>{kth}, axis);
}

/// NumPy's np.argpartition(x, kth, axis): int64 positions that partition x. Returns a stable
/// argsort along the axis (which partitions for every kth; equal elements keep their order).
template <array_operand X>
[[nodiscard]] ndarray<std::int64_t> argpartition(const X& x, const std::vector<index_t>& kth, index_t axis = -1) {
  const ndcuda::detail::op_range<"nd::argpartition"> nvtx;
  const auto a = detail::as_array(x);
  detail::check_partition_axis(a, axis, kth, "argpartition");
  return argsort(a, axis);
}
/// np.argpartition with one kth.
template <array_operand X>
[[nodiscard]] ndarray<std::int64_t> argpartition(const X& x, index_t kth, index_t axis = -1) {
  return argpartition(x, std::vector<index_t>{kth}, axis);
}

// ---------------------------------------------------------------------------------------------
// choose, select, copyto

/// np.choose's `mode`: raise (an index outside [0, n) throws; a host read), wrap (modulo n),
/// clip (clamped to [0, n - 1]).
enum class choose_mode { raise, wrap, clip };

/// NumPy's np.choose(a, choices, mode): out[i] = choices[a[i]][i], a and the choices broadcast
/// together. `a` must be of an integer dtype (NumPy casts it to intp under the safe rule).
template <array_operand I, array_element T>
[[nodiscard]] ndarray<T> choose(const I& index, const std::vector<ndarray<T>>& choices,
                                choose_mode mode = choose_mode::raise) {
  const ndcuda::detail::op_range<"nd::choose"> nvtx;
  const auto a = detail::as_array(index);
  using A = typename decltype(a)::value_type;
  if constexpr (!is_integral(dtype_of<A>) && dtype_of<A> != dtype::bool_) {
    throw type_error("Cannot cast array data from dtype('" + std::string(name(dtype_of<A>)) +
                     "') to dtype('int64') according to the rule 'safe'");
  } else {
    if (choices.empty()) {
      throw value_error("0-length sequence.");
    }
    const auto n = static_cast<std::int64_t>(choices.size());
    ndarray<detail::dependent_t<std::int64_t, A>> idx = a.template astype<std::int64_t>();
    if (mode == choose_mode::raise && idx.size() > 0) {
      detail::refuse_in_capture(a.stream(), "choose with mode raise",
                                "it checks the indices on the host; use choose_mode::wrap or choose_mode::clip");
      if (min(idx).item() < 0 || max(idx).item() >= n) {
        throw value_error("invalid entry in choice array");
      }
    } else if (mode == choose_mode::wrap) {
      idx = idx % n;  // NumPy's remainder: the sign of n, so never negative
    } else if (mode == choose_mode::clip) {
      idx = clip(idx, std::int64_t{0}, n - 1);
    }
    // Last choice first, so that each where() keeps the broadcast shape of everything seen.
    ndarray<T> out = where(idx == n - 1, choices.back(), choices.back());
    for (std::int64_t i = n - 2; i >= 0; --i) {
      out = where(idx == i, choices[static_cast<std::size_t>(i)], out);
    }
    return out;
  }
}

/// NumPy's np.select(condlist, choicelist, default): for each element the choice of the first
/// true condition, else `default_value`; all broadcast together.
template <array_element T>
[[nodiscard]] ndarray<T> select(const std::vector<ndarray<bool>>& conditions, const std::vector<ndarray<T>>& choices,
                                T default_value = T{}) {
  const ndcuda::detail::op_range<"nd::select"> nvtx;
  if (conditions.size() != choices.size()) {
    throw value_error("list of cases must be same length as list of conditions");
  }
  if (conditions.empty()) {
    throw value_error("select with an empty condition list is not possible");
  }
  const std::size_t n = conditions.size();
  ndarray<T> out = where(conditions[n - 1], choices[n - 1], default_value);
  for (std::size_t i = n - 1; i-- > 0;) {
    out = where(conditions[i], choices[i], out);
  }
  return out;
}

namespace detail {
template <class D, class S>
void check_copyto_cast() {
  if constexpr (!can_cast_same_kind(dtype_of<S>, dtype_of<D>)) {
    throw type_error("Cannot cast array data from dtype('" + std::string(name(dtype_of<S>)) + "') to dtype('" +
                     std::string(name(dtype_of<D>)) + "') according to the rule 'same_kind'");
  }
}
}  // namespace detail

/// NumPy's np.copyto(dst, src): writes src (broadcast to dst) into dst's memory; src's dtype must
/// cast to dst's under the same_kind rule (NumPy's default). A C++ scalar is a weak value.
template <array_element D, class S>
void copyto(const ndarray<D>& dst, const S& src) {
  const ndcuda::detail::op_range<"nd::copyto"> nvtx;
  if constexpr (array_operand<S>) {
    detail::check_copyto_cast<D, typename std::remove_cvref_t<S>::value_type>();
  }
  dst.assign(src);
}

/// np.copyto(dst, src, where=mask): only where the mask (broadcast to dst) is true.
template <array_element D, class S, array_operand M>
void copyto(const ndarray<D>& dst, const S& src, const M& mask) {
  const ndcuda::detail::op_range<"nd::copyto"> nvtx;
  if constexpr (array_operand<S>) {
    detail::check_copyto_cast<D, typename std::remove_cvref_t<S>::value_type>();
  }
  dst.assign(where(mask, src, dst));
}

// ---------------------------------------------------------------------------------------------
// unique with indices, inverse and counts; searchsorted with a scalar and with a sorter

/// np.unique's flags: which extra results to compute, and whether NaNs are one value.
struct unique_options {
  bool return_index = false;    ///< also the first index of each value (unique_all_result::indices)
  bool return_inverse = false;  ///< also each element's position among the values
  bool return_counts = false;   ///< also how often each value occurs
  bool equal_nan = true;        ///< all NaNs are one value (NumPy's default)
};

/// The Array API's UniqueAllResult (and np.unique's tuple): the sorted distinct values, the first
/// index of each in the flattened input, each element's position among the values (of the input's
/// shape, as NumPy 2), and how often each value occurs. Fields not asked for are empty arrays.
template <class T>
struct unique_all_result {
  ndarray<T> values;                      ///< the sorted distinct values
  ndarray<std::int64_t> indices;          ///< the first index of each value in the flattened input
  ndarray<std::int64_t> inverse_indices;  ///< each element's position among the values, of the input's shape
  ndarray<std::int64_t> counts;           ///< how often each value occurs
};
/// The Array API's UniqueCountsResult: the sorted distinct values and how often each occurs.
template <class T>
struct unique_counts_result {
  ndarray<T> values;             ///< the sorted distinct values
  ndarray<std::int64_t> counts;  ///< how often each value occurs
};
/// The Array API's UniqueInverseResult: the sorted distinct values and each element's position among them.
template <class T>
struct unique_inverse_result {
  ndarray<T> values;                      ///< the sorted distinct values
  ndarray<std::int64_t> inverse_indices;  ///< each element's position among the values, of the input's shape
};

/// np.unique(x, return_index=..., return_inverse=..., return_counts=..., equal_nan=...) over the
/// flattened x. The number of distinct values is known only on the device: this WAITS for x's
/// stream and refuses inside a graph capture (use the nd::size(k) overload there).
template <array_operand X>
[[nodiscard]] auto unique(const X& x, const unique_options& o) {
  const ndcuda::detail::op_range<"nd::unique"> nvtx;
  const auto a = detail::as_array(x);
  using T = typename decltype(a)::value_type;
  detail::check_sortable(dtype_of<T>, "unique");
  const stream& s = a.stream();
  detail::unique_parts p =
      detail::unique_all_into(detail::leaf_of(a), o.equal_nan, o.return_index, o.return_inverse, o.return_counts, s);
  const auto wrap = [&](std::shared_ptr<const void>& owner, std::int64_t* data, shape_t shape) {
    return ndarray<std::int64_t>(std::move(owner), data, contiguous_layout(std::move(shape)), a.device(), s);
  };
  unique_all_result<T> r;
  r.values =
      ndarray<T>(std::move(p.values_owner), static_cast<T*>(p.values), contiguous_layout({p.count}), a.device(), s);
  if (o.return_index) {
    r.indices = wrap(p.index_owner, p.index, {p.count});
  }
  if (o.return_inverse) {
    r.inverse_indices = wrap(p.inverse_owner, p.inverse, a.shape());
  }
  if (o.return_counts) {
    r.counts = wrap(p.counts_owner, p.counts, {p.count});
  }
  return r;
}

/// The Array API's unique_all (NaNs distinct, as NumPy's np.unique_all). Values come sorted.
template <array_operand X>
[[nodiscard]] auto unique_all(const X& x) {
  return unique(x, unique_options{true, true, true, false});
}
/// The Array API's unique_counts: values and counts (NaNs distinct).
template <array_operand X>
[[nodiscard]] auto unique_counts(const X& x) {
  auto r = unique(x, unique_options{false, false, true, false});
  return unique_counts_result<typename decltype(r.values)::value_type>{r.values, r.counts};
}
/// The Array API's unique_inverse: values and each element's position among them (x's shape).
template <array_operand X>
[[nodiscard]] auto unique_inverse(const X& x) {
  auto r = unique(x, unique_options{false, true, false, false});
  return unique_inverse_result<typename decltype(r.values)::value_type>{r.values, r.inverse_indices};
}
/// The Array API's unique_values (NaNs distinct). NumPy 2.3+ may return them in any order; these
/// are sorted.
template <array_operand X>
[[nodiscard]] auto unique_values(const X& x) {
  return unique(x, unique_options{false, false, false, false}).values;
}

/// unique with a static size (JAX's size= and fill_value=): exactly k values, the first k
/// distinct ones (sorted, NaNs equal), then `fill` where there are fewer. Nothing waits for the
/// device, so it can be captured into a graph.
template <array_operand X, class F>
[[nodiscard]] auto unique(const X& x, static_size k, const F& fill) {
  const ndcuda::detail::op_range<"nd::unique"> nvtx;
  const auto a = detail::as_array(x);
  using T = typename decltype(a)::value_type;
  detail::check_sortable(dtype_of<T>, "unique");
  detail::check_static_length(k, "unique");
  ndarray<T> out = full<T>({k.value}, static_cast<T>(fill), a.stream());
  detail::unique_sized_into(detail::leaf_of(a), k.value, out.data(), a.stream());
  return out;
}

/// searchsorted of one value (a weak C++ scalar, compared in the array's dtype, or in float64 when
/// a float is searched in integers, as NumPy does): a 0-d int64 array.
template <array_operand A, weak_scalar V>
requires(!detail::is_std_complex<V>)
    [[nodiscard]] ndarray<std::int64_t> searchsorted(const A& sorted, V value, side which = side::left) {
  const auto a = detail::as_array(sorted);
  using T = typename decltype(a)::value_type;
  if constexpr (std::is_integral_v<V> && std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                !std::is_same_v<V, bool>) {
    // An integer beyond T's range (300 in int8, -1 in uint8) is compared as the integer it is, as
    // NumPy 2 does: it lies past every element, or before every one (a cast would wrap it).
    if (a.ndim() == 1 && std::cmp_greater(value, std::numeric_limits<T>::max())) {
      return full<std::int64_t>({}, a.size(), a.stream());
    }
    if (a.ndim() == 1 && std::cmp_less(value, std::numeric_limits<T>::min())) {
      return full<std::int64_t>({}, 0, a.stream());
    }
  }
  using C = std::conditional_t<std::is_floating_point_v<V> && !is_floating(dtype_of<T>), double, T>;
  const ndarray<C> v = full<C>({}, static_cast<C>(value), a.stream());
  return searchsorted(a, v, which, a.stream());
}

/// np.searchsorted(a, v, side, sorter): `a` is sorted through the int64 permutation `sorter`
/// (argsort's result). Out-of-range sorter entries are clamped, not checked (a check would wait).
template <array_operand A, class V, array_element I>
[[nodiscard]] ndarray<std::int64_t> searchsorted(const A& sorted, const V& values, side which,
                                                 const ndarray<I>& sorter) {
  const ndcuda::detail::op_range<"nd::searchsorted"> nvtx;
  const auto a = detail::as_array(sorted);
  using T = typename decltype(a)::value_type;
  static_assert(is_integral(dtype_of<I>), "searchsorted: sorter must hold integer positions");
  if (a.ndim() != 1) {
    throw shape_error("searchsorted: the sorted array must be 1-d, but it has shape " + format_shape(a.shape()));
  }
  if (sorter.size() != a.size() || sorter.ndim() != 1) {
    throw value_error("sorter.size must equal a.size");
  }
  const index_t n = a.size();
  const ndarray<T> dense = a.is_contiguous() ? a : a.copy();
  ndarray<T> ordered = empty<T>({n}, a.stream());
  if (n > 0) {
    const ndarray<std::int64_t> idx = clip(sorter.template astype<std::int64_t>(), std::int64_t{0}, n - 1);
    detail::order_after(a.stream(), idx.stream());
    detail::gather_elements(dense.data(), ordered.data(), idx.data(), n, sizeof(T), a.stream());
  }
  return searchsorted(ordered, values, which);
}

}  // namespace ndcuda

#pragma GCC visibility pop
