// NumPy's reductions on arrays and expressions (sum, prod, min, max, mean, var, std, argmin,
// argmax, all, any, count_nonzero, the nan* forms, norm): the map is fused into one JIT kernel, the
// result stays on the device. Builds on ops/{evaluate,reduce_engine}.hpp and array/creation.hpp.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <mutex>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/ops/evaluate.hpp>
#include <ndcuda/ops/reduce_engine.hpp>
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
  axes(int axis) : list_(std::vector<int>{axis}) {}  // NOLINT: implicit, as NumPy's axis=1
  axes(std::initializer_list<int> list) : list_(std::vector<int>(list)) {}
  explicit axes(std::vector<int> list) : list_(std::move(list)) {}
  /// nullopt: every axis.
  [[nodiscard]] const std::optional<std::vector<int>>& list() const noexcept { return list_; }

 private:
  std::optional<std::vector<int>> list_;
};

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
    const std::string body = store_statement(spec.value, emitter<X>::emit(c));
    entries.push_back(
        std::make_unique<entry>(entry{mapping, spec, make_reduction_state(body, spec, inputs, scalar_types)}));
    return *entries.back()->state;
  }
};

/// The result dtype of reduction K of node type N; D (not void) overrides it (NumPy's dtype=).
template <reduce_kind K, class D, class N>
constexpr dtype result_dtype() noexcept {
  if constexpr (std::is_void_v<D>) {
    return reduce_result(K, N::type);
  } else {
    return dtype_of<std::remove_cv_t<D>>;
  }
}

