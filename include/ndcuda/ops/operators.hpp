/// @file
/// C++ operators on arrays and expressions (+ - * / % unary -, comparisons, & | ^ ~ << >>) and
/// compound assignment. Builds on the ufunc rows (ops/ufuncs.hpp, which also define the NumPy-named
/// twins nd::add, nd::less, ...); each operator builds its row's lazy node.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/expr/expression.hpp>
#include <ndcuda/ops/ufuncs.hpp>
#include <string>
#include <type_traits>
#include <utility>

namespace ndcuda {

// Every operator forwards to its row (ops/ufuncs.hpp), as the row's NumPy-named function does.
/// `a + b` elementwise (NumPy's add), broadcast and promoted as NumPy 2 does; a lazy node, fused
/// with the rest of the expression when it is evaluated.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator+(A&& a, B&& b) {
  return detail::binary<detail::add_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a - b` elementwise (NumPy's subtract), broadcast and promoted; a lazy node.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator-(A&& a, B&& b) {
  return detail::binary<detail::subtract_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a * b` elementwise (NumPy's multiply), broadcast and promoted; a lazy node.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator*(A&& a, B&& b) {
  return detail::binary<detail::multiply_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a / b` elementwise (NumPy's true_divide): integers divide as floating point.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator/(A&& a, B&& b) {
  return detail::binary<detail::true_divide_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a % b` with NumPy's remainder semantics: the result takes the sign of the divisor (not C++'s `%`).
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator%(A&& a, B&& b) {
  return detail::binary<detail::remainder_op>(std::forward<A>(a), std::forward<B>(b));
}
/// Unary `-a` (NumPy's negative).
template <array_operand A>
[[nodiscard]] auto operator-(A&& a) {
  return detail::unary<detail::negative_op>(std::forward<A>(a));
}

/// Comparisons give bool arrays. Complex numbers have == and != only.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator==(A&& a, B&& b) {
  return detail::binary<detail::equal_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a != b` elementwise (NumPy's not_equal), a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator!=(A&& a, B&& b) {
  return detail::binary<detail::not_equal_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a < b` elementwise (NumPy's less), a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator<(A&& a, B&& b) {
  return detail::binary<detail::less_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a <= b` elementwise (NumPy's less_equal), a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator<=(A&& a, B&& b) {
  return detail::binary<detail::less_equal_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a > b` elementwise (NumPy's greater), a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator>(A&& a, B&& b) {
  return detail::binary<detail::greater_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a >= b` elementwise (NumPy's greater_equal), a bool array.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator>=(A&& a, B&& b) {
  return detail::binary<detail::greater_equal_op>(std::forward<A>(a), std::forward<B>(b));
}

/// Bitwise operators: integers and bools only, as in NumPy.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator&(A&& a, B&& b) {
  return detail::binary<detail::bitwise_and_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a | b` elementwise (NumPy's bitwise_or), integers and bools only.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator|(A&& a, B&& b) {
  return detail::binary<detail::bitwise_or_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a ^ b` elementwise (NumPy's bitwise_xor), integers and bools only.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator^(A&& a, B&& b) {
  return detail::binary<detail::bitwise_xor_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `~a` elementwise (NumPy's invert): bitwise not of integers, logical not of bools.
template <array_operand A>
[[nodiscard]] auto operator~(A&& a) {
  return detail::unary<detail::invert_op>(std::forward<A>(a));
}
/// `a << b` elementwise (NumPy's left_shift), integers only.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator<<(A&& a, B&& b) {
  return detail::binary<detail::left_shift_op>(std::forward<A>(a), std::forward<B>(b));
}
/// `a >> b` elementwise (NumPy's right_shift), integers only.
template <operand A, operand B>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto operator>>(A&& a, B&& b) {
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

#pragma GCC visibility pop
