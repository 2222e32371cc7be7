/// @file
/// NumPy's repr and str of an array from host values and a shape, and NumPy's print options
/// (precision, threshold, edgeitems, linewidth, suppress, sign, floatmode) as a thread-local,
/// scoped setting. Builds on core/dtype.hpp and core/shape.hpp; pure host code, so it is tested
/// without a GPU.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <complex>
#include <cstdint>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/shape.hpp>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace ndcuda {

/// NumPy's floatmode: how many fractional digits floats get.
enum class float_mode {
  maxprec,        ///< the fewest digits that identify each value, at most `precision` (NumPy's default)
  maxprec_equal,  ///< as maxprec, then every element padded with zeros to the same count
  fixed,          ///< always exactly `precision` digits
  unique,         ///< the fewest digits that identify each value, `precision` ignored
};

/// NumPy's print options (np.set_printoptions), with NumPy's defaults.
struct print_options {
  int precision = 8;                           ///< fractional digits of floats (see floatmode)
  index_t threshold = 1000;                    ///< arrays of more elements are summarised with "..."
  index_t edgeitems = 3;                       ///< elements shown at each end of a summarised axis
  index_t linewidth = 75;                      ///< characters per line before wrapping
  bool suppress = false;                       ///< true: never switch to scientific because of small values
  char sign = '-';                             ///< '-': sign of negatives only; '+': always; ' ': a space for positives
  float_mode floatmode = float_mode::maxprec;  ///< NumPy's floatmode: how many digits floats get
  std::string nanstr = "nan";                  ///< text of NaN
  std::string infstr = "inf";                  ///< text of infinity
};

/// The calling thread's print options (NumPy's defaults until changed).
[[nodiscard]] print_options get_printoptions();
/// Sets the calling thread's print options; value_error for a sign other than '-', '+', ' ', a
/// negative precision or edgeitems, or a linewidth below 1. Other threads keep theirs.
void set_printoptions(const print_options& options);

/// Print options for a scope (NumPy's `with np.printoptions(...)`): the constructor sets them for
/// the calling thread, the destructor restores the previous ones.
class [[nodiscard]] printoptions_scope {
 public:
  /// Sets `options` for the calling thread until this scope ends.
  explicit printoptions_scope(const print_options& options);
  ~printoptions_scope();
  printoptions_scope(const printoptions_scope&) = delete;
  printoptions_scope& operator=(const printoptions_scope&) = delete;

 private:
  print_options previous_;
};

/// `auto scope = nd::printoptions({.precision = 3});` sets options until `scope` ends.
[[nodiscard]] inline printoptions_scope printoptions(const print_options& options) {
  return printoptions_scope(options);
}

namespace detail {

/// Values in a form the non-template formatter reads: integers and bools as text, real types as
/// doubles (exact for every element type), complex as two doubles.
struct print_values {
  dtype type = dtype::float64;
  std::vector<std::string> text;
  std::vector<double> real;
  std::vector<double> imag;
};

/// repr (`array([1. , 2.5], dtype=float32)`) and str (`[1.  2.5]`) with the thread's options.
[[nodiscard]] std::string format_repr(const print_values& values, std::span<const index_t> shape);
[[nodiscard]] std::string format_str(const print_values& values, std::span<const index_t> shape);

template <array_element E>
print_values to_print_values(std::span<const E> values) {
  using T = std::remove_cv_t<E>;
  print_values p;
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
  return p;
}

}  // namespace detail

/// NumPy 2's repr(a) with the thread's print options: "array([1. , 2.5], dtype=float32)",
/// "array(3.)", "array([], shape=(0, 3), dtype=float64)". `values` are the elements in C order.
template <array_element E>
[[nodiscard]] std::string array_repr(std::span<const E> values, std::span<const index_t> shape) {
  return detail::format_repr(detail::to_print_values(values), shape);
}

/// NumPy 2's str(a) with the thread's print options: "[1.  2.5]", "[[1 2]\n [3 4]]", and a 0-d
/// array as its scalar ("3.0", "(1+2j)", "True"). `values` are the elements in C order.
template <array_element E>
[[nodiscard]] std::string array_str(std::span<const E> values, std::span<const index_t> shape) {
  return detail::format_str(detail::to_print_values(values), shape);
}

}  // namespace ndcuda

#pragma GCC visibility pop
