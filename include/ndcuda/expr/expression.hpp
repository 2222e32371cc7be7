/// @file
/// Expression nodes: array and scalar leaves and op nodes that hold their operands by value, with
/// the result dtype fixed at compile time. Builds on array/ndarray.hpp and core/promotion.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <complex>
#include <cstdint>
#include <limits>
#include <ndcuda/array/ndarray.hpp>
#include <ndcuda/core/detail/scalar.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/promotion.hpp>
#include <ndcuda/expr/lazy_array.hpp>
#include <ndcuda/expr/operation.hpp>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace ndcuda {

namespace detail {

/// A leaf reading an array (a shared handle: the expression keeps the buffer alive).
template <class E>
struct array_leaf {
  [[nodiscard]] static constexpr dtype type() noexcept { return dtype_of<E>; }
  static constexpr int arrays = 1;
  static constexpr int scalars = 0;
  ndarray<E> array;
};

/// A leaf holding a C++ scalar already converted to its dtype `D` (the other operand's, by NEP 50):
/// its value is a kernel parameter, never part of the source.
template <dtype D>
struct scalar_leaf {
  [[nodiscard]] static constexpr dtype type() noexcept { return D; }
  static constexpr int arrays = 0;
  static constexpr int scalars = 1;
  type_of<D> value;
};

}  // namespace detail

/// One operation applied to its operands (leaves or nodes), evaluated lazily. `Op` describes the
/// result dtype and how the node is spelled in the fused kernel (expr/operation.hpp).
template <class Op, class... Args>
struct [[nodiscard]] expr : lazy_array<expr<Op, Args...>, type_of<Op::result(Args::type()...)>> {
  /// Marks the type as an ndcuda expression (array_expression).
  using is_ndcuda_expression = void;
  /// The result dtype, from NumPy's promotion of the operands.
  [[nodiscard]] static constexpr dtype type() noexcept { return Op::result(Args::type()...); }
  /// The operation's name, for messages and profiler ranges.
  static constexpr const char* op_name = Op::name;
  /// How many arrays the expression reads (kernel parameters).
  static constexpr int arrays = (Args::arrays + ...);
  /// How many scalars the expression reads (kernel parameters).
  static constexpr int scalars = (Args::scalars + ...);
  /// The C++ type of the result dtype.
  using value_type = type_of<Op::result(Args::type()...)>;

  /// The operands: arrays, scalars or other nodes.
  std::tuple<Args...> args;

  /// The node over `operands` (`expr<Op, A, B>{{a, b}}`).
  expr(std::tuple<Args...> operands) : args(std::move(operands)) {}  // NOLINT: implicit, as an aggregate was

  /// The value's shape: the operands' broadcast shape, known without computing anything (defined
  /// in expr/plan.hpp, as the members below).
  [[nodiscard]] shape_t shape() const;
  /// The device of the operands.
  [[nodiscard]] int device() const;
  /// The stream the value is computed on: the first array operand's.
  [[nodiscard]] const ndcuda::stream& stream() const;

  /// A new C-contiguous array of the operands' broadcast shape (defined in expr/evaluate.hpp).
  template <array_element E>
  [[nodiscard]] ndarray<E> evaluate() const;
  /// Writes into `out`'s memory, broadcasting to its shape (defined in expr/evaluate.hpp).
  template <array_element E>
  void assign_to(const ndarray<E>& out) const;

  /// This expression converted to T as ndarray::astype converts, inside the same fused kernel
  /// (no temporary): `nd::sum((a * b).astype<double>())`, `(x + 0.5f).astype<std::int32_t>()`.
  template <array_element T>
  [[nodiscard]] expr<detail::cast_op<dtype_of<std::remove_cv_t<T>>>, expr> astype() const {
    return {{*this}};
  }
};

namespace detail {

template <class T>
inline constexpr bool is_ndarray = false;
template <class E>
inline constexpr bool is_ndarray<ndarray<E>> = true;

template <class T>
inline constexpr bool is_expr = false;
template <class Op, class... Args>
inline constexpr bool is_expr<expr<Op, Args...>> = true;

/// Whether a tree holds a lazy producer (a reduction, expr/reduction_expr.hpp) that evaluation must
/// fuse or compute first.
template <class T>
inline constexpr bool has_lazy_v = false;
template <class Op, class... Args>
inline constexpr bool has_lazy_v<expr<Op, Args...>> = (has_lazy_v<Args> || ...);

}  // namespace detail

/// What operators accept as array-like operands: arrays and expressions.
template <class T>
concept array_operand = detail::is_ndarray<std::remove_cvref_t<T>> || detail::is_expr<std::remove_cvref_t<T>>;
/// Array-likes or weak C++ scalars, with at least one array-like among a call's operands.
template <class T>
concept operand = array_operand<T> || weak_scalar<std::remove_cvref_t<T>>;

namespace detail {

/// The node for an array-like operand.
template <class T>
auto as_node(T&& x) {
  using U = std::remove_cvref_t<T>;
  if constexpr (is_ndarray<U>) {
    return array_leaf<typename U::value_type>{std::forward<T>(x)};
  } else if constexpr (requires { typename U::gathered_when_used; }) {
    // An advanced-index read (ops/indexed.hpp) is a gather, done now as NumPy's a[idx] is.
    return array_leaf<typename U::value_type>{x.template evaluate<typename U::value_type>()};
  } else {
    return U(std::forward<T>(x));
  }
}

template <class T>
using node_t = decltype(as_node(std::declval<T>()));

/// The dtype the operands of one call promote to (NEP 50: scalars weak, arrays strong).
template <class... T>
constexpr dtype common_array_type() noexcept {
  dtype t = dtype::bool_;
  bool first = true;
  (
      [&] {
        if constexpr (array_operand<T>) {
          t = first ? node_t<T>::type() : promote_types(t, node_t<T>::type());
          first = false;
        }
      }(),
      ...);
  return t;
}

template <class... T>
constexpr dtype promote_operands() noexcept {
  dtype t = common_array_type<T...>();
  (
      [&] {
        if constexpr (!array_operand<T>) {
          t = promote_with_scalar(t, scalar_kind_of<std::remove_cvref_t<T>>);
        }
      }(),
      ...);
  return t;
}

/// An operand as a node; a scalar takes the dtype `D` its array-like siblings promote to.
template <dtype D, class T>
auto as_operand_node(T&& x) {
  if constexpr (array_operand<T>) {
    return as_node(std::forward<T>(x));
  } else {
    return scalar_leaf<D>{scalar_as<type_of<D>>(x)};
  }
}

/// Builds expr<Op, ...> from a call's operands.
template <class Op, class... T>
auto make_expr(T&&... x) {
  static_assert((array_operand<T> || ...), "an ndcuda expression needs at least one array operand");
  constexpr dtype d = promote_operands<T...>();
  return expr<Op, decltype(as_operand_node<d>(std::forward<T>(x)))...>{{as_operand_node<d>(std::forward<T>(x))...}};
}

}  // namespace detail
}  // namespace ndcuda

#pragma GCC visibility pop
