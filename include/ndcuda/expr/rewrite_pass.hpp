/// @file
/// The rewrite pass: how a layer above the engine (which the engine must not include) computes a
/// whole tree holding its lazy node in one library call. The planner (expr/plan.hpp) tries it
/// first. Builds on array/ndarray.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/array/ndarray.hpp>
#include <optional>

namespace ndcuda::detail {

/// Customisation point for the layers above the engine (which it must not include): a partial
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

}  // namespace ndcuda::detail

#pragma GCC visibility pop
