/// @file
/// NumPy's lexsort, isin and set functions (intersect1d, union1d, setdiff1d, setxor1d), NumPy 2's
/// algorithms written over sort, argsort, unique, searchsorted, take and masks (ops/sorting.hpp).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <initializer_list>
#include <ndcuda/core/detail/dependent_type.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/ops/elementwise.hpp>
#include <ndcuda/ops/indexing.hpp>
#include <ndcuda/ops/indexing_functions.hpp>
#include <ndcuda/ops/joining.hpp>
#include <ndcuda/ops/sorting.hpp>
#include <string>
#include <tuple>
#include <vector>

namespace ndcuda {

/// NumPy's np.lexsort(keys, axis): int64 positions that sort by the LAST key first, ties broken by
/// the one before, and so on (a stable sort by each key in turn, from the first). Every key must
/// have the same shape; keys of different dtypes: convert them to one first.
template <array_element T>
[[nodiscard]] ndarray<std::int64_t> lexsort(const std::vector<ndarray<T>>& keys, index_t axis = -1) {
  const ndcuda::detail::op_range<"nd::lexsort"> nvtx;
  if (keys.empty()) {
    throw type_error("lexsort: need sequence of keys with len > 0 in lexsort");
  }
  for (const ndarray<T>& k : keys) {
    if (k.shape() != keys.front().shape()) {
      throw value_error("lexsort: all keys need to be the same shape, got " + format_shape(keys.front().shape()) +
                        " and " + format_shape(k.shape()));
    }
  }
  if (keys.front().ndim() == 0) {  // NumPy: one element, position 0
    return zeros<std::int64_t>({}, keys.front().stream());
  }
  ndarray<std::int64_t> order = argsort(keys.front(), axis);
  for (std::size_t i = 1; i < keys.size(); ++i) {
    const ndarray<std::int64_t> next = argsort(take_along_axis(keys[i], order, axis), axis);
    order = take_along_axis(order, next, axis);
  }
  return order;
}
/// np.lexsort of a braced list: nd::lexsort({secondary, primary}) (arrays or lazy values).
template <array_element T>
[[nodiscard]] ndarray<std::int64_t> lexsort(std::initializer_list<detail::list_entry<T>> keys, index_t axis = -1) {
  return lexsort(detail::values_of(keys), axis);
}
/// np.lexsort of one array: its rows (along axis 0) are the keys, the last row primary; a 1-d
/// array is one key (its argsort).
template <array_element T>
[[nodiscard]] ndarray<std::int64_t> lexsort(const ndarray<T>& keys, index_t axis = -1) {
  if (keys.ndim() == 0) {
    throw type_error("lexsort: need sequence of keys with len > 0 in lexsort (a 0-d array has no keys)");
  }
  if (keys.ndim() == 1) {
    return lexsort(std::vector<ndarray<T>>{keys}, axis);
  }
  std::vector<ndarray<T>> rows;
  for (index_t i = 0; i < keys.shape()[0]; ++i) {
    rows.push_back(keys(i));
  }
  return lexsort(rows, axis);
}

namespace detail {

/// The flattened x as C (a conversion where the dtype differs), contiguous.
template <class C, class E>
ndarray<C> flat_as(const ndarray<E>& x) {
  return as_element_type<C>(x).ravel();
}

/// Mask of the sorted, 1-d `s` (size >= 1) keeping the first of each run of equal elements (NaNs
/// one run, as np.unique's equal_nan), with `first` for s[0].
template <class C>
ndarray<bool> run_starts(const ndarray<C>& s) {
  const index_t n = s.size();
  ndarray<bool> keep = full<bool>({n}, true, s.stream());
  if (n > 1) {
    const ndarray<C> tail = s(slice(1, none));
    const ndarray<C> head = s(slice(none, n - 1));
    if constexpr (is_floating(dtype_of<C>) || is_complex(dtype_of<C>)) {
      keep(slice(1, none)) = (tail != head) & ~(isnan(tail) & isnan(head));
    } else {
      keep(slice(1, none)) = tail != head;
    }
  }
  return keep;
}

/// NumPy 2's first step of intersect1d and setxor1d: the distinct elements of a and of b (each as
/// it is when assume_unique), joined and sorted, in the promoted dtype C.
template <class C, class A, class B>
ndarray<C> sorted_distinct_of_each(const ndarray<A>& a, const ndarray<B>& b, bool assume_unique) {
  const ndarray<C> x = assume_unique ? flat_as<C>(a) : unique(flat_as<C>(a));
  const ndarray<C> y = assume_unique ? flat_as<C>(b) : unique(flat_as<C>(b));
  return sort(concatenate<C>({x, y}), 0);
}

}  // namespace detail

/// NumPy's np.isin(element, test_elements, assume_unique, invert): a bool array of element's shape,
/// true where the element equals one of test_elements (both compared in their promoted dtype, as
/// NumPy does; NaN is in nothing). Sorts the test elements and binary-searches each element.
template <array_element E, array_element T>
[[nodiscard]] ndarray<bool> isin(const ndarray<E>& element, const ndarray<T>& test_elements, bool assume_unique = false,
                                 bool invert = false) {
  const ndcuda::detail::op_range<"nd::isin"> nvtx;
  (void)assume_unique;  // the sorted search needs no distinct test elements
  using C = type_of<promote_types(dtype_of<E>, dtype_of<T>)>;
  const stream& s = element.stream();
  const ndarray<C> e = detail::flat_as<C>(element);
  const ndarray<C> t = detail::flat_as<C>(test_elements);
  if (t.size() == 0 || e.size() == 0) {
    return full<bool>(element.shape(), invert, s);
  }
  const ndarray<C> sorted = sort(t, 0, s);
  const ndarray<std::int64_t> at = searchsorted(sorted, e, side::left, s);
  const ndarray<C> found = take(sorted, at, index_t{0}, take_mode::clip);
  ndarray<bool> r = invert ? ndarray<bool>(found != e) : ndarray<bool>(found == e);
  return r.reshape(element.shape());
}

/// NumPy's np.union1d(a, b): the sorted distinct elements of both (flattened), promoted dtype.
template <array_element A, array_element B>
[[nodiscard]] auto union1d(const ndarray<A>& a, const ndarray<B>& b) {
  const ndcuda::detail::op_range<"nd::union1d"> nvtx;
  using C = type_of<promote_types(dtype_of<A>, dtype_of<B>)>;
  return unique(concatenate<C>({detail::flat_as<C>(a), detail::flat_as<C>(b)}));
}

/// NumPy's np.intersect1d(a, b, assume_unique): the sorted elements found in both (flattened),
/// promoted dtype. NaN is never common (NaN != NaN), as in NumPy.
template <array_element A, array_element B>
[[nodiscard]] auto intersect1d(const ndarray<A>& a, const ndarray<B>& b, bool assume_unique = false) {
  const ndcuda::detail::op_range<"nd::intersect1d"> nvtx;
  using C = type_of<promote_types(dtype_of<A>, dtype_of<B>)>;
  const ndarray<C> aux = detail::sorted_distinct_of_each<C>(a, b, assume_unique);
  const index_t n = aux.size();
  if (n < 2) {
    return empty<C>({0}, aux.stream());
  }
  const ndarray<C> head = aux(slice(none, n - 1));
  return ndarray<C>(head(aux(slice(1, none)) == head));
}

/// The tag of np.intersect1d's return_indices=True: nd::intersect1d(a, b, false, nd::return_indices).
struct return_indices_t {};
inline constexpr return_indices_t return_indices{};  ///< the value of return_indices_t

/// np.intersect1d(a, b, assume_unique, return_indices=True): (common, indices into flattened a,
/// indices into flattened b), each index the first occurrence (np.unique's return_index).
template <array_element A, array_element B>
[[nodiscard]] auto intersect1d(const ndarray<A>& a, const ndarray<B>& b, bool assume_unique, return_indices_t) {
  const ndcuda::detail::op_range<"nd::intersect1d"> nvtx;
  using C = type_of<promote_types(dtype_of<A>, dtype_of<B>)>;
  using I = detail::dependent_t<std::int64_t, A>;  // instantiated with the template, not in every includer
  // Distinct elements and where each first occurs: a stable argsort, then each run's first.
  const auto distinct = [&](const ndarray<C>& flat) {
    if (assume_unique) {
      return std::pair{flat, arange<I>(static_cast<double>(flat.size()), flat.stream())};
    }
    if (flat.size() == 0) {
      return std::pair{flat, empty<I>({0}, flat.stream())};
    }
    const ndarray<I> perm = argsort(flat, 0);
    const ndarray<C> sorted = take(flat, perm, index_t{0}, take_mode::clip);  // valid: no check, no wait
    const ndarray<bool> keep = detail::run_starts(sorted);
    return std::pair{ndarray<C>(sorted(keep)), ndarray<I>(perm(keep))};
  };
  const auto [x, ix] = distinct(detail::flat_as<C>(a));
  const auto [y, iy] = distinct(detail::flat_as<C>(b));
  const ndarray<C> joined = concatenate<C>({x, y});
  const index_t n = joined.size();
  if (n < 2) {
    return std::tuple{empty<C>({0}, joined.stream()), empty<I>({0}, joined.stream()), empty<I>({0}, joined.stream())};
  }
  const ndarray<I> order = argsort(joined, 0);
  const ndarray<C> aux = take(joined, order, index_t{0}, take_mode::clip);
  const ndarray<C> head = aux(slice(none, n - 1));
  const ndarray<bool> mask = aux(slice(1, none)) == head;
  const ndarray<C> common = head(mask);
  const ndarray<I> order_head = order(slice(none, n - 1));
  const ndarray<I> order_tail = order(slice(1, none));
  const ndarray<I> in_x = order_head(mask);
  const ndarray<I> in_y = ndarray<I>(order_tail(mask)) - static_cast<I>(x.size());
  return std::tuple{common, take(ix, in_x, index_t{0}), take(iy, in_y, index_t{0})};
}

/// NumPy's np.setdiff1d(a, b, assume_unique): the distinct elements of a (flattened; as they are
/// when assume_unique) not in b, in a's dtype (sorted unless assume_unique).
template <array_element A, array_element B>
[[nodiscard]] ndarray<A> setdiff1d(const ndarray<A>& a, const ndarray<B>& b, bool assume_unique = false) {
  const ndcuda::detail::op_range<"nd::setdiff1d"> nvtx;
  const ndarray<A> x = assume_unique ? a.ravel() : unique(a);
  if (x.size() == 0) {
    return x;
  }
  return x(isin(x, b, true, true));
}

/// NumPy's np.setxor1d(a, b, assume_unique): the sorted elements in exactly one of a and b,
/// promoted dtype. As in NumPy, NaN equals nothing, so a NaN in each input gives two NaNs.
template <array_element A, array_element B>
[[nodiscard]] auto setxor1d(const ndarray<A>& a, const ndarray<B>& b, bool assume_unique = false) {
  const ndcuda::detail::op_range<"nd::setxor1d"> nvtx;
  using C = type_of<promote_types(dtype_of<A>, dtype_of<B>)>;
  const ndarray<C> aux = detail::sorted_distinct_of_each<C>(a, b, assume_unique);
  const index_t n = aux.size();
  if (n < 2) {
    return aux;
  }
  // flag[i] = aux[i] != aux[i - 1] with both ends true; keep i where flag[i] and flag[i + 1].
  ndarray<detail::dependent_t<bool, C>> flag = full<bool>({n + 1}, true, aux.stream());
  flag(slice(1, n)) = aux(slice(1, none)) != aux(slice(none, n - 1));
  return ndarray<C>(aux(flag(slice(1, none)) & flag(slice(none, n))));
}

/// isin with lazy operands (each computed once; array/view_functions.hpp's rule).
template <array_operand X, array_operand Y>
requires(array_expression<X> || array_expression<Y>)
    [[nodiscard]] ndarray<bool> isin(const X& element, const Y& test_elements, bool assume_unique = false,
                                     bool invert = false) {
  return isin(detail::as_array(element), detail::as_array(test_elements), assume_unique, invert);
}

}  // namespace ndcuda

#pragma GCC visibility pop
