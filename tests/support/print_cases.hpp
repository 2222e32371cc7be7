// NumPy's printed texts of tests/data/print_cases*.txt (gen_print_cases*.py): reading the cases
// and calling a printer on their values, typed by dtype name. Builds on array/format.hpp.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <ndcuda/array/format.hpp>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ndcuda::testing {

/// One array and the text NumPy prints for it.
struct print_case {
  std::string kind;  // "str" or "repr" (print_cases_19.txt; empty in print_cases.txt)
  std::string type;  // NumPy's dtype name
  shape_t shape;
  std::string option_text;  // the np.printoptions line (print_cases_19.txt only)
  std::vector<std::string> values;
  std::string expected;
};

/// The cases of `path`: a "### [kind] dtype extents..." line, the options line when
/// `with_kind_and_options`, the values ("arange" for 0, 1, ...), then NumPy's text up to the next
/// "###" (other lines opening with '#' are comments).
inline std::vector<print_case> load_print_cases(const std::string& path, bool with_kind_and_options) {
  std::ifstream file(path);
  std::vector<print_case> out;
  for (std::string line; std::getline(file, line);) {
    if (line.rfind("###", 0) == 0) {
      std::istringstream head(line.substr(4));
      print_case c;
      if (with_kind_and_options) {
        head >> c.kind;
      }
      head >> c.type;
      for (index_t d; head >> d;) {
        c.shape.push_back(d);
      }
      if (with_kind_and_options) {
        std::getline(file, c.option_text);
      }
      std::string data;
      std::getline(file, data);
      if (data == "arange") {
        for (index_t i = 0; i < shape_size(c.shape); ++i) {
          c.values.push_back(std::to_string(i));
        }
      } else {
        std::istringstream in(data);
        for (std::string v; in >> v;) {
          c.values.push_back(v);
        }
      }
      out.push_back(std::move(c));
    } else if (!out.empty() && line.rfind("#", 0) != 0) {
      out.back().expected += (out.back().expected.empty() ? "" : "\n") + line;
    }
  }
  return out;
}

/// The values as dtype T: bools "0"/"1", integers in decimal, floats as strtod reads them
/// (subnormals too), complex numbers "re,im".
template <class T>
std::vector<T> print_case_values(const print_case& c) {
  std::vector<T> v;
  for (const std::string& s : c.values) {
    if constexpr (std::is_same_v<T, bool>) {
      v.push_back(s == "1");
    } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
      v.push_back(static_cast<T>(std::stoull(s)));
    } else if constexpr (std::is_integral_v<T>) {
      v.push_back(static_cast<T>(std::stoll(s)));
    } else if constexpr (std::is_same_v<T, __half>) {
      v.push_back(__float2half(std::stof(s)));
    } else if constexpr (std::is_floating_point_v<T>) {
      v.push_back(static_cast<T>(std::strtod(s.c_str(), nullptr)));
    } else {
      const auto comma = s.find(',');
      using R = typename T::value_type;
      v.emplace_back(static_cast<R>(std::strtod(s.substr(0, comma).c_str(), nullptr)),
                     static_cast<R>(std::strtod(s.substr(comma + 1).c_str(), nullptr)));
    }
  }
  return v;
}

/// print(std::span<const T>(values), c.shape) with T the dtype c.type names (a bool span over
/// real bools: std::vector<bool> has none).
template <class T, class Print>
std::string print_typed(const print_case& c, Print& print) {
  const std::vector<T> v = print_case_values<T>(c);
  if constexpr (std::is_same_v<T, bool>) {
    std::unique_ptr<bool[]> bytes(new bool[v.size() + 1]);
    std::copy(v.begin(), v.end(), bytes.get());
    return print(std::span<const bool>(bytes.get(), v.size()), c.shape);
  } else {
    return print(std::span<const T>(v), c.shape);
  }
}

/// The text `print` makes of c's values: print is a generic callable
/// `[]<class T>(std::span<const T>, const nd::shape_t&) -> std::string`.
template <class Print>
std::string print_case_text(const print_case& c, Print&& print) {
  if (c.type == "float64") return print_typed<double>(c, print);
  if (c.type == "float32") return print_typed<float>(c, print);
  if (c.type == "float16") return print_typed<__half>(c, print);
  if (c.type == "int64") return print_typed<std::int64_t>(c, print);
  if (c.type == "int32") return print_typed<std::int32_t>(c, print);
  if (c.type == "int16") return print_typed<std::int16_t>(c, print);
  if (c.type == "int8") return print_typed<std::int8_t>(c, print);
  if (c.type == "uint8") return print_typed<std::uint8_t>(c, print);
  if (c.type == "uint64") return print_typed<std::uint64_t>(c, print);
  if (c.type == "bool") return print_typed<bool>(c, print);
  if (c.type == "complex128") return print_typed<std::complex<double>>(c, print);
  if (c.type == "complex64") return print_typed<std::complex<float>>(c, print);
  ADD_FAILURE() << "no dispatch for " << c.type;
  return {};
}

}  // namespace ndcuda::testing
