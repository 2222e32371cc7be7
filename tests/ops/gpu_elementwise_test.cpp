// Fused expressions on the GPU against host references in double (std::complex<double> for
// complex): arithmetic, NumPy's integer division signs, NaN/inf/-0, broadcasting, aliasing,
// zero-size and 0-d arrays. Tolerances: exact for integers; <= 2 ulp for + - * /; <= 4 ulp in
// float32 for transcendental functions against the double result rounded to float.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <ndcuda/ndcuda.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

// Distance in units in the last place of float32, with NaN == NaN and -0 == +0 only when asked.
double ulp_distance(float got, double want) {
  const auto w = static_cast<float>(want);
  if (std::isnan(w) || std::isnan(got)) {
    return std::isnan(w) && std::isnan(got) ? 0 : 1e30;
  }
  if (w == got) {
    return 0;
  }
  const double ulp = std::nextafter(std::fabs(w), std::numeric_limits<float>::infinity()) - std::fabs(w);
  return std::fabs(static_cast<double>(got) - static_cast<double>(w)) / ulp;
}

std::int64_t py_floordiv(std::int64_t a, std::int64_t b) {
  if (b == 0) {
    return 0;
  }
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) {
    --q;
  }
  return q;
}
std::int64_t py_mod(std::int64_t a, std::int64_t b) {
  return b == 0 ? 0 : a - py_floordiv(a, b) * b;
}

}  // namespace

TEST(OpsGpu, FusedArithmeticFloat32WithinTwoUlp) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = 100003;
  const auto ha = nd::testing::uniform_values<float>(n, -10, 10);
  const auto hb = nd::testing::uniform_values<float>(n, 0.5, 10);
  const auto a = nd::asarray(ha, {static_cast<nd::index_t>(n)});
  const auto b = nd::asarray(hb, {static_cast<nd::index_t>(n)});
  nd::ndarray<float> c = a + b * 2.0f;
  nd::ndarray<float> d = nd::eval(a / b - a);
  const auto hc = c.to_host();
  const auto hd = d.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    // Two roundings in the fused tree: each <= 0.5 ulp of its own result.
    ASSERT_LE(ulp_distance(hc[i], double(ha[i]) + double(hb[i]) * 2.0), 2.0) << i;
    const float q = ha[i] / hb[i];
    ASSERT_LE(ulp_distance(hd[i], double(q) - double(ha[i])), 2.0) << i;
  }
}

TEST(OpsGpu, TranscendentalFloat32WithinFourUlp) {
  NDCUDA_REQUIRE_GPU();
  const auto h = nd::testing::uniform_values<float>(4099, 0.01, 3.0);
  const auto a = nd::asarray(h, {4099});
  const auto s = nd::eval(nd::sin(a)).to_host();
  const auto e = nd::eval(nd::exp(a)).to_host();
  const auto l = nd::eval(nd::log(a)).to_host();
  const auto t = nd::eval(nd::tanh(a)).to_host();
  for (std::size_t i = 0; i < h.size(); ++i) {
    ASSERT_LE(ulp_distance(s[i], std::sin(double(h[i]))), 4.0) << h[i];
    ASSERT_LE(ulp_distance(e[i], std::exp(double(h[i]))), 4.0) << h[i];
    ASSERT_LE(ulp_distance(l[i], std::log(double(h[i]))), 4.0) << h[i];
    ASSERT_LE(ulp_distance(t[i], std::tanh(double(h[i]))), 4.0) << h[i];
  }
}

TEST(OpsGpu, IntegerFloorDivideAndModFollowPython) {
  NDCUDA_REQUIRE_GPU();
  std::vector<std::int32_t> ha;
  std::vector<std::int32_t> hb;
  for (int x = -9; x <= 9; ++x) {
    for (int y = -4; y <= 4; ++y) {
      ha.push_back(x);
      hb.push_back(y);
    }
  }
  const auto n = static_cast<nd::index_t>(ha.size());
  const auto a = nd::asarray(ha, {n});
  const auto b = nd::asarray(hb, {n});
  const auto q = nd::eval(nd::floor_divide(a, b)).to_host();
  const auto r = nd::eval(a % b).to_host();
  const auto t = nd::eval(a / b).to_host();
  static_assert(std::is_same_v<decltype(nd::eval(a / b)), nd::ndarray<double>>);
  for (std::size_t i = 0; i < ha.size(); ++i) {
    EXPECT_EQ(q[i], py_floordiv(ha[i], hb[i])) << ha[i] << " // " << hb[i];
    EXPECT_EQ(r[i], py_mod(ha[i], hb[i])) << ha[i] << " % " << hb[i];
    if (hb[i] != 0) {
      EXPECT_EQ(t[i], double(ha[i]) / double(hb[i]));
    }
  }
}

