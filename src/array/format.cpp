// NumPy 2's array repr and str (numpy/_core/arrayprint.py) and scalar str, from host values.
// Floats follow FloatingFormat: shortest round-trip digits of the element type (std::to_chars),
// at most `precision` fractional digits, a common layout (positional or scientific) for all shown
// values; the print options are thread-local.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <ndcuda/array/format.hpp>
#include <ndcuda/core/error.hpp>
#include <string>
#include <tuple>
#include <vector>

namespace ndcuda {
namespace {

print_options& thread_options() {
  thread_local print_options options;
  return options;
}

}  // namespace

print_options get_printoptions() {
  return thread_options();
}

void set_printoptions(const print_options& options) {
  if (options.sign != '-' && options.sign != '+' && options.sign != ' ') {
    throw value_error("set_printoptions: sign option must be one of ' ', '+', or '-' (got '" +
                      std::string(1, options.sign) + "')");
  }
  if (options.precision < 0) {
    throw value_error("set_printoptions: precision must be non-negative (got " + std::to_string(options.precision) +
                      ")");
  }
  if (options.edgeitems < 0) {
    throw value_error("set_printoptions: edgeitems must be non-negative (got " + std::to_string(options.edgeitems) +
                      ")");
  }
  if (options.linewidth < 1) {
    throw value_error("set_printoptions: linewidth must be at least 1 (got " + std::to_string(options.linewidth) + ")");
  }
  thread_options() = options;
}

printoptions_scope::printoptions_scope(const print_options& options) : previous_(thread_options()) {
  set_printoptions(options);
}

printoptions_scope::~printoptions_scope() {
  thread_options() = previous_;
}

}  // namespace ndcuda

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

// How digits are cut: at most `precision` fractional digits (none: -1), shortest round-trip
// digits when `unique`, else exactly `precision` (NumPy's floatmode 'fixed').
struct digit_rule {
  int precision = 8;
  bool unique = true;
};

// "12.5" style, without padding. `plus` prints '+' on non-negative values.
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

// Mantissa ("1.5") and exponent ("-05") of the scientific form.
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

// FloatingFormat: a layout chosen from every shown value, then applied to each. `sign` is the
// options' sign ('+' for the imaginary parts of complex numbers).
class float_format {
 public:
  float_format(const std::vector<double>& shown, dtype type, char sign, const print_options& o)
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

