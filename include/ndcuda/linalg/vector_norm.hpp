/// @file
/// numpy.linalg.vector_norm with every ord: 2, 1, inf, -inf (nd::norm's reductions), 0 (the count
/// of nonzeros) and any other p (sum(|x|**p)**(1/p), negative p included). Builds on ops/ and
/// linalg/detail/operands.hpp (the dtype numpy.linalg computes in).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cmath>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/linalg/detail/operands.hpp>
#include <ndcuda/ops/elementwise.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <type_traits>

namespace ndcuda::linalg {

/// numpy.linalg.vector_norm(x, ord, axis, keepdims) over `ax` (every axis by default, as if x were
/// flattened). Integers and bool compute in float64, float16 in float32; complex gives its real
/// dtype. Options: nd::keepdims and a stream, as the reductions take them.
template <array_operand X, reduce_option... O>
[[nodiscard]] auto vector_norm(const X& x, double ord, const axes& ax, const O&... o) {
  static_assert(!(std::is_same_v<std::remove_cvref_t<O>, ddof> || ...), "nd::ddof applies to nd::var and nd::std only");
  const ndcuda::detail::op_range<"nd::linalg::vector_norm"> nvtx;
  using C = detail::solver_t<detail::value_t<X>>;
  using R = detail::real_t<C>;
  const ndarray<C> a = detail::as_type<C>(detail::to_array(x));
  if (ord == 2 || ord == 1 || std::isinf(ord)) {
    return ndarray<R>(ndcuda::norm(a, ord, ax, o...));
  }
  if (ord == 0) {  // NumPy: (x != 0).astype(x.real.dtype).sum(axis)
    return ndarray<R>(ndcuda::sum<R>(abs(a) != R{0}, ax, o...));
  }
  if (std::isnan(ord)) {
    throw value_error("vector_norm: ord is NaN; give a number, inf or -inf");
  }
  // NumPy: absx **= ord; ret = add.reduce(absx); ret **= reciprocal(ord, dtype=ret.dtype)
  const ndarray<R> s = ndcuda::sum(power(abs(a), static_cast<R>(ord)), ax, o...);
  return ndarray<R>(power(s, static_cast<R>(R{1} / static_cast<R>(ord))));
}
/// vector_norm over every axis.
template <array_operand X, reduce_option... O>
[[nodiscard]] auto vector_norm(const X& x, double ord = 2, const O&... o) {
  return vector_norm(x, ord, axes{}, o...);
}

}  // namespace ndcuda::linalg

#pragma GCC visibility pop
