// array_str / array_repr under print options against NumPy: tests/data/print_cases_19.txt (from
// gen_print_cases_19.py) holds str and repr texts under np.printoptions. No GPU.
#include <gtest/gtest.h>

#include <ndcuda/array/format.hpp>
#include <ndcuda/core/error.hpp>
#include <span>
#include <sstream>
#include <string>
#include <thread>

#include "support/print_cases.hpp"

namespace nd = ndcuda;

namespace {

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

std::string text_of_case(const nd::testing::print_case& c) {
  const nd::print_options options = parse_options(c.option_text);
  return nd::testing::print_case_text(c, [&]<class T>(std::span<const T> values, const nd::shape_t& shape) {
    const auto scope = nd::printoptions(options);
    return c.kind == "str" ? nd::array_str<T>(values, shape) : nd::array_repr<T>(values, shape);
  });
}

}  // namespace

TEST(PrintOptions, StrAndReprMatchNumPy) {
  const auto cases = nd::testing::load_print_cases(NDCUDA_TEST_DATA_DIR "/print_cases_19.txt", true);
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
