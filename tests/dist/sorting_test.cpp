// dist::sort, argsort, topk and searchsorted against host std::sort / stable_sort on fresh random
// input with many ties and NaNs, on every GPU count from 1 to all visible (at most 4), with sizes
// that leave remainders and ranks without elements; and sorting along an unsharded axis.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ndcuda/dist.hpp>
#include <ndcuda/dist/sorting.hpp>
#include <numeric>
#include <random>
#include <span>
#include <vector>

#include "support/dist_gpus.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
namespace dist = ndcuda::dist;

namespace {

// NumPy's order: NaN after everything.
template <class T>
bool before(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) {
      return false;
    }
    if (std::isnan(b)) {
      return true;
    }
  }
  return a < b;
}

template <class T>
bool same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) {
      return std::isnan(a) && std::isnan(b);
    }
  }
  return a == b;
}

// Keys with many ties (a few hundred distinct values) and, for floats, some NaNs.
template <class T>
std::vector<T> keys(std::size_t n) {
  const auto u = nd::testing::uniform_values<double>(n, 0.0, 1.0);
  std::vector<T> k(n);
  for (std::size_t i = 0; i < n; ++i) {
    k[i] = static_cast<T>(std::floor(u[i] * 300.0) - 150.0);
    if constexpr (std::is_floating_point_v<T>) {
      k[i] = u[i] < 0.01 ? std::numeric_limits<T>::quiet_NaN() : k[i] + static_cast<T>(u[i]);
    }
  }
  return k;
}

template <class T>
void check_on(int p, std::size_t n) {
  const auto comm = nd::testing::first_gpus(p);
  const auto host = keys<T>(n);
  const auto x = dist::distribute(host, {static_cast<nd::index_t>(n)}, comm, 0);
  const std::string what = std::to_string(n) + " elements on " + std::to_string(p) + " GPUs";
  std::vector<std::int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return before(host[static_cast<std::size_t>(a)], host[static_cast<std::size_t>(b)]);
  });
  const auto sorted = dist::sort(x);
  EXPECT_EQ(sorted.spec(), x.spec()) << what;
  const auto got = sorted.to_host();
  ASSERT_EQ(got.size(), n) << what;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(same(got[i], host[static_cast<std::size_t>(order[i])])) << what << " at " << i;
  }
  EXPECT_EQ(dist::argsort(x).to_host(), order) << what << ": stable argsort";
  for (bool largest : {true, false}) {
    const nd::index_t k = std::min<nd::index_t>(static_cast<nd::index_t>(n), 37);
    const auto t = dist::topk(x, k, largest);
    const auto values = t.values.to_host();
    const auto positions = t.indices.to_host();
    ASSERT_EQ(values.size(), static_cast<std::size_t>(k)) << what;
    for (nd::index_t i = 0; i < k; ++i) {
      const auto want = largest ? host[static_cast<std::size_t>(order[n - 1 - static_cast<std::size_t>(i)])]
                                : host[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
      ASSERT_TRUE(same(values[static_cast<std::size_t>(i)], want)) << what << " topk " << largest << " at " << i;
      ASSERT_TRUE(same(host[static_cast<std::size_t>(positions[static_cast<std::size_t>(i)])],
                       values[static_cast<std::size_t>(i)]))
          << what << ": topk's position " << i << " does not hold its value";
    }
  }
  // searchsorted into the sorted array, for values between and on the keys.
  std::vector<T> probes{T(-151), T(-3), T(0), T(7), T(149), T(200)};
  const auto v = dist::distribute(std::span<const T>(probes), {6}, comm, dist::sharding::replicated());
  std::vector<T> sorted_host(n);
  for (std::size_t i = 0; i < n; ++i) {
    sorted_host[i] = host[static_cast<std::size_t>(order[i])];
  }
  for (auto which : {nd::side::left, nd::side::right}) {
    const auto pos = dist::searchsorted(sorted, v, which).to_host();
    for (std::size_t i = 0; i < probes.size(); ++i) {
      const auto it = which == nd::side::left
                          ? std::lower_bound(sorted_host.begin(), sorted_host.end(), probes[i], before<T>)
                          : std::upper_bound(sorted_host.begin(), sorted_host.end(), probes[i], before<T>);
      EXPECT_EQ(pos[i], it - sorted_host.begin()) << what << ": searchsorted of " << probes[i];
    }
  }
}

}  // namespace

