/// @file
/// The planner: how a tree is evaluated, decided in one place for both things the engine does
/// with it (write it into an array; reduce it), and the two launch paths that end each plan (one
/// fused elementwise kernel; one reduction kernel with the tree as its map). The passes it runs
/// live beside it: expr/rewrite_pass.hpp (a layer above computes the whole tree),
/// expr/inline_reduction.hpp (short reductions spelled inside the kernel), expr/row_fusion.hpp
/// (row-resident kernels: softmax, layer norm) and lower/split (expr/{reduction_expr,tree}.hpp).
/// Builds on those and array/creation.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <array>
#include <cstdint>
#include <memory>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/expr/detail/kernel_cache.hpp>
#include <ndcuda/expr/detail/reduce_engine.hpp>
#include <ndcuda/expr/inline_reduction.hpp>
#include <ndcuda/expr/reduction_expr.hpp>
#include <ndcuda/expr/rewrite_pass.hpp>
#include <ndcuda/expr/row_fusion.hpp>
#include <ndcuda/expr/tree.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ndcuda {
namespace detail {

/// What the planner can decide from a tree's type alone; the rest is decided at run time.
enum class plan_kind : std::uint8_t {
  /// The tree holds a lazy node (a reduction, a product). Tried in order: the rewrite pass (a layer
  /// above computes the whole tree in one call), inlined short reductions, a row program; else
  /// every lazy node is computed first (lower) and the rest planned again.
  lazy,
  /// More operands than one kernel takes: multi-leaf subtrees become temporaries first (split).
  split,
  /// One kernel over the tree's distinct inputs; split after all when repeats do not bring them
  /// under max_fused_inputs.
  fused,
};

/// The plan for a tree of type X.
template <class X>
constexpr plan_kind plan_for() noexcept {
  if constexpr (has_lazy_v<X>) {
    return plan_kind::lazy;
  } else if constexpr (X::arrays + X::scalars > max_fused_leaves || X::scalars > max_fused_scalars) {
    return plan_kind::split;
  } else {
    return plan_kind::fused;
  }
}

/// Whether the distinct inputs of a fused plan exceed one kernel's (repeats counted once); only a
/// tree with more array leaves than that can (callers test X::arrays first, at compile time).
template <class X>
bool too_many_inputs(const inputs_of<X>& in) noexcept {
  return in.count > static_cast<std::size_t>(max_fused_inputs);
}

struct elementwise_path;
struct reduction_path;

/// The elementwise engine state for tree type X written to Out, one per pattern of repeated leaves.
template <class Out, class X>
const jit::detail::elementwise_state& expression_state(const inputs_of<X>& in) {
  using cache = kernel_cache<cache_tag<elementwise_path, Out, X>, std::array<std::uint8_t, X::arrays>,
                             std::shared_ptr<jit::detail::elementwise_state>>;
  return *cache::get(in.mapping, [&] {
    emit_context c{in.mapping.data()};
    const node_code root = emitter<X>::emit(c);
    return make_expression_state(c.values.body(dtype_of<Out>, root), X::op_name, dtype_of<Out>,
                                 {in.distinct.data(), in.count},
                                 {in.leaves.scalar_types.data(), static_cast<std::size_t>(X::scalars)}, root.label);
  });
}

/// The reduction engine state for reduction K (dtype D) with tree type N as its map, one per
/// (pattern of repeated leaves, reducer).
template <reduce_kind K, class D, class N>
const reduction_state& reduction_state_for(const inputs_of<N>& in) {
  struct key {
    std::array<std::uint8_t, N::arrays> mapping;
    reduce_spec spec;
    bool operator==(const key&) const = default;
  };
  constexpr reduce_spec spec = spec_for<K, D, N>();
  using cache = kernel_cache<cache_tag<reduction_path, N>, key, std::shared_ptr<reduction_state>>;
  return *cache::get(key{in.mapping, spec}, [&] {
    emit_context c{in.mapping.data()};
    const node_code root = emitter<N>::emit(c);
    return make_reduction_state(c.values.body(spec.value, root), spec, {in.distinct.data(), in.count},
                                {in.leaves.scalar_types.data(), static_cast<std::size_t>(N::scalars)});
  });
}

/// The broadcast shape of a tree's array leaves (at least one).
template <std::size_t N>
shape_t broadcast_shape_of(const std::array<leaf_ref, N>& arrays) {
  shape_t shape = arrays[0].layout->shape;
  for (std::size_t i = 1; i < N; ++i) {
    if (arrays[i].layout->shape != shape) {
      shape = broadcast_shapes(shape, arrays[i].layout->shape);
    }
  }
  return shape;
}

/// A tree that is one lazy reduction over a plain map, written straight into `out` when out is
/// what the engine would have made (its dtype, C-contiguous, the result's shape, no shared bytes
/// with the inputs): `c(nd::ellipsis) = nd::sum(a, 1)` allocates no result. False, having done
/// nothing, otherwise.
template <class Out, class X>
bool reduce_into(const X& x, const ndarray<Out>& out) {
  if constexpr (is_reduction_expr<X>) {  // nested: the second test names members only reductions have
    using N = std::remove_cvref_t<decltype(x.input())>;
    if constexpr (std::is_same_v<Out, typename X::value_type> && plan_for<N>() == plan_kind::fused) {
      const inputs_of<N> in(x.input());
      if constexpr (N::arrays > max_fused_inputs) {
        if (too_many_inputs(in)) {
          return false;
        }
      }
      const std::span<const leaf_ref> inputs{in.distinct.data(), in.count};
      const leaf_ref target = leaf_of(out);
      if (!reduces_into(x.call(), target, inputs)) {
        return false;
      }
      run_reduction(reduction_state_for<X::kind, typename X::result_override, N>(in), x.call(), target, inputs,
                    in.leaves.scalars.data(), x.param());
      return true;
    }
  }
  return false;
}

/// The value of tree `x` written into `out` (broadcast to its shape, converted to Out).
template <class Out, class X>
void evaluate_into(const X& x, const ndarray<Out>& out) {
  constexpr plan_kind plan = plan_for<X>();
  if constexpr (plan == plan_kind::lazy) {
    if (lazy_rewrite<X>::assign(x, out) || reduce_into(x, out) || inline_into(x, out) || fuse_rows(x, out)) {
      return;
    }
    const auto lowered = lower(x);
    if constexpr (is_expr<std::remove_cv_t<decltype(lowered)>>) {
      evaluate_into(lowered, out);
    } else {  // the tree was one lazy node: its result is copied (converted, broadcast) into out
      out.assign(lowered.array);
    }
  } else if constexpr (plan == plan_kind::split) {
    evaluate_into(split(x), out);
  } else {
    const inputs_of<X> in(x);
    if constexpr (X::arrays > max_fused_inputs) {
      if (too_many_inputs(in)) {
        evaluate_into(split(x), out);
        return;
      }
    }
    run_expression(expression_state<Out, X>(in), leaf_of(out), {in.distinct.data(), in.count},
                   in.leaves.scalars.data());
  }
}

/// Reduction K of `x` over `axes` (nullopt: all) into a new array, on `s` (nullptr: the first
/// array's stream). `known`: the checked call when the caller already made it (a lazy reduction
/// checks its axes when built), else it is made here.
template <reduce_kind K, class D, class X>
auto reduce(const X& x, const std::optional<std::vector<int>>& axes, bool keepdims, const stream* s, double param,
            const reduce_call* known) {
  using N = node_t<const X&>;
  using Out = type_of<result_dtype<K, D, N>()>;
  constexpr plan_kind plan = plan_for<N>();
  if constexpr (plan == plan_kind::lazy) {
    if (auto inlined = inline_reduce<K, D, Out>(as_node(x), axes, keepdims, s, param)) {
      return std::move(*inlined);
    }
    return reduce<K, D>(lower(as_node(x)), axes, keepdims, s, param, known);
  } else if constexpr (plan == plan_kind::split) {
    return reduce<K, D>(eval(x), axes, keepdims, s, param, known);
  } else {
    if constexpr (!reduce_accepts(K, N::type())) {
      throw error(std::string(reduce_name(K)) + " of " + std::string(name(N::type())) +
                  " values is not supported (NaN-skipping extremes of complex numbers are not done yet); reduce real() "
                  "or abs(), or use min/max");
    }
    const N node = as_node(x);
    const inputs_of<N> in(node);
    if constexpr (N::arrays > max_fused_inputs) {
      if (too_many_inputs(in)) {
        return reduce<K, D>(eval(x), axes, keepdims, s, param, known);
      }
    }
    const std::span<const leaf_ref> inputs{in.distinct.data(), in.count};
    const reduce_call call = known != nullptr ? *known : prepare_reduction(K, inputs, axes, keepdims);
    ndarray<Out> out = empty<Out>(call.result_shape, s != nullptr ? *s : *in.distinct[0].s);
    run_reduction(reduction_state_for<K, D, N>(in), call, leaf_of(out), inputs, in.leaves.scalars.data(), param);
    return out;
  }
}

}  // namespace detail

