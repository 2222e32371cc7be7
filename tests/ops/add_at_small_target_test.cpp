// np.add.at into a small dense destination with many values per element: the per-block copies in
// shared memory (add_private in kernels/indexing.cuh), against host sums in double on fresh random
// input. Covers k-means' centre update (rows of a 2-d target), every dtype with a hardware atomic
// add, negative indices, an out-of-range index (refused, target untouched), -0.0 in elements no
// index names, and a strided target (the general path) for comparison.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <ndcuda/ndcuda.hpp>
#include <string>
#include <vector>

#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

std::int64_t wrapped(std::int64_t i, std::int64_t n) {
  return i < 0 ? i + n : i;
}

// Element-wise closeness of float sums added in another order (atomics): a bound relative to the
// sum of magnitudes, which is what reordering can change.
void expect_sums(const std::vector<double>& got, const std::vector<double>& want, const std::vector<double>& magnitude,
                 double epsilon, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t q = 0; q < want.size(); ++q) {
    EXPECT_NEAR(got[q], want[q], epsilon * (magnitude[q] + 1.0)) << what << " at " << q;
  }
}

template <class T>
std::vector<double> doubles(const std::vector<T>& v) {
  return {v.begin(), v.end()};
}

// add_at(a, idx, v) with a of `bins` elements and `count` values (repeats everywhere), indices of
// type I.
template <class T, class I = std::int64_t>
void check_one_dtype(std::int64_t bins, std::size_t count) {
  const bool is_float = std::is_floating_point_v<T>;
  const std::vector<T> start = is_float ? nd::testing::uniform_values<T>(static_cast<std::size_t>(bins), -4.0, 4.0)
                                        : nd::testing::uniform_integers<T>(static_cast<std::size_t>(bins), 0, 50);
  const std::vector<T> values =
      is_float ? nd::testing::uniform_values<T>(count, -1.0, 1.0) : nd::testing::uniform_integers<T>(count, 0, 9);
  const std::vector<I> idx = nd::testing::uniform_integers<I>(count, static_cast<I>(-bins), static_cast<I>(bins - 1));
  auto a = nd::asarray<T>(start);
  nd::add_at(a, nd::asarray<I>(idx), nd::asarray<T>(values));
  std::vector<double> want = doubles(start);
  std::vector<double> magnitude(want.size());
  for (std::size_t q = 0; q < want.size(); ++q) {
    magnitude[q] = std::abs(want[q]);
  }
  for (std::size_t p = 0; p < count; ++p) {
    const auto at = static_cast<std::size_t>(wrapped(idx[p], bins));
    want[at] += static_cast<double>(values[p]);
    magnitude[at] += std::abs(static_cast<double>(values[p]));
  }
  const std::string what(nd::name(nd::dtype_of<T>));
  if constexpr (std::is_floating_point_v<T>) {
    expect_sums(doubles(a.to_host()), want, magnitude, 4 * std::numeric_limits<T>::epsilon(), what);
  } else {
    EXPECT_EQ(doubles(a.to_host()), want) << what;
  }
}

}  // namespace

TEST(AddAtSmallTarget, EveryDtypeWithAHardwareAtomicAddMatchesTheHostSums) {
  NDCUDA_REQUIRE_GPU();
  check_one_dtype<float>(256, 1 << 18);
  check_one_dtype<double>(100, 50000);
  check_one_dtype<std::int32_t>(256, 1 << 16);
  check_one_dtype<std::int64_t>(7, 5000);
  check_one_dtype<std::uint32_t>(4096, 1 << 17);
  check_one_dtype<std::uint64_t>(64, 3000);
}

// The benchmark's case: int32 indices into 256 float32 bins, with a count that leaves a tail after
// the batches of four.
TEST(AddAtSmallTarget, Int32IndicesIntoFloatBinsWithARaggedTail) {
  NDCUDA_REQUIRE_GPU();
  check_one_dtype<float, std::int32_t>(256, (1 << 20) + 7);
  check_one_dtype<double, std::int32_t>(2048, (1 << 16) + 3);
}

