// dist::sum / dist::mean with nd::deterministic: the same bits on every GPU count from 1 to all
// visible (at most 4), with uneven blocks, blocks spanning several small shards, sharding along
// axis 1 and replicated arrays, as nd::sum(x, nd::deterministic) of the whole array on one GPU,
// and as the host model of the fixed order.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <ndcuda/dist.hpp>
#include <ndcuda/ndcuda.hpp>
#include <vector>

#include "support/deterministic_reference.hpp"
#include "support/dist_gpus.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
namespace dist = ndcuda::dist;

namespace {

// Sizes around the 2^14-element block: smaller than a block over every rank, blocks cut by
// every boundary, and 2-d shapes whose rows do not align with blocks.
std::vector<nd::shape_t> shapes() {
  return {{5}, {16384 * 3 + 5}, {1000003}, {4099, 33}, {7, 16385}};
}

template <class T>
void check_every_gpu_count() {
  const int gpus = std::min(nd::device_count(), 4);
  for (const auto& shape : shapes()) {
    const auto n = static_cast<std::size_t>(nd::shape_size(shape));
    const auto host = nd::testing::normal_values<T>(n, 1.0, 100.0);
    const auto whole = nd::asarray<T>(host, shape, nd::default_stream(0));
    const T want = nd::sum(whole, nd::deterministic).item();
    const T want_mean = nd::mean(whole, nd::deterministic).item();
    ASSERT_EQ(std::bit_cast<std::uint64_t>(static_cast<double>(want)),
              std::bit_cast<std::uint64_t>(static_cast<double>(nd::testing::deterministic_reference(host, 1.0))));
    for (int p = 1; p <= gpus; ++p) {
      const auto comm = nd::testing::first_gpus(p);
      for (int axis = -1; axis < static_cast<int>(shape.size()); ++axis) {
        const auto d = axis < 0 ? dist::distribute(whole, comm, dist::sharding::replicated())
                                : dist::distribute(whole, comm, axis);
        const auto s = dist::sum(d, nd::deterministic);
        const auto m = dist::mean(d, nd::deterministic);
        for (int l = 0; l < comm.local_size(); ++l) {
          const std::string where = nd::format_shape(shape) + " on " + std::to_string(p) + " GPUs, sharded along " +
                                    std::to_string(axis) + ", rank " + std::to_string(l);
          EXPECT_EQ(std::bit_cast<std::uint64_t>(static_cast<double>(s.local_shard(l).item())),
                    std::bit_cast<std::uint64_t>(static_cast<double>(want)))
              << where;
          EXPECT_EQ(std::bit_cast<std::uint64_t>(static_cast<double>(m.local_shard(l).item())),
                    std::bit_cast<std::uint64_t>(static_cast<double>(want_mean)))
              << where;
        }
      }
    }
  }
}

}  // namespace

TEST(DistDeterministic, Float32SameBitsOnEveryGpuCount) {
  NDCUDA_REQUIRE_GPU();
  check_every_gpu_count<float>();
}

TEST(DistDeterministic, Float64SameBitsOnEveryGpuCount) {
  NDCUDA_REQUIRE_GPU();
  check_every_gpu_count<double>();
}

TEST(DistDeterministic, ExpressionsAreEvaluatedFirstMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  const auto comm = nd::testing::first_gpus(2);
  const auto host = nd::testing::uniform_values<float>(70001, -2.0, 2.0);
  const auto whole = nd::asarray<float>(host, {70001}, nd::default_stream(0));
  const auto d = dist::distribute(whole, comm, 0);
  const float got = dist::sum(d * 2.0f + 1.0f, nd::deterministic).local_shard(1).item();
  EXPECT_EQ(std::bit_cast<std::uint32_t>(got),
            std::bit_cast<std::uint32_t>(nd::sum(whole * 2.0f + 1.0f, nd::deterministic).item()));
}
