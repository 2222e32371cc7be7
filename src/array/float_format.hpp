// Internal: NumPy's float formatting (FloatingFormat and dragon4 in numpy/_core/arrayprint.py):
// shortest round-trip digits of the element type (std::to_chars), positional and scientific forms,
// a layout common to all shown values, and a scalar's str. Builds on array/format.hpp.
#pragma once

#include <ndcuda/array/format.hpp>
#include <string>
#include <utility>
#include <vector>

namespace ndcuda::detail {

// How digits are cut: at most `precision` fractional digits (none: -1), shortest round-trip
// digits when `unique`, else exactly `precision` (NumPy's floatmode 'fixed').
struct digit_rule {
  int precision = 8;
  bool unique = true;
};

// "12.5" style, without padding. `plus` prints '+' on non-negative values.
[[nodiscard]] std::string positional(double v, dtype type, bool plus, digit_rule rule);
// Mantissa ("1.5") and exponent ("-05") of the scientific form.
[[nodiscard]] std::pair<std::string, std::string> scientific(double v, dtype type, bool plus, digit_rule rule);

// FloatingFormat: a layout chosen from every shown value, then applied to each. `sign` is the
// options' sign ('+' for the imaginary parts of complex numbers).
class float_format {
 public:
  float_format(const std::vector<double>& shown, dtype type, char sign, const print_options& o);
  /// `v` laid out: padded to the common width, digits as the layout says.
  [[nodiscard]] std::string operator()(double v) const;

 private:
  dtype type_;
  bool plus_;
  std::string nanstr_;
  std::string infstr_;
  digit_rule rule_;
  bool exp_ = false;
  bool zero_fill_ = false;
  std::size_t pad_left_ = 0;
  std::size_t pad_right_ = 0;
  std::size_t precision_ = 0;
  std::size_t exp_size_ = 0;
};

// str of a NumPy scalar (what str of a 0-d array prints): Python's float repr style, positional
// for 1e-4 <= |x| < 1e16 (float32: 1e6, float16: 1e3), shortest round-trip digits, print
// options ignored. `plus` writes '+' before a non-negative value and `part` trims an integral
// value to "1" (the parts of a complex scalar, "(1+2j)", as Python's complex repr).
[[nodiscard]] std::string scalar_float(double v, dtype type, bool plus, bool part);

}  // namespace ndcuda::detail
