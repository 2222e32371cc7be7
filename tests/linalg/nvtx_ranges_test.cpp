// NVTX ranges of the linalg and fft entry points (core/detail/nvtx.hpp): named as the user wrote
// the call. Host-only (fake arrays fail their checks inside the range) except the last test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <ndcuda/fft.hpp>
#include <ndcuda/linalg.hpp>
#include <string>
#include <vector>

#include "support/fake_array.hpp"
#include "support/gpu.hpp"
#include "support/nvtx_names.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

using nd::testing::fake;

using nd::testing::nvtx_name_registered;

}  // namespace

TEST(NvtxLinalg, EntryPointsOpenTheirRangeFirst) {
  const auto a = fake<float>({4, 5});
  const auto b = fake<float>({3, 3});
  const auto c = fake<std::complex<float>>({8});
  EXPECT_THROW((void)nd::matmul(a, b), nd::error);               // core dimensions 5 and 3 differ
  EXPECT_THROW((void)nd::linalg::solve(a, a), nd::error);        // not square
  EXPECT_THROW((void)nd::linalg::inv(a), nd::error);             // not square
  EXPECT_THROW((void)nd::einsum("ij,jk->ik", a, b), nd::error);  // j is 5 and 3
  EXPECT_THROW((void)nd::fft::fft(c, 0), nd::error);             // zero points
  for (const char* name : {"nd::matmul", "nd::linalg::solve", "nd::linalg::inv", "nd::einsum", "nd::fft::fft"}) {
    EXPECT_TRUE(nvtx_name_registered(name)) << name;
  }
}

TEST(NvtxLinalgGpu, MatmulRunsInsideItsRange) {
  NDCUDA_REQUIRE_GPU();
  constexpr int m = 7;
  constexpr int k = 5;
  constexpr int n = 6;
  const std::vector<double> ha = nd::testing::uniform_values<double>(m * k, -1.0, 1.0);
  const std::vector<double> hb = nd::testing::uniform_values<double>(k * n, -1.0, 1.0);
  const auto a = nd::asarray(ha, {m, k});
  const auto b = nd::asarray(hb, {k, n});
  const std::vector<double> got = nd::matmul(a, b).to_host();
  ASSERT_EQ(got.size(), static_cast<std::size_t>(m * n));
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int p = 0; p < k; ++p) {
        want += ha[i * k + p] * hb[p * n + j];
      }
      EXPECT_NEAR(got[i * n + j], want, 1e-12) << "at (" << i << ", " << j << ")";
    }
  }
  EXPECT_TRUE(nvtx_name_registered("nd::matmul"));
  EXPECT_TRUE(nvtx_name_registered("ndarray::to_host"));
}
