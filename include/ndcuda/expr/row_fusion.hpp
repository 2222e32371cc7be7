// Fusion across reductions: a tree whose lazy reductions are keepdims reductions over the trailing
// axes of the tree's own shape (softmax, layer norm, centring, written as in NumPy) runs as one
// row-resident kernel: a block per row computes each reduction of the row in turn, then writes the
// row, so the input is read from memory once and nothing of full size is stored. Other trees
// compute their reductions first (lower). The template half: the tree walk that fills the program
// (jit/detail/row_program.hpp); the run-time fit check and the call of the launch are
// src/expr/row_fusion.cpp, the source and the launch src/jit/row_program_*.cpp. Builds on
// expr/reduction_expr.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <array>
#include <cstdint>
#include <ndcuda/expr/detail/codegen.hpp>
#include <ndcuda/expr/detail/kernel_cache.hpp>
#include <ndcuda/expr/inline_reduction.hpp>
#include <ndcuda/expr/reduction_expr.hpp>
#include <ndcuda/jit/detail/row_program.hpp>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace ndcuda::detail {

// The program is plain data of the jit layer, which spells and launches it.
using jit::detail::row_program;
using jit::detail::row_stage;

/// What one lazy reduction of the tree is at run time (post-order, as the stages were emitted).
struct row_node {
  reduce_kind kind = reduce_kind::sum;
  const std::optional<std::vector<int>>* axes = nullptr;
  bool keepdims = false;
  double param = 0.0;
  const shape_t* input_shape = nullptr;
};

/// Adds a stage (or finds an identical one) for a reduction with `spec` and mapped `body`; returns
/// its index. `node`: records it as the stage of the next lazy reduction (post-order); `shared`:
/// whether an identical stage may serve it (not when its parameter is the node's ddof).
int add_row_stage(row_program& p, const reduce_spec& spec, std::string body, bool node = true, bool shared = true);

/// var/std of real floating values inside a row program: two passes over the held row (the mean,
/// then the sum of squared deviations; exact where Welford's update rounds), the mean shared with a
/// mean of the same values elsewhere in the tree (layer norm's). `value` is the mapped value's code
/// in `c`'s table, `body` the statement computing it; returns the code of the result.
node_code emit_row_variance(emit_context& c, const reduce_spec& spec, const node_code& value, const std::string& body);

/// Finishes `p` (its kernel cache, its NVTX range) once its stages and final body are known.
void finish_row_program(row_program& p);

/// Runs the program writing `out` when the shapes allow a row-resident kernel (every reduction
/// keeps its dims over the same trailing axes of out's shape, which is every reduction's operand
/// shape; every operand collapses to rows and columns) and the program fits one kernel's parameters.
/// Returns false, having done nothing, when they do not.
[[nodiscard]] bool run_row_program(const row_program& p, const leaf_ref& out, std::span<const leaf_ref> inputs,
                                   const void* const* scalars, std::span<const row_node> nodes);

/// Leaves of a tree including those inside its lazy reductions (which collect() sees as one leaf),
/// and its lazy reductions: all known from the tree's type.
template <class X>
struct deep_count {
  static constexpr int arrays = X::arrays;
  static constexpr int scalars = X::scalars;
  static constexpr int reductions = 0;
};
template <class Op, class... A>
struct deep_count<expr<Op, A...>> {
  static constexpr int arrays = (deep_count<A>::arrays + ...);
  static constexpr int scalars = (deep_count<A>::scalars + ...);
  static constexpr int reductions = (deep_count<A>::reductions + ...);
};
template <reduce_kind K, class D, class N>
struct deep_count<reduction_expr<K, D, N>> {
  static constexpr int arrays = deep_count<N>::arrays;
  static constexpr int scalars = deep_count<N>::scalars;
  static constexpr int reductions = deep_count<N>::reductions + 1;
};

template <class X>
struct deep_leaves {
  std::array<leaf_ref, deep_count<X>::arrays> arrays{};
  std::array<const void*, deep_count<X>::scalars + 1> scalars{};
  std::array<dtype, deep_count<X>::scalars + 1> scalar_types{};
  int array_count = 0;
  int scalar_count = 0;
  // Sized by the type, as the leaves are: no allocation per evaluation, and no std::vector growth
  // path for g++ 12 to misread at -O2/-O3 (its -Wstringop-overflow false positive on push_back).
  std::array<row_node, deep_count<X>::reductions> nodes{};
  int node_count = 0;
};

template <class L, class X>
void collect_deep(const X& x, L& out) {
  collect(x, out);
}
template <class L, class Op, class... A>
void collect_deep(const expr<Op, A...>& x, L& out) {
  std::apply([&](const auto&... a) { (collect_deep(a, out), ...); }, x.args);
}
template <class L, reduce_kind K, class D, class N>
void collect_deep(const reduction_expr<K, D, N>& x, L& out) {
  collect_deep(x.input(), out);
  out.nodes[static_cast<std::size_t>(out.node_count++)] =
      row_node{K, &x.axes(), x.keepdims(), x.param(), &x.input_shape()};
}

