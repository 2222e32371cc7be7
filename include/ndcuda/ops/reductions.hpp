/// @file
/// NumPy's reductions on arrays and expressions (sum, prod, min, max, mean, var, std, argmin,
/// argmax, all, any, count_nonzero, the nan* forms, norm): the map is fused into one JIT kernel, the
/// result stays on the device. Builds on the engine (expr/evaluate.hpp: lazy reduction nodes and the
/// planner), ops/reduction_call.hpp (axes and options) and ops/masked_reductions.hpp (where=, initial=).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/expr/evaluate.hpp>
#include <ndcuda/ops/masked_reductions.hpp>
#include <ndcuda/ops/reduction_call.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace ndcuda {
namespace detail {

template <class O>
inline constexpr bool is_option_v = false;
template <>
inline constexpr bool is_option_v<where_mask_t> = true;
template <>
inline constexpr bool is_option_v<ndcuda::initial> = true;

template <reduce_kind K, class D, class X, class... O>
auto reduce_with(const X& x, const std::optional<std::vector<int>>& axes, const O&... o) {
  constexpr bool takes_ddof = reduction_of(K).takes_ddof;
  static_assert(takes_ddof || !(std::is_same_v<std::remove_cvref_t<O>, ddof> || ...),
                "nd::ddof applies to nd::var, nd::std, nd::nanvar and nd::nanstd only");
  static_assert(std::is_void_v<D> || reduction_of(K).takes_dtype,
                "a result dtype (nd::sum<double>) applies to sum, prod, mean, var, std and their nan forms, "
                "as NumPy's dtype= does");
  constexpr bool masked = (std::is_same_v<std::remove_cvref_t<O>, where_mask_t> || ...);
  constexpr bool with_initial = (std::is_same_v<std::remove_cvref_t<O>, ndcuda::initial> || ...);
  static_assert(!masked || takes_where(K),
                "nd::where_mask applies to sum, prod, min, max, any, all, mean, var, std and their nan forms");
  static_assert(!with_initial || takes_initial(K),
                "nd::initial applies to sum, prod, min, max and their nan forms, as NumPy's initial= does");
  const reduce_options opt(o...);
  if constexpr (masked || with_initial) {
    return masked_reduce<K, D>(x, axes, opt);
  } else {
    using N = node_t<const X&>;
    if constexpr (!reduce_accepts(K, N::type())) {
      return reduce<K, D>(x, axes, opt.keepdims, opt.s, 0.0);  // its message
    } else {
      return reduction_expr<K, D, N>(as_node(x), axes, opt.keepdims, opt.s, takes_ddof ? opt.delta_dof : 0.0);
    }
  }
}

template <class X>
auto reduce_norm(const X& x, double ord, const axes& ax, bool keepdims, const stream* s) {
  if (ord == 2) {
    return reduce<reduce_kind::norm2, void>(x, ax.list(), keepdims, s, 0.0);
  }
  if (ord == 1) {
    return reduce<reduce_kind::norm1, void>(x, ax.list(), keepdims, s, 0.0);
  }
  if (ord == std::numeric_limits<double>::infinity()) {
    return reduce<reduce_kind::norm_max, void>(x, ax.list(), keepdims, s, 0.0);
  }
  if (ord == -std::numeric_limits<double>::infinity()) {
    return reduce<reduce_kind::norm_min, void>(x, ax.list(), keepdims, s, 0.0);
  }
  throw error("norm: ord " + std::to_string(ord) +
              " is not supported; use 1, 2, inf or -inf (numpy.linalg.vector_norm's orders)");
}

}  // namespace detail

// f(x [, axes] [, options...]): every axis unless axes are given, then nd::keepdims, nd::ddof(n)
// (var and std) and a stream in any order. D overrides the accumulator/result dtype (NumPy's
// dtype=): nd::sum<double>(x, 0).
#define NDCUDA_REDUCTION(fn, kind)                                                   \
  template <class D = void, array_operand X, reduce_option... O>                     \
  [[nodiscard]] auto fn(const X& x, const axes& ax, const O&... o) {                 \
    const detail::op_range<"nd::" #fn> nvtx;                                         \
    return detail::reduce_with<detail::reduce_kind::kind, D>(x, ax.list(), o...);    \
  }                                                                                  \
  template <class D = void, array_operand X, reduce_option... O>                     \
  [[nodiscard]] auto fn(const X& x, const O&... o) {                                 \
    const detail::op_range<"nd::" #fn> nvtx;                                         \
    return detail::reduce_with<detail::reduce_kind::kind, D>(x, std::nullopt, o...); \
  }
// argmin/argmax: f(x [, axis] [, nd::keepdims] [, stream]) -> int64; no axis: the flat C-order index.
#define NDCUDA_ARG_REDUCTION(fn, kind)                                                            \
  template <array_operand X, reduce_option... O>                                                  \
  [[nodiscard]] ndarray<std::int64_t> fn(const X& x, std::optional<int> axis, const O&... o) {    \
    const detail::op_range<"nd::" #fn> nvtx;                                                      \
    return detail::reduce_with<detail::reduce_kind::kind, void>(x, detail::one_axis(axis), o...); \
  }                                                                                               \
  template <array_operand X, reduce_option... O>                                                  \
  [[nodiscard]] ndarray<std::int64_t> fn(const X& x, const O&... o) {                             \
    const detail::op_range<"nd::" #fn> nvtx;                                                      \
    return detail::reduce_with<detail::reduce_kind::kind, void>(x, std::nullopt, o...);           \
  }

