// Recognition of fused epilogues in plain expressions: a tree that is exactly matmul + bias,
// maximum(matmul + bias, 0) or gelu(matmul + bias) (either operand order) is computed as ONE
// cuBLASLt call when its run-time conditions hold: a specialisation of the engine's lazy_rewrite
// customisation point (expr/rewrite_pass.hpp). Builds on linalg/detail/matmul_node.hpp (the node and
// linalg::activation); <ndcuda/linalg/matmul_expr.hpp> includes this file before nd::matmul.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cmath>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/expr/evaluate.hpp>
#include <ndcuda/linalg/detail/entry_points.hpp>
#include <ndcuda/linalg/detail/matmul_node.hpp>
#include <ndcuda/linalg/detail/operands.hpp>
#include <optional>
#include <tuple>
#include <type_traits>

namespace ndcuda::linalg::detail {

using ndcuda::expr;
using ndcuda::detail::array_leaf;
using ndcuda::detail::scalar_leaf;

/// matmul + bias or bias + matmul, with the bias a plain array (an expression bias is not
/// recognised: it falls back to the composed evaluation, which is still correct).
template <class X>
struct sum_form {
  static constexpr bool match = false;
};
template <class R, class E>
struct sum_form<expr<ndcuda::detail::add_op, matmul_expr<R>, array_leaf<E>>> {
  static constexpr bool match = true;
  using product_type = matmul_expr<R>;
  template <class S>
  static const matmul_expr<R>& product(const S& s) {
    return std::get<0>(s.args);
  }
  template <class S>
  static const ndarray<E>& bias(const S& s) {
    return std::get<1>(s.args).array;
  }
};
template <class R, class E>
struct sum_form<expr<ndcuda::detail::add_op, array_leaf<E>, matmul_expr<R>>> {
  static constexpr bool match = true;
  using product_type = matmul_expr<R>;
  template <class S>
  static const matmul_expr<R>& product(const S& s) {
    return std::get<1>(s.args);
  }
  template <class S>
  static const ndarray<E>& bias(const S& s) {
    return std::get<0>(s.args).array;
  }
};

/// Whether a weak scalar of the tree is zero (checked at run time: maximum(t, 0.5) is no relu).
template <class T>
bool is_zero(const T& v) {
  if constexpr (std::is_arithmetic_v<T>) {
    return v == T(0);
  } else {
    return static_cast<float>(v) == 0.0f;  // __half, __nv_bfloat16
  }
}

/// The activation around the sum: none (the sum itself), relu spelled maximum(t, 0) or
/// maximum(0, t), gelu(t). `sum` finds the sum node, `scalar_ok` checks relu's zero.
template <class X>
struct epilogue_form : sum_form<X> {
  static constexpr activation act = activation::none;
  static const X& sum(const X& x) { return x; }
  static bool scalar_ok(const X&) { return true; }
};
template <class S, dtype D>
requires sum_form<S>::match struct epilogue_form<expr<ndcuda::detail::maximum_op, S, scalar_leaf<D>>> : sum_form<S> {
  static constexpr activation act = activation::relu;
  template <class X>
  static const S& sum(const X& x) {
    return std::get<0>(x.args);
  }
  template <class X>
  static bool scalar_ok(const X& x) {
    return is_zero(std::get<1>(x.args).value);
  }
};
template <class S, dtype D>
requires sum_form<S>::match struct epilogue_form<expr<ndcuda::detail::maximum_op, scalar_leaf<D>, S>> : sum_form<S> {
  static constexpr activation act = activation::relu;
  template <class X>
  static const S& sum(const X& x) {
    return std::get<1>(x.args);
  }
  template <class X>
  static bool scalar_ok(const X& x) {
    return is_zero(std::get<0>(x.args).value);
  }
};
template <class S>
requires sum_form<S>::match struct epilogue_form<expr<ndcuda::detail::gelu_op, S>> : sum_form<S> {
  static constexpr activation act = activation::gelu;
  template <class X>
  static const S& sum(const X& x) {
    return std::get<0>(x.args);
  }
  template <class X>
  static bool scalar_ok(const X&) {
    return true;
  }
};

/// The dtypes cuBLASLt's epilogues take.
constexpr bool epilogue_dtype(dtype t) noexcept {
  return t == dtype::float16 || t == dtype::bfloat16 || t == dtype::float32 || t == dtype::float64;
}

/// Compile-time half of the test: the tree's shape is one of the forms, and its dtype is the
/// product's (a float32 bias on a bfloat16 product promotes the sum to float32: not fused).
template <class X>
concept fusable_epilogue = epilogue_form<X>::match && epilogue_dtype(X::type()) && X::type()
== epilogue_form<X>::product_type::type();

/// The run-time half: a 2-d product with a non-empty inner extent, relu's scalar zero, and a bias
/// of one value per column ((n,) or (1, n)). Returns the bias as (n,), or nullopt.
template <class X>
std::optional<erased_array> fusable_bias(const X& x) {
  using F = epilogue_form<X>;
  const auto& s = F::sum(x);
  const auto& p = F::product(s);
  if (!F::scalar_ok(x) || p.a().ndim() != 2 || p.b().ndim() != 2 || p.inner_extent() == 0 || p.size() == 0) {
    return std::nullopt;
  }
  const index_t n = p.shape()[1];
  const auto& bias = F::bias(s);
  if (bias.ndim() == 1 && bias.shape()[0] == n) {
    return erase(bias);
  }
  if (bias.ndim() == 2 && bias.shape()[0] == 1 && bias.shape()[1] == n) {
    return erase(bias.reshape({n}));
  }
  return std::nullopt;
}

}  // namespace ndcuda::linalg::detail

