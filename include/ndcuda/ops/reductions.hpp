/// @file
/// NumPy's reductions on arrays and expressions (sum, prod, min, max, mean, var, std, argmin,
/// argmax, all, any, count_nonzero, the nan* forms, norm): the map is fused into one JIT kernel, the
/// result stays on the device. Builds on ops/{evaluate,reduce_engine}.hpp and array/creation.hpp.
#pragma once

#include <array>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <mutex>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/ops/detail/reduce_engine.hpp>
#include <ndcuda/ops/detail/row_fusion.hpp>
#include <ndcuda/ops/evaluate.hpp>
#include <ndcuda/ops/reduction_expr.hpp>
#include <ndcuda/ops/reduction_options.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ndcuda {

/// Which axes a reduction folds: all of them (default), one (`1`, `-1`), or a set (`{0, 2}`).
/// Negative axes count from the end, as in NumPy.
class axes {
 public:
  axes() = default;
  /// One axis. Not from bool: `sum(x, true)` must not mean axis 1 (write nd::keepdims).
  template <std::integral I>
  requires(!std::is_same_v<I, bool>) axes(I axis)  // NOLINT: implicit, as NumPy's axis=1
      : list_(std::vector<int>{static_cast<int>(axis)}) {}
  /// A set of axes: `{0, 2}`.
  axes(std::initializer_list<int> list) : list_(std::vector<int>(list)) {}
  /// A set of axes known at run time.
  explicit axes(std::vector<int> list) : list_(std::move(list)) {}
  /// nullopt: every axis.
  [[nodiscard]] const std::optional<std::vector<int>>& list() const noexcept { return list_; }

 private:
  std::optional<std::vector<int>> list_;
};

/// keepdims=True: `nd::sum(x, 1, nd::keepdims)`, or `nd::keepdims(flag)` for a value known at run
/// time. A typed option, so that a bare `true` in a reduction's arguments never compiles.
struct keepdims_t {
  bool value = true;  ///< whether the reduced axes stay as axes of extent 1
  /// keepdims with a value known at run time: `nd::keepdims(flag)`.
  [[nodiscard]] constexpr keepdims_t operator()(bool v) const noexcept { return keepdims_t{v}; }
};
/// NumPy's keepdims=True for a reduction: `nd::sum(x, 1, nd::keepdims)`.
inline constexpr keepdims_t keepdims{};

/// var/std's delta degrees of freedom: `nd::var(x, 1, nd::ddof(1))`.
struct ddof {
  /// Divide by N - v instead of N.
  constexpr explicit ddof(int v) noexcept : value(v) {}
  int value;  ///< the delta degrees of freedom
};

/// What a reduction takes after its axes, in any order: nd::keepdims, nd::ddof(n) (var and std
/// and their nan forms), nd::where_mask(m), nd::initial(v) (ops/reduction_options.hpp) and the
/// stream to run on (default: the first array's stream).
template <class O>
concept reduce_option = std::is_same_v<std::remove_cvref_t<O>, keepdims_t> ||
    std::is_same_v<std::remove_cvref_t<O>, ddof> || std::is_same_v<std::remove_cvref_t<O>, stream> ||
    std::is_same_v<std::remove_cvref_t<O>, where_mask_t> || std::is_same_v<std::remove_cvref_t<O>, initial>;

namespace detail {

/// Engine states for expression type X, one per (pattern of repeated leaves, reducer): built on
/// first use, then found under a short lock.
template <class X>
struct reduction_kernels {
  using mapping_t = std::array<std::uint8_t, X::arrays>;
  struct entry {
    mapping_t mapping;
    reduce_spec spec;
    std::shared_ptr<reduction_state> state;
  };

