// Counting, binning, selection and unique: on the CPU, NumPy's error texts (from
// tests/data/counting_cases.txt, written by gen_counting_cases.py), result dtypes, and NVRTC
// compiles of every counting/topk kernel; their GPU results are in counting_gpu_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <ndcuda/ndcuda.hpp>
#include <string>
#include <type_traits>

#include "support/error_message.hpp"
#include "support/fake_array.hpp"

namespace nd = ndcuda;
using nd::testing::fake;
using nd::testing::message_of;

namespace {

/// NumPy's messages by case name, from the generated file ("name<TAB>ExceptionType<TAB>message").
const std::map<std::string, std::pair<std::string, std::string>>& numpy_errors() {
  static const auto cases = [] {
    std::map<std::string, std::pair<std::string, std::string>> m;
    std::ifstream in(std::string(NDCUDA_TEST_DATA_DIR) + "/counting_cases.txt");
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') {
        continue;
      }
      const auto t1 = line.find('\t');
      const auto t2 = line.find('\t', t1 + 1);
      m[line.substr(0, t1)] = {line.substr(t1 + 1, t2 - t1 - 1), line.substr(t2 + 1)};
    }
    return m;
  }();
  return cases;
}

std::string numpy_message(const std::string& name) {
  const auto it = numpy_errors().find(name);
  return it == numpy_errors().end() ? "<case " + name + " missing from counting_cases.txt>" : it->second.second;
}

}  // namespace

TEST(CountingCases, GeneratedFileIsPresent) {
  EXPECT_GE(numpy_errors().size(), 15u);
}

TEST(CountingErrors, BincountArgumentChecksUseNumPysText) {
  const auto x = fake<std::int32_t>({4});
  EXPECT_EQ(message_of<nd::value_error>([&] { (void)nd::bincount(x, -1); }), numpy_message("bincount_minlength"));
  EXPECT_EQ(message_of<nd::value_error>([&] {
              (void)nd::bincount(fake<std::int32_t>({2, 2}));
            }),
            numpy_message("bincount_2d"));
  EXPECT_EQ(message_of<nd::value_error>([&] { (void)nd::bincount(fake<std::int32_t>({})); }),
            numpy_message("bincount_0d"));
  EXPECT_EQ(message_of<nd::type_error>([&] { (void)nd::bincount(fake<double>({3})); }),
            numpy_message("bincount_float"));
  EXPECT_EQ(message_of<nd::value_error>([&] { (void)nd::bincount(x, fake<double>({3})); }),
            numpy_message("bincount_weights_length"));
  EXPECT_NE(message_of<nd::value_error>([&] { (void)nd::bincount(x, nd::size(-2)); }).find("must not be negative"),
            std::string::npos);
}

TEST(CountingErrors, HistogramArgumentChecksUseNumPysText) {
  const auto a = fake<float>({5});
  EXPECT_EQ(message_of<nd::value_error>([&] { (void)nd::histogram(a, 0); }), numpy_message("histogram_bins_zero"));
  EXPECT_EQ(message_of<nd::value_error>([&] {
              (void)nd::histogram(a, 10, nd::bin_range{3, 1});
            }),
            numpy_message("histogram_range_order"));
  EXPECT_EQ(message_of<nd::value_error>([&] {
              (void)nd::histogram(a, 10, nd::bin_range{0, INFINITY});
            }),
            numpy_message("histogram_range_inf"));
  EXPECT_EQ(message_of<nd::value_error>([&] {
              (void)nd::histogram(a, fake<double>({2, 2}));
            }),
            numpy_message("histogram_edges_2d"));
  EXPECT_EQ(message_of<nd::value_error>([&] { (void)nd::histogram2d(a, fake<float>({4}), 4); }),
            numpy_message("histogram2d_length"));
}

TEST(CountingErrors, HistogramPythonFloatsPrintAsPythonDoes) {
  EXPECT_EQ(nd::detail::python_float(0.0), "0.0");
  EXPECT_EQ(nd::detail::python_float(1.5), "1.5");
  EXPECT_EQ(nd::detail::python_float(0.1), "0.1");
  EXPECT_EQ(nd::detail::python_float(-INFINITY), "-inf");
  EXPECT_EQ(nd::detail::python_float(NAN), "nan");
}

