// dist::unique, dist::unique_all, dist::unique_counts, dist::unique_inverse and dist::unique_values
// against host references (np.unique with return_index, return_inverse and return_counts) on fresh
// random input, on every GPU count from 1 to all visible (at most 4): few distinct values (runs of
// equal keys that cross ranks), many, one value everywhere, NaNs (equal_nan both ways) and signed
// zeros, arrays sharded along either axis, on every 2-D grid of the ranks, replicated ones and ranks
// with no elements.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <ndcuda/dist.hpp>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
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

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// The same value as np.unique compares them: NaN is NaN, -0.0 is 0.0.
template <class T>
bool same_value(T a, T b) {
  return (is_nan(a) && is_nan(b)) || a == b;
}

// np.unique(x.ravel(), return_index=True, return_inverse=True, return_counts=True, equal_nan=...):
// a stable sort of the positions by value (NaNs last), then the runs of equal values.
template <class T>
struct host_unique_all_result {
  std::vector<T> values;
  std::vector<std::int64_t> index;
  std::vector<std::int64_t> inverse;
  std::vector<std::int64_t> counts;
};

template <class T>
host_unique_all_result<T> host_unique_all(const std::vector<T>& x, bool equal_nan) {
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (is_nan(x[a]) || is_nan(x[b])) {
      return !is_nan(x[a]);
    }
    return x[a] < x[b];
  });
  host_unique_all_result<T> r;
  r.inverse.resize(x.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t i = order[k];
    const T before = k > 0 ? x[order[k - 1]] : T{};
    const bool nans = k > 0 && is_nan(before) && is_nan(x[i]);
    if (k == 0 || (nans ? !equal_nan : !(before == x[i]))) {
      r.values.push_back(x[i]);
      r.index.push_back(static_cast<std::int64_t>(i));
      r.counts.push_back(0);
    }
    ++r.counts.back();
    r.inverse[i] = static_cast<std::int64_t>(r.values.size()) - 1;
  }
  return r;
}

// dist::unique(x, o) of `host` (C order, `shape`) distributed as `spec` against the host reference:
// the fields asked for, their shapes and shardings, values[inverse] == x and x[index] == values;
// fields not asked for hold nothing.
template <class T>
void check_unique_all(const dist::communicator& comm, const std::vector<T>& host, const nd::shape_t& shape,
                      const dist::sharding& spec, bool equal_nan) {
  const auto x = dist::distribute(host, shape, comm, spec);
  const auto ref = host_unique_all(host, equal_nan);
  const auto m = static_cast<nd::index_t>(ref.values.size());
  const dist::sharding blocks = x.is_replicated() ? dist::sharding::replicated() : dist::sharding::block(0);
  for (const auto& o :
       {nd::unique_options{true, true, true, equal_nan}, nd::unique_options{true, false, false, equal_nan},
        nd::unique_options{false, true, false, equal_nan}}) {
    const std::string where = std::to_string(comm.size()) + " GPUs, shape " + nd::format_shape(shape) + ", " +
                              dist::describe(spec) + ", index " + std::to_string(o.return_index) + ", inverse " +
                              std::to_string(o.return_inverse) + ", counts " + std::to_string(o.return_counts) +
                              ", equal_nan " + std::to_string(equal_nan);
    const auto got = dist::unique(x, o);
    EXPECT_EQ(got.values.shape(), nd::shape_t{m}) << where;
    EXPECT_EQ(got.values.spec(), blocks) << where;
    const std::vector<T> values = got.values.to_host();
    ASSERT_EQ(values.size(), ref.values.size()) << where;
    for (std::size_t k = 0; k < values.size(); ++k) {
      ASSERT_TRUE(same_value(values[k], ref.values[k])) << where << ": value " << k;
      if constexpr (std::is_floating_point_v<T>) {
        if (o.return_index) {  // the value is x[index]: the first occurrence, its sign too
          EXPECT_EQ(std::signbit(values[k]), std::signbit(ref.values[k])) << where << ": value " << k;
        }
      }
    }
    if (o.return_index) {
      EXPECT_EQ(got.indices.shape(), nd::shape_t{m}) << where;
      EXPECT_EQ(got.indices.spec(), blocks) << where;
      const std::vector<std::int64_t> index = got.indices.to_host();
      EXPECT_EQ(index, ref.index) << where;
      for (std::size_t k = 0; k < index.size() && k < values.size(); ++k) {
        ASSERT_TRUE(index[k] >= 0 && index[k] < static_cast<std::int64_t>(host.size())) << where;
        EXPECT_TRUE(same_value(host[static_cast<std::size_t>(index[k])], values[k])) << where << ": x[index] " << k;
      }
    } else {
      EXPECT_EQ(got.indices.size(), 0) << where;
    }
    if (o.return_inverse) {
      EXPECT_EQ(got.inverse_indices.shape(), shape) << where;
      EXPECT_EQ(got.inverse_indices.spec(), x.spec()) << where;
      const std::vector<std::int64_t> inverse = got.inverse_indices.to_host();
      EXPECT_EQ(inverse, ref.inverse) << where;
      for (std::size_t i = 0; i < inverse.size() && i < host.size(); ++i) {
        ASSERT_TRUE(inverse[i] >= 0 && inverse[i] < m) << where;
        EXPECT_TRUE(same_value(values[static_cast<std::size_t>(inverse[i])], host[i])) << where << ": inverse " << i;
      }
    } else {
      EXPECT_EQ(got.inverse_indices.size(), 0) << where;
    }
    if (o.return_counts) {
      EXPECT_EQ(got.counts.spec(), blocks) << where;
      EXPECT_EQ(got.counts.to_host(), ref.counts) << where;
    } else {
      EXPECT_EQ(got.counts.size(), 0) << where;
    }
  }
}

