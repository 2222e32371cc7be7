// array_str / array_repr under print options against NumPy: tests/data/print_cases_19.txt (from
// gen_print_cases_19.py) holds str and repr texts under np.printoptions. No GPU.
#include <gtest/gtest.h>

#include <complex>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <ndcuda/array/format.hpp>
#include <ndcuda/core/error.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace nd = ndcuda;

namespace {

struct print_case {
  std::string kind;  // "str" or "repr"
  std::string type;
  nd::shape_t shape;
  nd::print_options options;
  std::string option_text;
  std::vector<std::string> values;
  std::string expected;
};

nd::print_options parse_options(const std::string& line) {
  nd::print_options o;
  std::istringstream in(line.substr(1));
  for (std::string word; in >> word;) {
    const auto eq = word.find('=');
    const std::string key = word.substr(0, eq);
    const std::string value = word.substr(eq + 1);
    if (key == "precision") {
      o.precision = std::stoi(value);
    } else if (key == "threshold") {
      o.threshold = std::stoll(value);
    } else if (key == "edgeitems") {
      o.edgeitems = std::stoll(value);
    } else if (key == "linewidth") {
      o.linewidth = std::stoll(value);
    } else if (key == "suppress") {
      o.suppress = value == "True";
    } else if (key == "sign") {
      o.sign = value == "space" ? ' ' : value[0];
    } else if (key == "floatmode") {
      o.floatmode = value == "fixed"           ? nd::float_mode::fixed
                    : value == "unique"        ? nd::float_mode::unique
                    : value == "maxprec_equal" ? nd::float_mode::maxprec_equal
                                               : nd::float_mode::maxprec;
    } else if (key == "nanstr") {
      o.nanstr = value;
    } else if (key == "infstr") {
      o.infstr = value;
    } else {
      ADD_FAILURE() << "unknown option " << key;
    }
  }
  return o;
}

std::vector<print_case> load_cases() {
  std::ifstream file(NDCUDA_TEST_DATA_DIR "/print_cases_19.txt");
  std::vector<print_case> out;
  for (std::string line; std::getline(file, line);) {
    if (line.rfind("###", 0) == 0) {
      std::istringstream head(line.substr(4));
      print_case c;
      head >> c.kind >> c.type;
      for (nd::index_t d; head >> d;) {
        c.shape.push_back(d);
      }
      std::getline(file, c.option_text);
      c.options = parse_options(c.option_text);
      std::string data;
      std::getline(file, data);
      if (data == "arange") {
        for (nd::index_t i = 0; i < nd::shape_size(c.shape); ++i) {
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

template <class T>
std::string text_of(const print_case& c) {
  std::vector<T> v;
  for (const std::string& s : c.values) {
    if constexpr (std::is_same_v<T, bool>) {
      v.push_back(s == "1");
    } else if constexpr (std::is_same_v<T, std::uint64_t> || std::is_same_v<T, std::uint8_t>) {
      v.push_back(static_cast<T>(std::stoull(s)));
    } else if constexpr (std::is_integral_v<T>) {
      v.push_back(static_cast<T>(std::stoll(s)));
    } else if constexpr (std::is_same_v<T, __half>) {
      v.push_back(__float2half(std::stof(s)));
    } else if constexpr (std::is_floating_point_v<T>) {
      v.push_back(static_cast<T>(std::strtod(s.c_str(), nullptr)));  // strtod: subnormals too
    } else {
      const auto comma = s.find(',');
      using R = typename T::value_type;
      v.emplace_back(static_cast<R>(std::strtod(s.substr(0, comma).c_str(), nullptr)),
                     static_cast<R>(std::strtod(s.substr(comma + 1).c_str(), nullptr)));
    }
  }
  const auto scope = nd::printoptions(c.options);
  if constexpr (std::is_same_v<T, bool>) {
    std::unique_ptr<bool[]> bytes(new bool[v.size() + 1]);
    std::copy(v.begin(), v.end(), bytes.get());
    const std::span<const bool> values(bytes.get(), v.size());
    return c.kind == "str" ? nd::array_str<bool>(values, c.shape) : nd::array_repr<bool>(values, c.shape);
  } else {
    const std::span<const T> values(v);
    return c.kind == "str" ? nd::array_str<T>(values, c.shape) : nd::array_repr<T>(values, c.shape);
  }
}

std::string text_of_case(const print_case& c) {
  if (c.type == "float64") return text_of<double>(c);
  if (c.type == "float32") return text_of<float>(c);
  if (c.type == "float16") return text_of<__half>(c);
  if (c.type == "int64") return text_of<std::int64_t>(c);
  if (c.type == "int32") return text_of<std::int32_t>(c);
  if (c.type == "int16") return text_of<std::int16_t>(c);
  if (c.type == "int8") return text_of<std::int8_t>(c);
  if (c.type == "uint8") return text_of<std::uint8_t>(c);
  if (c.type == "uint64") return text_of<std::uint64_t>(c);
  if (c.type == "bool") return text_of<bool>(c);
  if (c.type == "complex128") return text_of<std::complex<double>>(c);
  if (c.type == "complex64") return text_of<std::complex<float>>(c);
  ADD_FAILURE() << "no dispatch for " << c.type;
  return {};
}

}  // namespace

TEST(PrintOptions, StrAndReprMatchNumPy) {
  const auto cases = load_cases();
  ASSERT_GE(cases.size(), 900U) << "missing or short " NDCUDA_TEST_DATA_DIR "/print_cases_19.txt";
  int failures = 0;
  for (const auto& c : cases) {
    std::string got;
    try {
      got = text_of_case(c);
    } catch (const std::exception& e) {
      got = std::string("exception: ") + e.what();
    }
    if (got != c.expected && ++failures <= 40) {
      ADD_FAILURE() << c.kind << " " << c.type << " " << nd::format_shape(c.shape) << " " << c.option_text
                    << "\n got:\n"
                    << got << "\n NumPy:\n"
                    << c.expected;
    }
  }
  EXPECT_EQ(failures, 0) << "of " << cases.size() << " cases";
}

TEST(PrintOptions, ScopeRestoresAndSetGetRoundTrip) {
  const nd::print_options before = nd::get_printoptions();
  EXPECT_EQ(before.precision, 8);
  EXPECT_EQ(before.threshold, 1000);
  {
    const auto scope = nd::printoptions({.precision = 3, .sign = '+'});
    EXPECT_EQ(nd::get_printoptions().precision, 3);
    const std::vector<double> v{1.0 / 3.0, 2.0};
    const nd::shape_t shape{2};
    EXPECT_EQ(nd::array_str<double>(v, shape), "[+0.333 +2.   ]");
    {
      const auto inner = nd::printoptions({.floatmode = nd::float_mode::fixed});
      EXPECT_EQ(nd::array_str<double>(v, shape), "[0.33333333 2.00000000]");
    }
    EXPECT_EQ(nd::get_printoptions().sign, '+');
  }
  EXPECT_EQ(nd::get_printoptions().precision, 8);
  EXPECT_EQ(nd::get_printoptions().sign, '-');

  nd::set_printoptions({.linewidth = 20});
  EXPECT_EQ(nd::get_printoptions().linewidth, 20);
  nd::set_printoptions(before);
  EXPECT_EQ(nd::get_printoptions().linewidth, 75);
}

TEST(PrintOptions, ThreadLocal) {
  const auto scope = nd::printoptions({.precision = 2});
  int other_precision = -1;
  std::thread t([&] { other_precision = nd::get_printoptions().precision; });
  t.join();
  EXPECT_EQ(other_precision, 8);  // a new thread starts from NumPy's defaults
  EXPECT_EQ(nd::get_printoptions().precision, 2);
}

TEST(PrintOptions, BadOptionsThrowAndKeepTheOldOnes) {
  EXPECT_THROW(nd::set_printoptions({.sign = 'x'}), nd::value_error);
  EXPECT_THROW(nd::set_printoptions({.precision = -1}), nd::value_error);
  EXPECT_THROW(nd::set_printoptions({.edgeitems = -1}), nd::value_error);
  EXPECT_THROW(nd::set_printoptions({.linewidth = 0}), nd::value_error);
  EXPECT_THROW((void)nd::printoptions({.sign = '*'}), nd::value_error);
  try {
    nd::set_printoptions({.sign = 'x'});
  } catch (const nd::value_error& e) {
    EXPECT_NE(std::string(e.what()).find("sign option must be one of ' ', '+', or '-'"), std::string::npos);
  }
  EXPECT_EQ(nd::get_printoptions().sign, '-');
}

// bfloat16 is not a NumPy dtype: its layout follows float16's rules with bfloat16's precision
// (scientific from 1e2 in arrays, as ml_dtypes' finfo(bfloat16).precision = 2 gives).
TEST(PrintOptions, Bfloat16FollowsTheFloatRules) {
  const std::vector<__nv_bfloat16> v{__float2bfloat16(1.5f), __float2bfloat16(-2.0f), __float2bfloat16(0.25f)};
  const nd::shape_t shape{3};
  EXPECT_EQ(nd::array_str<__nv_bfloat16>(v, shape), "[ 1.5  -2.    0.25]");
  EXPECT_EQ(nd::array_repr<__nv_bfloat16>(v, shape), "array([ 1.5 , -2.  ,  0.25], dtype=bfloat16)");
  const std::vector<__nv_bfloat16> big{__float2bfloat16(100.0f), __float2bfloat16(1.0f)};
  EXPECT_EQ(nd::array_str<__nv_bfloat16>(big, nd::shape_t{2}), "[1.e+02 1.e+00]");
  const std::vector<__nv_bfloat16> third{__float2bfloat16(1.0f / 3.0f)};
  EXPECT_EQ(nd::array_str<__nv_bfloat16>(third, nd::shape_t{}), "0.334");  // 0.333984375: shortest round trip
}