TEST(DistSort, MatchesTheHostSortOnEveryGpuCount) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  for (int p = 1; p <= gpus; ++p) {
    for (std::size_t n : {std::size_t{3}, std::size_t{1000}, std::size_t{200003}}) {
      check_on<float>(p, n);
      check_on<std::int32_t>(p, n);
    }
  }
}

TEST(DistSort, AlongAnUnshardedAxisEachRankSortsItsShard) {
  NDCUDA_REQUIRE_GPU();
  const auto comm = nd::testing::all_gpus();
  const nd::index_t rows = nd::testing::uneven(comm.size(), 5);
  const auto host = keys<double>(static_cast<std::size_t>(rows * 64));
  const auto x = dist::distribute(host, {rows, 64}, comm, 0);
  const auto got = dist::sort(x, 1).to_host();
  for (nd::index_t r = 0; r < rows; ++r) {
    std::vector<double> row(host.begin() + r * 64, host.begin() + (r + 1) * 64);
    std::sort(row.begin(), row.end(), before<double>);
    for (std::size_t c = 0; c < 64; ++c) {
      ASSERT_TRUE(same(got[static_cast<std::size_t>(r * 64) + c], row[c])) << r << ", " << c;
    }
  }
  EXPECT_THROW((void)dist::sort(x, 0), nd::shape_error);  // 2-d along the sharded axis
}

namespace {

// merge_runs on one GPU: `runs` runs of random length (some empty), each sorted stably on the host
// with its elements' positions, laid end to end as the all-to-all leaves them; the merge must equal
// a stable sort of the whole, by key alone and (with positions) by key, then position.
template <class T>
void check_merge(std::size_t runs, std::mt19937_64& rng) {
  std::uniform_int_distribution<std::size_t> length(0, 3000);
  std::vector<std::size_t> sizes(runs);
  for (auto& s : sizes) {
    s = rng() % 4 == 0 ? 0 : length(rng);
  }
  std::vector<nd::index_t> bounds{0};
  for (auto s : sizes) {
    bounds.push_back(bounds.back() + static_cast<nd::index_t>(s));
  }
  const auto n = static_cast<std::size_t>(bounds.back());
  auto host = keys<T>(n);
  if constexpr (std::is_floating_point_v<T>) {
    for (std::size_t i = 0; i < n; i += 7) {
      host[i] = i % 14 == 0 ? T(-0.0) : T(0.0);  // -0.0 and +0.0 are one key to argsort
    }
  }
  std::vector<std::int64_t> positions(n);
  std::iota(positions.begin(), positions.end(), 0);
  for (std::size_t r = 0; r < runs; ++r) {
    const auto first = positions.begin() + bounds[r];
    const auto last = positions.begin() + bounds[r + 1];
    std::stable_sort(first, last, [&](std::int64_t a, std::int64_t b) {
      return before(host[static_cast<std::size_t>(a)], host[static_cast<std::size_t>(b)]);
    });
  }
  std::vector<T> run_keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    run_keys[i] = host[static_cast<std::size_t>(positions[i])];
  }
  std::vector<std::int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return before(host[static_cast<std::size_t>(a)], host[static_cast<std::size_t>(b)]);
  });
  const std::string what = std::to_string(runs) + " runs, " + std::to_string(n) + " elements";
  const nd::stream s(0);
  auto merged = nd::asarray<T>(run_keys, {static_cast<nd::index_t>(n)}, s);
  dist::detail::merge_runs(merged, nullptr, bounds, s);
  const auto got = merged.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(same(got[i], host[static_cast<std::size_t>(order[i])])) << what << " at " << i;
  }
  auto keys_again = nd::asarray<T>(run_keys, {static_cast<nd::index_t>(n)}, s);
  auto merged_positions = nd::asarray<std::int64_t>(positions, {static_cast<nd::index_t>(n)}, s);
  dist::detail::merge_runs(keys_again, &merged_positions, bounds, s);
  EXPECT_EQ(merged_positions.to_host(), order) << what << ": with positions, stable";
}

}  // namespace

TEST(DistSort, MergingTheReceivedRunsEqualsAStableSortOfTheWhole) {
  NDCUDA_REQUIRE_GPU();
  std::mt19937_64 rng(nd::testing::test_seed());
  for (std::size_t runs : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{4}, std::size_t{7}}) {
    check_merge<float>(runs, rng);
    check_merge<double>(runs, rng);
    check_merge<std::int16_t>(runs, rng);
    check_merge<std::int64_t>(runs, rng);
  }
}