template <reduce_kind K, class D, class N>
constexpr reduce_spec spec_for() noexcept {
  constexpr dtype result = result_dtype<K, D, N>();
  return reduce_spec{K, compute_type(N::type), reduce_accumulator(K, N::type, result), result};
}

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
  if constexpr (N::arrays + N::scalars > max_fused_leaves) {
    return reduce<K, D>(eval(x), axes, keepdims, s, param);
  } else {
    if constexpr (!reduce_accepts(K, N::type)) {
      throw error(std::string(reduce_name(K)) + " of " + std::string(name(N::type)) +
                  " values is not supported: complex numbers have no order here; reduce real() or abs() instead");
    }
    const N node = as_node(x);
    const inputs_of<N> in(node);
    const std::span<const leaf_ref> inputs{in.distinct.data(), in.count};
    const reduction_state& state = state_for<K, D, N>(in);
    const reduce_call call = prepare_reduction(K, inputs, axes, keepdims);
    ndarray<Out> out = empty<Out>(call.result_shape, s != nullptr ? *s : *in.distinct[0].s);
    const leaf_ref target{out.data(), &out.layout(), result, &out.stream(), out.device(), &out.owner_ref()};
    run_reduction(state, call, target, inputs, in.leaves.scalars.data(), param);
    return out;
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

// f(x, axes = all, keepdims = false [, stream]); D overrides the accumulator/result dtype.
#define NDCUDA_TYPED_REDUCTION(fn, kind)                                                       \
  template <class D = void, array_operand X>                                                   \
  [[nodiscard]] auto fn(const X& x, const axes& ax = {}, bool keepdims = false) {              \
    return detail::reduce<detail::reduce_kind::kind, D>(x, ax.list(), keepdims, nullptr, 0.0); \
  }                                                                                            \
  template <class D = void, array_operand X>                                                   \
  [[nodiscard]] auto fn(const X& x, const axes& ax, bool keepdims, const stream& s) {          \
    return detail::reduce<detail::reduce_kind::kind, D>(x, ax.list(), keepdims, &s, 0.0);      \
  }
#define NDCUDA_REDUCTION(fn, kind)                                                                \
  template <array_operand X>                                                                      \
  [[nodiscard]] auto fn(const X& x, const axes& ax = {}, bool keepdims = false) {                 \
    return detail::reduce<detail::reduce_kind::kind, void>(x, ax.list(), keepdims, nullptr, 0.0); \
  }                                                                                               \
  template <array_operand X>                                                                      \
  [[nodiscard]] auto fn(const X& x, const axes& ax, bool keepdims, const stream& s) {             \
    return detail::reduce<detail::reduce_kind::kind, void>(x, ax.list(), keepdims, &s, 0.0);      \
  }
// var/std: f(x, axes = all, ddof = 0, keepdims = false [, stream]).
#define NDCUDA_DDOF_REDUCTION(fn, kind)                                                         \
  template <class D = void, array_operand X>                                                    \
  [[nodiscard]] auto fn(const X& x, const axes& ax = {}, int ddof = 0, bool keepdims = false) { \
    return detail::reduce<detail::reduce_kind::kind, D>(x, ax.list(), keepdims, nullptr, ddof); \
  }                                                                                             \
  template <class D = void, array_operand X>                                                    \
  [[nodiscard]] auto fn(const X& x, const axes& ax, int ddof, bool keepdims, const stream& s) { \
    return detail::reduce<detail::reduce_kind::kind, D>(x, ax.list(), keepdims, &s, ddof);      \
  }
// argmin/argmax: f(x, axis = none (flat C-order index), keepdims = false [, stream]) -> int64.
#define NDCUDA_ARG_REDUCTION(fn, kind)                                                                                \
  template <array_operand X>                                                                                          \
  [[nodiscard]] ndarray<std::int64_t> fn(const X& x, std::optional<int> axis = std::nullopt, bool keepdims = false) { \
    return detail::reduce<detail::reduce_kind::kind, void>(x, detail::one_axis(axis), keepdims, nullptr, 0.0);        \
  }                                                                                                                   \
  template <array_operand X>                                                                                          \
  [[nodiscard]] ndarray<std::int64_t> fn(const X& x, std::optional<int> axis, bool keepdims, const stream& s) {       \
    return detail::reduce<detail::reduce_kind::kind, void>(x, detail::one_axis(axis), keepdims, &s, 0.0);             \
  }

NDCUDA_TYPED_REDUCTION(sum, sum)
NDCUDA_TYPED_REDUCTION(prod, prod)
NDCUDA_TYPED_REDUCTION(mean, mean)
NDCUDA_TYPED_REDUCTION(nansum, nansum)
NDCUDA_TYPED_REDUCTION(nanmean, nanmean)
NDCUDA_REDUCTION(min, min)
NDCUDA_REDUCTION(amin, min)
NDCUDA_REDUCTION(max, max)
NDCUDA_REDUCTION(amax, max)
NDCUDA_REDUCTION(nanmin, nanmin)
NDCUDA_REDUCTION(nanmax, nanmax)
NDCUDA_REDUCTION(any, any)
NDCUDA_REDUCTION(count_nonzero, count_nonzero)
NDCUDA_DDOF_REDUCTION(var, var)
NDCUDA_DDOF_REDUCTION(std, std)
NDCUDA_ARG_REDUCTION(argmin, argmin)
NDCUDA_ARG_REDUCTION(argmax, argmax)

#undef NDCUDA_TYPED_REDUCTION
#undef NDCUDA_REDUCTION
#undef NDCUDA_DDOF_REDUCTION
#undef NDCUDA_ARG_REDUCTION

/// numpy.linalg.vector_norm over `ax`: ord 2 (sqrt of the sum of |x|^2, not rescaled), 1 (sum of
/// |x|), inf (max |x|) or -inf (min |x|). Complex input gives its real dtype, integers float64.
template <array_operand X>
[[nodiscard]] auto norm(const X& x, double ord = 2, const axes& ax = {}, bool keepdims = false) {
  return detail::reduce_norm(x, ord, ax, keepdims, nullptr);
}
template <array_operand X>
[[nodiscard]] auto norm(const X& x, double ord, const axes& ax, bool keepdims, const stream& s) {
  return detail::reduce_norm(x, ord, ax, keepdims, &s);
}

/// all(): nd::all is also the whole-axis index of a(nd::all, 3), so the reduction is its call
/// operator: nd::all(x, axes = all, keepdims = false [, stream]).
template <class X, class... A>
auto all_t::operator()(const X& x, A&&... a) const {
  static_assert(array_operand<X>, "nd::all(x, ...) reduces an array or an expression");
  const auto call = [&x](const axes& ax = {}, bool keepdims = false, const stream* s = nullptr) {
    return detail::reduce<detail::reduce_kind::all, void>(x, ax.list(), keepdims, s, 0.0);
  };
  if constexpr (sizeof...(A) == 3) {
    return
        [&](const axes& ax, bool keepdims, const stream& s) { return call(ax, keepdims, &s); }(std::forward<A>(a)...);
  } else {
    return call(std::forward<A>(a)...);
  }
}

}  // namespace ndcuda
