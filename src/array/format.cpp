// NumPy 2's array repr (numpy/_core/arrayprint.py with default options), from host values.
// Floats follow FloatingFormat: shortest round-trip digits of the element type, at most 8
// fractional digits, a common layout (positional or scientific) for all shown values.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <ndcuda/array/format.hpp>
#include <string>
#include <vector>

namespace ndcuda::detail {
namespace {

constexpr index_t threshold = 1000;
constexpr index_t edgeitems = 3;
constexpr std::size_t line_width = 75;
constexpr int max_fraction_digits = 8;

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

// "12.5" style, without padding. `plus` prints '+' on non-negative values.
std::string positional(double v, dtype type, bool plus) {
  const std::string sign = std::signbit(v) ? "-" : (plus ? "+" : "");
  const decimal d = shortest(v, type);
  std::string int_part;
  std::string frac;
  if (v == 0) {
    return sign + "0.";
  }
  if (d.exponent >= 0) {
    const auto e = static_cast<std::size_t>(d.exponent);
    int_part = d.digits.substr(0, std::min(d.digits.size(), e + 1));
    int_part.append(e + 1 > d.digits.size() ? e + 1 - d.digits.size() : 0, '0');
    frac = d.digits.size() > e + 1 ? d.digits.substr(e + 1) : "";
  } else {
    int_part = "0";
    frac = std::string(static_cast<std::size_t>(-d.exponent - 1), '0') + d.digits;
  }
  if (frac.size() > static_cast<std::size_t>(max_fraction_digits)) {
    char buf[400];
    std::snprintf(buf, sizeof buf, "%.*f", max_fraction_digits, std::fabs(v));
    return sign + trim_zeros(buf);
  }
  return sign + int_part + "." + frac;
}

// Mantissa ("1.5") and exponent ("-05") of the scientific form.
std::pair<std::string, std::string> scientific(double v, dtype type, bool plus) {
  const std::string sign = std::signbit(v) ? "-" : (plus ? "+" : "");
  decimal d = shortest(v, type);
  if (v == 0) {
    d = {"0", 0};
  }
  std::string mantissa = d.digits.substr(0, 1) + "." + d.digits.substr(1);
  int exponent = d.exponent;
  if (d.digits.size() - 1 > static_cast<std::size_t>(max_fraction_digits)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", max_fraction_digits, std::fabs(v));
    const std::string text = buf;
    mantissa = trim_zeros(text.substr(0, text.find('e')));
    exponent = std::stoi(text.substr(text.find('e') + 1));
  }
  std::string e = std::to_string(std::abs(exponent));
  if (e.size() < 2) {
    e.insert(0, 2 - e.size(), '0');
  }
  return {sign + mantissa, (exponent < 0 ? "-" : "+") + e};
}

// FloatingFormat: a layout chosen from every shown value, then applied to each.
class float_format {
 public:
  float_format(const std::vector<double>& shown, dtype type, bool plus) : type_(type), plus_(plus) {
    std::vector<double> finite;
    bool any_nonfinite = false;
    bool neg_inf = false;
    double max_abs = 0;
    double min_abs = 0;
    for (double v : shown) {
      if (!std::isfinite(v)) {
        any_nonfinite = true;
        neg_inf = neg_inf || (std::isinf(v) && v < 0);
        continue;
      }
      finite.push_back(v);
      const double a = std::fabs(v);
      if (a != 0) {
        max_abs = std::max(max_abs, a);
        min_abs = min_abs == 0 ? a : std::min(min_abs, a);
      }
    }
    exp_ = max_abs != 0 && (max_abs >= 1e8 || min_abs < 0.0001 || max_abs / min_abs > 1000.0);
    if (finite.empty()) {
      pad_left_ = 0;
      pad_right_ = 0;
    } else if (exp_) {
      for (double v : finite) {
        const auto [m, e] = scientific(v, type_, plus_);
        const auto dot = m.find('.');
        pad_left_ = std::max(pad_left_, dot);
        precision_ = std::max(precision_, m.size() - dot - 1);
        exp_size_ = std::max(exp_size_, e.size() - 1);
      }
      pad_right_ = exp_size_ + 2 + precision_;
    } else {
      for (double v : finite) {
        const std::string s = positional(v, type_, plus_);
        const auto dot = s.find('.');
        pad_left_ = std::max(pad_left_, dot);
        pad_right_ = std::max(pad_right_, s.size() - dot - 1);
      }
    }
    if (any_nonfinite) {
      const std::size_t offset = pad_right_ + 1;
      const std::size_t inf_len = 3 + ((plus_ || neg_inf) ? 1 : 0);
      pad_left_ = std::max({pad_left_, 3 > offset ? 3 - offset : 0, inf_len > offset ? inf_len - offset : 0});
    }
  }

