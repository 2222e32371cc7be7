// NumPy's float formatting (FloatingFormat, dragon4): shortest round-trip digits of the element
// type from std::to_chars, cut to `precision` with exact rounding (snprintf), positional or
// scientific, and the layout every shown value shares. Builds on float_format.hpp.
#include "float_format.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

namespace ndcuda::detail {
namespace {

// The shortest decimal digits that read back as the same value of `type`: "15" and exponent -5
// for 1.5e-05. Sign excluded.
struct decimal {
  std::string digits;
  int exponent = 0;
};

bool round_trips(double parsed, double v, dtype type) {
  switch (type) {
    case dtype::float16:
      return __half2float(__float2half(static_cast<float>(parsed))) == static_cast<float>(v);
    case dtype::bfloat16:
      return __bfloat162float(__float2bfloat16(static_cast<float>(parsed))) == static_cast<float>(v);
    case dtype::float32:
    case dtype::complex64:
      return static_cast<float>(parsed) == static_cast<float>(v);
    default:
      return parsed == v;
  }
}

decimal shortest(double v, dtype type) {
  v = std::fabs(v);
  char buf[64];
  std::string text;
  if (type == dtype::float64 || type == dtype::complex128) {
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    text.assign(buf, r.ptr);
  } else if (type == dtype::float32 || type == dtype::complex64) {
    auto r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v), std::chars_format::scientific);
    text.assign(buf, r.ptr);
  } else {
    for (int p = 0; p < 17; ++p) {
      std::snprintf(buf, sizeof buf, "%.*e", p, v);
      if (round_trips(std::strtod(buf, nullptr), v, type)) {
        break;
      }
    }
    text = buf;
  }
  const auto e = text.find('e');
  decimal d;
  for (std::size_t i = 0; i < e; ++i) {
    if (text[i] != '.') {
      d.digits += text[i];
    }
  }
  while (d.digits.size() > 1 && d.digits.back() == '0') {
    d.digits.pop_back();
  }
  d.exponent = std::stoi(text.substr(e + 1));
  return d;
}

std::string trim_zeros(std::string s) {
  // "1.50000000" -> "1.5", "2.00000000" -> "2." (NumPy's trim='.')
  const auto dot = s.find('.');
  if (dot == std::string::npos) {
    return s + ".";
  }
  while (s.size() > dot + 1 && s.back() == '0') {
    s.pop_back();
  }
  return s;
}

// `v` rounded to the element type (float32, float16, bfloat16), as NumPy computes in that type.
double in_type(double v, dtype type) {
  switch (type) {
    case dtype::float16:
      return static_cast<double>(__half2float(__float2half(static_cast<float>(v))));
    case dtype::bfloat16:
      return static_cast<double>(__bfloat162float(__float2bfloat16(static_cast<float>(v))));
    case dtype::float32:
    case dtype::complex64:
      return static_cast<double>(static_cast<float>(v));
    default:
      return v;
  }
}

// NumPy's exp_cutoff_max, 10 ** min(8, finfo(dtype).precision): larger values print scientific.
double exp_cutoff(dtype type) {
  switch (type) {
    case dtype::float16:
      return 1e3;
    case dtype::bfloat16:
      return 1e2;
    case dtype::float32:
    case dtype::complex64:
      return 1e6;
    default:
      return 1e8;
  }
}

}  // namespace

std::string positional(double v, dtype type, bool plus, digit_rule rule) {
  const std::string sign = std::signbit(v) ? "-" : (plus ? "+" : "");
  char buf[400];
  if (!rule.unique) {
    std::snprintf(buf, sizeof buf, "%.*f", rule.precision, std::fabs(v));
    return sign + buf + (rule.precision == 0 ? "." : "");
  }
  if (v == 0) {
    return sign + "0.";
  }
  const decimal d = shortest(v, type);
  std::string int_part;
  std::string frac;
  if (d.exponent >= 0) {
    const auto e = static_cast<std::size_t>(d.exponent);
    int_part = d.digits.substr(0, std::min(d.digits.size(), e + 1));
    int_part.append(e + 1 > d.digits.size() ? e + 1 - d.digits.size() : 0, '0');
    frac = d.digits.size() > e + 1 ? d.digits.substr(e + 1) : "";
  } else {
    int_part = "0";
    frac = std::string(static_cast<std::size_t>(-d.exponent - 1), '0') + d.digits;
  }
  if (rule.precision >= 0 && frac.size() > static_cast<std::size_t>(rule.precision)) {
    std::snprintf(buf, sizeof buf, "%.*f", rule.precision, std::fabs(v));
    return sign + trim_zeros(buf);
  }
  return sign + int_part + "." + frac;
}

std::pair<std::string, std::string> scientific(double v, dtype type, bool plus, digit_rule rule) {
  const std::string sign = std::signbit(v) ? "-" : (plus ? "+" : "");
  decimal d = shortest(v, type);
  if (v == 0) {
    d = {"0", 0};
  }
  std::string mantissa = d.digits.substr(0, 1) + "." + d.digits.substr(1);
  int exponent = d.exponent;
  if (!rule.unique || (rule.precision >= 0 && d.digits.size() - 1 > static_cast<std::size_t>(rule.precision))) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", rule.precision, std::fabs(v));
    const std::string text = buf;
    mantissa = text.substr(0, text.find('e'));
    mantissa =
        rule.unique ? trim_zeros(mantissa) : (mantissa.find('.') == std::string::npos ? mantissa + "." : mantissa);
    exponent = std::stoi(text.substr(text.find('e') + 1));
  }
  std::string e = std::to_string(std::abs(exponent));
  if (e.size() < 2) {
    e.insert(0, 2 - e.size(), '0');
  }
  return {sign + mantissa, (exponent < 0 ? "-" : "+") + e};
}

