/// @file
/// NumPy's sort, argsort, unique and searchsorted on arrays and expressions, NaN ordered last.
/// Builds on ops/detail/device_algorithms.hpp (CUB/Thrust, compiled into the library) and expr/evaluate.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <memory>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/expr/evaluate.hpp>
#include <ndcuda/ops/detail/device_algorithms.hpp>
#include <type_traits>

namespace ndcuda {

/// searchsorted's `side`: left gives the first suitable position, right the last.
enum class side { left, right };

namespace detail {

/// An operand as an array: arrays as they are, expressions evaluated (on their first array's stream).
template <class X>
auto as_array(const X& x) {
  if constexpr (is_ndarray<std::remove_cvref_t<X>>) {
    return x;
  } else {
    return eval(x);
  }
}

/// `a` converted to C (a new array), or `a` itself when it already is of that type.
template <class C, class E>
ndarray<C> as_element_type(const ndarray<E>& a) {
  if constexpr (std::is_same_v<C, E>) {
    return a;
  } else {
    return a.template astype<C>();
  }
}

/// Throws error for complex dtypes, which topk, partition and unique_all (ops/selection.hpp) cannot
/// order yet: `what` names the operation. (sort, argsort, unique and searchsorted order them.)
void check_sortable(dtype t, const char* what);

// The type-erased halves (src/ops/sorting.cpp). `out` is C-contiguous, of the input's shape (sort,
// argsort) or of the values' shape (searchsorted); `axis` is already normalised.
void sort_into(const leaf_ref& x, int axis, void* out, const stream& s);
void argsort_into(const leaf_ref& x, int axis, std::int64_t* out, const stream& s);
/// The distinct elements into a new buffer (*owner, *data) on `s`; returns how many. Waits for `s`.
index_t unique_into(const leaf_ref& x, const stream& s, std::shared_ptr<const void>* owner, void** data);
void searchsorted_into(const leaf_ref& sorted, const leaf_ref& values, side which, std::int64_t* out, const stream& s);

}  // namespace detail

/// NumPy's np.sort(x, axis): a new C-contiguous array, sorted along `axis` (negative allowed), NaNs
/// last whatever their sign. Stable; -0.0 and +0.0 are equal to the ordering but both are kept bit
/// for bit (their relative order is unspecified, as with NumPy's default kind). Every dtype:
/// complex numbers by real part, then imaginary part, NaNs last in NumPy's order [R + Rj,
/// R + nanj, nan + Rj, nan + nanj]. Ordered on `s`, after x's stream.
template <array_operand X>
[[nodiscard]] auto sort(const X& x, index_t axis, const stream& s) {
  const ndcuda::detail::op_range<"nd::sort"> nvtx;
  const auto a = detail::as_array(x);
  using T = typename decltype(a)::value_type;
  const int ax = normalize_axis(axis, a.ndim());
  ndarray<T> out = empty<T>(a.shape(), s);
  detail::sort_into(detail::leaf_of(a), ax, out.data(), s);
  return out;
}
/// np.sort on x's stream.
template <array_operand X>
[[nodiscard]] auto sort(const X& x, index_t axis = -1) {
  const auto a = detail::as_array(x);
  return sort(a, axis, a.stream());
}

/// NumPy's np.argsort(x, axis, kind="stable"): int64 positions along `axis` that sort x; equal
/// elements (-0.0 and +0.0, NaNs of any sign or payload) keep their order.
template <array_operand X>
[[nodiscard]] ndarray<std::int64_t> argsort(const X& x, index_t axis, const stream& s) {
  const ndcuda::detail::op_range<"nd::argsort"> nvtx;
  const auto a = detail::as_array(x);
  const int ax = normalize_axis(axis, a.ndim());
  ndarray<std::int64_t> out = empty<std::int64_t>(a.shape(), s);
  detail::argsort_into(detail::leaf_of(a), ax, out.data(), s);
  return out;
}
/// np.argsort on x's stream.
template <array_operand X>
[[nodiscard]] ndarray<std::int64_t> argsort(const X& x, index_t axis = -1) {
  const auto a = detail::as_array(x);
  return argsort(a, axis, a.stream());
}

/// np.sort(x, axis=None): the flattened x sorted, a 1-d array of x.size() elements (nd::none).
template <array_operand X>
[[nodiscard]] auto sort(const X& x, std::nullopt_t, const stream& s) {
  return sort(detail::as_array(x).ravel(), 0, s);
}
/// np.sort(x, axis=None) on the array's stream: the flattened x sorted (nd::none).
template <array_operand X>
[[nodiscard]] auto sort(const X& x, std::nullopt_t) {
  const auto a = detail::as_array(x);
  return sort(a.ravel(), 0, a.stream());
}

/// np.argsort(x, axis=None, kind="stable"): positions in the flattened x (nd::none).
template <array_operand X>
[[nodiscard]] ndarray<std::int64_t> argsort(const X& x, std::nullopt_t, const stream& s) {
  return argsort(detail::as_array(x).ravel(), 0, s);
}
/// np.argsort(x, axis=None) on the array's stream (nd::none).
template <array_operand X>
[[nodiscard]] ndarray<std::int64_t> argsort(const X& x, std::nullopt_t) {
  const auto a = detail::as_array(x);
  return argsort(a.ravel(), 0, a.stream());
}

/// NumPy's np.unique(x) (flattened, equal_nan=True): the sorted distinct elements as a 1-d array.
/// -0.0 and +0.0 are one element (returned as +0.0), all NaNs one NaN (returned as the positive
/// quiet NaN). Complex: every number with a NaN part is one element (NumPy 2), returned as the
/// first of them in sort order. Its size is known only on the device, so unique WAITS for `s` (the one sort-family
/// function that does) and throws capture_error while `s` is capturing a graph.
template <array_operand X>
[[nodiscard]] auto unique(const X& x, const stream& s) {
  const ndcuda::detail::op_range<"nd::unique"> nvtx;
  const auto a = detail::as_array(x);
  using T = typename decltype(a)::value_type;
  std::shared_ptr<const void> owner;
  void* data = nullptr;
  const index_t n = detail::unique_into(detail::leaf_of(a), s, &owner, &data);
  return ndarray<T>(std::move(owner), static_cast<T*>(data), contiguous_layout({n}), a.device(), s);
}
/// np.unique on x's stream (waits for it).
template <array_operand X>
[[nodiscard]] auto unique(const X& x) {
  const auto a = detail::as_array(x);
  return unique(a, a.stream());
}

/// NumPy's np.searchsorted(sorted, values, side): for each element of `values`, the int64 position
/// in the 1-d, ascending (NaN last) `sorted` where it would be inserted; the result has values'
/// shape. Operands of different dtypes are promoted as NumPy does (promote_types) before comparing.
template <array_operand A, array_operand V>
[[nodiscard]] ndarray<std::int64_t> searchsorted(const A& sorted, const V& values, side which, const stream& s) {
  const ndcuda::detail::op_range<"nd::searchsorted"> nvtx;
  const auto a = detail::as_array(sorted);
  const auto v = detail::as_array(values);
  using TA = typename decltype(a)::value_type;
  using TV = typename decltype(v)::value_type;
  constexpr dtype common = promote_types(dtype_of<TA>, dtype_of<TV>);
  if (a.ndim() != 1) {
    throw shape_error("searchsorted: the sorted array must be 1-d, but it has shape " + format_shape(a.shape()) +
                      "; search a row at a time, or ravel() it if it is sorted as a whole");
  }
  ndarray<std::int64_t> out = empty<std::int64_t>(v.shape(), s);
  // NumPy compares in the common dtype; a cast is ordered on its operand's own stream.
  using C = type_of<common>;
  const ndarray<C> ac = detail::as_element_type<C>(a);
  const ndarray<C> vc = detail::as_element_type<C>(v);
  detail::searchsorted_into(detail::leaf_of(ac), detail::leaf_of(vc), which, out.data(), s);
  return out;
}
/// np.searchsorted on the stream of `sorted`.
template <array_operand A, array_operand V>
[[nodiscard]] ndarray<std::int64_t> searchsorted(const A& sorted, const V& values, side which = side::left) {
  const auto a = detail::as_array(sorted);
  return searchsorted(a, values, which, a.stream());
}

}  // namespace ndcuda

#pragma GCC visibility pop
