/// @file
/// Evaluation of expressions: one fused kernel per tree, its engine state cached per expression
/// type, output dtype and leaf aliasing. Builds on ops/{expression,codegen}.hpp and array/creation.hpp.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/ops/detail/codegen.hpp>
#include <ndcuda/ops/expression.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ndcuda {
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
/// see it; evaluation computes it into an array first (lower, ops/reduction_expr.hpp). Before
/// that, an enclosing tree sees it as one array of its result's layout with no memory yet.
template <class X>
concept opaque_node = requires(const X& x) {
  typename X::computed_whole;
  x.materialize();
};
template <class L, opaque_node X>
void collect(const X& x, L& out) {
  out.arrays[static_cast<std::size_t>(out.array_count++)] =
      leaf_ref{nullptr, &x.layout(), X::type, &x.stream(), x.device()};
}

/// Customisation point for the layers above ops/ (which ops/ must not include): a partial
/// specialisation may compute a whole tree of type X holding its lazy node in one library call
/// (linalg/matmul_expr.hpp: act(matmul + bias) as one cuBLASLt epilogue). evaluate<E> returns
/// nullopt, assign false, when the tree does not qualify at run time; evaluation then goes on
/// as usual. Resolved at instantiation, so a tree without such a node costs nothing.
template <class X>
struct lazy_rewrite {
  template <class E>
  static std::optional<ndarray<E>> evaluate(const X&) {
    return std::nullopt;
  }
  template <class E>
  static bool assign(const X&, const ndarray<E>&) {
    return false;
  }
};

struct row_program;
struct inline_plan;

struct emit_context {
  const std::uint8_t* mapping = nullptr;
  int next_array = 0;
  int next_scalar = 0;
  value_table values{};            // identical subtrees are computed once
  row_program* rows = nullptr;     // set while a row-resident kernel is generated (ops/detail/row_fusion.hpp)
  inline_plan* inlines = nullptr;  // set while short reductions are inlined (ops/detail/inline_reduction.hpp)
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
      return c.values.intern(emit_operation(Op::spell, Op::input(A::type...), Op::result(A::type...), codes, Op::name));
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

/// Engine states for expression type X written to Out, one per pattern of repeated leaves. The
/// usual pattern is found with one atomic load and a compare; no string is built after the first.
template <class Out, class X>
struct expression_kernels {
  using mapping_t = std::array<std::uint8_t, X::arrays>;
  struct entry {
    mapping_t mapping;
    std::shared_ptr<jit::detail::elementwise_state> state;
  };

  static const jit::detail::elementwise_state& get(const mapping_t& mapping, std::span<const leaf_ref> inputs,
                                                   std::span<const dtype> scalar_types) {
    static std::atomic<const entry*> first{nullptr};
    static std::mutex mutex;
    static std::vector<std::unique_ptr<entry>> entries;
    if (const entry* e = first.load(std::memory_order_acquire); e != nullptr && e->mapping == mapping) {
      return *e->state;
    }
    std::lock_guard lock(mutex);
    for (const auto& e : entries) {
      if (e->mapping == mapping) {
        return *e->state;
      }
    }
    emit_context c{mapping.data()};
    const node_code root = emitter<X>::emit(c);
    const std::string body = c.values.body(dtype_of<Out>, root);
    entries.push_back(std::make_unique<entry>(
        entry{mapping, make_expression_state(body, X::op_name, dtype_of<Out>, inputs, scalar_types, root.label)}));
    if (first.load(std::memory_order_relaxed) == nullptr) {
      first.store(entries.back().get(), std::memory_order_release);
    }
    return *entries.back()->state;
  }
};

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
    return array_leaf<type_of<A::type>>{a.template evaluate<type_of<A::type>>()};
  }
}
template <class Op, class... A>
auto split(const expr<Op, A...>& x) {
  return std::apply([](const auto&... a) { return expr<Op, decltype(shrink(a))...>{{shrink(a)...}}; }, x.args);
}

/// A tree holding lazy reductions written to `out`: one row-resident kernel where the shapes allow,
/// else the reductions first, then the rest (ops/detail/row_fusion.hpp).
template <class Out, class X>
void evaluate_lazy(const X& x, const ndarray<Out>& out);

template <class Out, class X>
void evaluate_into(const X& x, const ndarray<Out>& out) {
  if constexpr (has_lazy_v<X>) {
    if (!lazy_rewrite<X>::assign(x, out)) {
      evaluate_lazy(x, out);
    }
  } else if constexpr (X::arrays + X::scalars > max_fused_leaves || X::scalars > max_fused_scalars) {
    evaluate_into(split(x), out);
  } else {
    const inputs_of<X> in(x);
    if constexpr (X::arrays > max_fused_inputs) {
      if (in.count > static_cast<std::size_t>(max_fused_inputs)) {
        evaluate_into(split(x), out);
        return;
      }
    }
    const auto& state =
        expression_kernels<Out, X>::get(in.mapping, {in.distinct.data(), in.count},
                                        {in.leaves.scalar_types.data(), static_cast<std::size_t>(X::scalars)});
    run_expression(state, leaf_of(out), {in.distinct.data(), in.count}, in.leaves.scalars.data());
  }
}

}  // namespace detail

template <class Op, class... Args>
template <array_element E>
ndarray<E> expr<Op, Args...>::evaluate() const {
  if constexpr (detail::has_lazy_v<expr>) {  // a tree a layer above may compute whole, into its own array
    if (std::optional<ndarray<E>> whole = detail::lazy_rewrite<expr>::template evaluate<E>(*this)) {
      return std::move(*whole);
    }
  }
  detail::leaves_of<expr> leaves;
  detail::collect(*this, leaves);
  shape_t shape = leaves.arrays[0].layout->shape;
  for (std::size_t i = 1; i < leaves.arrays.size(); ++i) {
    if (leaves.arrays[i].layout->shape != shape) {
      shape = broadcast_shapes(shape, leaves.arrays[i].layout->shape);
    }
  }
  ndarray<E> out = empty<E>(std::move(shape), *leaves.arrays[0].s);
  detail::evaluate_into(*this, out);
  return out;
}

template <class Op, class... Args>
template <array_element E>
void expr<Op, Args...>::assign_to(const ndarray<E>& out) const {
  detail::evaluate_into(*this, out);
}

/// A new array holding the value of `x` (its natural dtype, the operands' broadcast shape).
template <class X>
requires detail::is_expr<std::remove_cvref_t<X>>
[[nodiscard]] auto eval(const X& x) {
  return x.template evaluate<typename std::remove_cvref_t<X>::value_type>();
}

/// Prints the value of `x` (evaluated as eval does) as the array's repr; waits for the result.
template <class X>
requires detail::is_expr<std::remove_cvref_t<X>> std::ostream& operator<<(std::ostream& os, const X& x) {
  return os << eval(x);
}
/// NumPy's str of the value of `x` (evaluated as eval does), under the thread's print options.
template <class X>
requires detail::is_expr<std::remove_cvref_t<X>>
[[nodiscard]] std::string str(const X& x) {
  return str(eval(x));
}
/// NumPy's repr of the value of `x` (evaluated as eval does), under the thread's print options.
template <class X>
requires detail::is_expr<std::remove_cvref_t<X>>
[[nodiscard]] std::string repr(const X& x) {
  return repr(eval(x));
}

}  // namespace ndcuda
