/// @file
/// NumPy's elementwise functions on arrays and expressions: every ufunc (ops/ufuncs.hpp, one row
/// each, and the operators of ops/operators.hpp), plus where and clip, which are not rows. Builds
/// on ops/operators.hpp (the same lazy nodes).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/ops/operators.hpp>
#include <ndcuda/ops/ufuncs.hpp>
#include <optional>

namespace ndcuda {

/// NumPy's where(condition, a, b): `condition` is read as bool; a and b promote together (weak
/// scalars included, so where(m, x, 0.0f) keeps x's dtype).
template <operand C, operand A, operand B>
requires(array_operand<C> || array_operand<A> || array_operand<B>)
    [[nodiscard]] auto where(C&& condition, A&& a, B&& b) {
  constexpr dtype d = detail::promote_operands<A, B>();
  using cond_t = decltype(detail::as_operand_node<dtype::bool_>(std::forward<C>(condition)));
  using a_t = decltype(detail::as_operand_node<d>(std::forward<A>(a)));
  using b_t = decltype(detail::as_operand_node<d>(std::forward<B>(b)));
  return expr<detail::where_op, cond_t, a_t, b_t>{{detail::as_operand_node<dtype::bool_>(std::forward<C>(condition)),
                                                   detail::as_operand_node<d>(std::forward<A>(a)),
                                                   detail::as_operand_node<d>(std::forward<B>(b))}};
}

/// NumPy's clip: minimum(maximum(a, lo), hi), so NaN in `a` stays NaN.
template <array_operand A, operand L, operand H>
[[nodiscard]] auto clip(A&& a, L&& lo, H&& hi) {
  return minimum(maximum(std::forward<A>(a), std::forward<L>(lo)), std::forward<H>(hi));
}
/// NumPy's clip(a, None, hi): only an upper bound, minimum(a, hi).
template <array_operand A, operand H>
[[nodiscard]] auto clip(A&& a, std::nullopt_t, H&& hi) {
  return minimum(std::forward<A>(a), std::forward<H>(hi));
}
/// NumPy's clip(a, lo, None): only a lower bound, maximum(a, lo).
template <array_operand A, operand L>
[[nodiscard]] auto clip(A&& a, L&& lo, std::nullopt_t) {
  return maximum(std::forward<A>(a), std::forward<L>(lo));
}

}  // namespace ndcuda

#pragma GCC visibility pop
