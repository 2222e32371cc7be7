// C++ operators on arrays and expressions (+ - * / % unary -, comparisons, & | ^ ~ << >>) and
// their NumPy-named twins. Builds on ops/{expression,operations}.hpp; each builds a lazy node.
#pragma once

#include <ndcuda/ops/expression.hpp>
#include <ndcuda/ops/operations.hpp>
#include <string>
#include <type_traits>
#include <utility>

namespace ndcuda {

namespace detail {
constexpr bool any_type(dtype) noexcept {
  return true;
}
constexpr bool not_bool(dtype t) noexcept {
  return t != dtype::bool_;
}
constexpr bool not_complex(dtype t) noexcept {
  return !is_complex(t);
}
constexpr bool integer_or_bool(dtype t) noexcept {
  return is_integral(t) || t == dtype::bool_;
}
constexpr bool integer_only(dtype t) noexcept {
  return is_integral(t);
}
constexpr bool real_number(dtype t) noexcept {
  return !is_complex(t);
}
constexpr bool real_not_bool(dtype t) noexcept {
  return !is_complex(t) && t != dtype::bool_;
}
}  // namespace detail

// A binary function `fn` over two operands, at least one array-like; `check` (of the promoted
// dtype) turns NumPy's TypeError into a compile-time error with `message`.
#define NDCUDA_BINARY(fn, tag, check, message)                                          \
  template <operand A, operand B>                                                       \
  requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto fn(A&& a, B&& b) {  \
    static_assert(detail::check(detail::promote_operands<A, B>()), message);            \
    return detail::make_expr<detail::tag##_op>(std::forward<A>(a), std::forward<B>(b)); \
  }
#define NDCUDA_UNARY(fn, tag, check, message)                       \
  template <array_operand A>                                        \
  [[nodiscard]] auto fn(A&& a) {                                    \
    static_assert(detail::check(detail::node_t<A>::type), message); \
    return detail::make_expr<detail::tag##_op>(std::forward<A>(a)); \
  }

NDCUDA_BINARY(operator+, add, any_type, "")
NDCUDA_BINARY(add, add, any_type, "")
NDCUDA_BINARY(operator-, subtract, not_bool, "subtracting bool arrays is not supported (NumPy: use ^ or logical_xor)")
NDCUDA_BINARY(subtract, subtract, not_bool, "subtracting bool arrays is not supported (NumPy: use ^ or logical_xor)")
NDCUDA_BINARY(operator*, multiply, any_type, "")
NDCUDA_BINARY(multiply, multiply, any_type, "")
NDCUDA_BINARY(operator/, true_divide, any_type, "")
NDCUDA_BINARY(true_divide, true_divide, any_type, "")
NDCUDA_BINARY(divide, true_divide, any_type, "")
NDCUDA_BINARY(floor_divide, floor_divide, not_complex, "floor_divide is not defined for complex numbers")
NDCUDA_BINARY(operator%, remainder, not_complex, "remainder (%) is not defined for complex numbers")
NDCUDA_BINARY(remainder, remainder, not_complex, "remainder (%) is not defined for complex numbers")
NDCUDA_BINARY(mod, remainder, not_complex, "remainder (%) is not defined for complex numbers")
NDCUDA_BINARY(power, power, any_type, "")
NDCUDA_UNARY(operator-, negative, not_bool, "negating a bool array is not supported (NumPy: use ~ or logical_not)")
NDCUDA_UNARY(negative, negative, not_bool, "negating a bool array is not supported (NumPy: use ~ or logical_not)")

// Comparisons give bool arrays. Complex numbers have == and != only.
NDCUDA_BINARY(operator==, equal, any_type, "")
NDCUDA_BINARY(equal, equal, any_type, "")
NDCUDA_BINARY(operator!=, not_equal, any_type, "")
NDCUDA_BINARY(not_equal, not_equal, any_type, "")
NDCUDA_BINARY(operator<, less, real_number, "complex numbers have no order: compare real() or abs()")
NDCUDA_BINARY(less, less, real_number, "complex numbers have no order: compare real() or abs()")
NDCUDA_BINARY(operator<=, less_equal, real_number, "complex numbers have no order: compare real() or abs()")
NDCUDA_BINARY(less_equal, less_equal, real_number, "complex numbers have no order: compare real() or abs()")
NDCUDA_BINARY(operator>, greater, real_number, "complex numbers have no order: compare real() or abs()")
NDCUDA_BINARY(greater, greater, real_number, "complex numbers have no order: compare real() or abs()")
NDCUDA_BINARY(operator>=, greater_equal, real_number, "complex numbers have no order: compare real() or abs()")
NDCUDA_BINARY(greater_equal, greater_equal, real_number, "complex numbers have no order: compare real() or abs()")

NDCUDA_BINARY(logical_and, logical_and, any_type, "")
NDCUDA_BINARY(logical_or, logical_or, any_type, "")
NDCUDA_BINARY(logical_xor, logical_xor, any_type, "")
NDCUDA_UNARY(logical_not, logical_not, any_type, "")

// Bitwise operators: integers and bools only, as in NumPy.
NDCUDA_BINARY(operator&, bitwise_and, integer_or_bool, "& (bitwise_and) needs integer or bool operands")
NDCUDA_BINARY(bitwise_and, bitwise_and, integer_or_bool, "& (bitwise_and) needs integer or bool operands")
NDCUDA_BINARY(operator|, bitwise_or, integer_or_bool, "| (bitwise_or) needs integer or bool operands")
NDCUDA_BINARY(bitwise_or, bitwise_or, integer_or_bool, "| (bitwise_or) needs integer or bool operands")
NDCUDA_BINARY(operator^, bitwise_xor, integer_or_bool, "^ (bitwise_xor) needs integer or bool operands")
NDCUDA_BINARY(bitwise_xor, bitwise_xor, integer_or_bool, "^ (bitwise_xor) needs integer or bool operands")
NDCUDA_UNARY(operator~, invert, integer_or_bool, "~ (invert) needs an integer or bool operand")
NDCUDA_UNARY(invert, invert, integer_or_bool, "~ (invert) needs an integer or bool operand")
NDCUDA_UNARY(bitwise_not, invert, integer_or_bool, "~ (invert) needs an integer or bool operand")
NDCUDA_BINARY(operator<<, left_shift, integer_only, "<< (left_shift) needs integer operands")
NDCUDA_BINARY(left_shift, left_shift, integer_only, "<< (left_shift) needs integer operands")
NDCUDA_BINARY(operator>>, right_shift, integer_only, ">> (right_shift) needs integer operands")
NDCUDA_BINARY(right_shift, right_shift, integer_only, ">> (right_shift) needs integer operands")

namespace detail {

template <class A>
concept writable_array = is_ndarray<std::remove_cvref_t<A>> && !std::is_const_v<std::remove_reference_t<A>>;

/// Stores `x` (which reads `target`) back into `target`, as NumPy's in-place ufuncs do: the result
/// dtype must cast to the target's under the same_kind rule, else NumPy's UFuncTypeError.
template <class E, class X>
void assign_in_place(const ndarray<E>& target, const X& x, const char* ufunc) {
  if constexpr (!can_cast_same_kind(X::type, dtype_of<E>)) {
    throw type_error("Cannot cast ufunc '" + std::string(ufunc) + "' output from dtype('" + std::string(name(X::type)) +
                     "') to dtype('" + std::string(name(dtype_of<E>)) +
                     "') with casting rule 'same_kind': to store the result anyway, write "
                     "`a(nd::ellipsis) = (a op x).astype<T>()`");
  } else {
    x.assign_to(target);
  }
}

}  // namespace detail

// Compound assignment updates the array's memory in place, as NumPy's `a += x` does: one fused
// kernel, no allocation. Works on named arrays and on temporary views (`a(nd::slice(1, n)) *= 2`).
#define NDCUDA_COMPOUND(op, fn, ufunc)                                           \
  template <class A, operand Y>                                                  \
  requires detail::writable_array<A> A && operator op(A&& a, Y&& y) {            \
    detail::assign_in_place(a, fn(std::as_const(a), std::forward<Y>(y)), ufunc); \
    return std::forward<A>(a);                                                   \
  }
NDCUDA_COMPOUND(+=, add, "add")
NDCUDA_COMPOUND(-=, subtract, "subtract")
NDCUDA_COMPOUND(*=, multiply, "multiply")
NDCUDA_COMPOUND(/=, true_divide, "divide")
NDCUDA_COMPOUND(%=, remainder, "remainder")
NDCUDA_COMPOUND(&=, bitwise_and, "bitwise_and")
NDCUDA_COMPOUND(|=, bitwise_or, "bitwise_or")
NDCUDA_COMPOUND(^=, bitwise_xor, "bitwise_xor")
NDCUDA_COMPOUND(<<=, left_shift, "left_shift")
NDCUDA_COMPOUND(>>=, right_shift, "right_shift")
#undef NDCUDA_COMPOUND

}  // namespace ndcuda