template <class Op, class... Args>
shape_t expr<Op, Args...>::shape() const {
  detail::leaves_of<expr> leaves;
  detail::collect(*this, leaves);
  return detail::broadcast_shape_of(leaves.arrays);
}

template <class Op, class... Args>
int expr<Op, Args...>::device() const {
  return detail::first_leaf(*this).device;
}

template <class Op, class... Args>
const ndcuda::stream& expr<Op, Args...>::stream() const {
  return *detail::first_leaf(*this).s;  // a member of an operand this node holds
}

template <class Op, class... Args>
template <array_element E>
ndarray<E> expr<Op, Args...>::evaluate() const {
  if constexpr (detail::has_lazy_v<expr>) {  // a tree a layer above may compute whole, into its own array
    if (std::optional<ndarray<E>> whole = detail::lazy_rewrite<expr>::template evaluate<E>(*this)) {
      return std::move(*whole);
    }
  }
  detail::leaves_of<expr> leaves;  // collected once: this is every evaluation's host path
  detail::collect(*this, leaves);
  ndarray<E> out = empty<E>(detail::broadcast_shape_of(leaves.arrays), *leaves.arrays[0].s);
  detail::evaluate_into(*this, out);
  return out;
}

template <class Op, class... Args>
template <array_element E>
void expr<Op, Args...>::assign_to(const ndarray<E>& out) const {
  detail::evaluate_into(*this, out);
}

template <detail::reduce_kind K, class D, class N>
ndarray<typename reduction_expr<K, D, N>::value_type> reduction_expr<K, D, N>::materialize() const {
  return detail::reduce<K, D>(input_, axes_, keepdims_, &stream_, param_, &call_);
}

template <detail::reduce_kind K, class D, class N>
template <array_element E>
void reduction_expr<K, D, N>::assign_to(const ndarray<E>& out) const {
  detail::evaluate_into(*this, out);
}

}  // namespace ndcuda

#pragma GCC visibility pop
