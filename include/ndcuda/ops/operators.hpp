/// @file
/// C++ operators on arrays and expressions (+ - * / % unary -, comparisons, & | ^ ~ << >>) and
/// their NumPy-named twins. Builds on expr/expression.hpp and the ufunc rows (ops/detail/ufunc_rows.hpp); each builds a
/// lazy node.
#pragma once

#include <ndcuda/expr/expression.hpp>
#include <ndcuda/ops/detail/ufunc_rows.hpp>
#include <string>
#include <type_traits>
#include <utility>

namespace ndcuda {

namespace detail {

/// The node of row `Op` (ops/detail/ufunc_rows.hpp) over two operands, at least one array-like, once the
/// row has checked their promoted dtype: every binary spelling (`a - b`, `nd::subtract(a, b)`)
/// calls this, so the type check and its message exist once per ufunc.
template <class Op, class A, class B>
auto binary(A&& a, B&& b) {
  Op::template check<promote_operands<A, B>()>();
  return make_expr<Op>(std::forward<A>(a), std::forward<B>(b));
}

/// The node of row `Op` over one array-like operand, after the row's check of its dtype.
template <class Op, class A>
auto unary(A&& a) {
  Op::template check<node_t<A>::type()>();
  return make_expr<Op>(std::forward<A>(a));
}

}  // namespace detail

// Every spelling forwards to its row; a new ufunc is a row in ops/detail/ufunc_rows.hpp, a device helper
// in kernels/ufuncs.cuh and its public function here (operators) or in ops/functions.hpp.
/// `a + b` elementwise (NumPy's add), broadcast and promoted as NumPy 2 does; a lazy node, fused
/// with the rest of the expression when it is evaluated.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator+(A&& a, B&& b) {
  return detail::binary<detail::add_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's add: `a + b` elementwise, broadcast, dtypes promoted as NumPy 2 does (a lazy node).
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto add(A&& a, B&& b) {
  return detail::binary<detail::add_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a - b` elementwise (NumPy's subtract), broadcast and promoted; a lazy node.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator-(A&& a, B&& b) {
  return detail::binary<detail::subtract_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's subtract: `a - b` elementwise; booleans are refused, as in NumPy.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto subtract(A&& a, B&& b) {
  return detail::binary<detail::subtract_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a * b` elementwise (NumPy's multiply), broadcast and promoted; a lazy node.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator*(A&& a, B&& b) {
  return detail::binary<detail::multiply_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's multiply: `a * b` elementwise.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto multiply(A&& a, B&& b) {
  return detail::binary<detail::multiply_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a / b` elementwise (NumPy's true_divide): integers divide as floating point.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator/(A&& a, B&& b) {
  return detail::binary<detail::true_divide_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's true_divide: `a / b`, integers promoted to a float dtype.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto true_divide(A&& a, B&& b) {
  return detail::binary<detail::true_divide_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's divide, an alias of true_divide.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto divide(A&& a, B&& b) {
  return detail::binary<detail::true_divide_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's floor_divide (`a // b` in Python): rounds toward minus infinity; integer division by zero gives 0.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto floor_divide(A&& a, B&& b) {
  return detail::binary<detail::floor_divide_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a % b` with NumPy's remainder semantics: the result takes the sign of the divisor (not C++'s `%`).
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator%(A&& a, B&& b) {
  return detail::binary<detail::remainder_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's remainder: the result has the sign of the divisor, as Python's `%`.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto remainder(A&& a, B&& b) {
  return detail::binary<detail::remainder_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's mod, an alias of remainder.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto mod(A&& a, B&& b) {
  return detail::binary<detail::remainder_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's power: `a ** b` elementwise; integer powers stay integers.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto power(A&& a, B&& b) {
  return detail::binary<detail::power_op>(std::forward<A>(a), std::forward<B>(b));
}
/// Unary `-a` (NumPy's negative).
template <array_operand A>
[[nodiscard]] auto operator-(A&& a) {
  return detail::unary<detail::negative_op>(std::forward<A>(a));
}
/// NumPy's negative: `-a` elementwise; booleans are refused, as in NumPy.
template <array_operand A>
[[nodiscard]] auto negative(A&& a) {
  return detail::unary<detail::negative_op>(std::forward<A>(a));
}

/// Comparisons give bool arrays. Complex numbers have == and != only.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator==(A&& a, B&& b) {
  return detail::binary<detail::equal_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's equal: `a == b` elementwise, a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto equal(A&& a, B&& b) {
  return detail::binary<detail::equal_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a != b` elementwise (NumPy's not_equal), a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator!=(A&& a, B&& b) {
  return detail::binary<detail::not_equal_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's not_equal: `a != b` elementwise, a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto not_equal(A&& a, B&& b) {
  return detail::binary<detail::not_equal_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a < b` elementwise (NumPy's less), a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator<(A&& a, B&& b) {
  return detail::binary<detail::less_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's less: `a < b` elementwise, a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto less(A&& a, B&& b) {
  return detail::binary<detail::less_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a <= b` elementwise (NumPy's less_equal), a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator<=(A&& a, B&& b) {
  return detail::binary<detail::less_equal_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's less_equal: `a <= b` elementwise, a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto less_equal(A&& a, B&& b) {
  return detail::binary<detail::less_equal_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a > b` elementwise (NumPy's greater), a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator>(A&& a, B&& b) {
  return detail::binary<detail::greater_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's greater: `a > b` elementwise, a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto greater(A&& a, B&& b) {
  return detail::binary<detail::greater_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a >= b` elementwise (NumPy's greater_equal), a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator>=(A&& a, B&& b) {
  return detail::binary<detail::greater_equal_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's greater_equal: `a >= b` elementwise, a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto greater_equal(A&& a, B&& b) {
  return detail::binary<detail::greater_equal_op>(std::forward<A>(a), std::forward<B>(b));
}

/// NumPy's logical_and: the truth of a and of b, elementwise, a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto logical_and(A&& a, B&& b) {
  return detail::binary<detail::logical_and_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's logical_or: the truth of a or of b, elementwise, a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto logical_or(A&& a, B&& b) {
  return detail::binary<detail::logical_or_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's logical_xor: exactly one of a and b true, elementwise, a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto logical_xor(A&& a, B&& b) {
  return detail::binary<detail::logical_xor_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's logical_not: true where a is zero, a bool array.
template <array_operand A>
[[nodiscard]] auto logical_not(A&& a) {
  return detail::unary<detail::logical_not_op>(std::forward<A>(a));
}

/// Bitwise operators: integers and bools only, as in NumPy.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator&(A&& a, B&& b) {
  return detail::binary<detail::bitwise_and_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's bitwise_and: `a & b` on integers and bools.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto bitwise_and(A&& a, B&& b) {
  return detail::binary<detail::bitwise_and_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a | b` elementwise (NumPy's bitwise_or), integers and bools only.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator|(A&& a, B&& b) {
  return detail::binary<detail::bitwise_or_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's bitwise_or: `a | b` on integers and bools.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto bitwise_or(A&& a, B&& b) {
  return detail::binary<detail::bitwise_or_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a ^ b` elementwise (NumPy's bitwise_xor), integers and bools only.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator^(A&& a, B&& b) {
  return detail::binary<detail::bitwise_xor_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's bitwise_xor: `a ^ b` on integers and bools.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto bitwise_xor(A&& a, B&& b) {
  return detail::binary<detail::bitwise_xor_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `~a` elementwise (NumPy's invert): bitwise not of integers, logical not of bools.
template <array_operand A>
[[nodiscard]] auto operator~(A&& a) {
  return detail::unary<detail::invert_op>(std::forward<A>(a));
}
/// NumPy's invert: `~a`, bitwise not of integers and logical not of bools.
template <array_operand A>
[[nodiscard]] auto invert(A&& a) {
  return detail::unary<detail::invert_op>(std::forward<A>(a));
}
/// NumPy's bitwise_not, an alias of invert.
template <array_operand A>
[[nodiscard]] auto bitwise_not(A&& a) {
  return detail::unary<detail::invert_op>(std::forward<A>(a));
}
/// `a << b` elementwise (NumPy's left_shift), integers only.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator<<(A&& a, B&& b) {
  return detail::binary<detail::left_shift_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's left_shift: `a << b`; shifts by the bit width or more give 0, as NumPy.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto left_shift(A&& a, B&& b) {
  return detail::binary<detail::left_shift_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a >> b` elementwise (NumPy's right_shift), integers only.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator>>(A&& a, B&& b) {
  return detail::binary<detail::right_shift_op>(std::forward<A>(a), std::forward<B>(b));
}
/// NumPy's right_shift: `a >> b` (arithmetic for signed integers), as NumPy.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto right_shift(A&& a, B&& b) {
  return detail::binary<detail::right_shift_op>(std::forward<A>(a), std::forward<B>(b));
}

namespace detail {

template <class A>
concept writable_array = is_ndarray<std::remove_cvref_t<A>> && !std::is_const_v<std::remove_reference_t<A>>;

/// Stores `x` (which reads `target`) back into `target`, as NumPy's in-place ufuncs do: the result
/// dtype must cast to the target's under the same_kind rule, else NumPy's UFuncTypeError.
template <class E, class X>
void assign_in_place(const ndarray<E>& target, const X& x, const char* ufunc) {
  if constexpr (!can_cast_same_kind(X::type(), dtype_of<E>)) {
    throw type_error("Cannot cast ufunc '" + std::string(ufunc) + "' output from dtype('" +
                     std::string(name(X::type())) + "') to dtype('" + std::string(name(dtype_of<E>)) +
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
/// `a += x`: a = add(a, x) written into a's memory in place, as NumPy's `a += x`: one fused kernel, no
/// allocation; the result must cast to a's dtype under the same_kind rule. Named arrays and temporary
/// views (`a(nd::slice(1, n)) *= 2`) alike.
NDCUDA_COMPOUND(+=, add, "add")
/// `a -= x`: a = subtract(a, x) written into a's memory in place (NumPy's in-place subtract).
NDCUDA_COMPOUND(-=, subtract, "subtract")
/// `a *= x`: a = multiply(a, x) written into a's memory in place (NumPy's in-place multiply).
NDCUDA_COMPOUND(*=, multiply, "multiply")
/// `a /= x`: a = true_divide(a, x) written into a's memory in place (NumPy's in-place true_divide).
NDCUDA_COMPOUND(/=, true_divide, "divide")
/// `a %= x`: a = remainder(a, x) written into a's memory in place (NumPy's in-place remainder).
NDCUDA_COMPOUND(%=, remainder, "remainder")
/// `a &= x`: a = bitwise_and(a, x) written into a's memory in place (NumPy's in-place bitwise_and).
NDCUDA_COMPOUND(&=, bitwise_and, "bitwise_and")
/// `a |= x`: a = bitwise_or(a, x) written into a's memory in place (NumPy's in-place bitwise_or).
NDCUDA_COMPOUND(|=, bitwise_or, "bitwise_or")
/// `a ^= x`: a = bitwise_xor(a, x) written into a's memory in place (NumPy's in-place bitwise_xor).
NDCUDA_COMPOUND(^=, bitwise_xor, "bitwise_xor")
/// `a <<= x`: a = left_shift(a, x) written into a's memory in place (NumPy's in-place left_shift).
NDCUDA_COMPOUND(<<=, left_shift, "left_shift")
/// `a >>= x`: a = right_shift(a, x) written into a's memory in place (NumPy's in-place right_shift).
NDCUDA_COMPOUND(>>=, right_shift, "right_shift")
#undef NDCUDA_COMPOUND

}  // namespace ndcuda