// Random doubles from `distinct` integers with about one NaN in `nan_every` and half the zeros -0.0.
std::vector<double> with_nans(std::size_t n, std::int64_t distinct, std::size_t nan_every) {
  auto v = random_keys<double>(n, distinct);
  std::uniform_int_distribution<std::size_t> pick(0, nan_every - 1);
  for (auto& x : v) {
    if (pick(rng()) == 0) {
      x = std::numeric_limits<double>::quiet_NaN();
    } else if (x == 0.0 && pick(rng()) % 2 == 0) {
      x = -0.0;
    }
  }
  return v;
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

TEST(DistUnique, IndexAndInverseEqualTheHostOnEveryGpuCount) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  for (int p = 1; p <= gpus; ++p) {
    const auto comm = nd::testing::first_gpus(p);
    const nd::index_t n = nd::testing::uneven(p, 20011);
    for (const std::int64_t distinct : {std::int64_t{3}, std::int64_t{1000}, std::int64_t{1} << 40}) {
      const auto keys = random_keys<std::int64_t>(static_cast<std::size_t>(n), distinct);
      check_unique_all(comm, keys, {n}, dist::sharding::block(0), true);
      check_unique_all(comm, keys, {n}, dist::sharding::replicated(), true);
    }
    check_unique_all(comm, std::vector<std::int32_t>(static_cast<std::size_t>(n), 7), {n}, dist::sharding::block(0),
                     true);
    const nd::index_t rows = nd::testing::uneven(p, 61);
    const auto small = random_keys<std::int32_t>(static_cast<std::size_t>(rows * 9), 40);
    check_unique_all(comm, small, {rows, 9}, dist::sharding::block(0), true);
    check_unique_all(comm, small, {9, rows}, dist::sharding::block(1), true);
    check_unique_all(comm, small, {3, rows, 3}, dist::sharding::block(1), true);
    check_unique_all(comm, small, {9, rows}, dist::sharding::replicated(), true);
    check_unique_all(comm, std::vector<std::int16_t>{5, 5}, {2}, dist::sharding::block(0), true);  // empty ranks
    check_unique_all(comm, std::vector<std::int16_t>{5, 4}, {1, 2}, dist::sharding::block(1), true);
    check_unique_all(comm, std::vector<double>{}, {0}, dist::sharding::block(0), true);
    check_unique_all(comm, std::vector<double>{}, {0, 3}, dist::sharding::block(1), true);
  }
}