/// Inside a row program a lazy reduction is a value of the row: its stage's result.
template <reduce_kind K, class D, class N>
struct emitter<reduction_expr<K, D, N>> {
  static node_code emit(emit_context& c) {
    if (c.inlines != nullptr) {  // a short reduction spelled in the enclosing kernel
      return emit_inline<K, D, N>(c);
    }
    if (c.rows == nullptr) {
      throw error("internal: a lazy reduction reached an engine that computes it elementwise; please report");
    }
    emit_context inner{c.mapping, c.next_array, c.next_scalar};
    inner.rows = c.rows;
    const node_code root = emitter<N>::emit(inner);
    c.next_array = inner.next_array;
    c.next_scalar = inner.next_scalar;
    constexpr reduce_spec spec = spec_for<K, D, N>();
    if constexpr ((K == reduce_kind::var || K == reduce_kind::std) &&
                  (spec.value == dtype::float32 || spec.value == dtype::float64)) {
      return emit_row_variance(inner, spec, root, inner.values.body(spec.value, root));
    }
    const int stage = add_row_stage(*c.rows, spec, inner.values.body(spec.value, root));
    std::string name = "ndcuda_red" + std::to_string(stage);
    return {name, compute_type(spec.out), std::string(reduction_of(K).name) + "(" + root.label + ")"};
  }
};

struct row_path;

/// The row program of tree type X written to Out, one per pattern of repeated leaves.
template <class Out, class X>
const row_program& row_program_for(const std::array<std::uint8_t, deep_count<X>::arrays>& mapping,
                                   std::span<const leaf_ref> inputs, std::span<const dtype> scalar_types) {
  using cache = kernel_cache<cache_tag<row_path, Out, X>, std::array<std::uint8_t, deep_count<X>::arrays>, row_program>;
  return cache::get(mapping, [&] {
    row_program p;
    for (const leaf_ref& l : inputs) {
      p.inputs.push_back(l.type);
    }
    p.scalars.assign(scalar_types.begin(), scalar_types.end());
    p.out = dtype_of<Out>;
    emit_context c{mapping.data()};
    c.rows = &p;
    const node_code root = emitter<X>::emit(c);
    p.final_body = c.values.body(dtype_of<Out>, root);
    p.label = root.label;
    finish_row_program(p);
    return p;
  });
}

/// Whether a tree holds a node computed whole (opaque_node: a product): never in a row program.
template <class X>
struct holds_opaque : std::bool_constant<opaque_node<X>> {};
template <class Op, class... A>
struct holds_opaque<expr<Op, A...>> : std::bool_constant<(holds_opaque<A>::value || ...)> {};
template <reduce_kind K, class D, class N>
struct holds_opaque<reduction_expr<K, D, N>> : holds_opaque<N> {};

/// Whether a tree may go to a row program at all (the rest is checked at run time).
template <class X>
constexpr bool row_fusible_type() noexcept {
  return !holds_opaque<X>::value && deep_count<X>::arrays <= max_fused_inputs &&
         deep_count<X>::scalars <= max_fused_scalars &&
         deep_count<X>::arrays + deep_count<X>::scalars <= max_fused_leaves;
}

/// A tree's leaves (its reductions' included), its distinct inputs, and its row program.
template <class Out, class X>
struct row_call {
  deep_leaves<X> leaves;
  std::array<std::uint8_t, deep_count<X>::arrays> mapping{};
  std::array<leaf_ref, deep_count<X>::arrays> distinct{};
  std::size_t count = 0;

  explicit row_call(const X& x) {
    collect_deep(x, leaves);
    count = distinct_inputs(leaves.arrays, mapping, distinct);
  }
  [[nodiscard]] std::span<const leaf_ref> inputs() const { return {distinct.data(), count}; }
  [[nodiscard]] const row_program& program() const {
    return row_program_for<Out, X>(mapping, inputs(),
                                   {leaves.scalar_types.data(), static_cast<std::size_t>(deep_count<X>::scalars)});
  }
};

template <class Out, class X>
bool fuse_rows(const X& x, const ndarray<Out>& out) {
  if constexpr (!row_fusible_type<X>()) {
    return false;
  } else {
    const row_call<Out, X> call(x);
    for (const leaf_ref& l : call.inputs()) {
      if (l.source != nullptr) {
        return false;  // a random draw is read by index, not by address: not in a row program
      }
    }
    return run_row_program(
        call.program(), leaf_of(out), call.inputs(), call.leaves.scalars.data(),
        std::span<const row_node>(call.leaves.nodes.data(), static_cast<std::size_t>(call.leaves.node_count)));
  }
}

}  // namespace ndcuda::detail

#pragma GCC visibility pop
