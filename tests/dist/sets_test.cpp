// dist::unique, dist::unique_counts and dist::unique_values against host references (np.unique
// with return_counts) on fresh random input, on every GPU count from 1 to all visible (at most 4):
// few distinct values (runs of equal keys that cross ranks), many, one value everywhere, NaNs and
// signed zeros, arrays sharded along either axis, replicated ones and ranks with no elements.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
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
  static std::mt19937_64 engine(nd::testing::test_seed() ^ 0x5e75);
  return engine;
}

template <class T>
std::vector<T> random_keys(std::size_t n, std::int64_t distinct) {
  std::uniform_int_distribution<std::int64_t> pick(-distinct / 2, distinct - distinct / 2 - 1);
  std::vector<T> v(n);
  for (auto& x : v) {
    x = static_cast<T>(pick(rng()));
  }
  return v;
}

// np.unique(x, return_counts=True) of values without NaNs.
template <class T>
std::pair<std::vector<T>, std::vector<std::int64_t>> host_unique(const std::vector<T>& x) {
  std::map<T, std::int64_t> counts;
  for (const T v : x) {
    ++counts[v];
  }
  std::pair<std::vector<T>, std::vector<std::int64_t>> r;
  for (const auto& [v, c] : counts) {
    r.first.push_back(v);
    r.second.push_back(c);
  }
  return r;
}

template <class T>
void check_unique(const dist::communicator& comm, const std::vector<T>& host, const nd::shape_t& shape,
                  const dist::sharding& spec) {
  const auto x = dist::distribute(host, shape, comm, spec);
  const auto [values, counts] = host_unique(host);
  const auto got = dist::unique_counts(x);
  const std::string where =
      std::to_string(comm.size()) + " GPUs, shape " + nd::format_shape(shape) + ", " + dist::describe(spec);
  EXPECT_EQ(got.values.is_replicated(), spec.is_replicated()) << where;
  EXPECT_EQ(got.values.shape(), nd::shape_t{static_cast<nd::index_t>(values.size())}) << where;
  EXPECT_EQ(got.values.spec(), got.counts.spec()) << where;
  EXPECT_EQ(got.values.to_host(), values) << where;
  EXPECT_EQ(got.counts.to_host(), counts) << where;
  EXPECT_EQ(dist::unique(x).to_host(), values) << where;
}

}  // namespace

TEST(DistUnique, ValuesAndCountsEqualTheHostOnEveryGpuCount) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  for (int p = 1; p <= gpus; ++p) {
    const auto comm = nd::testing::first_gpus(p);
    const nd::index_t n = nd::testing::uneven(p, 40009);
    for (const std::int64_t distinct : {std::int64_t{3}, std::int64_t{1000}, std::int64_t{1} << 40}) {
      const auto keys = random_keys<std::int64_t>(static_cast<std::size_t>(n), distinct);
      check_unique(comm, keys, {n}, dist::sharding::block(0));
      check_unique(comm, keys, {n}, dist::sharding::replicated());
    }
    check_unique(comm, random_keys<float>(static_cast<std::size_t>(n), 77), {n}, dist::sharding::block(0));
    check_unique(comm, std::vector<std::int32_t>(static_cast<std::size_t>(n), 7), {n}, dist::sharding::block(0));
    const nd::index_t rows = nd::testing::uneven(p, 61);
    check_unique(comm, random_keys<std::int32_t>(static_cast<std::size_t>(rows * 9), 40), {rows, 9},
                 dist::sharding::block(0));
    check_unique(comm, random_keys<std::int32_t>(static_cast<std::size_t>(rows * 9), 40), {9, rows},
                 dist::sharding::block(1));
    check_unique(comm, std::vector<double>{2.5, 2.5}, {2}, dist::sharding::block(0));  // ranks with no elements
    check_unique(comm, std::vector<double>{}, {0}, dist::sharding::block(0));
  }
}

TEST(DistUnique, NansAreOneValueOnlyWhenAskedAndSignedZerosAreOne) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int p = 1; p <= gpus; ++p) {
    const auto comm = nd::testing::first_gpus(p);
    const nd::index_t n = nd::testing::uneven(p, 5003);
    auto host = random_keys<double>(static_cast<std::size_t>(n), 9);
    std::size_t nans = 0;
    for (std::size_t i = 0; i < host.size(); ++i) {
      if (i % 7 == 3) {
        host[i] = nan;
        ++nans;
      } else if (host[i] == 0.0 && i % 2 == 0) {
        host[i] = -0.0;
      }
    }
    std::vector<double> finite;
    std::copy_if(host.begin(), host.end(), std::back_inserter(finite), [](double v) { return !std::isnan(v); });
    const auto [values, counts] = host_unique(finite);  // -0.0 and 0.0 are one key of the map
    const auto x = dist::distribute(host, {n}, comm, 0);
    const auto one_nan = dist::unique(x, nd::unique_options{false, false, true, true});
    const auto got_values = one_nan.values.to_host();
    const auto got_counts = one_nan.counts.to_host();
    ASSERT_EQ(got_values.size(), values.size() + 1) << p << " GPUs";
    for (std::size_t k = 0; k < values.size(); ++k) {
      EXPECT_EQ(got_values[k], values[k]) << k;
      EXPECT_EQ(got_counts[k], counts[k]) << k;
    }
    EXPECT_TRUE(std::isnan(got_values.back()));
    EXPECT_EQ(got_counts.back(), static_cast<std::int64_t>(nans));
    const auto distinct_nans = dist::unique_counts(x);
    const auto each = distinct_nans.counts.to_host();
    ASSERT_EQ(each.size(), values.size() + nans) << p << " GPUs";
    EXPECT_TRUE(std::all_of(each.begin() + static_cast<std::ptrdiff_t>(values.size()), each.end(),
                            [](std::int64_t c) { return c == 1; }));
    EXPECT_EQ(dist::unique_values(x).size(), static_cast<nd::index_t>(values.size() + nans));
  }
}

TEST(DistUnique, RefusesTheResultsItDoesNotDistribute) {
  NDCUDA_REQUIRE_GPU();
  const auto comm = nd::testing::all_gpus();
  const auto x = dist::distribute(random_keys<std::int32_t>(100, 10), {100}, comm, 0);
  try {
    (void)dist::unique(x, nd::unique_options{false, true, false, true});
    FAIL() << "no error";
  } catch (const nd::value_error& e) {
    EXPECT_NE(std::string(e.what()).find("nd::unique"), std::string::npos) << e.what();
  }
}
