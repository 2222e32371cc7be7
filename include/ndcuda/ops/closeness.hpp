/// @file
/// NumPy's round with decimals, angle, nan_to_num, and the closeness tests isclose, allclose,
/// array_equal and array_equiv. Builds on ops/{functions,reductions}.hpp (lazy nodes, nd::any).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <limits>
#include <ndcuda/core/error.hpp>
#include <ndcuda/expr/operation.hpp>
#include <ndcuda/ops/float_parts.hpp>
#include <ndcuda/ops/functions.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <numbers>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>

namespace ndcuda {

/// isclose's relative tolerance: `nd::isclose(a, b, nd::rtol(1e-3))` (NumPy's default 1e-05).
struct rtol {
  /// The tolerance relative to |b|.
  constexpr explicit rtol(double v) noexcept : value(v) {}
  double value;  ///< the relative tolerance
};
/// isclose's absolute tolerance: `nd::isclose(a, b, nd::atol(1e-6))` (NumPy's default 1e-08).
struct atol {
  /// The absolute tolerance.
  constexpr explicit atol(double v) noexcept : value(v) {}
  double value;  ///< the absolute tolerance
};
/// equal_nan=True: `nd::isclose(a, b, nd::equal_nan)`, `nd::array_equal(a, b, nd::equal_nan)`, or
/// `nd::equal_nan(flag)` for a value known at run time.
struct equal_nan_t {
  bool value = true;  ///< whether NaN equals NaN
  /// equal_nan with a value known at run time: `nd::equal_nan(flag)`.
  [[nodiscard]] constexpr equal_nan_t operator()(bool v) const noexcept { return equal_nan_t{v}; }
};
/// NumPy's equal_nan=True for isclose, allclose and array_equal.
inline constexpr equal_nan_t equal_nan{};
/// angle's deg=True: `nd::angle(z, nd::deg)`, or `nd::deg(flag)`.
struct deg_t {
  bool value = true;  ///< degrees instead of radians
  /// deg with a value known at run time: `nd::deg(flag)`.
  [[nodiscard]] constexpr deg_t operator()(bool v) const noexcept { return deg_t{v}; }
};
/// NumPy's deg=True for angle: the result in degrees.
inline constexpr deg_t deg{};

/// np.nan_to_num's replacements, NumPy's keywords as designated initializers:
/// `nd::nan_to_num(a, {.nan = 1.0, .posinf = 9.0})`. Unset infinities become the dtype's largest
/// (or lowest) finite value.
struct nan_to_num_options {
  double nan = 0.0;                ///< what NaN becomes
  std::optional<double> posinf{};  ///< what +inf becomes (default: the largest finite value)
  std::optional<double> neginf{};  ///< what -inf becomes (default: the lowest finite value)
};

namespace detail {

/// round(a, decimals): a node of a's dtype reading the int32 scalar `decimals`.
struct round_decimals_op {
  static constexpr bool spells_itself = true;
  static constexpr const char* name = "round";
  /// bool rounds to float16, as np.round(bool array) (decimals 0 only: NumPy refuses the others).
  static constexpr dtype result(dtype x, dtype) noexcept { return x == dtype::bool_ ? dtype::float16 : x; }
  static constexpr dtype input(dtype x, dtype d) noexcept { return result(x, d); }
  static node_code emit(std::span<const node_code> c) { return emit_round_decimals(c); }
};

/// nan_to_num: x and three scalars of x's part dtype (float64 for integers, which pass through).
struct nan_to_num_op {
  static constexpr bool spells_itself = true;
  static constexpr const char* name = "nan_to_num";
  template <class... D>
  static constexpr dtype result(dtype x, D...) noexcept {
    return x;
  }
  template <class... D>
  static constexpr dtype input(dtype x, D...) noexcept {
    return x;
  }
  static node_code emit(std::span<const node_code> c) { return emit_nan_to_num(c); }
};

/// NumPy's TypeError for round(bool array, decimals != 0) (out of line: a cold path).
[[noreturn]] void throw_round_bool(int decimals);

/// The largest finite value of a float dtype (numeric_limits has no __half or bfloat16).
constexpr double largest_finite(dtype t) noexcept {
  return t == dtype::float16    ? 65504.0
         : t == dtype::bfloat16 ? 3.3895313892515355e38
         : t == dtype::float32  ? static_cast<double>(std::numeric_limits<float>::max())
                                : std::numeric_limits<double>::max();
}

/// isclose's y dtype: NumPy converts y to result_type(y, 1.0), so integers and bools compare as float64.
constexpr dtype close_float(dtype t) noexcept {
  return is_floating(t) || is_complex(t) ? t : dtype::float64;
}

/// isclose(x, y, atol, rtol, equal_nan): computed in promote(x, close_float(y)), the tolerances
/// (float64 scalars) rounded to its part type as NumPy's weak Python floats are.
struct isclose_op {
  static constexpr bool spells_itself = true;
  static constexpr const char* name = "isclose";
  template <class... D>
  static constexpr dtype result(D...) noexcept {
    return dtype::bool_;
  }
  template <class... D>
  static constexpr dtype input(dtype x, dtype y, D...) noexcept {
    return promote_types(x, close_float(y));
  }
  static node_code emit(std::span<const node_code> c) { return emit_isclose(c); }
};

}  // namespace detail

/// NumPy's round(a, decimals) (and around): halves to even after scaling by 10**decimals, so
/// round(2.675, 2) is 2.67 as in NumPy; negative decimals round to tens, hundreds, ...; integers
/// are unchanged for decimals >= 0, else rounded through float64; complex rounds both parts.
template <array_operand A>
[[nodiscard]] auto round(A&& a, int decimals) {
  using X = detail::node_t<A>;
  if (X::type() == dtype::bool_ && decimals != 0) {
    detail::throw_round_bool(decimals);
  }
  return expr<detail::round_decimals_op, X, detail::scalar_leaf<dtype::int32>>{
      {detail::as_node(std::forward<A>(a)), detail::scalar_leaf<dtype::int32>{decimals}}};
}
/// NumPy's round(z) of complex z: both parts rounded, halves to even (the table's round row is
/// real only; this more constrained overload takes complex operands).
template <array_operand A>
requires(is_complex(detail::node_t<A>::type())) [[nodiscard]] auto round(A&& a) {
  return round(std::forward<A>(a), 0);
}
/// NumPy's around(a, decimals=0), the same as round.
template <array_operand A>
[[nodiscard]] auto around(A&& a, int decimals = 0) {
  return round(std::forward<A>(a), decimals);
}

/// NumPy's angle(z): the counterclockwise angle from the positive real axis, arctan2(imag, real),
/// in radians (`nd::angle(z, nd::deg)`: degrees). Reals give 0 or pi; integers give a float type
/// as arctan2(0, x) does.
template <array_operand A>
[[nodiscard]] auto angle(const A& z, deg_t in_degrees = deg_t{false}) {
  const double factor = in_degrees.value ? 180.0 / std::numbers::pi : 1.0;
  if constexpr (is_complex(detail::node_t<A>::type())) {
    return arctan2(imag(z), real(z)) * factor;
  } else {
    return arctan2(0, z) * factor;
  }
}

/// NumPy's nan_to_num(a, nan=0.0, posinf=None, neginf=None): NaN, +inf and -inf replaced
/// (`nd::nan_to_num(a, {.nan = 1.0, .posinf = 9.0})`); infinities default to the dtype's largest
/// and lowest finite values; complex numbers are replaced part by part; integers pass through.
template <array_operand A>
[[nodiscard]] auto nan_to_num(A&& a, const nan_to_num_options& o = {}) {
  constexpr dtype t = detail::node_t<A>::type();
  constexpr dtype p = is_floating(t) || is_complex(t) ? detail::part_of(t) : dtype::float64;
  using P = type_of<p>;
  using L = detail::scalar_leaf<p>;
  const double hi = o.posinf ? *o.posinf : detail::largest_finite(p);
  const double lo = o.neginf ? *o.neginf : -detail::largest_finite(p);
  return expr<detail::nan_to_num_op, detail::node_t<A>, L, L, L>{
      {detail::as_node(std::forward<A>(a)), L{detail::scalar_as<P>(o.nan)}, L{detail::scalar_as<P>(hi)},
       L{detail::scalar_as<P>(lo)}}};
}

/// What isclose and allclose take after the two operands, in any order: nd::rtol(r), nd::atol(a)
/// and nd::equal_nan.
template <class O>
concept close_option = std::is_same_v<std::remove_cvref_t<O>, rtol> || std::is_same_v<std::remove_cvref_t<O>, atol> ||
    std::is_same_v<std::remove_cvref_t<O>, equal_nan_t>;

/// NumPy 2's isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False), elementwise and broadcast:
/// |a - b| <= atol + rtol * |b| where b is finite, or a == b (so equal infinities are close).
/// Integer b compares as float64; NaN is close to NaN only with nd::equal_nan. A bool node.
template <operand A, operand B, close_option... O>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] auto isclose(A&& a, B&& b, O... options) {
  double r = 1e-05;
  double t = 1e-08;
  bool nan_equal = false;
  (
      [&](const auto& o) {
        using T = std::remove_cvref_t<decltype(o)>;
        if constexpr (std::is_same_v<T, rtol>) {
          r = o.value;
        } else if constexpr (std::is_same_v<T, atol>) {
          t = o.value;
        } else {
          nan_equal = o.value;
        }
      }(options),
      ...);
  constexpr dtype d = detail::promote_operands<A, B>();
  using xa = decltype(detail::as_operand_node<d>(std::forward<A>(a)));
  using yb = decltype(detail::as_operand_node<d>(std::forward<B>(b)));
  using F = detail::scalar_leaf<dtype::float64>;
  return expr<detail::isclose_op, xa, yb, F, F, detail::scalar_leaf<dtype::bool_>>{
      {detail::as_operand_node<d>(std::forward<A>(a)), detail::as_operand_node<d>(std::forward<B>(b)), F{t}, F{r},
       detail::scalar_leaf<dtype::bool_>{nan_equal}}};
}

