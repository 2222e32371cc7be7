// a(mask, nd::size(k), fill): the rows a mask selects over the leading axes, exactly k of them
// (padded with fill), read without a host wait. Builds on ops/detail/index_arguments.hpp,
// ops/detail/indexing_entry.hpp (extract_rows) and ops/static_size.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/array/erased_array.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/ops/detail/index_arguments.hpp>
#include <ndcuda/ops/detail/indexing_entry.hpp>
#include <ndcuda/ops/static_size.hpp>
#include <type_traits>

namespace ndcuda {

namespace detail {
template <class M>
constexpr bool is_bool_mask() {
  if constexpr (requires { typename M::is_ndcuda_expression; }) {
    return M::type() == dtype::bool_;
  } else if constexpr (is_advanced_index<M>) {  // ndarray<bool>, std::vector<bool>, std::span<bool>
    return std::is_same_v<std::remove_cv_t<typename M::value_type>, bool>;
  } else {
    return false;
  }
}

// a(mask, nd::size(k), fill): extract's compaction over the leading axes, k rows exactly.
template <array_element E, class M, class... F>
ndarray<E> sized_mask_read(const ndarray<E>& source, const M& mask, static_size k, const F&... fill) {
  static_assert(is_bool_mask<M>(),
                "a(mask, nd::size(k), fill) takes one boolean mask (an ndarray<bool>, a bool expression or a "
                "std::vector<bool>); for integer indices the size is already known: a(idx)");
  static_assert(sizeof...(F) <= 1 && (element_scalar<F, E> && ...),
                "the fill of a(mask, nd::size(k), fill) is one scalar");
  E f{};
  if constexpr (sizeof...(F) == 1) {
    f = (element_value<E>(fill), ...);
  }
  const index_arg m = to_index_arg(mask, source.stream());
  return restore<E>(extract_rows(erase(source), m.array, k.value, &f, source.stream(), "a(mask, nd::size(k))"));
}
template <class A, class B = void, class... C>
inline constexpr bool is_sized_mask_index = is_static_size<B> && sizeof...(C) <= 1;

template <array_element E, class... I>
const ndarray<E> make_sized_read(const ndarray<E>& source,
                                 const I&... index) {  // NOLINT(readability-const-return-type)
  static_assert(is_sized_mask_index<I...>,
                "nd::size(k) goes right after one boolean mask: a(mask, nd::size(k)) or a(mask, nd::size(k), fill)");
  if constexpr (is_sized_mask_index<I...>) {
    return sized_mask_read(source, index...);
  } else {
    return {};
  }
}
}  // namespace detail

}  // namespace ndcuda

#pragma GCC visibility pop