TEST(OpsGpu, NanInfAndNegativeZero) {
  NDCUDA_REQUIRE_GPU();
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> ha = {nan, 1.0f, -0.0f, inf, -inf, 2.0f};
  const std::vector<float> hb = {1.0f, nan, 0.0f, 1.0f, 3.0f, -0.0f};
  const auto a = nd::asarray(ha, {6});
  const auto b = nd::asarray(hb, {6});
  const auto mx = nd::eval(nd::maximum(a, b)).to_host();
  const auto fm = nd::eval(nd::fmax(a, b)).to_host();
  const auto isn = nd::eval(nd::isnan(a)).to_host();
  const auto fin = nd::eval(nd::isfinite(a)).to_host();
  const auto neg = nd::eval(-a).to_host();
  EXPECT_TRUE(std::isnan(mx[0]) && std::isnan(mx[1]));
  EXPECT_EQ(fm[0], 1.0f);
  EXPECT_EQ(fm[1], 1.0f);
  EXPECT_TRUE(isn[0] && !isn[1]);
  EXPECT_TRUE(!fin[0] && fin[1] && !fin[3]);
  EXPECT_FALSE(std::signbit(neg[2]));
  const auto fmod = nd::eval(a % b).to_host();  // NumPy: the sign of the divisor
  EXPECT_TRUE(std::signbit(fmod[5]) || std::isnan(fmod[5]));
  // Negation flips the sign bit of a NaN too (np.signbit(-np.nan) is True), fused or not, in both
  // precisions.
  EXPECT_TRUE(std::signbit(neg[0]) && std::isnan(neg[0]));
  EXPECT_TRUE(nd::signbit(-a)(0).item());
  EXPECT_FALSE(nd::signbit(-(-a))(0).item());
  const auto d = nd::asarray(std::vector<double>{std::numeric_limits<double>::quiet_NaN(), 2.5}, {2});
  EXPECT_TRUE(nd::signbit(-d)(0).item());
  EXPECT_TRUE(nd::signbit(nd::negative(d))(0).item());
  EXPECT_TRUE(std::signbit(nd::eval(-d).to_host()[0]));
}

TEST(OpsGpu, BroadcastingAndItsErrorMessage) {
  NDCUDA_REQUIRE_GPU();
  const auto col = nd::arange<float>(3).reshape({3, 1});
  const auto row = nd::arange<float>(4);
  const auto sum = nd::eval(col * 10.0f + row);
  ASSERT_EQ(sum.shape(), (nd::shape_t{3, 4}));
  const auto h = sum.to_host();
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(h[static_cast<std::size_t>(i * 4 + j)], float(i * 10 + j));
    }
  }
  const auto bad = nd::arange<float>(5);
  try {
    (void)nd::eval(row + bad);
    FAIL() << "no shape_error";
  } catch (const nd::shape_error& e) {
    EXPECT_NE(std::string(e.what()).find("could not be broadcast together with shapes (4,) (5,)"), std::string::npos)
        << e.what();
  }
  auto out = nd::zeros<float>({3, 4});
  out(nd::ellipsis) = row;  // writes, broadcasting along axis 0
  EXPECT_EQ(out.to_host()[8], 0.0f);
  EXPECT_EQ(out.to_host()[11], 3.0f);
}

TEST(OpsGpu, AliasingUsesATemporaryLikeNumPy) {
  NDCUDA_REQUIRE_GPU();
  const nd::index_t n = 67;
  auto a = nd::arange<float>(n * n).reshape({n, n});
  const auto keep = a;  // shares the buffer: sees the writes
  a(nd::ellipsis) = a.T();
  const auto h = keep.to_host();
  for (nd::index_t i = 0; i < n; ++i) {
    for (nd::index_t j = 0; j < n; ++j) {
      ASSERT_EQ(h[static_cast<std::size_t>(i * n + j)], float(j * n + i));
    }
  }
  auto v = nd::arange<float>(1000);
  v(nd::slice(1, 1000)) = v(nd::slice(0, 999));  // NumPy: v[1:] = v[:-1] gives 0, 0, 1, 2, ...
  const auto hv = v.to_host();
  EXPECT_EQ(hv[0], 0.0f);
  for (std::size_t i = 1; i < hv.size(); ++i) {
    ASSERT_EQ(hv[i], float(i - 1)) << i;
  }
  auto w = nd::arange<float>(1000);
  w(nd::slice(1, 1000)) = w(nd::slice(0, 999)) + 1.0f;  // the expression path too
  EXPECT_EQ(w.to_host()[999], 999.0f);
}