  [[nodiscard]] std::string operator()(double v) const {
    if (!std::isfinite(v)) {
      std::string s = std::isnan(v) ? (plus_ ? "+nan" : "nan") : (v < 0 ? "-inf" : (plus_ ? "+inf" : "inf"));
      const std::size_t width = pad_left_ + pad_right_ + 1;
      return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
    }
    if (exp_) {
      auto [m, e] = scientific(v, type_, plus_);
      const auto dot = m.find('.');
      m.append(precision_ - (m.size() - dot - 1), '0');
      std::string digits = e.substr(1);
      digits.insert(0, exp_size_ > digits.size() ? exp_size_ - digits.size() : 0, '0');
      return std::string(pad_left_ - dot, ' ') + m + "e" + e[0] + digits;
    }
    std::string s = positional(v, type_, plus_);
    const auto dot = s.find('.');
    const std::size_t frac = s.size() - dot - 1;
    return std::string(pad_left_ - dot, ' ') + s + std::string(pad_right_ - frac, ' ');
  }

 private:
  dtype type_;
  bool plus_;
  bool exp_ = false;
  std::size_t pad_left_ = 0;
  std::size_t pad_right_ = 0;
  std::size_t precision_ = 0;
  std::size_t exp_size_ = 0;
};

// The flat indices NumPy formats (edge items of each long axis when summarising), in C order.
void shown_indices(std::span<const index_t> shape, std::size_t axis, index_t base, bool summary,
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
    shown_indices(shape, axis + 1, base + i * inner, summary, out);
  }
}

struct printer {
  std::span<const index_t> shape;
  bool summary;
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

  std::string recurse(std::size_t axis, index_t base, const std::string& hanging, std::size_t width) const {
    if (axis == shape.size()) {
      return element(base);
    }
    const std::size_t axes_left = shape.size() - axis;
    const std::string next_hanging = hanging + " ";
    const std::size_t next_width = width - 1;
    const index_t n = shape[axis];
    const bool show_summary = summary && 2 * edgeitems < n;
    const index_t leading = show_summary ? edgeitems : 0;
    const index_t trailing = show_summary ? edgeitems : n;
    const index_t step = inner[axis];
    std::string s;
    if (axes_left == 1) {
      const std::size_t elem_width = width - 1;
      std::string line = hanging;
      for (index_t i = 0; i < leading; ++i) {
        extend_line(s, line, recurse(axis + 1, base + i * step, next_hanging, next_width), elem_width, hanging);
        line += ", ";
      }
      if (show_summary) {
        extend_line(s, line, "...", elem_width, hanging);
        line += ", ";
      }
      for (index_t i = trailing; i > 1; --i) {
        extend_line(s, line, recurse(axis + 1, base + (n - i) * step, next_hanging, next_width), elem_width, hanging);
        line += ", ";
      }
      if (n > 0) {
        extend_line(s, line, recurse(axis + 1, base + (n - 1) * step, next_hanging, next_width), elem_width, hanging);
      }
      s += line;
    } else {
      const std::string line_sep = "," + std::string(axes_left - 1, '\n');
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

}  // namespace

std::string format_repr(const print_values& values, std::span<const index_t> shape) {
  const std::string prefix = "array(";
  const index_t size = shape_size(shape);
  const bool summary = size > threshold;
  std::string body;
  if (size == 0) {
    body = "[]";
  } else {
    std::vector<index_t> shown;
    shown_indices(shape, 0, 0, summary, shown);
    printer p{shape, summary, std::vector<index_t>(shape.size(), 1), {}};
    for (std::size_t i = shape.size(); i-- > 1;) {
      p.inner[i - 1] = p.inner[i] * shape[i];
    }
    if (!values.text.empty()) {
      std::size_t width = 0;
      for (index_t i : shown) {
        width = std::max(width, values.text[static_cast<std::size_t>(i)].size());
      }
      p.element = [&values, width](index_t i) {
        const std::string& t = values.text[static_cast<std::size_t>(i)];
        return std::string(width - t.size(), ' ') + t;
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
      const float_format real_format(re, values.type, false);
      if (values.imag.empty()) {
        p.element = [&values, real_format](index_t i) { return real_format(values.real[static_cast<std::size_t>(i)]); };
      } else {
        const float_format imag_format(im, values.type, true);
        p.element = [&values, real_format, imag_format](index_t i) {
          std::string imag = imag_format(values.imag[static_cast<std::size_t>(i)]);
          const auto end = imag.find_last_not_of(' ') + 1;
          imag.insert(end, "j");
          return real_format(values.real[static_cast<std::size_t>(i)]) + imag;
        };
      }
    }
    body = p.recurse(0, 0, std::string(1 + prefix.size(), ' '), line_width - 1);
  }
  std::vector<std::string> extras;
  if ((size == 0 && !(shape.size() == 1 && shape[0] == 0)) || summary) {
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
  const std::string spacer = last_line + extra.size() + 1 > line_width ? "\n" + std::string(prefix.size(), ' ') : " ";
  return arr + spacer + extra;
}

}  // namespace ndcuda::detail