TEST(CountingErrors, DigitizeNeedsOneDimensionalBins) {
  const auto x = fake<float>({5});
  EXPECT_EQ(message_of<nd::value_error>([&] {
              (void)nd::digitize(x, fake<float>({2, 2}));
            }),
            numpy_message("digitize_2d"));
  EXPECT_EQ(message_of<nd::value_error>([&] { (void)nd::digitize(x, fake<float>({})); }), numpy_message("digitize_0d"));
}

TEST(SelectionErrors, PartitionKthOutOfBounds) {
  const auto a = fake<float>({5});
  EXPECT_EQ(message_of<nd::value_error>([&] { (void)nd::partition(a, 5); }), numpy_message("partition_kth_high"));
  EXPECT_EQ(message_of<nd::value_error>([&] { (void)nd::partition(a, -6); }), numpy_message("partition_kth_low"));
  EXPECT_EQ(message_of<nd::value_error>([&] {
              (void)nd::argpartition(a, std::vector<nd::index_t>{1, 5});
            }),
            numpy_message("argpartition_kth_list"));
}

TEST(SelectionErrors, ChooseSelectAndCopytoUseNumPysText) {
  const auto a = fake<float>({3});
  const auto i = fake<std::int64_t>({3});
  EXPECT_EQ(message_of<nd::value_error>([&] { (void)nd::choose(i, std::vector<nd::ndarray<float>>{}); }),
            numpy_message("choose_empty"));
  EXPECT_EQ(message_of<nd::type_error>([&] { (void)nd::choose(fake<double>({3}), std::vector{a}); }),
            numpy_message("choose_float_index"));
  EXPECT_EQ(
      message_of<nd::value_error>([&] { (void)nd::select({fake<bool>({3})}, std::vector<nd::ndarray<float>>{}); }),
      numpy_message("select_lengths"));
  EXPECT_EQ(message_of<nd::value_error>(
                [&] { (void)nd::select(std::vector<nd::ndarray<bool>>{}, std::vector<nd::ndarray<float>>{}); }),
            numpy_message("select_empty"));
  EXPECT_EQ(message_of<nd::type_error>([&] { nd::copyto(fake<std::int32_t>({2}), fake<double>({2})); }),
            numpy_message("copyto_same_kind"));
}

TEST(SelectionErrors, TopkChecksK) {
  const auto a = fake<float>({4, 6});
  EXPECT_NE(message_of<nd::value_error>([&] { (void)nd::topk(a, 7); }).find("k=7 is out of range"), std::string::npos);
  EXPECT_NE(message_of<nd::value_error>([&] { (void)nd::topk(a, -1, 0); }).find("of length 4"), std::string::npos);
  EXPECT_NE(message_of<nd::shape_error>([&] { (void)nd::topk(fake<float>({}), 1); }).find("0-d"), std::string::npos);
}

TEST(CountingTypes, ResultDtypesFollowNumPy) {
  using nd::detail::histogram_count_t;
  static_assert(std::is_same_v<histogram_count_t<>, std::int64_t>);
  static_assert(std::is_same_v<histogram_count_t<nd::bin_range>, std::int64_t>);
  static_assert(std::is_same_v<histogram_count_t<nd::ndarray<float>>, float>);
  static_assert(std::is_same_v<histogram_count_t<nd::ndarray<float>, nd::density_t>, double>);
  static_assert(std::is_same_v<histogram_count_t<nd::density_t>, double>);
  SUCCEED();
}

// One architecture: every instance compiled without the disk cache costs about 10 s of CI.
TEST(CountingKernels, CompileWithNvrtc) {
  const nd::compute_capability cc{8, 0};
  EXPECT_NO_THROW(nd::detail::compile_counting_kernels(cc));
  EXPECT_NO_THROW(nd::detail::compile_topk_kernels(cc));
  EXPECT_NO_THROW(nd::detail::compile_unique_kernels(cc));
}
