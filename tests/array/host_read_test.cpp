// Reading arrays back to the host on the GPU: to_host() and to_host_vector() agree with the data
// written, for big arrays (the populated and huge-page paths), strided views, bool and complex.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/array/ndarray.hpp>
#include <vector>

#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

TEST(HostRead, BigArraysReadBackExactlyThroughBothVectors) {
  NDCUDA_REQUIRE_GPU();
  // 24 MiB of float and 40 MiB of int64: past the huge-block threshold, several staging chunks,
  // and a size that is not a multiple of a page.
  const std::vector<float> f = nd::testing::uniform_integers<float>((std::size_t{24} << 20) / 4 + 13, -1000, 1000);
  const auto df = nd::asarray(f);
  EXPECT_EQ(df.to_host(), f);
  const nd::host_vector<float> hf = df.to_host_vector();
  ASSERT_EQ(hf.size(), f.size());
  EXPECT_TRUE(std::equal(hf.begin(), hf.end(), f.begin()));

  const std::vector<std::int64_t> i =
      nd::testing::uniform_integers<std::int64_t>((std::size_t{40} << 20) / 8 + 5, -1000, 1000);
  const auto di = nd::asarray(i);
  EXPECT_EQ(di.to_host(), i);
  const nd::host_vector<std::int64_t> hi = di.to_host_vector();
  EXPECT_TRUE(std::equal(hi.begin(), hi.end(), i.begin(), i.end()));
}

TEST(HostRead, StridedViewsBoolAndComplexThroughToHostVector) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<double> d = nd::testing::uniform_integers<double>(600 * 700, -1000, 1000);
  const auto a = nd::asarray(d, {600, 700});
  const auto t = a.T();  // non-contiguous: read through a dense copy
  const std::vector<double> expected = t.to_host();
  const nd::host_vector<double> got = t.to_host_vector();
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_TRUE(std::equal(got.begin(), got.end(), expected.begin()));
  EXPECT_EQ(expected[1], d[700]);  // row 0 of the transpose is column 0 of a

  std::vector<bool> bits(5'000'001);
  for (std::size_t k = 0; k < bits.size(); ++k) {
    bits[k] = (k * 2654435761U) % 7 < 3;
  }
  const auto b = nd::asarray(bits);
  const nd::host_vector<bool> hb = b.to_host_vector();
  EXPECT_TRUE(std::equal(hb.begin(), hb.end(), bits.begin(), bits.end()));
  EXPECT_EQ(b.to_host(), bits);

  std::vector<std::complex<float>> c(1 << 21);
  for (std::size_t k = 0; k < c.size(); ++k) {
    c[k] = {static_cast<float>(k % 977), -static_cast<float>(k % 131)};
  }
  const nd::host_vector<std::complex<float>> hc = nd::asarray(c).to_host_vector();
  EXPECT_TRUE(std::equal(hc.begin(), hc.end(), c.begin(), c.end()));
  EXPECT_TRUE(nd::empty<float>({0, 3}).to_host_vector().empty());
}

}  // namespace
