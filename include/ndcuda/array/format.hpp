/// @file
/// NumPy's repr of an array from host values and a shape: element formatting (shortest round-trip
/// floats, common precision and padding), line wrapping at 75 columns and the "..." summary.
/// Builds on core/dtype.hpp and core/shape.hpp; pure host code, so it is tested without a GPU.
#pragma once

#include <complex>
#include <cstdint>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/shape.hpp>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace ndcuda {

namespace detail {

/// Values in a form the non-template formatter reads: integers and bools as text, real types as
/// doubles (exact for every element type), complex as two doubles.
struct print_values {
  dtype type = dtype::float64;
  std::vector<std::string> text;
  std::vector<double> real;
  std::vector<double> imag;
};

[[nodiscard]] std::string format_repr(const print_values& values, std::span<const index_t> shape);

}  // namespace detail

/// NumPy 2's repr(a) with default print options (linewidth 75, threshold 1000, edgeitems 3,
/// precision 8): "array([1. , 2.5], dtype=float32)", "array(3.)", "array([], shape=(0, 3), dtype=float64)".
/// `values` are the elements in C order.
template <array_element E>
[[nodiscard]] std::string array_repr(std::span<const E> values, std::span<const index_t> shape) {
  using T = std::remove_cv_t<E>;
  detail::print_values p;
  p.type = dtype_of<T>;
  for (const T& v : values) {
    if constexpr (std::is_same_v<T, bool>) {
      p.text.emplace_back(v ? "True" : "False");
    } else if constexpr (std::is_integral_v<T>) {
      p.text.push_back(std::to_string(v));
    } else if constexpr (std::is_same_v<T, __half>) {
      p.real.push_back(static_cast<double>(__half2float(v)));
    } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
      p.real.push_back(static_cast<double>(__bfloat162float(v)));
    } else if constexpr (std::is_floating_point_v<T>) {
      p.real.push_back(static_cast<double>(v));
    } else {
      p.real.push_back(static_cast<double>(v.real()));
      p.imag.push_back(static_cast<double>(v.imag()));
    }
  }
  return detail::format_repr(p, shape);
}

}  // namespace ndcuda
