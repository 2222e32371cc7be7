// What ndarray::operator() tells apart at compile time: basic index items, advanced indexes (the
// nd::indexed<E> proxy of ops/indexing.hpp) and a(mask, nd::size(k), fill), with the declarations
// ops/ defines. Builds on array/view_math.hpp (index_item) and core/dtype.hpp (array_element).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <ndcuda/array/view_math.hpp>
#include <ndcuda/core/dtype.hpp>
#include <span>
#include <type_traits>
#include <vector>

namespace ndcuda {

namespace detail {
template <class I>
index_item to_index_item(const I& i) {
  if constexpr (std::is_integral_v<I>) {
    return index_item(static_cast<index_t>(i));
  } else {
    return index_item(i);
  }
}
}  // namespace detail

template <array_element E>
class ndarray;
/// What a(idx) gives for an advanced index (integer arrays, masks): a proxy that gathers when read
/// and scatters when assigned to. Defined in ops/indexed.hpp (include <ndcuda/ops/indexing.hpp>
/// or <ndcuda/ndcuda.hpp>).
template <array_element E>
class indexed;
struct static_size;

namespace detail {
/// Whether an index argument is an advanced index (an array, an expression, a host list of
/// integers): then operator() returns nd::indexed<E> instead of a view.
template <class I>
inline constexpr bool is_advanced_index = requires {
  typename I::is_ndcuda_expression;
};
template <class U>
inline constexpr bool is_advanced_index<ndarray<U>> = true;
template <class U, class A>
inline constexpr bool is_advanced_index<std::vector<U, A>> = true;
template <class U, std::size_t N>
inline constexpr bool is_advanced_index<std::span<U, N>> = true;
/// Builds the proxy (defined in ops/indexed.hpp).
template <array_element E, class... I>
indexed<E> make_indexed(const ndarray<E>& source, const I&... index);
/// a(mask, nd::size(k), fill): nd::size (ops/static_size.hpp) among the arguments. The result is a
/// const copy, so that writing to it (which could not reach a) does not compile. make_sized_read
/// is defined in ops/detail/sized_mask_read.hpp.
template <class I>
inline constexpr bool is_static_size = std::is_same_v<I, static_size>;
template <array_element E, class... I>
const ndarray<E> make_sized_read(const ndarray<E>& source, const I&... index);  // NOLINT(readability-const-return-type)
}  // namespace detail

}  // namespace ndcuda

#pragma GCC visibility pop
