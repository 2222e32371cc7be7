// dist::extract, dist::take and dist::bincount against host references (np.extract, np.take,
// np.bincount) on fresh random input, on every GPU count from 1 to all visible (at most 4), with
// uneven blocks, arrays sharded along either axis, replicated operands and the errors.
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
  static std::mt19937_64 engine(nd::testing::test_seed() ^ 0x1d3e);
  return engine;
}

// A random mask (about a third true) as a distributed bool array laid out like `x`.
std::vector<std::uint8_t> random_mask(std::size_t n) {
  std::vector<std::uint8_t> m(n);
  for (auto& b : m) {
    b = rng()() % 3 == 0 ? 1 : 0;
  }
  return m;
}

void check_extract(const dist::communicator& comm, const nd::shape_t& shape, const dist::sharding& spec) {
  const std::size_t n = static_cast<std::size_t>(nd::shape_size(shape));
  const auto host = nd::testing::uniform_values<double>(n, -1.0, 1.0);
  const auto mask = random_mask(n);
  const auto x = dist::distribute(host, shape, comm, spec);
  const auto cond = dist::distribute(mask, shape, comm, spec).astype<bool>();
  std::vector<double> want;
  for (std::size_t i = 0; i < n; ++i) {
    if (mask[i] != 0) {
      want.push_back(host[i]);
    }
  }
  const auto got = dist::extract(cond, x);
  EXPECT_EQ(got.shape(), nd::shape_t{static_cast<nd::index_t>(want.size())});
  EXPECT_EQ(got.is_replicated(), spec.is_replicated());
  EXPECT_EQ(got.to_host(), want) << comm.size() << " GPUs, shape " << nd::format_shape(shape) << ", "
                                 << dist::describe(spec);
}

}  // namespace

TEST(DistIndexing, ExtractKeepsGlobalOrderOnEveryGpuCount) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  for (int p = 1; p <= gpus; ++p) {
    const auto comm = nd::testing::first_gpus(p);
    const nd::index_t n = nd::testing::uneven(p, 20011);
    check_extract(comm, {n}, dist::sharding::block(0));
    check_extract(comm, {n}, dist::sharding::replicated());
    check_extract(comm, {nd::testing::uneven(p, 37), 9}, dist::sharding::block(0));
    check_extract(comm, {7, nd::testing::uneven(p, 53)}, dist::sharding::block(1));
    check_extract(comm, {2}, dist::sharding::block(0));  // ranks with no elements
  }
}

TEST(DistIndexing, ExtractRefusesAMaskOfAnotherSharding) {
  NDCUDA_REQUIRE_GPU();
  const auto comm = nd::testing::all_gpus();
  const auto x = dist::distribute(nd::testing::uniform_values<float>(64, 0.0, 1.0), {8, 8}, comm, 0);
  const auto cond = dist::distribute(random_mask(64), {8, 8}, comm, 1).astype<bool>();
  try {
    (void)dist::extract(cond, x);
    FAIL() << "no error";
  } catch (const nd::shape_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("block(axis=0)"), std::string::npos) << what;
    EXPECT_NE(what.find("block(axis=1)"), std::string::npos) << what;
    EXPECT_NE(what.find("reshard"), std::string::npos) << what;
  }
}

TEST(DistIndexing, TakeWithGlobalIndicesOnEveryGpuCount) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  for (int p = 1; p <= gpus; ++p) {
    const auto comm = nd::testing::first_gpus(p);
    const nd::index_t n = nd::testing::uneven(p, 30011);
    const auto host = nd::testing::uniform_values<float>(static_cast<std::size_t>(n), -5.0, 5.0);
    std::uniform_int_distribution<std::int64_t> pick(-n, n - 1);
    for (const auto& x_spec : {dist::sharding::block(0), dist::sharding::replicated()}) {
      const auto x = dist::distribute(host, {n}, comm, x_spec);
      const nd::index_t rows = nd::testing::uneven(p, 401);
      std::vector<std::int64_t> idx(static_cast<std::size_t>(rows * 3));
      for (auto& i : idx) {
        i = pick(rng());
      }
      for (const auto& idx_spec : {dist::sharding::block(0), dist::sharding::replicated(), dist::sharding::block(1)}) {
        const auto indices = dist::distribute(idx, {rows, 3}, comm, idx_spec);
        const auto got = dist::take(x, indices);
        EXPECT_EQ(got.shape(), indices.shape());
        EXPECT_EQ(got.spec(), indices.spec());
        const auto values = got.to_host();
        ASSERT_EQ(values.size(), idx.size());
        for (std::size_t k = 0; k < idx.size(); ++k) {
          const auto at = static_cast<std::size_t>(idx[k] < 0 ? idx[k] + n : idx[k]);
          ASSERT_EQ(values[k], host[at]) << p << " GPUs, x " << dist::describe(x_spec) << ", indices "
                                         << dist::describe(idx_spec) << ", element " << k << " (index " << idx[k]
                                         << ")";
        }
      }
    }
    const auto x = dist::distribute(host, {n}, comm, 0);
    const auto bad = dist::distribute(std::vector<std::int64_t>{0, n}, {2}, comm, dist::sharding::replicated());
    EXPECT_THROW((void)dist::take(x, bad), nd::index_error);
  }
}

TEST(DistIndexing, BincountEqualsTheHostCountsOnEveryGpuCount) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  for (int p = 1; p <= gpus; ++p) {
    const auto comm = nd::testing::first_gpus(p);
    const nd::index_t n = nd::testing::uneven(p, 50021);
    std::uniform_int_distribution<std::int32_t> value(0, 300);
    std::vector<std::int32_t> host(static_cast<std::size_t>(n));
    for (auto& v : host) {
      v = value(rng());
    }
    const auto weights = nd::testing::uniform_values<double>(host.size(), -1.0, 1.0);
    const std::int32_t top = *std::max_element(host.begin(), host.end());
    const nd::index_t minlength = 350;
    std::vector<std::int64_t> counts(static_cast<std::size_t>(std::max<nd::index_t>(top + 1, minlength)), 0);
    std::vector<double> sums(counts.size(), 0.0);
    for (std::size_t i = 0; i < host.size(); ++i) {
      counts[static_cast<std::size_t>(host[i])] += 1;
      sums[static_cast<std::size_t>(host[i])] += weights[i];
    }
    for (const auto& x_spec : {dist::sharding::block(0), dist::sharding::replicated()}) {
      const auto x = dist::distribute(host, {n}, comm, x_spec);
      const auto w = dist::distribute(weights, {n}, comm, x_spec);
      for (const auto& out : {dist::sharding::replicated(), dist::sharding::block(0)}) {
        const auto got = dist::bincount(x, minlength, out);
        EXPECT_EQ(got.spec(), out);
        EXPECT_EQ(got.to_host(), counts) << p << " GPUs, x " << dist::describe(x_spec);
        const auto weighted = dist::bincount(x, w, minlength, out).to_host();
        ASSERT_EQ(weighted.size(), sums.size());
        for (std::size_t b = 0; b < sums.size(); ++b) {
          ASSERT_NEAR(weighted[b], sums[b], 1e-12 * std::max(1.0, std::abs(sums[b]))) << "bin " << b;
        }
      }
    }
    host[static_cast<std::size_t>(n / 2)] = -4;
    EXPECT_THROW((void)dist::bincount(dist::distribute(host, {n}, comm, 0)), nd::value_error);
  }
}
