// Short reductions inlined into the kernel around them: a lazy reduction that folds a few elements
// per output (at most max_inline_elements) over a plain elementwise tree is spelled inside the
// enclosing kernel (an elementwise one, or another reduction's map) as a fold over one copy of its
// tree per reduced element, each copy reading its leaves re-viewed at that element (an array at
// an offset base pointer, a draw at a shifted counter), so nothing of the inner result is stored.
// The template half: the tree walk and the kernel caches; src/expr/inline_reduction.cpp re-views
// the leaves and spells the fold. Builds on expr/reduction_expr.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <ndcuda/expr/detail/codegen.hpp>
#include <ndcuda/expr/detail/kernel_cache.hpp>
#include <ndcuda/expr/reduction_expr.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ndcuda::detail {

/// The most elements a reduction may fold per output to be inlined: the product of its reduced
/// extents (docs/reductions.md). Each element is one copy of the reduced tree in the kernel.
inline constexpr index_t max_inline_elements = 8;

/// Whether reduction kind k may be inlined: those whose reducer folds values one by one with no
/// parameter (kernels/reducers.cuh); var/std, arg*, nan* and norms keep the engine.
constexpr bool inlinable_kind(reduce_kind k) noexcept {
  return k == reduce_kind::sum || k == reduce_kind::prod || k == reduce_kind::mean || k == reduce_kind::min ||
         k == reduce_kind::max || k == reduce_kind::any || k == reduce_kind::all;
}

/// Whether every lazy node of X is a reduction that may be inlined (its kind, and a tree under it
/// whose lazy nodes may be inlined too: a short softmax is one kernel). Other lazy nodes keep
/// today's lowering.
template <class X>
inline constexpr bool inlinable_tree = !has_lazy_v<X>;
template <class Op, class... A>
inline constexpr bool inlinable_tree<expr<Op, A...>> = (inlinable_tree<A> && ...);
template <reduce_kind K, class D, class N>
inline constexpr bool inlinable_tree<reduction_expr<K, D, N>> = inlinable_kind(K) && inlinable_tree<N>;

/// Which lazy reduction is emitted next, and into how many copies each one unrolls.
struct inline_plan {
  std::vector<int> counts;  // per inlined reduction, in tree order (left to right)
  std::size_t next = 0;
};

/// The operands of a tree with inlined reductions, in the order the emitter reads them: a leaf
/// outside any reduction once, a leaf inside one once per reduced element (copy 0's leaves, then
/// copy 1's, ...; a reduction inside one, once per copy of the enclosing one, counts included).
/// The re-viewed layouts and draw parameters live here.
struct inline_operands {
  std::vector<leaf_ref> leaves;
  std::deque<view_layout> layouts;
  std::deque<std::array<unsigned char, source_param_size>> params;
  inline_plan plan;
  std::vector<const void*> scalars;
  std::vector<dtype> scalar_types;
  std::vector<std::uint8_t> mapping;  // leaf -> distinct input
  std::vector<leaf_ref> distinct;
  bool fits = true;  // false: some reduction is too long (or empty), or the kernel too large

  /// Appends the copies of `tree` (a reduced tree's operands, over `input_shape`) for each
  /// element of the reduced axes; clears `fits` when they are not 1..max_inline_elements.
  void add_reduction(const inline_operands& tree, const shape_t& input_shape,
                     const std::optional<std::vector<int>>& axes, bool keepdims);
  /// Finds the distinct inputs; false when they (or the copies) exceed one kernel's limits.
  bool finish();
  [[nodiscard]] std::span<const leaf_ref> inputs() const { return {distinct.data(), distinct.size()}; }
};

/// The fold of `copies` (each a value of spec.value's compute type) by spec's reducer: the value
/// of the inlined reduction, of compute_type(spec.out), interned in `values`.
[[nodiscard]] node_code inline_fold(value_table& values, const reduce_spec& spec, std::span<const node_code> copies,
                                    const char* name);

template <class X>
void gather_inline(const X& x, inline_operands& o) {
  leaves_of<X> l;
  collect(x, l);
  o.leaves.insert(o.leaves.end(), l.arrays.begin(), l.arrays.end());
  o.scalars.insert(o.scalars.end(), l.scalars.begin(), l.scalars.begin() + X::scalars);
  o.scalar_types.insert(o.scalar_types.end(), l.scalar_types.begin(), l.scalar_types.begin() + X::scalars);
}
template <class Op, class... A>
void gather_inline(const expr<Op, A...>& x, inline_operands& o) {
  std::apply([&](const auto&... a) { (gather_inline(a, o), ...); }, x.args);
}
template <reduce_kind K, class D, class N>
void gather_inline(const reduction_expr<K, D, N>& x, inline_operands& o) {
  inline_operands tree;  // the reduced tree's operands, its own short reductions unrolled
  gather_inline(x.input(), tree);
  o.add_reduction(tree, x.input_shape(), x.axes(), x.keepdims());
}