TEST(DistUnique, IndexAndInverseOnEveryGridOfTheRanks) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  for (int p = 1; p <= gpus; ++p) {
    const auto comm = nd::testing::first_gpus(p);
    const nd::index_t rows = nd::testing::uneven(p, 37);
    const nd::index_t cols = nd::testing::uneven(p, 23);
    const auto keys = random_keys<std::int32_t>(static_cast<std::size_t>(rows * cols), 200);
    const auto doubles = with_nans(static_cast<std::size_t>(rows * cols), 30, 11);
    const auto deep = random_keys<std::int32_t>(static_cast<std::size_t>(rows * 2 * cols), 200);
    const auto deep_doubles = with_nans(static_cast<std::size_t>(rows * 2 * cols), 30, 11);
    for (int g0 = 1; g0 <= p; ++g0) {
      if (p % g0 != 0) {
        continue;
      }
      const auto grid = dist::sharding::block({0, 1}, {g0, p / g0});
      check_unique_all(comm, keys, {rows, cols}, grid, true);
      check_unique_all(comm, doubles, {rows, cols}, grid, false);
      check_unique_all(comm, deep, {rows, 2, cols}, dist::sharding::block({2, 0}, {g0, p / g0}), true);
      check_unique_all(comm, deep_doubles, {rows, 2, cols}, dist::sharding::block({2, 1}, {g0, p / g0}), false);
    }
  }
}

TEST(DistUnique, IndexAndInverseFollowEqualNan) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  for (int p = 1; p <= gpus; ++p) {
    const auto comm = nd::testing::first_gpus(p);
    const nd::index_t n = nd::testing::uneven(p, 5003);
    const auto host = with_nans(static_cast<std::size_t>(n), 9, 7);
    const nd::index_t rows = nd::testing::uneven(p, 41);
    const auto wide = with_nans(static_cast<std::size_t>(rows * 7), 5, 3);
    const std::vector<float> all_nans(static_cast<std::size_t>(n), std::numeric_limits<float>::quiet_NaN());
    for (const bool equal_nan : {true, false}) {
      check_unique_all(comm, host, {n}, dist::sharding::block(0), equal_nan);
      check_unique_all(comm, host, {n}, dist::sharding::replicated(), equal_nan);
      check_unique_all(comm, wide, {7, rows}, dist::sharding::block(1), equal_nan);
      check_unique_all(comm, wide, {rows, 7}, dist::sharding::block(0), equal_nan);
      check_unique_all(comm, all_nans, {n}, dist::sharding::block(0), equal_nan);
    }
  }
}

TEST(DistUnique, EqualsOneGpusUniqueAndTheArrayApiForms) {
  NDCUDA_REQUIRE_GPU();
  const auto comm = nd::testing::all_gpus();
  const int p = comm.size();
  const nd::index_t rows = nd::testing::uneven(p, 301);
  const auto host = with_nans(static_cast<std::size_t>(rows * 13), 50, 17);
  for (const auto& spec : {dist::sharding::block(0), dist::sharding::block(1), dist::sharding::replicated()}) {
    const auto x = dist::distribute(host, {rows, 13}, comm, spec);
    const std::string where = std::to_string(p) + " GPUs, " + dist::describe(spec);
    const nd::ndarray<double> whole = nd::asarray<double>(host, {rows, 13});
    for (const bool equal_nan : {true, false}) {
      const nd::unique_options o{true, true, true, equal_nan};
      const auto one = nd::unique(whole, o);
      const auto got = dist::unique(x, o);
      EXPECT_EQ(got.inverse_indices.shape(), one.inverse_indices.shape()) << where;
      EXPECT_EQ(got.indices.to_host(), one.indices.to_host()) << where;
      EXPECT_EQ(got.inverse_indices.to_host(), one.inverse_indices.to_host()) << where;
      EXPECT_EQ(got.counts.to_host(), one.counts.to_host()) << where;
      const auto values = got.values.to_host();
      const auto expected = one.values.to_host();
      ASSERT_EQ(values.size(), expected.size()) << where;
      for (std::size_t k = 0; k < values.size(); ++k) {
        EXPECT_TRUE(same_value(values[k], expected[k])) << where << ": value " << k;
        EXPECT_EQ(std::signbit(values[k]), std::signbit(expected[k])) << where << ": value " << k;
      }
    }
    const auto all = dist::unique_all(x);  // NaNs distinct, as nd::unique_all
    const auto one_all = nd::unique_all(whole);
    EXPECT_EQ(all.indices.to_host(), one_all.indices.to_host()) << where;
    EXPECT_EQ(all.inverse_indices.to_host(), one_all.inverse_indices.to_host()) << where;
    EXPECT_EQ(all.counts.to_host(), one_all.counts.to_host()) << where;
    const auto inverse = dist::unique_inverse(x);
    EXPECT_EQ(inverse.values.size(), all.values.size()) << where;
    EXPECT_EQ(inverse.inverse_indices.spec(), x.spec()) << where;
    EXPECT_EQ(inverse.inverse_indices.to_host(), one_all.inverse_indices.to_host()) << where;
  }
}