namespace ndcuda::detail {

/// act(matmul + bias) trees: one linalg::detail::matmul_epilogue call when the run-time
/// conditions hold; otherwise (or when cuBLASLt has no kernel) the usual evaluation.
template <class X>
requires linalg::detail::fusable_epilogue<X>
struct lazy_rewrite<X> {
  using F = linalg::detail::epilogue_form<X>;
  using R = typename F::product_type::value_type;

  template <class E>
  static std::optional<ndarray<E>> evaluate(const X& x) {
    const std::optional<erased_array> bias = linalg::detail::fusable_bias(x);
    if (!bias) {
      return std::nullopt;
    }
    const ndcuda::detail::op_range<"nd::linalg::matmul_epilogue"> nvtx;
    const auto& p = F::product(F::sum(x));
    erased_array r = linalg::detail::matmul_epilogue(p.a(), p.b(), &*bias, X::type(), static_cast<int>(F::act));
    if (r.base == nullptr && r.owner == nullptr) {
      return std::nullopt;
    }
    ndarray<R> result = restore<R>(std::move(r));
    if constexpr (std::is_same_v<std::remove_cv_t<E>, R>) {
      return result;
    } else {
      return result.template astype<E>();
    }
  }

  template <class E>
  static bool assign(const X& x, const ndarray<E>& out) {
    const std::optional<erased_array> bias = linalg::detail::fusable_bias(x);
    if (!bias) {
      return false;
    }
    const auto& p = F::product(F::sum(x));
    if constexpr (std::is_same_v<std::remove_cv_t<E>, R>) {
      const erased_array target = erase(out);
      if (out.shape() == p.shape() && out.is_contiguous() && !linalg::detail::may_share(target, p.a()) &&
          !linalg::detail::may_share(target, p.b()) && !linalg::detail::may_share(target, *bias)) {
        const ndcuda::detail::op_range<"nd::linalg::matmul_epilogue"> nvtx;
        return linalg::detail::matmul_epilogue_into(target, p.a(), p.b(), &*bias, static_cast<int>(F::act));
      }
    }
    // Broadcast, converted, strided or overlapping targets: the fused result, then a copy.
    std::optional<ndarray<R>> r = evaluate<R>(x);
    if (!r) {
      return false;
    }
    out.assign(*r);
    return true;
  }
};

}  // namespace ndcuda::detail

#pragma GCC visibility pop
