// CPU tests of nd::fft's planning: NumPy's n / s / axes defaults, norm parsing and scaling, the
// output dtypes, and NumPy's error messages. No GPU needed.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <ndcuda/fft.hpp>
#include <string>
#include <type_traits>

namespace nd = ndcuda;
using nd::fft::detail::norm_mode;
using nd::fft::detail::plan_axes;
using nd::fft::detail::plan_axis;

namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const nd::error& e) {
    return e.what();
  }
  return "<no exception>";
}

TEST(FftPlan, OneAxisDefaultsAndHalfLength) {
  const nd::shape_t shape{4, 10};
  auto p = plan_axis(shape, std::nullopt, -1, false, "fft");
  EXPECT_EQ(p.axes, std::vector<int>{1});
  EXPECT_EQ(p.lengths, nd::shape_t{10});
  p = plan_axis(shape, 16, 0, false, "fft");
  EXPECT_EQ(p.axes, std::vector<int>{0});
  EXPECT_EQ(p.lengths, nd::shape_t{16});
  // irfft: m complex values give 2 (m - 1) real points by default.
  p = plan_axis(shape, std::nullopt, -1, true, "irfft");
  EXPECT_EQ(p.lengths, nd::shape_t{18});
  p = plan_axis(shape, 7, -1, true, "irfft");
  EXPECT_EQ(p.lengths, nd::shape_t{7});
}

TEST(FftPlan, NdDefaults) {
  const nd::shape_t shape{2, 3, 4};
  auto p = plan_axes(shape, std::nullopt, std::nullopt, false, "fftn");
  EXPECT_EQ(p.axes, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(p.lengths, (nd::shape_t{2, 3, 4}));
  p = plan_axes(shape, nd::shape_t{5, 6}, std::nullopt, false, "fftn");  // the last len(s) axes
  EXPECT_EQ(p.axes, (std::vector<int>{1, 2}));
  EXPECT_EQ(p.lengths, (nd::shape_t{5, 6}));
  p = plan_axes(shape, std::nullopt, std::vector<nd::index_t>{-1, 0}, false, "fftn");
  EXPECT_EQ(p.axes, (std::vector<int>{2, 0}));
  EXPECT_EQ(p.lengths, (nd::shape_t{4, 2}));
  p = plan_axes(shape, std::nullopt, std::vector<nd::index_t>{0, 2}, true, "irfftn");
  EXPECT_EQ(p.lengths, (nd::shape_t{2, 6}));
}

TEST(FftPlan, NumPyMessages) {
  EXPECT_EQ(message_of([] { (void)plan_axis(nd::shape_t{4}, 0, -1, false, "fft"); }),
            "fft: Invalid number of FFT data points (0) specified.");
  EXPECT_EQ(message_of([] { (void)plan_axis(nd::shape_t{1}, std::nullopt, -1, true, "irfft"); }),
            "irfft: Invalid number of FFT data points (0) specified.");
  EXPECT_NE(message_of([] {
              (void)plan_axes(nd::shape_t{2, 3}, nd::shape_t{2}, std::vector<nd::index_t>{0, 1}, false, "fftn");
            }).find("Shape and axes have different lengths"),
            std::string::npos);
  EXPECT_NE(message_of([] {
              (void)plan_axis(nd::shape_t{2, 3}, std::nullopt, 2, false, "fft");
            }).find("axis 2 is out of bounds for array of dimension 2"),
            std::string::npos);
  EXPECT_EQ(message_of([] { (void)nd::fft::detail::parse_norm("none"); }),
            "Invalid norm value none; should be \"backward\", \"ortho\" or \"forward\".");
}

TEST(FftPlan, NormScaling) {
  using nd::fft::detail::scale_for;
  EXPECT_EQ(scale_for(norm_mode::backward, false, 8), 1.0);
  EXPECT_EQ(scale_for(norm_mode::backward, true, 8), 0.125);
  EXPECT_EQ(scale_for(norm_mode::forward, false, 8), 0.125);
  EXPECT_EQ(scale_for(norm_mode::forward, true, 8), 1.0);
  EXPECT_DOUBLE_EQ(scale_for(norm_mode::ortho, true, 8), 1 / std::sqrt(8.0));
  EXPECT_EQ(nd::fft::detail::swap_direction(norm_mode::backward), norm_mode::forward);
  EXPECT_EQ(nd::fft::detail::swap_direction(norm_mode::ortho), norm_mode::ortho);
}

TEST(FftPlan, OutputDtypesFollowNumPy2) {
  using nd::fft::detail::complex_for;
  static_assert(complex_for(nd::dtype::float32) == nd::dtype::complex64);
  static_assert(complex_for(nd::dtype::float64) == nd::dtype::complex128);
  static_assert(complex_for(nd::dtype::int32) == nd::dtype::complex128);
  static_assert(complex_for(nd::dtype::complex64) == nd::dtype::complex64);
  static_assert(
      std::is_same_v<decltype(nd::fft::rfft(std::declval<nd::ndarray<float>>())), nd::ndarray<std::complex<float>>>);
  static_assert(
      std::is_same_v<decltype(nd::fft::irfft(std::declval<nd::ndarray<std::complex<float>>>())), nd::ndarray<float>>);
  static_assert(
      std::is_same_v<decltype(nd::fft::fft(std::declval<nd::ndarray<int>>())), nd::ndarray<std::complex<double>>>);
  SUCCEED();
}

TEST(FftPlan, CacheSizeIsSettable) {
  const std::size_t before = nd::fft::plan_cache_size();
  EXPECT_EQ(before, 16u);
  nd::fft::set_plan_cache_size(4);
  EXPECT_EQ(nd::fft::plan_cache_size(), 4u);
  nd::fft::set_plan_cache_size(before);
  EXPECT_EQ(nd::fft::detail::plan_devices(), 0u);  // nothing planned without a transform
}

}  // namespace