float_format::float_format(const std::vector<double>& shown, dtype type, char sign, const print_options& o)
    : type_(type), plus_(sign == '+'), nanstr_(o.nanstr), infstr_(o.infstr) {
  rule_.precision = o.floatmode == float_mode::unique ? -1 : o.precision;
  rule_.unique = o.floatmode != float_mode::fixed;
  std::vector<double> finite;
  bool any_nonfinite = false;
  bool neg_inf = false;
  bool any_signbit = false;
  double max_abs = 0;
  double min_abs = 0;
  for (double v : shown) {
    if (!std::isfinite(v)) {
      any_nonfinite = true;
      neg_inf = neg_inf || (std::isinf(v) && v < 0);
      continue;
    }
    finite.push_back(v);
    any_signbit = any_signbit || std::signbit(v);
    const double a = std::fabs(v);
    if (a != 0) {
      max_abs = std::max(max_abs, a);
      min_abs = min_abs == 0 ? a : std::min(min_abs, a);
    }
  }
  // NumPy compares in the element type (NEP 50: the Python floats are weak), so float32's
  // 1e-4, itself just below 1e-4, is not "small", and a float16 ratio can round or overflow.
  const double cutoff = in_type(exp_cutoff(type), type);
  const double small = in_type(0.0001, type);
  exp_ = max_abs != 0 &&
         (max_abs >= cutoff || (!o.suppress && (min_abs < small || in_type(max_abs / min_abs, type) > 1000.0)));
  if (finite.empty()) {
    pad_left_ = 0;
    pad_right_ = 0;
  } else if (exp_) {
    for (double v : finite) {
      const auto [m, e] = scientific(v, type_, plus_, rule_);
      const auto dot = m.find('.');
      pad_left_ = std::max(pad_left_, dot);
      precision_ = std::max(precision_, m.size() - dot - 1);
      exp_size_ = std::max(exp_size_, e.size() - 1);
    }
    pad_right_ = exp_size_ + 2 + precision_;
  } else {
    for (double v : finite) {
      const std::string s = positional(v, type_, plus_, rule_);
      const auto dot = s.find('.');
      pad_left_ = std::max(pad_left_, dot);
      pad_right_ = std::max(pad_right_, s.size() - dot - 1);
    }
    // maxprec_equal and fixed pad every element with zeros to the longest fraction.
    zero_fill_ = o.floatmode == float_mode::maxprec_equal || o.floatmode == float_mode::fixed;
  }
  if (sign == ' ' && !any_signbit) {
    ++pad_left_;
  }
  if (any_nonfinite) {
    const auto offset = static_cast<std::ptrdiff_t>(pad_right_ + 1);
    const auto neg = static_cast<std::ptrdiff_t>((sign != '-' || neg_inf) ? 1 : 0);
    pad_left_ = static_cast<std::size_t>(
        std::max({static_cast<std::ptrdiff_t>(pad_left_), static_cast<std::ptrdiff_t>(nanstr_.size()) - offset,
                  static_cast<std::ptrdiff_t>(infstr_.size()) + neg - offset}));
  }
}

std::string float_format::operator()(double v) const {
  if (!std::isfinite(v)) {
    const std::string s = std::isnan(v) ? (plus_ ? "+" : "") + nanstr_ : (v < 0 ? "-" : (plus_ ? "+" : "")) + infstr_;
    const std::size_t width = pad_left_ + pad_right_ + 1;
    return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
  }
  if (exp_) {
    auto [m, e] = scientific(v, type_, plus_, rule_);
    if (m.size() - m.find('.') - 1 < precision_) {
      // Dragon4's min_digits: more digits of the exact value, not zeros (unique mode pads
      // 7.991708343648897e-06 to 7.9917083436488971e-06)
      std::tie(m, e) = scientific(v, type_, plus_, digit_rule{static_cast<int>(precision_), false});
    }
    const auto dot = m.find('.');
    std::string digits = e.substr(1);
    digits.insert(0, exp_size_ > digits.size() ? exp_size_ - digits.size() : 0, '0');
    return std::string(pad_left_ - dot, ' ') + m + "e" + e[0] + digits;
  }
  std::string s = positional(v, type_, plus_, rule_);
  if (zero_fill_ && s.size() - s.find('.') - 1 < pad_right_) {
    s = positional(v, type_, plus_, digit_rule{static_cast<int>(pad_right_), false});  // exact digits, as above
  }
  const auto dot = s.find('.');
  const std::size_t frac = s.size() - dot - 1;
  return std::string(pad_left_ - dot, ' ') + s + std::string(pad_right_ - frac, ' ');
}

std::string scalar_float(double v, dtype type, bool plus, bool part) {
  if (std::isnan(v)) {
    return plus ? "+nan" : "nan";
  }
  if (std::isinf(v)) {
    return v < 0 ? "-inf" : (plus ? "+inf" : "inf");
  }
  double upper = 1e16;
  if (type == dtype::float32 || type == dtype::complex64) {
    upper = 1e6;
  } else if (type == dtype::float16) {
    upper = 1e3;
  } else if (type == dtype::bfloat16) {
    upper = 1e2;
  }
  const digit_rule rule{-1, true};
  const double a = std::fabs(v);
  if (a == 0 || (a < upper && a >= 1e-4)) {
    std::string s = positional(v, type, plus, rule);
    if (s.back() == '.') {
      return part ? s.substr(0, s.size() - 1) : s + "0";
    }
    return s;
  }
  auto [m, e] = scientific(v, type, plus, rule);
  if (m.back() == '.') {
    m.pop_back();
  }
  return m + "e" + e;
}

}  // namespace ndcuda::detail
