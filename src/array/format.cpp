// NumPy 2's array repr and str (numpy/_core/arrayprint.py: array2string, _formatArray) and the
// str of a 0-d array, from host values under the thread's print options. Builds on
// float_format.hpp for the floats; integers and bools are laid out here.
#include <algorithm>
#include <functional>
#include <ndcuda/array/format.hpp>
#include <string>
#include <vector>

#include "float_format.hpp"

namespace ndcuda::detail {
namespace {

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
