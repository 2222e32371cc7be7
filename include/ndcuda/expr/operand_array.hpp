// Operands of the layers above ops/ as arrays: expressions evaluated, arrays as they are, and the
// element type either way. Builds on expr/evaluate.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/expr/evaluate.hpp>
#include <type_traits>
#include <utility>

namespace ndcuda::detail {

/// An operand as an array: arrays as they are, expressions evaluated (one fused kernel).
template <class X>
auto to_array(const X& x) {
  if constexpr (is_ndarray<std::remove_cvref_t<X>>) {
    return x;
  } else {
    return eval(x);
  }
}

/// The element type of an operand (of the array it evaluates to).
template <class X>
using operand_value_t = std::remove_cv_t<typename decltype(to_array(std::declval<const X&>()))::value_type>;

}  // namespace ndcuda::detail

#pragma GCC visibility pop