  [[nodiscard]] std::string operator()(double v) const {
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

// The flat indices NumPy formats (edge items of each long axis when summarising), in C order.
void shown_indices(std::span<const index_t> shape, std::size_t axis, index_t base, bool summary, index_t edgeitems,
                   std::vector<index_t>& out) {
  if (axis == shape.size()) {
    out.push_back(base);
    return;
  }
  index_t inner = 1;
  for (std::size_t i = axis + 1; i < shape.size(); ++i) {
    inner *= shape[i];
  }
  const index_t n = shape[axis];
  for (index_t i = 0; i < n; ++i) {
    if (summary && n > 2 * edgeitems && i == edgeitems) {
      i = n - edgeitems;
    }
    shown_indices(shape, axis + 1, base + i * inner, summary, edgeitems, out);
  }
}

// _formatArray: nested brackets, rows wrapped at the line width, "..." for summarised axes.
// `separator` is ", " for repr and " " for str.
struct printer {
  std::span<const index_t> shape;
  bool summary;
  index_t edgeitems;
  std::string separator;
  std::vector<index_t> inner;  // elements per step along each axis
  std::function<std::string(index_t)> element;

  static void extend_line(std::string& s, std::string& line, const std::string& word, std::size_t width,
                          const std::string& prefix) {
    bool wrap = line.size() + word.size() > width;
    if (line.size() <= prefix.size()) {
      wrap = false;
    }
    if (wrap) {
      while (!line.empty() && line.back() == ' ') {
        line.pop_back();
      }
      s += line + "\n";
      line = prefix;
    }
    line += word;
  }

  std::string recurse(std::size_t axis, index_t base, const std::string& hanging, std::ptrdiff_t width) const {
    if (axis == shape.size()) {
      return element(base);
    }
    const std::size_t axes_left = shape.size() - axis;
    const std::string next_hanging = hanging + " ";
    const std::ptrdiff_t next_width = width - 1;
    const index_t n = shape[axis];
    const bool show_summary = summary && 2 * edgeitems < n;
    const index_t leading = show_summary ? edgeitems : 0;
    const index_t trailing = show_summary ? edgeitems : n;
    const index_t step = inner[axis];
    std::string s;
    if (axes_left == 1) {
      // elem_width = width - max(len(separator.rstrip()), len(']')), which is 1 for both separators
      const auto elem_width = static_cast<std::size_t>(std::max<std::ptrdiff_t>(width - 1, 0));
      std::string line = hanging;
      for (index_t i = 0; i < leading; ++i) {
        extend_line(s, line, recurse(axis + 1, base + i * step, next_hanging, next_width), elem_width, hanging);
        line += separator;
      }
      if (show_summary) {
        extend_line(s, line, "...", elem_width, hanging);
        line += separator;
      }
      for (index_t i = trailing; i > 1; --i) {
        extend_line(s, line, recurse(axis + 1, base + (n - i) * step, next_hanging, next_width), elem_width, hanging);
        line += separator;
      }
      if (n > 0) {
        extend_line(s, line, recurse(axis + 1, base + (n - 1) * step, next_hanging, next_width), elem_width, hanging);
      }
      s += line;
    } else {
      std::string stripped = separator;
      while (!stripped.empty() && stripped.back() == ' ') {
        stripped.pop_back();
      }
      const std::string line_sep = stripped + std::string(axes_left - 1, '\n');
      for (index_t i = 0; i < leading; ++i) {
        s += hanging + recurse(axis + 1, base + i * step, next_hanging, next_width) + line_sep;
      }
      if (show_summary) {
        s += hanging + "..." + line_sep;
      }
      for (index_t i = trailing; i > 1; --i) {
        s += hanging + recurse(axis + 1, base + (n - i) * step, next_hanging, next_width) + line_sep;
      }
      s += hanging + recurse(axis + 1, base + (n - 1) * step, next_hanging, next_width);
    }
    return "[" + s.substr(hanging.size()) + "]";
  }
};

bool dtype_is_implied(dtype t) {
  return t == dtype::float64 || t == dtype::int64 || t == dtype::bool_ || t == dtype::complex128;
}

// array2string for a non-empty array: the bracketed body with the thread's options. `prefix` is
// "array(" for repr (whose ")" suffix also shortens the line by one) and "" for str.
std::string array2string(const print_values& values, std::span<const index_t> shape, const std::string& separator,
                         const std::string& prefix, std::size_t suffix) {
  const print_options& o = get_printoptions();
  const bool summary = shape_size(shape) > o.threshold;
  std::vector<index_t> shown;
  shown_indices(shape, 0, 0, summary, o.edgeitems, shown);
  printer p{shape, summary, o.edgeitems, separator, std::vector<index_t>(shape.size(), 1), {}};
  for (std::size_t i = shape.size(); i-- > 1;) {
    p.inner[i - 1] = p.inner[i] * shape[i];
  }
  if (values.type == dtype::bool_) {
    // BoolFormat: " True" lines up with "False", except in a 0-d array
    const std::string true_text = shape.empty() ? "True" : " True";
    p.element = [&values, true_text](index_t i) {
      return values.text[static_cast<std::size_t>(i)] == "True" ? true_text : std::string("False");
    };
  } else if (!values.text.empty()) {
    // IntegerFormat: right-aligned to the widest shown value, with '+' or ' ' before non-negatives
    bool any_negative = false;
    for (index_t i : shown) {
      any_negative = any_negative || values.text[static_cast<std::size_t>(i)][0] == '-';
    }
    const std::string plus = o.sign == '+' ? "+" : (o.sign == ' ' && !any_negative ? " " : "");
    std::size_t width = 0;
    for (index_t i : shown) {
      const std::string& t = values.text[static_cast<std::size_t>(i)];
      width = std::max(width, t.size() + (t[0] == '-' ? 0 : plus.size()));
    }
    p.element = [&values, width, plus](index_t i) {
      const std::string& t = values.text[static_cast<std::size_t>(i)];
      const std::string signed_text = t[0] == '-' ? t : plus + t;
      return std::string(width - signed_text.size(), ' ') + signed_text;
    };
  } else {
    std::vector<double> re;
    std::vector<double> im;
    for (index_t i : shown) {
      re.push_back(values.real[static_cast<std::size_t>(i)]);
      if (!values.imag.empty()) {
        im.push_back(values.imag[static_cast<std::size_t>(i)]);
      }
    }
    const float_format real_format(re, values.type, o.sign, o);
    if (values.imag.empty()) {
      p.element = [&values, real_format](index_t i) { return real_format(values.real[static_cast<std::size_t>(i)]); };
    } else {
      const float_format imag_format(im, values.type, '+', o);
      p.element = [&values, real_format, imag_format](index_t i) {
        std::string imag = imag_format(values.imag[static_cast<std::size_t>(i)]);
        const auto end = imag.find_last_not_of(' ') + 1;
        imag.insert(end, "j");
        return real_format(values.real[static_cast<std::size_t>(i)]) + imag;
      };
    }
  }
  const auto width = static_cast<std::ptrdiff_t>(o.linewidth) - static_cast<std::ptrdiff_t>(suffix);
  return p.recurse(0, 0, std::string(1 + prefix.size(), ' '), width);
}

// str of a NumPy scalar (what str of a 0-d array prints): Python's float repr style, positional
// for 1e-4 <= |x| < 1e16 (float32: 1e6, float16: 1e3), shortest round-trip digits, print
// options ignored. `plus` writes '+' before a non-negative value and `part` trims an integral
// value to "1" (the parts of a complex scalar, "(1+2j)", as Python's complex repr).
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

std::string scalar_str(const print_values& values) {
  if (!values.text.empty()) {
    return values.text[0];
  }
  const double re = values.real[0];
  if (values.imag.empty()) {
    return scalar_float(re, values.type, false, false);
  }
  const std::string imag = scalar_float(values.imag[0], values.type, true, true) + "j";
  if (re == 0 && !std::signbit(re)) {
    return imag[0] == '+' ? imag.substr(1) : imag;
  }
  return "(" + scalar_float(re, values.type, false, true) + imag + ")";
}

}  // namespace

std::string format_repr(const print_values& values, std::span<const index_t> shape) {
  const print_options& o = get_printoptions();
  const std::string prefix = "array(";
  const index_t size = shape_size(shape);
  const std::string body = size == 0 ? "[]" : array2string(values, shape, ", ", prefix, 1);
  std::vector<std::string> extras;
  if ((size == 0 && !(shape.size() == 1 && shape[0] == 0)) || size > o.threshold) {
    extras.push_back("shape=" + format_shape(shape));
  }
  if (!dtype_is_implied(values.type) || size == 0) {
    extras.push_back("dtype=" + std::string(name(values.type)));
  }
  if (extras.empty()) {
    return prefix + body + ")";
  }
  const std::string arr = prefix + body + ",";
  std::string extra;
  for (std::size_t i = 0; i < extras.size(); ++i) {
    extra += (i > 0 ? ", " : "") + extras[i];
  }
  extra += ")";
  const std::size_t last_line = arr.size() - (arr.rfind('\n') == std::string::npos ? 0 : arr.rfind('\n') + 1);
  const bool new_line = static_cast<index_t>(last_line + extra.size() + 1) > o.linewidth;
  return arr + (new_line ? "\n" + std::string(prefix.size(), ' ') : " ") + extra;
}

std::string format_str(const print_values& values, std::span<const index_t> shape) {
  if (shape.empty()) {
    return scalar_str(values);
  }
  if (shape_size(shape) == 0) {
    return "[]";
  }
  return array2string(values, shape, " ", "", 0);
}

}  // namespace ndcuda::detail
