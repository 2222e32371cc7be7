/// @file
/// NumPy's ldexp, frexp, modf and divmod: floats taken apart and put together, and the ufuncs with
/// two outputs (one kernel writes both). Builds on ops/operators.hpp and expr/pair_outputs.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/expr/evaluate.hpp>
#include <ndcuda/expr/operation.hpp>
#include <ndcuda/expr/pair_outputs.hpp>
#include <ndcuda/ops/operators.hpp>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

namespace ndcuda {
namespace detail {

// The kernel text of the nodes that spell themselves (src/ops/float_parts.cpp: strings are built
// out of line, see docs/contributing.md on -Wrestrict).
[[nodiscard]] node_code emit_ldexp(std::span<const node_code> c);
[[nodiscard]] node_code emit_round_decimals(std::span<const node_code> c);
[[nodiscard]] node_code emit_nan_to_num(std::span<const node_code> c);
[[nodiscard]] node_code emit_isclose(std::span<const node_code> c);

/// ldexp's node: unlike a table row its operands keep their own dtypes (NumPy's 'fl->f' loops),
/// the mantissa its float type (float_of), the exponent int64.
struct ldexp_op {
  static constexpr bool spells_itself = true;
  static constexpr const char* name = "ldexp";
  static constexpr dtype result(dtype x, dtype) noexcept { return float_of(x); }
  static constexpr dtype input(dtype x, dtype) noexcept { return float_of(x); }
  /// NumPy's loops: a real mantissa, an exponent that casts safely to int64 (not uint64, not float).
  static constexpr bool accepts(dtype x, dtype e) noexcept {
    return !is_complex(x) && (is_bool(e) || (is_integral(e) && e != dtype::uint64));
  }
  static node_code emit(std::span<const node_code> c) { return emit_ldexp(c); }
};

/// The array an operand of a two-output ufunc reads: the array itself, or an expression evaluated.
template <class A>
auto operand_array(const A& a) {
  if constexpr (is_ndarray<std::remove_cvref_t<A>>) {
    return a;
  } else {
    return eval(a);
  }
}

/// Runs a one-operand pair ufunc into fresh arrays of dtypes F and S.
template <class F, class S, class E>
std::pair<ndarray<F>, ndarray<S>> unary_pair(pair_kind kind, const ndarray<E>& a) {
  ndarray<F> first = empty<F>(a.shape(), a.stream());
  ndarray<S> second = empty<S>(a.shape(), a.stream());
  const leaf_ref in = leaf_of(a);
  const pair_operand op{&in};
  run_pair(kind, {&op, 1}, dtype_of<F>, leaf_of(first), leaf_of(second));
  return {std::move(first), std::move(second)};
}

}  // namespace detail

/// NumPy's ldexp(x, e): x * 2**e elementwise. x real (integers become float_of's float type, as
/// NumPy's loops choose), e an integer or bool array or a C++ integer (not uint64: NumPy refuses it).
template <array_operand A, operand B>
[[nodiscard]] auto ldexp(A&& x, B&& e) {
  using xa = detail::node_t<A>;
  static_assert(!is_complex(xa::type()),
                "ufunc 'ldexp' not supported for the input types (complex mantissa): use real() and imag()");
  if constexpr (array_operand<B>) {
    using eb = detail::node_t<B>;
    static_assert(detail::ldexp_op::accepts(xa::type(), eb::type()),
                  "ufunc 'ldexp' not supported for the input types: the exponent must be an integer (int8..int64, "
                  "uint8..uint32) or bool array");
    return expr<detail::ldexp_op, xa, eb>{{detail::as_node(std::forward<A>(x)), detail::as_node(std::forward<B>(e))}};
  } else {
    static_assert(std::is_integral_v<std::remove_cvref_t<B>>,
                  "ufunc 'ldexp' not supported for the input types: the exponent must be an integer");
    return expr<detail::ldexp_op, xa, detail::scalar_leaf<dtype::int64>>{
        {detail::as_node(std::forward<A>(x)), detail::scalar_leaf<dtype::int64>{static_cast<std::int64_t>(e)}}};
  }
}

/// NumPy's frexp(x): (mantissa, exponent) with x == mantissa * 2**exponent and 0.5 <= |mantissa| <
/// 1; the mantissa in x's float type (float_of), the exponent int32; 0, inf and NaN give (x, 0).
/// One kernel writes both arrays; an expression operand is evaluated first.
template <array_operand A>
[[nodiscard]] auto frexp(const A& x) {
  constexpr dtype d = detail::node_t<A>::type();
  static_assert(!is_complex(d), "ufunc 'frexp' not supported for the input types (complex)");
  return detail::unary_pair<type_of<detail::float_of(d)>, std::int32_t>(detail::pair_kind::frexp,
                                                                        detail::operand_array(x));
}

/// NumPy's modf(x): (fractional part, integral part), both of x's float type (float_of) and signed
/// like x (modf(-inf) is (-0.0, -inf)). One kernel writes both arrays.
template <array_operand A>
[[nodiscard]] auto modf(const A& x) {
  constexpr dtype d = detail::node_t<A>::type();
  static_assert(!is_complex(d), "ufunc 'modf' not supported for the input types (complex)");
  using F = type_of<detail::float_of(d)>;
  return detail::unary_pair<F, F>(detail::pair_kind::modf, detail::operand_array(x));
}

/// NumPy's divmod(a, b): (a // b, a % b) as floor_divide and remainder give them (the remainder
/// takes the divisor's sign; integer division by zero gives (0, 0)), in one kernel. Dtypes promote
/// as NumPy 2 does (C++ scalars are weak; bool gives int8); complex is refused.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto divmod(const A& a, const B& b) {
  constexpr dtype d = detail::promote_operands<A, B>();
  static_assert(!is_complex(d), "ufunc 'divmod' not supported for the input types (complex)");
  constexpr dtype r = detail::int8_for_bool(d);
  using R = type_of<r>;
  const auto hold = [](const auto& x) {
    if constexpr (array_operand<decltype(x)>) {
      return detail::operand_array(x);
    } else {
      return detail::scalar_as<type_of<d>>(x);
    }
  };
  const auto va = hold(a);
  const auto vb = hold(b);
  detail::leaf_ref leaves[2]{};
  detail::pair_operand ops[2]{};
  shape_t shape;
  const stream* s = nullptr;
  if constexpr (array_operand<A>) {
    leaves[0] = detail::leaf_of(va);
    ops[0] = detail::pair_operand{&leaves[0]};
    shape = va.shape();
    s = &va.stream();
  } else {
    ops[0] = detail::pair_operand{nullptr, d, &va};
  }
  if constexpr (array_operand<B>) {
    leaves[1] = detail::leaf_of(vb);
    ops[1] = detail::pair_operand{&leaves[1]};
    shape = s == nullptr ? vb.shape() : vb.shape() == shape ? shape : broadcast_shapes(shape, vb.shape());
    s = s == nullptr ? &vb.stream() : s;
  } else {
    ops[1] = detail::pair_operand{nullptr, d, &vb};
  }
  ndarray<R> q = empty<R>(shape, *s);
  ndarray<R> m = empty<R>(shape, *s);
  detail::run_pair(detail::pair_kind::divmod, ops, r, detail::leaf_of(q), detail::leaf_of(m));
  return std::pair<ndarray<R>, ndarray<R>>{std::move(q), std::move(m)};
}

}  // namespace ndcuda

#pragma GCC visibility pop
