// array_repr against NumPy's repr: tests/data/print_cases.txt (from gen_print_cases.py) holds fixed
// arrays of several dtypes, 0-d, empty and summarised ones with NumPy's text. No GPU.
#include <gtest/gtest.h>

#include <ndcuda/array/format.hpp>
#include <span>
#include <string>

#include "support/print_cases.hpp"

namespace nd = ndcuda;

namespace {

std::string repr_of_case(const nd::testing::print_case& c) {
  return nd::testing::print_case_text(
      c, []<class T>(std::span<const T> values, const nd::shape_t& shape) { return nd::array_repr<T>(values, shape); });
}

}  // namespace

TEST(Format, MatchesNumPyRepr) {
  const auto cases = nd::testing::load_print_cases(NDCUDA_TEST_DATA_DIR "/print_cases.txt", false);
  ASSERT_GE(cases.size(), 25U) << "missing or short " NDCUDA_TEST_DATA_DIR "/print_cases.txt";
  for (const auto& c : cases) {
    EXPECT_EQ(repr_of_case(c), c.expected) << c.type << " " << nd::format_shape(c.shape);
  }
}
