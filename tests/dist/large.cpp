// Arrays of more than 2^32 elements spread over the GPUs (every visible one, at most 4): a fused
// expression, sum, sort and mask extraction equal the one-GPU result of the same draw. Needs about
// 100 GB free on GPU 0 (it holds the one-GPU reference and the gathered result side by side) and
// 40 GB on the others; skips otherwise, and on one GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ndcuda/device/device.hpp>
#include <ndcuda/dist.hpp>
#include <ndcuda/ndcuda.hpp>

#include "support/dist_gpus.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
namespace dist = ndcuda::dist;

namespace {

constexpr nd::index_t huge = (nd::index_t{1} << 32) + 12347;  // float32: 17.2 GB

bool enough_memory(int gpus) {
  for (int d = 0; d < gpus; ++d) {
    const std::size_t need = (d == 0 ? std::size_t{100} : std::size_t{40}) << 30;
    if (nd::device(d).memory().free < need) {
      return false;
    }
  }
  return true;
}

}  // namespace

TEST(DistLarge, OverFourBillionElementsEqualOneGpuMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  const int gpus = std::min(nd::device_count(), 4);
  if (!enough_memory(gpus)) {
    GTEST_SKIP() << "needs about 100 GB free on GPU 0 and 40 GB on the others";
  }
  const auto comm = nd::testing::first_gpus(gpus);
  const std::uint64_t seed = nd::testing::test_seed() ^ 0x1a49e;
  auto g_dist = nd::random::default_rng(seed);
  auto g_one = nd::random::default_rng(seed);
  const auto x = dist::distribute(g_dist.random<float>({huge}), comm, 0);
  const nd::ndarray<float> one = g_one.random<float>({huge});  // on GPU 0
  ASSERT_EQ(x.size(), huge);
  {
    const dist::distributed_array<float> y = x * 2.0F - 0.5F;
    const nd::ndarray<float> want = one * 2.0F - 0.5F;
    EXPECT_TRUE(nd::array_equal(y.gather(0), want)) << "elementwise";
  }
  {
    const double got = dist::sum(x).local_shard(0).item();
    const double want = nd::sum(one).item();
    EXPECT_NEAR(got, want, 1e-5 * want) << "sum";
    EXPECT_NEAR(got, static_cast<double>(huge) / 2, 1e-3 * static_cast<double>(huge)) << "sum of uniform [0, 1)";
  }
  {
    const auto sorted = dist::sort(x);
    const nd::ndarray<float> want = nd::sort(one, 0);
    EXPECT_TRUE(nd::array_equal(sorted.gather(0), want)) << "sort";
  }
  {
    const dist::distributed_array<bool> mask = x > 0.75F;
    const auto got = dist::extract(mask, x);
    const nd::ndarray<float> want = nd::extract(one > 0.75F, one);
    ASSERT_EQ(got.size(), want.size()) << "extract";
    EXPECT_TRUE(nd::array_equal(got.gather(0), want)) << "extract";
  }
}
