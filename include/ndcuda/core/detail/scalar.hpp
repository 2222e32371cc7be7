// Weak C++ scalars converted to an array's element type, as NumPy 2 converts Python scalars: an
// integer that does not fit an integer dtype throws. Builds on core/{dtype,promotion,error}.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/promotion.hpp>
#include <string>
#include <type_traits>

namespace ndcuda::detail {

/// Converts a weak scalar to T (the dtype it takes in an expression, or an assigned array's). An integer that does not
/// fit an integer dtype is an error, as NumPy 2 raises OverflowError for `uint8_array + 300`.
template <class T, weak_scalar S>
T scalar_as(const S& v) {
  if constexpr (std::is_same_v<T, __half>) {
    if constexpr (is_std_complex<S>) {
      return __float2half(static_cast<float>(v.real()));
    } else {
      return __float2half(static_cast<float>(v));
    }
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16(static_cast<float>(v));
  } else if constexpr (is_std_complex<T>) {
    if constexpr (is_std_complex<S>) {
      return T(static_cast<typename T::value_type>(v.real()), static_cast<typename T::value_type>(v.imag()));
    } else {
      return T(static_cast<typename T::value_type>(v));
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != S(0);
  } else if constexpr (is_std_complex<S>) {
    return static_cast<T>(v.real());
  } else {
    if constexpr (std::is_integral_v<T> && std::is_integral_v<S> && !std::is_same_v<S, bool>) {
      const auto t = static_cast<T>(v);
      if (static_cast<S>(t) != v || (t < T(0)) != (v < S(0))) {
        throw error("the C++ integer " + std::to_string(v) + " is out of bounds for dtype " +
                    std::string(name(dtype_of<T>)) + "; cast the array (astype) to a wider type first");
      }
      return t;
    } else {
      return static_cast<T>(v);
    }
  }
}

}  // namespace ndcuda::detail

#pragma GCC visibility pop
