// Reading tests/data/arrange_cases.txt (written by gen_arrange_cases.py from NumPy) and the host
// gather that turns a remap plan into values. Shared by the CPU and GPU arrange tests.
#pragma once

#include <fstream>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/ops/detail/arrange_plan.hpp>
#include <string>
#include <vector>

namespace ndcuda::testing {

inline std::vector<std::string> split_fields(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

inline shape_t parse_shape(const std::string& s) {
  shape_t out;
  if (s == "-" || s.empty()) {
    return out;
  }
  for (const std::string& f : split_fields(s, 'x')) {
    out.push_back(std::stoll(f));
  }
  return out;
}

inline std::vector<index_t> parse_list(const std::string& s) {
  std::vector<index_t> out;
  if (s == "-" || s.empty()) {
    return out;
  }
  for (const std::string& f : split_fields(s, ',')) {
    out.push_back(std::stoll(f));
  }
  return out;
}

struct arrange_case {
  std::vector<std::string> fields;  // the fields before the result
  bool ok = false;
  std::string result;  // after "ok:" or "error:"
  std::string line;
};

inline std::vector<arrange_case> arrange_cases(const std::string& kind) {
  std::ifstream in(std::string(NDCUDA_TEST_DATA_DIR) + "/arrange_cases.txt");
  std::vector<arrange_case> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    const auto last = line.rfind(';');
    arrange_case c;
    c.fields = split_fields(line.substr(0, last), ';');
    if (c.fields[0] != kind) {
      continue;
    }
    const std::string r = line.substr(last + 1);
    c.ok = r.rfind("ok:", 0) == 0;
    c.result = r.substr(c.ok ? 3 : 6);
    c.line = line;
    out.push_back(c);
  }
  return out;
}

/// NumPy's texts where ndcuda deliberately says something clearer (docs/differences-from-numpy.md).
inline std::string expected_error(const std::string& numpy_text) {
  if (numpy_text == "integer modulo by zero") {
    return "number sections must be larger than 0.";
  }
  if (numpy_text == "tuple index out of range") {
    return "axis 2 is out of bounds for array of dimension 2";
  }
  return numpy_text;
}

/// "shape|values" of a gather: the output of `axes` from an input arange(1, n + 1) of in_shape,
/// constants -(2d+1) before and -(2d+2) after axis d, triangle as the kernel's (1 tril, 2 triu).
inline std::string host_gather(const shape_t& in_shape, const std::vector<detail::remap_axis>& axes,
                               const index_t* table = nullptr, int triangle = 0, index_t k = 0) {
  const shape_t out_shape = detail::remap_shape(axes);
  const strides_t in_strides = c_strides(in_shape);
  const index_t n = shape_size(out_shape);
  std::string values;
  std::vector<index_t> o(out_shape.size(), 0);
  for (index_t flat = 0; flat < n; ++flat) {
    index_t rem = flat;
    for (std::size_t d = out_shape.size(); d-- > 0;) {
      o[d] = rem % out_shape[d];
      rem /= out_shape[d];
    }
    index_t src = 0;
    long long value = 0;
    bool constant = false;
    for (std::size_t d = 0; d < o.size(); ++d) {
      const index_t c = detail::remap_source(o[d], axes[d], table);
      if (c < 0) {
        constant = true;
        value = o[d] < axes[d].before ? -(2 * static_cast<long long>(d) + 1) : -(2 * static_cast<long long>(d) + 2);
      } else {
        src += c * in_strides[d];
      }
    }
    if (!constant) {
      value = src + 1;
    }
    if (triangle != 0) {
      const index_t i = o[o.size() - 2];
      const index_t j = o.back();
      if (!(triangle == 1 ? j - i <= k : j - i >= k)) {
        value = 0;
      }
    }
    values += (flat != 0 ? "," : "") + std::to_string(value);
  }
  std::string s;
  for (std::size_t d = 0; d < out_shape.size(); ++d) {
    s += (d != 0 ? "x" : "") + std::to_string(out_shape[d]);
  }
  return (s.empty() ? "-" : s) + "|" + (values.empty() ? "-" : values);
}

}  // namespace ndcuda::testing
