/// @file
/// The tree walks every engine path shares: an expression's leaves (collect), its distinct inputs
/// and which leaf reads which (inputs_of), the spelling of its nodes as kernel code (emitter), and
/// the split of a tree too large for one kernel into temporaries. Builds on expr/expression.hpp and
/// expr/detail/codegen.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <array>
#include <cstdint>
#include <cstring>
#include <ndcuda/expr/detail/codegen.hpp>
#include <ndcuda/expr/expression.hpp>
#include <string>
#include <string_view>
#include <tuple>

namespace ndcuda {
namespace jit::detail {
struct row_program;  // jit/detail/row_program.hpp
}  // namespace jit::detail
namespace detail {

/// Distinct arrays and scalars one fused kernel takes (the elementwise engine's limits, checked
/// against them in codegen.cpp). A tree over more evaluates its multi-leaf subtrees into
/// temporaries first; repeats of one array (a subexpression used twice) count once.
inline constexpr int max_fused_inputs = 31;
inline constexpr int max_fused_scalars = 32;
/// Leaves, repeats included, past which a tree splits without counting its distinct inputs.
inline constexpr int max_fused_leaves = 96;

template <class X>
struct leaves_of {
  std::array<leaf_ref, X::arrays> arrays{};
  std::array<const void*, X::scalars + 1> scalars{};
  std::array<dtype, X::scalars + 1> scalar_types{};
  int array_count = 0;
  int scalar_count = 0;
};

template <class L, class E>
void collect(const array_leaf<E>& x, L& out) {
  out.arrays[static_cast<std::size_t>(out.array_count++)] = leaf_of(x.array);
}
template <class L, dtype D>
void collect(const scalar_leaf<D>& x, L& out) {
  out.scalar_types[static_cast<std::size_t>(out.scalar_count)] = D;
  out.scalars[static_cast<std::size_t>(out.scalar_count++)] = &x.value;
}
template <class L, class Op, class... A>
void collect(const expr<Op, A...>& x, L& out) {
  std::apply([&](const auto&... a) { (collect(a, out), ...); }, x.args);
}

/// A lazy node that a layer above ops/ computes whole (linalg's matmul_expr): the engines never
/// see it; evaluation computes it into an array first (lower, expr/reduction_expr.hpp). Before
/// that, an enclosing tree sees it as one array of its result's layout with no memory yet.
template <class X>
concept opaque_node = requires(const X& x) {
  typename X::computed_whole;
  x.materialize();
};
/// A lazy node seen as one array of its result's layout with no memory yet (an opaque node, a
/// lazy reduction): enough for shapes, devices and streams.
template <class X>
leaf_ref result_leaf(const X& x) {
  return leaf_ref{nullptr, &x.layout(), X::type(), &x.stream(), x.device()};
}
template <class L, opaque_node X>
void collect(const X& x, L& out) {
  out.arrays[static_cast<std::size_t>(out.array_count++)] = result_leaf(x);
}

/// The first array an expression reads (its device and stream are the expression's), found
/// without collecting the rest: device() and stream() take this walk. A leaf of any kind (an
/// array, a draw, a lazy node seen whole) is collected alone.
template <class X>
leaf_ref first_leaf(const X& x) {
  leaves_of<X> leaf;  // one array slot: every leaf kind reads exactly one array
  collect(x, leaf);
  return leaf.arrays[0];
}
template <class Op, class... A>
leaf_ref first_leaf(const expr<Op, A...>& x) {
  leaf_ref found{};
  bool done = false;
  const auto visit = [&](const auto& a) {
    if constexpr (std::remove_cvref_t<decltype(a)>::arrays > 0) {  // scalars read no array
      if (!done) {
        found = first_leaf(a);
        done = true;
      }
    }
  };
  std::apply([&](const auto&... a) { (visit(a), ...); }, x.args);
  return found;
}

struct inline_plan;

struct emit_context {
  const std::uint8_t* mapping = nullptr;
  int next_array = 0;
  int next_scalar = 0;
  value_table values{};                      // identical subtrees are computed once
  jit::detail::row_program* rows = nullptr;  // set while a row-resident kernel is generated (expr/row_fusion.hpp)
  inline_plan* inlines = nullptr;            // set while short reductions are inlined (expr/inline_reduction.hpp)
};

template <class X>
struct emitter;
template <class E>
struct emitter<array_leaf<E>> {
  static node_code emit(emit_context& c) {
    const int input = c.mapping[c.next_array++];
    return {input_name(input), dtype_of<E>, input_label(input)};
  }
};
template <dtype D>
struct emitter<scalar_leaf<D>> {
  static node_code emit(emit_context& c) {
    std::string name = scalar_name(c.next_scalar++);
    return {name, D, name};
  }
};
template <class Op, class... A>
struct emitter<expr<Op, A...>> {
  static node_code emit(emit_context& c) {
    const std::array<node_code, sizeof...(A)> codes{emitter<A>::emit(c)...};  // left to right
    if constexpr (requires { Op::spells_itself; }) {  // e.g. random draws (random/): their own text
      node_code code = Op::emit(codes);
      code.label = call_label(Op::name, codes);
      code.precedence = node_code::label_atom;
      return c.values.intern(std::move(code));
    } else {
      return c.values.intern(
          emit_operation(Op::spell, Op::input(A::type()...), Op::result(A::type()...), codes, Op::name));
    }
  }
};

/// Two leaves that read the same elements in the same way are one kernel input.
inline bool same_input(const leaf_ref& a, const leaf_ref& b) {
  if (a.source != nullptr || b.source != nullptr) {  // copies of one draw: equal parameter bytes
    return a.source != nullptr && b.source != nullptr && std::string_view(a.source) == b.source &&
           std::memcmp(a.data, b.data, source_param_size) == 0 && a.type == b.type &&
           a.layout->shape == b.layout->shape;
  }
  return a.data == b.data && a.type == b.type && a.layout->shape == b.layout->shape &&
         a.layout->strides == b.layout->strides;
}
/// The distinct leaves of `leaves` into `distinct`, and which one each leaf reads into `mapping`;
/// returns how many are distinct.
template <std::size_t N>
std::size_t distinct_inputs(const std::array<leaf_ref, N>& leaves, std::array<std::uint8_t, N>& mapping,
                            std::array<leaf_ref, N>& distinct) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < N; ++i) {
    std::size_t j = 0;
    while (j < count && !same_input(distinct[j], leaves[i])) {
      ++j;
    }
    if (j == count) {
      distinct[count++] = leaves[i];
    }
    mapping[i] = static_cast<std::uint8_t>(j);
  }
  return count;
}

/// The distinct inputs of a tree and which one each array leaf reads.
template <class X>
struct inputs_of {
  leaves_of<X> leaves;
  std::array<std::uint8_t, X::arrays> mapping{};
  std::array<leaf_ref, X::arrays> distinct{};
  std::size_t count = 0;

  explicit inputs_of(const X& x) {
    collect(x, leaves);
    count = distinct_inputs(leaves.arrays, mapping, distinct);
  }
};

/// A subtree with more than one leaf becomes a temporary array: what keeps deep trees small.
template <class A>
auto shrink(const A& a) {
  if constexpr (A::arrays + A::scalars <= 1) {
    return a;
  } else {
    return array_leaf<type_of<A::type()>>{a.template evaluate<type_of<A::type()>>()};
  }
}
template <class Op, class... A>
auto split(const expr<Op, A...>& x) {
  return std::apply([](const auto&... a) { return expr<Op, decltype(shrink(a))...>{{shrink(a)...}}; }, x.args);
}

}  // namespace detail
}  // namespace ndcuda

#pragma GCC visibility pop
