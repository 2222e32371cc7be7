// The arguments of a(...) as advanced indexing takes them: each index converted to an index_arg
// (arrays as they are or as int64, expressions evaluated, host lists uploaded, basic items kept),
// and the scalars written through an index. Builds on ops/detail/indexing_entry.hpp (index_arg),
// array/creation.hpp (asarray) and expr/evaluate.hpp (eval).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/array/erased_array.hpp>
#include <ndcuda/expr/evaluate.hpp>
#include <ndcuda/ops/detail/indexing_entry.hpp>
#include <type_traits>
#include <vector>

namespace ndcuda {

namespace detail {

template <class T>
inline constexpr bool always_false = false;

/// A scalar written into an array of E: a weak C++ scalar (converted as in expressions), or an E
/// itself (float16/bfloat16 values, which are no C++ arithmetic types).
template <class V, class E>
concept element_scalar = weak_scalar<V> || is_std_complex<V> || std::is_same_v<std::remove_cv_t<V>, E>;
template <class E, class V>
E element_value(const V& v) {
  if constexpr (std::is_same_v<std::remove_cv_t<V>, E>) {
    return v;
  } else {
    return scalar_as<E>(v);
  }
}

template <class U>
index_arg array_arg(const ndarray<U>& a) {
  using T = std::remove_cv_t<U>;
  if constexpr (std::is_same_v<T, bool>) {
    return {index_entry{index_entry::kind::bool_array, index_t{0}, a.shape(), 0}, erase(a)};
  } else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::int32_t>) {
    return {index_entry{index_entry::kind::integer_array, index_t{0}, a.shape(), 0}, erase(a)};
  } else if constexpr (std::is_integral_v<T>) {
    return array_arg(a.template astype<std::int64_t>());
  } else {
    static_assert(always_false<T>,
                  "arrays used as indices must be of integer (or boolean) type (NumPy's IndexError): "
                  "convert with .astype<std::int64_t>()");
    return {};
  }
}

/// One index argument as the planner and the kernels take it; host lists go to `s`.
template <class I>
index_arg to_index_arg(const I& i, const stream& s) {
  if constexpr (is_ndarray<I>) {
    return array_arg(i);
  } else if constexpr (requires { typename I::is_ndcuda_expression; }) {
    return array_arg(eval(i));
  } else if constexpr (is_advanced_index<I>) {  // std::vector / std::span of integers (or bools)
    using T = std::remove_cv_t<typename I::value_type>;
    static_assert(std::is_integral_v<T>, "host index lists must hold integers (or bools, for a mask)");
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<bool> v(i.begin(), i.end());
      return array_arg(asarray<bool>(v, shape_t{static_cast<index_t>(v.size())}, s));
    } else {
      const std::vector<std::int64_t> v(i.begin(), i.end());
      return array_arg(asarray<std::int64_t>(v, shape_t{static_cast<index_t>(v.size())}, s));
    }
  } else {
    return {index_entry{index_entry::kind::basic, to_index_item(i), {}, 0}, {}};
  }
}

}  // namespace detail

}  // namespace ndcuda

#pragma GCC visibility pop