// k-means' update: centres (k, d) += the points of each label, one index row per point.
TEST(AddAtSmallTarget, RowsOfATwoDimensionalTargetAsInKMeans) {
  NDCUDA_REQUIRE_GPU();
  const std::int64_t k = 16;
  const std::int64_t d = 16;
  const std::int64_t points = 1 << 16;
  const std::vector<float> x = nd::testing::uniform_values<float>(static_cast<std::size_t>(points * d), -1.0, 1.0);
  const std::vector<std::int64_t> labels =
      nd::testing::uniform_integers<std::int64_t>(static_cast<std::size_t>(points), 0, k - 1);
  auto centres = nd::zeros<float>({k, d});
  nd::add_at(centres, nd::asarray<std::int64_t>(labels), nd::asarray<float>(x).reshape({points, d}));
  std::vector<double> want(static_cast<std::size_t>(k * d), 0.0);
  std::vector<double> magnitude(want.size(), 0.0);
  for (std::int64_t p = 0; p < points; ++p) {
    for (std::int64_t j = 0; j < d; ++j) {
      const auto at = static_cast<std::size_t>(labels[static_cast<std::size_t>(p)] * d + j);
      want[at] += x[static_cast<std::size_t>(p * d + j)];
      magnitude[at] += std::abs(x[static_cast<std::size_t>(p * d + j)]);
    }
  }
  expect_sums(doubles(centres.to_host()), want, magnitude, 4 * std::numeric_limits<float>::epsilon(), "centres");
}

// NumPy checks every index before it writes: the target is unchanged after the IndexError.
TEST(AddAtSmallTarget, AnOutOfRangeIndexIsRefusedAndTheTargetIsUntouched) {
  NDCUDA_REQUIRE_GPU();
  const std::int64_t bins = 32;
  const std::vector<float> start = nd::testing::uniform_values<float>(bins, -1.0, 1.0);
  auto a = nd::asarray<float>(start);
  std::vector<std::int64_t> idx = nd::testing::uniform_integers<std::int64_t>(4096, 0, bins - 1);
  idx[3000] = bins;
  try {
    nd::add_at(a, nd::asarray<std::int64_t>(idx), nd::ones<float>({4096}));
    ADD_FAILURE() << "no IndexError";
  } catch (const nd::index_error& e) {
    EXPECT_NE(std::string(e.what()).find("index 32 is out of bounds for axis 0 with size 32"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(a.to_host(), start);
}

// Elements no index names keep their bits (-0.0 stays -0.0); named ones get their sums.
TEST(AddAtSmallTarget, ElementsNoIndexNamesKeepTheirBits) {
  NDCUDA_REQUIRE_GPU();
  const std::int64_t bins = 64;
  std::vector<double> start(bins, -0.0);
  const std::vector<std::int64_t> idx = nd::testing::uniform_integers<std::int64_t>(8192, 0, bins / 2 - 1);
  const std::vector<double> v = nd::testing::uniform_values<double>(idx.size(), 0.5, 1.0);
  auto a = nd::asarray<double>(start);
  nd::add_at(a, nd::asarray<std::int64_t>(idx), nd::asarray<double>(v));
  const std::vector<double> got = a.to_host();
  for (std::int64_t q = bins / 2; q < bins; ++q) {
    EXPECT_TRUE(got[static_cast<std::size_t>(q)] == 0.0 && std::signbit(got[static_cast<std::size_t>(q)])) << q;
  }
  for (std::int64_t q = 0; q < bins / 2; ++q) {
    EXPECT_GT(got[static_cast<std::size_t>(q)], 0.0) << q;
  }
}

// A strided target takes the general path; both give the same sums.
TEST(AddAtSmallTarget, AStridedTargetMatchesAContiguousOne) {
  NDCUDA_REQUIRE_GPU();
  const std::int64_t bins = 128;
  const std::vector<std::int64_t> idx = nd::testing::uniform_integers<std::int64_t>(1 << 14, -bins, bins - 1);
  const std::vector<std::int32_t> v = nd::testing::uniform_integers<std::int32_t>(idx.size(), -5, 5);
  auto dense = nd::zeros<std::int32_t>({bins});
  auto wide = nd::zeros<std::int32_t>({2 * bins});
  auto strided = wide(nd::slice(nd::none, nd::none, 2));
  nd::add_at(dense, nd::asarray<std::int64_t>(idx), nd::asarray<std::int32_t>(v));
  nd::add_at(strided, nd::asarray<std::int64_t>(idx), nd::asarray<std::int32_t>(v));
  std::vector<std::int32_t> want(bins, 0);
  for (std::size_t p = 0; p < idx.size(); ++p) {
    want[static_cast<std::size_t>(wrapped(idx[p], bins))] += v[p];
  }
  EXPECT_EQ(dense.to_host(), want);
  EXPECT_EQ(strided.to_host(), want);
  const std::vector<std::int32_t> all = wide.to_host();
  for (std::size_t q = 1; q < all.size(); q += 2) {
    EXPECT_EQ(all[q], 0) << q;
  }
}