  static const reduction_state& get(const mapping_t& mapping, const reduce_spec& spec, std::span<const leaf_ref> inputs,
                                    std::span<const dtype> scalar_types) {
    static std::mutex mutex;
    static std::vector<std::unique_ptr<entry>> entries;
    std::lock_guard lock(mutex);
    for (const auto& e : entries) {
      if (e->mapping == mapping && e->spec == spec) {
        return *e->state;
      }
    }
    emit_context c{mapping.data()};
    const node_code root = emitter<X>::emit(c);
    const std::string body = c.values.body(spec.value, root);
    entries.push_back(
        std::make_unique<entry>(entry{mapping, spec, make_reduction_state(body, spec, inputs, scalar_types)}));
    return *entries.back()->state;
  }
};

/// The engine state of reduction K (dtype D) over the inputs of a tree of type N.
template <reduce_kind K, class D, class N>
const reduction_state& state_for(const inputs_of<N>& in) {
  return reduction_kernels<N>::get(in.mapping, spec_for<K, D, N>(), {in.distinct.data(), in.count},
                                   {in.leaves.scalar_types.data(), static_cast<std::size_t>(N::scalars)});
}

/// The reduction `K` of `x` over `axes` (nullopt: all) on `s` (nullptr: the first array's stream).
template <reduce_kind K, class D, class X>
auto reduce(const X& x, const std::optional<std::vector<int>>& axes, bool keepdims, const stream* s, double param) {
  using N = node_t<const X&>;
  constexpr dtype result = result_dtype<K, D, N>();
  using Out = type_of<result>;
  if constexpr (has_lazy_v<N>) {  // a reduction of an expression of reductions: short ones inlined, else first
    if (auto inlined = inline_reduce<K, D, Out>(as_node(x), axes, keepdims, s, param)) {
      return std::move(*inlined);
    }
    return reduce<K, D>(lower(as_node(x)), axes, keepdims, s, param);
  } else if constexpr (N::arrays + N::scalars > max_fused_leaves || N::scalars > max_fused_scalars) {
    return reduce<K, D>(eval(x), axes, keepdims, s, param);
  } else {
    if constexpr (!reduce_accepts(K, N::type)) {
      throw error(std::string(reduce_name(K)) + " of " + std::string(name(N::type)) +
                  " values is not supported (NaN-skipping extremes of complex numbers are not done yet); reduce real() "
                  "or abs(), or use min/max");
    }
    const N node = as_node(x);
    const inputs_of<N> in(node);
    if constexpr (N::arrays > max_fused_inputs) {
      if (in.count > static_cast<std::size_t>(max_fused_inputs)) {
        return reduce<K, D>(eval(x), axes, keepdims, s, param);
      }
    }
    const std::span<const leaf_ref> inputs{in.distinct.data(), in.count};
    const reduction_state& state = state_for<K, D, N>(in);
    const reduce_call call = prepare_reduction(K, inputs, axes, keepdims);
    ndarray<Out> out = empty<Out>(call.result_shape, s != nullptr ? *s : *in.distinct[0].s);
    run_reduction(state, call, leaf_of(out), inputs, in.leaves.scalars.data(), param);
    return out;
  }
}

/// The options of one reduction call, parsed from its trailing arguments.
struct reduce_options {
  bool keepdims = false;
  int delta_dof = 0;
  const stream* s = nullptr;
  std::optional<ndarray<bool>> where;   ///< where=: the mask as given (broadcast later)
  std::optional<ndcuda::initial> init;  ///< initial=

  template <reduce_option... O>
  explicit reduce_options(const O&... o) {
    (set(o), ...);
  }

 private:
  void set(const keepdims_t& k) { keepdims = k.value; }
  void set(const ndcuda::ddof& d) { delta_dof = d.value; }
  void set(const stream& st) { s = &st; }
  void set(const where_mask_t& w) { where = w.mask; }
  void set(const ndcuda::initial& i) { init = i; }
};

/// where= and initial= (detail/masked_reduce.hpp, included at the end of this header).
template <reduce_kind K, class D, class X>
auto masked_reduce(const X& x, const std::optional<std::vector<int>>& axes, const reduce_options& opt);
constexpr bool takes_where(reduce_kind k) noexcept;
constexpr bool takes_initial(reduce_kind k) noexcept;

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
    if constexpr (!reduce_accepts(K, N::type)) {
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

inline std::optional<std::vector<int>> one_axis(std::optional<int> axis) {
  return axis ? std::optional<std::vector<int>>(std::vector<int>{*axis}) : std::nullopt;
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

template <detail::reduce_kind K, class D, class N>
template <array_element E>
void reduction_expr<K, D, N>::assign_to(const ndarray<E>& out) const {
  detail::evaluate_into(*this, out);
}

}  // namespace ndcuda

#include <ndcuda/ops/detail/masked_reduce.hpp>  // IWYU pragma: export (the definitions of where=/initial=)
