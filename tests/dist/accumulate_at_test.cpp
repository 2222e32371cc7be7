// dist::add_at against a host np.add.at on fresh random input, on every GPU count from 1 to all
// visible (at most 4): a sharded or replicated target, sharded or replicated indices (negative
// ones too, and many repeats), integer targets exactly, float ones to rounding, the scalar form
// and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ndcuda/dist.hpp>
#include <random>
#include <vector>

#include "support/dist_gpus.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
namespace dist = ndcuda::dist;

namespace {

std::mt19937_64& rng() {
  static std::mt19937_64 engine(nd::testing::test_seed() ^ 0xadda7);
  return engine;
}

std::vector<std::int64_t> random_indices(std::size_t count, nd::index_t n) {
  std::uniform_int_distribution<std::int64_t> pick(-n, n - 1);
  std::vector<std::int64_t> idx(count);
  for (auto& i : idx) {
    i = pick(rng());
  }
  return idx;
}

const std::vector<dist::sharding>& layouts() {
  static const std::vector<dist::sharding> specs{dist::sharding::block(0), dist::sharding::replicated()};
  return specs;
}

}  // namespace

TEST(DistAddAt, IntegersEqualTheHostExactlyOnEveryGpuCount) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  for (int p = 1; p <= gpus; ++p) {
    const auto comm = nd::testing::first_gpus(p);
    const nd::index_t n = nd::testing::uneven(p, 997);
    std::uniform_int_distribution<std::int32_t> value(-1000, 1000);
    std::vector<std::int32_t> start(static_cast<std::size_t>(n));
    for (auto& v : start) {
      v = value(rng());
    }
    const nd::index_t rows = nd::testing::uneven(p, 1201);
    const auto idx = random_indices(static_cast<std::size_t>(rows * 4), n);
    std::vector<std::int32_t> vals(idx.size());
    for (auto& v : vals) {
      v = value(rng());
    }
    std::vector<std::int32_t> want = start;
    for (std::size_t k = 0; k < idx.size(); ++k) {
      want[static_cast<std::size_t>(idx[k] < 0 ? idx[k] + n : idx[k])] += vals[k];
    }
    for (const auto& a_spec : layouts()) {
      for (const auto& idx_spec : {dist::sharding::block(0), dist::sharding::replicated(), dist::sharding::block(1)}) {
        const auto a = dist::distribute(start, {n}, comm, a_spec);
        dist::add_at(a, dist::distribute(idx, {rows, 4}, comm, idx_spec),
                     dist::distribute(vals, {rows, 4}, comm, idx_spec));
        EXPECT_EQ(a.to_host(), want) << p << " GPUs, a " << dist::describe(a_spec) << ", indices "
                                     << dist::describe(idx_spec);
      }
    }
  }
}

TEST(DistAddAt, FloatsEqualTheHostToRoundingAndTheScalarFormCounts) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  for (int p = 1; p <= gpus; ++p) {
    const auto comm = nd::testing::first_gpus(p);
    const nd::index_t n = nd::testing::uneven(p, 257);  // few targets, many repeats
    const auto start = nd::testing::uniform_values<double>(static_cast<std::size_t>(n), -1.0, 1.0);
    const nd::index_t count = nd::testing::uneven(p, 20011);
    const auto idx = random_indices(static_cast<std::size_t>(count), n);
    const auto vals = nd::testing::uniform_values<double>(idx.size(), -1.0, 1.0);
    std::vector<double> want = start;
    std::vector<double> counted(start.size(), 0.0);
    for (std::size_t k = 0; k < idx.size(); ++k) {
      const auto at = static_cast<std::size_t>(idx[k] < 0 ? idx[k] + n : idx[k]);
      want[at] += vals[k];
      counted[at] += 1.0;
    }
    for (const auto& a_spec : layouts()) {
      for (const auto& idx_spec : layouts()) {
        const auto indices = dist::distribute(idx, {count}, comm, idx_spec);
        const auto a = dist::distribute(start, {n}, comm, a_spec);
        dist::add_at(a, indices, dist::distribute(vals, {count}, comm, idx_spec));
        const auto got = a.to_host();
        for (std::size_t i = 0; i < want.size(); ++i) {
          ASSERT_NEAR(got[i], want[i], 1e-12 * 200) << p << " GPUs, a " << dist::describe(a_spec) << ", indices "
                                                    << dist::describe(idx_spec) << ", element " << i;
        }
        const auto hits = dist::zeros<double>({n}, comm, a_spec);
        dist::add_at(hits, indices, 1);
        EXPECT_EQ(hits.to_host(), counted) << p << " GPUs";
      }
    }
  }
}

TEST(DistAddAt, RefusesBadIndicesAndMismatchedValuesOnEveryRank) {
  NDCUDA_REQUIRE_GPU();
  const auto comm = nd::testing::all_gpus();
  const auto a = dist::zeros<float>({50}, comm);
  const auto bad = dist::distribute(std::vector<std::int64_t>{3, 50, -2}, {3}, comm, dist::sharding::replicated());
  try {
    dist::add_at(a, bad, 1.0f);
    FAIL() << "no error";
  } catch (const nd::index_error& e) {
    EXPECT_NE(std::string(e.what()).find("index 50 is out of bounds"), std::string::npos) << e.what();
  }
  const auto idx = dist::distribute(std::vector<std::int64_t>{1, 2, 3, 4}, {4}, comm, 0);
  const auto values = dist::distribute(std::vector<float>{1, 2, 3, 4}, {4}, comm, dist::sharding::replicated());
  EXPECT_THROW(dist::add_at(a, idx, values), nd::shape_error);
  EXPECT_EQ(a.to_host(), std::vector<float>(50, 0.0f));  // nothing was added
}
