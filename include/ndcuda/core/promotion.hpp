/// @file
/// NumPy 2 (NEP 50) type promotion: array with array, and array with a weak C++ scalar, at compile time.
/// Builds on core/dtype.hpp; tests/core/promotion_test.cpp checks every entry against NumPy's own answers.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <algorithm>
#include <array>
#include <complex>
#include <cstddef>
#include <ndcuda/core/dtype.hpp>
#include <type_traits>
#include <utility>

namespace ndcuda {

namespace detail {

constexpr dtype signed_of_size(std::size_t bytes) noexcept {
  return bytes == 1 ? dtype::int8 : bytes == 2 ? dtype::int16 : bytes == 4 ? dtype::int32 : dtype::int64;
}

constexpr dtype float_of_size(std::size_t bytes) noexcept {
  return bytes <= 2 ? dtype::float16 : bytes == 4 ? dtype::float32 : dtype::float64;
}

// Complex types exist only with float32 and float64 parts, so a float16 part widens to complex64.
constexpr dtype complex_with_part(std::size_t part_bytes) noexcept {
  return part_bytes <= 4 ? dtype::complex64 : dtype::complex128;
}

// NumPy's "safe" float for an integer: the narrowest float whose mantissa holds every value
// (int8 -> float16, int16 -> float32). 32- and 64-bit integers both go to float64, which loses
// precision for 64-bit ones: NumPy accepts that rather than having no answer.
constexpr std::size_t float_bytes_for_integer(dtype t) noexcept {
  return itemsize(t) == 1 ? 2 : itemsize(t) == 2 ? 4 : 8;
}

// numpy.promote_types for the 14 NumPy dtypes (not bfloat16): the smallest type both operands
// cast to safely.
constexpr dtype promote_numpy(dtype a, dtype b) noexcept {
  if (a == b) {
    return a;
  }
  if (kind(a) > kind(b)) {
    std::swap(a, b);
  }
  const dtype_kind ka = kind(a);
  const dtype_kind kb = kind(b);
  const bool a_integral = ka == dtype_kind::signed_integer || ka == dtype_kind::unsigned_integer;
  if (ka == dtype_kind::boolean) {
    return b;
  }
  if (ka == kb && kb != dtype_kind::complex) {
    return itemsize(a) >= itemsize(b) ? a : b;
  }
  switch (kb) {
    case dtype_kind::unsigned_integer:  // a is signed: a must also hold b's full range
      if (itemsize(b) < itemsize(a)) {
        return a;
      }
      return itemsize(b) == 8 ? dtype::float64 : signed_of_size(2 * itemsize(b));
    case dtype_kind::floating:  // a is an integer (float + float was handled above)
      return float_of_size(std::max(itemsize(b), float_bytes_for_integer(a)));
    case dtype_kind::complex: {
      const std::size_t a_part = a_integral                  ? float_bytes_for_integer(a)
                                 : ka == dtype_kind::complex ? itemsize(a) / 2
                                                             : itemsize(a);
      return complex_with_part(std::max(itemsize(b) / 2, a_part));
    }
    default:
      return b;  // unreachable: kb >= ka and the equal-kind cases returned
  }
}

// bfloat16 is not a NumPy dtype. It is ranked beside float16 (same width, so the same integers
// fit in it safely: bool/int8/uint8) but neither of the two holds the other: float16 has more
// mantissa, bfloat16 more exponent. Hence:
//   bf16 + bf16 -> bf16;  bf16 + bool/int8/uint8 -> bf16;  bf16 + float16 -> float32;
//   bf16 + anything else -> what float16 + it gives (int16 -> float32, int32/64 -> float64,
//   float32 -> float32, float64 -> float64, complex64 -> complex64, complex128 -> complex128).
// PyTorch and JAX also give float32 for bf16 + float16; they differ on wider integers because
// they differ from NumPy for float16 too (int32 + float16 -> float16 there).
constexpr dtype promote_rule(dtype a, dtype b) noexcept {
  const bool a_bf16 = a == dtype::bfloat16;
  const bool b_bf16 = b == dtype::bfloat16;
  if (!a_bf16 && !b_bf16) {
    return promote_numpy(a, b);
  }
  if (a_bf16 && b_bf16) {
    return dtype::bfloat16;
  }
  if (a == dtype::float16 || b == dtype::float16) {
    return dtype::float32;
  }
  const dtype as_half = promote_numpy(a_bf16 ? dtype::float16 : a, b_bf16 ? dtype::float16 : b);
  return as_half == dtype::float16 ? dtype::bfloat16 : as_half;
}

// Indexed [lhs][rhs] by enumerator value; built once at compile time so lookups cost one load.
inline constexpr auto promotion_table = [] {
  std::array<std::array<dtype, dtype_count>, dtype_count> table{};
  for (dtype a : all_dtypes) {
    for (dtype b : all_dtypes) {
      table[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = promote_rule(a, b);
    }
  }
  return table;
}();

template <class T>
inline constexpr bool is_std_complex = false;
template <class T>
inline constexpr bool is_std_complex<std::complex<T>> = true;

}  // namespace detail

/// The dtype of `x op y` for arrays x of dtype a and y of dtype b: numpy.promote_types, extended
/// to bfloat16 by the rule in detail::promote_rule. Symmetric.
constexpr dtype promote_types(dtype a, dtype b) noexcept {
  return detail::promotion_table[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
}

/// What a C++ scalar operand contributes to promotion: only its kind, not its width (NEP 50's
/// "weak" Python scalars), so `ndarray<float> * 2.0` stays float32 and `ndarray<int8> + 1` int8.
enum class scalar_kind { boolean, integer, floating, complex };

/// Types usable as weak scalars: C++ arithmetic types and std::complex. __half and __nv_bfloat16
/// are not: they name a precision on purpose, so wrap them in a 0-d array to make them strong.
template <class S>
concept weak_scalar = std::is_arithmetic_v<std::remove_cv_t<S>> || detail::is_std_complex<std::remove_cv_t<S>>;

/// The kind a weak scalar type contributes to promotion (bool, integer, floating, complex).
template <weak_scalar S>
inline constexpr scalar_kind scalar_kind_of = [] {
  using T = std::remove_cv_t<S>;
  if constexpr (std::is_same_v<T, bool>) {
    return scalar_kind::boolean;
  } else if constexpr (std::is_integral_v<T>) {
    return scalar_kind::integer;
  } else if constexpr (std::is_floating_point_v<T>) {
    return scalar_kind::floating;
  } else {
    return scalar_kind::complex;
  }
}();

/// The dtype of `x op s` for an array x of dtype `array` and a weak scalar of kind `s`, as NumPy 2
/// gives for a Python scalar. The array's dtype wins unless the scalar is of a higher kind; then
/// the result is that kind's default (int64, float64, complex128), except that a floating array
/// meeting a complex scalar keeps its precision (float32 -> complex64). Whether the scalar's value
/// fits the result (uint8 array + 300) is a run-time question left to the caller.
constexpr dtype promote_with_scalar(dtype array, scalar_kind s) noexcept {
  const dtype_kind k = kind(array);
  switch (s) {
    case scalar_kind::boolean:
      return array;
    case scalar_kind::integer:
      return k == dtype_kind::boolean ? dtype::int64 : array;
    case scalar_kind::floating:
      return k == dtype_kind::floating || k == dtype_kind::complex ? array : dtype::float64;
    case scalar_kind::complex:
      if (k == dtype_kind::complex) {
        return array;
      }
      return k == dtype_kind::floating ? detail::complex_with_part(itemsize(array)) : dtype::complex128;
  }
  return array;
}

/// numpy.can_cast(from, to, casting="same_kind"): what an in-place operation (`a += x`) may store
/// back. Allowed when `to`'s kind is not below `from`'s, in NumPy's order bool < unsigned < signed
/// < floating < complex (so uint64 -> int8 passes, int64 -> uint8 and float64 -> int32 do not).
constexpr bool can_cast_same_kind(dtype from, dtype to) noexcept {
  constexpr auto rank = [](dtype_kind k) {
    switch (k) {
      case dtype_kind::boolean:
        return 0;
      case dtype_kind::unsigned_integer:
        return 1;
      case dtype_kind::signed_integer:
        return 2;
      case dtype_kind::floating:
        return 3;
      case dtype_kind::complex:
        return 4;
    }
    return 0;
  };
  return rank(kind(to)) >= rank(kind(from));
}

/// The C++ element type of `A op B` for arrays of element types A and B.
template <array_element A, array_element B>
using promote_t = type_of<promote_types(dtype_of<A>, dtype_of<B>)>;

/// The C++ element type of `A op S` for an array of element type A and a weak scalar of type S.
template <array_element A, weak_scalar S>
using promote_scalar_t = type_of<promote_with_scalar(dtype_of<A>, scalar_kind_of<S>)>;

// The promotions the design document promises, checked where they are defined.
static_assert(promote_with_scalar(dtype::float32, scalar_kind_of<double>) == dtype::float32);
static_assert(std::is_same_v<promote_scalar_t<float, double>, float>);
static_assert(promote_types(dtype::int32, dtype::float32) == dtype::float64);
static_assert(promote_types(dtype::uint64, dtype::int64) == dtype::float64);
static_assert(promote_types(dtype::float16, dtype::int8) == dtype::float16);
static_assert(std::is_same_v<promote_t<__half, std::int8_t>, __half>);
static_assert(can_cast_same_kind(dtype::uint64, dtype::int8) && !can_cast_same_kind(dtype::int64, dtype::uint8));
static_assert(can_cast_same_kind(dtype::float64, dtype::float16) && !can_cast_same_kind(dtype::float64, dtype::int32));

}  // namespace ndcuda

#pragma GCC visibility pop