/// NumPy's sum over `axes` (every axis by default); bool and signed ints sum in int64, unsigned in uint64. @{
NDCUDA_REDUCTION(sum, sum)
/// @}
/// NumPy's prod: the product over `axes` (every axis by default). @{
NDCUDA_REDUCTION(prod, prod)
/// @}
/// NumPy's mean over `axes`; integers give float64. @{
NDCUDA_REDUCTION(mean, mean)
/// @}
/// NumPy's nansum: the sum over `axes` with NaN counted as zero. @{
NDCUDA_REDUCTION(nansum, nansum)
/// @}
/// NumPy's nanmean: the mean over `axes` of the elements that are not NaN. @{
NDCUDA_REDUCTION(nanmean, nanmean)
/// @}
/// NumPy's min (amin): the smallest element over `axes`; NaN propagates. @{
NDCUDA_REDUCTION(min, min)
/// @}
/// NumPy's amin, the same as min. @{
NDCUDA_REDUCTION(amin, min)
/// @}
/// NumPy's max (amax): the largest element over `axes`; NaN propagates. @{
NDCUDA_REDUCTION(max, max)
/// @}
/// NumPy's amax, the same as max. @{
NDCUDA_REDUCTION(amax, max)
/// @}
/// NumPy's nanmin: the smallest element over `axes`, ignoring NaN. @{
NDCUDA_REDUCTION(nanmin, nanmin)
/// @}
/// NumPy's nanmax: the largest element over `axes`, ignoring NaN. @{
NDCUDA_REDUCTION(nanmax, nanmax)
/// @}
/// NumPy's any: whether any element over `axes` is nonzero (a bool array). @{
NDCUDA_REDUCTION(any, any)
/// @}
/// NumPy's count_nonzero: how many elements over `axes` are nonzero (int64). @{
NDCUDA_REDUCTION(count_nonzero, count_nonzero)
/// @}
/// NumPy's var: the variance over `axes`, dividing by N - ddof (nd::ddof(n), default 0). @{
NDCUDA_REDUCTION(var, var)
/// @}
/// NumPy's std: the standard deviation over `axes`, sqrt(var) with the same ddof. @{
NDCUDA_REDUCTION(std, std)
/// @}
/// NumPy's nanprod: the product over `axes` with NaN counted as one. @{
NDCUDA_REDUCTION(nanprod, nanprod)
/// @}
/// NumPy's nanvar: the variance of the elements that are not NaN; NaN where n - ddof <= 0. @{
NDCUDA_REDUCTION(nanvar, nanvar)
/// @}
/// NumPy's nanstd: sqrt(nanvar) with the same ddof. @{
NDCUDA_REDUCTION(nanstd, nanstd)
/// @}
/// NumPy's argmin: the index of the first smallest element along `axis` (no axis: the flat C-order index). @{
NDCUDA_ARG_REDUCTION(argmin, argmin)
/// @}
/// NumPy's argmax: the index of the first largest element along `axis` (no axis: the flat C-order index). @{
NDCUDA_ARG_REDUCTION(argmax, argmax)
/// @}

#undef NDCUDA_REDUCTION
#undef NDCUDA_ARG_REDUCTION

/// numpy.linalg.vector_norm over `ax`: ord 2 (sqrt of the sum of |x|^2, not rescaled), 1 (sum of
/// |x|), inf (max |x|) or -inf (min |x|). Complex input gives its real dtype, integers float64.
/// Options as the other reductions: nd::norm(x, 2, 1, nd::keepdims).
template <array_operand X, reduce_option... O>
[[nodiscard]] auto norm(const X& x, double ord = 2, const axes& ax = {}, const O&... o) {
  static_assert(!(std::is_same_v<std::remove_cvref_t<O>, ddof> || ...), "nd::ddof applies to nd::var and nd::std only");
  static_assert(!(detail::is_option_v<std::remove_cvref_t<O>> || ...), "nd::norm takes no where= or initial=");
  const detail::op_range<"nd::norm"> nvtx;
  const detail::reduce_options opt(o...);
  return detail::reduce_norm(x, ord, ax, opt.keepdims, opt.s);
}

/// all(): nd::all is also the whole-axis index of a(nd::all, 3), so the reduction is its call
/// operator, with the options of the other reductions: nd::all(x [, axes] [, nd::keepdims] [, stream]).
template <class X, class... A>
auto all_t::operator()(const X& x, const A&... a) const {
  static_assert(array_operand<X>, "nd::all(x, ...) reduces an array or an expression");
  const detail::op_range<"nd::all"> nvtx;
  if constexpr (sizeof...(A) > 0 && !(reduce_option<A> && ...)) {
    return [&x](const axes& ax, const auto&... o) {
      static_assert((reduce_option<decltype(o)> && ...),
                    "nd::all(x, axes, options...) takes nd::keepdims and a stream after the axes");
      return detail::reduce_with<detail::reduce_kind::all, void>(x, ax.list(), o...);
    }(a...);
  } else {
    return detail::reduce_with<detail::reduce_kind::all, void>(x, std::nullopt, a...);
  }
}

template <class X, class... A>
auto all_t::operator()(const X& x, std::initializer_list<int> ax, const A&... a) const {
  return (*this)(x, axes(ax), a...);
}

}  // namespace ndcuda

#pragma GCC visibility pop