/// NumPy's allclose: whether isclose holds everywhere (true for empty arrays). WAITS for the
/// result, a bool on the host; shapes that do not broadcast throw shape_error, as NumPy.
template <operand A, operand B, close_option... O>
requires(array_operand<A> || array_operand<B>) [[nodiscard]] bool allclose(A&& a, B&& b, O... options) {
  return !any(logical_not(isclose(std::forward<A>(a), std::forward<B>(b), options...))).item();
}

/// NumPy's array_equal(a, b, equal_nan=False): same shape and equal elements (with nd::equal_nan,
/// NaNs in the same places count as equal). Different shapes give false. WAITS for the result.
template <array_element E, array_element F>
[[nodiscard]] bool array_equal(const ndarray<E>& a, const ndarray<F>& b, equal_nan_t nan_equal = equal_nan_t{false}) {
  if (a.shape() != b.shape()) {
    return false;
  }
  if (nan_equal.value) {
    return !any(logical_not(logical_or(a == b, logical_and(isnan(a), isnan(b))))).item();
  }
  return !any(a != b).item();
}

/// NumPy's array_equiv: whether a and b broadcast to one shape and are equal there (false when
/// they do not broadcast). WAITS for the result.
template <array_element E, array_element F>
[[nodiscard]] bool array_equiv(const ndarray<E>& a, const ndarray<F>& b) {
  try {
    (void)broadcast_shapes(a.shape(), b.shape());
  } catch (const shape_error&) {
    return false;
  }
  return !any(a != b).item();
}

}  // namespace ndcuda

#pragma GCC visibility pop