/// The inlined reduction K of N: its tree once per reduced element, then the fold.
template <reduce_kind K, class D, class N>
node_code emit_inline(emit_context& c) {
  const int count = c.inlines->counts[c.inlines->next++];
  const int first_scalar = c.next_scalar;
  std::vector<node_code> copies;
  copies.reserve(static_cast<std::size_t>(count));
  for (int j = 0; j < count; ++j) {
    c.next_scalar = first_scalar;
    copies.push_back(emitter<N>::emit(c));
  }
  return inline_fold(c.values, spec_for<K, D, N>(), copies, reduction_of(K).name);
}

/// The body of tree X with its reductions inlined as `o` says, stored as dtype `out`.
template <class X>
std::string inline_body(inline_operands& o, dtype out, std::string* label = nullptr) {
  emit_context c{o.mapping.data()};
  o.plan.next = 0;
  c.inlines = &o.plan;
  const node_code root = emitter<X>::emit(c);
  if (label != nullptr) {
    *label = root.label;
  }
  return c.values.body(out, root);
}

/// The operands of `x` with its reductions inlined; nullopt when some reduction does not fit.
template <class X>
std::unique_ptr<inline_operands> inline_operands_of(const X& x) {
  auto o = std::make_unique<inline_operands>();
  gather_inline(x, *o);
  if (!o->finish()) {
    return nullptr;
  }
  return o;
}

/// The cache key of a kernel with inlined reductions: the leaf pattern, the copy counts and the
/// reduction whose map the tree is (none for an elementwise kernel).
struct inline_key {
  std::vector<std::uint8_t> mapping;
  std::vector<int> counts;
  reduce_spec spec;
  bool operator==(const inline_key&) const = default;
};

struct inline_path;

/// The engine state of type State for tree type X with its reductions inlined as `o` says.
template <class X, class State, class Make>
const State& inline_state(const inline_operands& o, const reduce_spec& spec, const Make& make) {
  using cache = kernel_cache<cache_tag<inline_path, X, State>, inline_key, std::shared_ptr<State>>;
  return *cache::get(inline_key{o.mapping, o.plan.counts, spec}, make);
}

/// The elementwise engine state for X written to Out, its reductions inlined as `o` says.
template <class Out, class X>
const jit::detail::elementwise_state& inline_expression_state(inline_operands& o) {
  constexpr reduce_spec none{reduce_kind::sum, dtype_of<Out>, dtype_of<Out>, dtype_of<Out>};
  return inline_state<X, jit::detail::elementwise_state>(o, none, [&] {
    std::string label;
    const std::string body = inline_body<X>(o, dtype_of<Out>, &label);
    return make_expression_state(body, X::op_name, dtype_of<Out>, o.inputs(), o.scalar_types, label);
  });
}

/// The reduction engine state for reduction `spec` of X, X's reductions inlined as `o` says.
template <class X>
const reduction_state& inline_reduction_state(inline_operands& o, const reduce_spec& spec) {
  return inline_state<X, reduction_state>(
      o, spec, [&] { return make_reduction_state(inline_body<X>(o, spec.value), spec, o.inputs(), o.scalar_types); });
}

/// Writes tree `x` into `out` in one kernel with its short reductions inlined; false, having done
/// nothing, when some lazy node of it may not be inlined.
template <class Out, class X>
bool inline_into(const X& x, const ndarray<Out>& out) {
  if constexpr (!inlinable_tree<X>) {
    return false;
  } else {
    const auto o = inline_operands_of(x);
    if (!o) {
      return false;
    }
    run_expression(inline_expression_state<Out, X>(*o), leaf_of(out), o->inputs(), o->scalars.data());
    return true;
  }
}

/// Reduction K (dtype D, result Out) of tree `x` whose short reductions are inlined into its map:
/// one reduction kernel. nullopt, having done nothing, when they may not be.
template <reduce_kind K, class D, class Out, class X>
std::optional<ndarray<Out>> inline_reduce(const X& x, const std::optional<std::vector<int>>& axes, bool keepdims,
                                          const stream* s, double param) {
  if constexpr (!inlinable_tree<X> || !reduce_accepts(K, X::type())) {
    return std::nullopt;
  } else {
    const auto o = inline_operands_of(x);
    if (!o) {
      return std::nullopt;
    }
    const reduce_spec spec = spec_for<K, D, X>();  // named: GCC 13 flags a reference from a temporary argument
    const reduction_state& state = inline_reduction_state<X>(*o, spec);
    const reduce_call call = prepare_reduction(K, o->inputs(), axes, keepdims);
    ndarray<Out> out = empty<Out>(call.result_shape, s != nullptr ? *s : *o->distinct[0].s);
    run_reduction(state, call, leaf_of(out), o->inputs(), o->scalars.data(), param);
    return out;
  }
}

}  // namespace ndcuda::detail

#pragma GCC visibility pop
