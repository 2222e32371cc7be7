// array_repr against NumPy's repr: tests/data/print_cases.txt (from gen_print_cases.py) holds fixed
// arrays of several dtypes, 0-d, empty and summarised ones with NumPy's text. No GPU.
#include <gtest/gtest.h>

#include <complex>
#include <fstream>
#include <ndcuda/array/format.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace nd = ndcuda;

namespace {

struct print_case {
  std::string type;
  nd::shape_t shape;
  std::vector<std::string> values;
  std::string expected;
};

std::vector<print_case> load_cases() {
  std::ifstream file(NDCUDA_TEST_DATA_DIR "/print_cases.txt");
  std::vector<print_case> out;
  for (std::string line; std::getline(file, line);) {
    if (line.rfind("###", 0) == 0) {
      std::istringstream head(line.substr(4));
      print_case c;
      head >> c.type;
      for (nd::index_t d; head >> d;) {
        c.shape.push_back(d);
      }
      std::string data;
      std::getline(file, data);
      std::istringstream in(data);
      for (std::string v; in >> v;) {
        c.values.push_back(v);
      }
      out.push_back(std::move(c));
    } else if (!out.empty() && line.rfind("#", 0) != 0) {
      out.back().expected += (out.back().expected.empty() ? "" : "\n") + line;
    }
  }
  return out;
}

template <class T>
std::string repr_of(const print_case& c) {
  std::vector<T> v;
  for (const std::string& s : c.values) {
    if constexpr (std::is_same_v<T, bool>) {
      v.push_back(s == "1");
    } else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::int32_t> ||
                         std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::int8_t>) {
      v.push_back(static_cast<T>(std::stoll(s)));
    } else if constexpr (std::is_same_v<T, std::uint64_t>) {
      v.push_back(static_cast<T>(std::stoull(s)));
    } else if constexpr (std::is_same_v<T, __half>) {
      v.push_back(__float2half(std::stof(s)));
    } else if constexpr (std::is_floating_point_v<T>) {
      v.push_back(static_cast<T>(std::stod(s)));
    } else {
      const auto comma = s.find(',');
      using R = typename T::value_type;
      v.emplace_back(static_cast<R>(std::stod(s.substr(0, comma))), static_cast<R>(std::stod(s.substr(comma + 1))));
    }
  }
  if constexpr (std::is_same_v<T, bool>) {
    std::unique_ptr<bool[]> bytes(new bool[v.size() + 1]);
    std::copy(v.begin(), v.end(), bytes.get());
    return nd::array_repr<bool>(std::span<const bool>(bytes.get(), v.size()), c.shape);
  } else {
    return nd::array_repr<T>(std::span<const T>(v), c.shape);
  }
}

std::string repr_of_case(const print_case& c) {
  if (c.type == "float64") return repr_of<double>(c);
  if (c.type == "float32") return repr_of<float>(c);
  if (c.type == "float16") return repr_of<__half>(c);
  if (c.type == "int64") return repr_of<std::int64_t>(c);
  if (c.type == "int32") return repr_of<std::int32_t>(c);
  if (c.type == "int16") return repr_of<std::int16_t>(c);
  if (c.type == "int8") return repr_of<std::int8_t>(c);
  if (c.type == "uint64") return repr_of<std::uint64_t>(c);
  if (c.type == "bool") return repr_of<bool>(c);
  if (c.type == "complex128") return repr_of<std::complex<double>>(c);
  if (c.type == "complex64") return repr_of<std::complex<float>>(c);
  ADD_FAILURE() << "no dispatch for " << c.type;
  return {};
}

}  // namespace

TEST(Format, MatchesNumPyRepr) {
  const auto cases = load_cases();
  ASSERT_GE(cases.size(), 25U) << "missing or short " NDCUDA_TEST_DATA_DIR "/print_cases.txt";
  for (const auto& c : cases) {
    EXPECT_EQ(repr_of_case(c), c.expected) << c.type << " " << nd::format_shape(c.shape);
  }
}
