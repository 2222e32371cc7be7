/// @file
/// The engine's public face for evaluation: nd::eval, and printing an expression (operator<<, str,
/// repr), each evaluating it once. Including it brings in the whole engine (expr/plan.hpp).
/// Builds on expr/plan.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/expr/plan.hpp>
#include <ostream>
#include <string>
#include <type_traits>

namespace ndcuda {

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

#pragma GCC visibility pop