TEST(OpsGpu, ZeroSizeAndZeroDim) {
  NDCUDA_REQUIRE_GPU();
  const auto empty = nd::zeros<float>({0, 3});
  EXPECT_EQ(nd::eval(empty + 1.0f).shape(), (nd::shape_t{0, 3}));
  const auto scalar = nd::full<double>({}, 2.5);
  EXPECT_EQ(nd::eval(scalar * 2.0).item(), 5.0);
  EXPECT_EQ(nd::eval(nd::arange<double>(3) + scalar).to_host()[2], 4.5);
}

TEST(OpsGpu, HalfIntegerAndComplexDtypes) {
  NDCUDA_REQUIRE_GPU();
  const auto h = nd::full<__half>({5}, __float2half(1.5f));
  const nd::ndarray<__half> hh = h * 2.0f + h;
  EXPECT_EQ(__half2float(hh.to_host()[4]), 4.5f);
  const auto i8 = nd::full<std::int8_t>({4}, 100);
  EXPECT_EQ(nd::eval(i8 + i8).to_host()[0], static_cast<std::int8_t>(-56));  // wraps like NumPy
  const auto z = nd::full<std::complex<float>>({3}, std::complex<float>(3, 4));
  EXPECT_EQ(nd::eval(nd::abs(z)).to_host()[0], 5.0f);
  EXPECT_EQ(nd::eval(nd::conj(z) * z).to_host()[1], std::complex<float>(25, 0));
  const auto m = nd::eval(nd::arange<float>(4) > 1.5f);
  EXPECT_EQ(nd::eval(nd::where(m, 1.0f, -1.0f)).to_host()[3], 1.0f);
}

TEST(OpsGpu, PrintingAnExpressionPrintsItsValue) {
  NDCUDA_REQUIRE_GPU();
  const auto a = nd::asarray(std::vector<float>{1, 2, 3, 4}, {2, 2});
  std::ostringstream direct;
  direct << (a > 2.0f);
  std::ostringstream evaluated;
  evaluated << nd::eval(a > 2.0f);
  EXPECT_EQ(direct.str(), evaluated.str());
  EXPECT_EQ(direct.str(), "array([[False, False],\n       [ True,  True]])");
  std::ostringstream sum;
  sum << a + 1.0f;  // + binds tighter than <<
  EXPECT_NE(sum.str().find("5."), std::string::npos) << sum.str();
}

TEST(OpsGpu, RepeatedSubtreesAndWideTreesMatchAHostReference) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = 70001;
  const auto ha = nd::testing::uniform_values<float>(n, -1, 1);
  const auto hb = nd::testing::uniform_values<float>(n, -1, 1);
  const auto a = nd::asarray(ha);
  const auto b = nd::asarray(hb);
  // exp(a*b) is one local read three times; the result must not change.
  const auto t = nd::exp(a * b) + 1.0f;
  const std::vector<float> got = nd::ndarray<float>(t * t + nd::sqrt(t)).to_host();
  for (std::size_t i = 0; i < n; ++i) {
    const double e = std::exp(double(ha[i]) * double(hb[i])) + 1.0;
    ASSERT_LE(ulp_distance(got[i], e * e + std::sqrt(e)), 8.0) << i;
  }
  // 33 distinct arrays (more than one kernel takes: split at run time into temporaries) and a
  // 40-leaf tree over one array (fused whole), both against double sums on the host.
  std::vector<std::vector<float>> hosts;
  std::vector<nd::ndarray<float>> arrays;
  for (int k = 0; k < 33; ++k) {
    hosts.push_back(nd::testing::uniform_values<float>(n, -1, 1));
    arrays.push_back(nd::asarray(hosts.back()));
  }
  const auto& x = arrays;
  const nd::ndarray<float> wide = x[0] + x[1] + x[2] + x[3] + x[4] + x[5] + x[6] + x[7] + x[8] + x[9] + x[10] + x[11] +
                                  x[12] + x[13] + x[14] + x[15] + x[16] + x[17] + x[18] + x[19] + x[20] + x[21] +
                                  x[22] + x[23] + x[24] + x[25] + x[26] + x[27] + x[28] + x[29] + x[30] + x[31] + x[32];
  const auto& y = a;
  const nd::ndarray<float> repeated = y + y + y + y + y + y + y + y + y + y + y + y + y + y + y + y + y + y + y + y +
                                      y + y + y + y + y + y + y + y + y + y + y + y + y + y + y + y + y + y + y + y;
  const std::vector<float> hw = wide.to_host();
  const std::vector<float> hr = repeated.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0;
    for (const auto& h : hosts) {
      sum += h[i];
    }
    ASSERT_NEAR(hw[i], sum, 1e-4) << i;
    ASSERT_NEAR(hr[i], 40.0 * ha[i], 1e-4) << i;
  }
}
