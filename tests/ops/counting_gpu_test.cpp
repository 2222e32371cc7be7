// bincount, histogram, histogram2d, digitize, topk, partition, choose/select/copyto, unique_all and
// searchsorted on the GPU, against host references on fresh random input (duplicates, NaNs, ties).
// topk is checked on what it promises: the values exactly, and indices that point at them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <ndcuda/ndcuda.hpp>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

/// Normal floats rounded to a coarse grid (many ties), with some NaNs and infinities.
template <class T>
std::vector<T> random_floats(std::size_t n, double nan_fraction) {
  std::normal_distribution<double> d(0.0, 10.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<T> v(n);
  for (auto& x : v) {
    const double r = u(nd::testing::rng());
    if (r < nan_fraction) {
      x = std::numeric_limits<T>::quiet_NaN();
    } else if (r < nan_fraction * 1.5) {
      x = r < nan_fraction * 1.25 ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
    } else {
      x = static_cast<T>(std::round(d(nd::testing::rng()) * 64.0) / 64.0);
    }
  }
  return v;
}

/// NumPy's order: NaN last.
template <class T>
bool np_less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return !std::isnan(a) && (std::isnan(b) || a < b);
  } else {
    return a < b;
  }
}
template <class T>
bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
  } else {
    return a == b;
  }
}

/// Host bins: edges[b] <= v < edges[b + 1], the last closed; -1 outside and for NaN.
std::int64_t host_bin(double v, const std::vector<double>& edges) {
  const std::size_t m = edges.size();
  if (!(v >= edges.front() && v <= edges.back())) {
    return -1;
  }
  auto b = static_cast<std::int64_t>(std::upper_bound(edges.begin(), edges.end(), v) - edges.begin()) - 1;
  return std::min<std::int64_t>(b, static_cast<std::int64_t>(m) - 2);
}

}  // namespace

TEST(BincountGpu, CountsMatchTheHostForSmallAndLargeBinCounts) {
  NDCUDA_REQUIRE_GPU();
  for (std::int32_t top : {255, 300, 20000}) {  // shared counters, and global atomics beyond 8192 bins
    const auto h = nd::testing::uniform_values<std::int32_t>(100003, 0, top);
    const auto x = nd::asarray(h);
    for (nd::index_t minlength : {nd::index_t{0}, nd::index_t{top + 50}}) {
      const auto counts = nd::bincount(x, minlength).to_host();
      const std::int32_t mx = *std::max_element(h.begin(), h.end());
      ASSERT_EQ(counts.size(), static_cast<std::size_t>(std::max<nd::index_t>(mx + 1, minlength)));
      std::vector<std::int64_t> want(counts.size(), 0);
      for (auto v : h) {
        ++want[static_cast<std::size_t>(v)];
      }
      EXPECT_EQ(counts, want) << "top " << top << " minlength " << minlength;
    }
  }
}

TEST(BincountGpu, WeightsSumAsFloat64AndOtherDtypesCount) {
  NDCUDA_REQUIRE_GPU();
  const auto h = nd::testing::uniform_values<std::int32_t>(50000, 0, 99);
  const std::vector<float> w = nd::testing::uniform_values<float>(h.size(), -1.0, 1.0);
  const auto sums = nd::bincount(nd::asarray(h), nd::asarray(w)).to_host();
  std::vector<double> want(100, 0.0);
  for (std::size_t i = 0; i < h.size(); ++i) {
    want[static_cast<std::size_t>(h[i])] += static_cast<double>(w[i]);
  }
  ASSERT_EQ(sums.size(), want.size());
  for (std::size_t b = 0; b < want.size(); ++b) {
    EXPECT_NEAR(sums[b], want[b], 1e-9 * (1.0 + std::abs(want[b])));
  }
  std::vector<std::uint8_t> small(h.begin(), h.end());
  std::vector<std::int64_t> want_small(100, 0);
  for (auto v : small) {
    ++want_small[v];
  }
  EXPECT_EQ(nd::bincount(nd::asarray(small)).to_host(), want_small);
  const std::vector<bool> flags = {true, false, true, true};
  std::vector<std::uint8_t> flag_bytes(flags.begin(), flags.end());
  const auto b = nd::asarray(flag_bytes).astype<bool>();
  EXPECT_EQ(nd::bincount(b).to_host(), (std::vector<std::int64_t>{1, 3}));
}

// Weighted sums with 256 bins (16 interleaved copies per block in shared memory), 3000 bins (one
// copy) and 5000 bins (global atomics), against host sums in double.
TEST(BincountGpu, WeightedSumsMatchTheHostWithEveryNumberOfSharedCopies) {
  NDCUDA_REQUIRE_GPU();
  for (const std::int64_t bins : {256, 3000, 5000}) {
    const auto h = nd::testing::uniform_values<std::int64_t>(200003, 0, static_cast<double>(bins - 1));
    const std::vector<float> w = nd::testing::uniform_values<float>(h.size(), -1.0, 1.0);
    const auto sums = nd::bincount(nd::asarray(h), nd::asarray(w), nd::size(bins)).to_host();
    std::vector<double> want(static_cast<std::size_t>(bins), 0.0);
    for (std::size_t i = 0; i < h.size(); ++i) {
      want[static_cast<std::size_t>(h[i])] += static_cast<double>(w[i]);
    }
    ASSERT_EQ(sums.size(), want.size()) << bins;
    for (std::size_t b = 0; b < want.size(); ++b) {
      EXPECT_NEAR(sums[b], want[b], 1e-9 * (1.0 + std::abs(want[b]))) << bins << " bins, bin " << b;
    }
  }
}

TEST(BincountGpu, StaticSizeIgnoresValuesOutsideAndNegativesAreRefusedEagerly) {
  NDCUDA_REQUIRE_GPU();
  const auto h = nd::testing::uniform_values<std::int32_t>(20000, -5, 60);
  const auto x = nd::asarray(h);
  const auto counts = nd::bincount(x, nd::size(40)).to_host();
  std::vector<std::int64_t> want(40, 0);
  for (auto v : h) {
    if (v >= 0 && v < 40) {
      ++want[static_cast<std::size_t>(v)];
    }
  }
  EXPECT_EQ(counts, want);
  EXPECT_THROW((void)nd::bincount(x), nd::value_error);
  EXPECT_EQ(nd::bincount(nd::empty<std::int32_t>({0}), 3).to_host(), (std::vector<std::int64_t>{0, 0, 0}));
}

TEST(HistogramGpu, EqualBinsFollowNumPysEdgesAndClosedLastBin) {
  NDCUDA_REQUIRE_GPU();
  auto h = random_floats<float>(60001, 0.0);
  for (auto& v : h) {
    if (std::isinf(v)) {
      v = 1.0f;
    }
  }
  const auto a = nd::asarray(h);
  for (bool ranged : {false, true}) {
    const auto r = ranged ? nd::histogram(a, 37, nd::bin_range{-5.0, 7.25}) : nd::histogram(a, 37);
    static_assert(std::is_same_v<decltype(r.edges), nd::ndarray<float>>);
    const auto edges_f = r.edges.to_host();
    ASSERT_EQ(edges_f.size(), 38u);
    if (ranged) {  // np.linspace of Python floats: float64, then float32
      const double step = (7.25 - -5.0) / 37.0;
      for (std::size_t i = 0; i < 37; ++i) {
        EXPECT_EQ(edges_f[i], static_cast<float>(static_cast<double>(i) * step + -5.0)) << i;
      }
      EXPECT_EQ(edges_f[37], 7.25f);
    } else {  // np.linspace of a.min(), a.max() (float32 scalars): float32 arithmetic
      const float lo = *std::min_element(h.begin(), h.end());
      const float hi = *std::max_element(h.begin(), h.end());
      const float step = (hi - lo) / 37.0f;
      for (std::size_t i = 0; i < 37; ++i) {
        const float scaled = static_cast<float>(i) * step;
        EXPECT_EQ(edges_f[i], scaled + lo) << i;
      }
      EXPECT_EQ(edges_f[37], hi);
    }
    const std::vector<double> edges(edges_f.begin(), edges_f.end());
    std::vector<std::int64_t> want(37, 0);
    for (float v : h) {
      const auto b = host_bin(static_cast<double>(v), edges);
      if (b >= 0) {
        ++want[static_cast<std::size_t>(b)];
      }
    }
    EXPECT_EQ(r.counts.to_host(), want) << "ranged " << ranged;
  }
}

// The fused count (bin_count_into) with its edges and counters in shared memory (up to 2048 bins)
// and past that, from global memory with global atomics, over float64 and int32 input, against
// the host's binning of the same edges; values outside the range are left out.
TEST(HistogramGpu, FusedCountsMatchTheHostWithSharedAndGlobalCounters) {
  NDCUDA_REQUIRE_GPU();
  const auto doubles = nd::testing::uniform_values<double>(300007, -1.2, 1.2);
  const auto ints = nd::testing::uniform_values<std::int32_t>(300007, -1200, 1200);
  for (const nd::index_t bins : {100, 2048, 2049, 5000}) {
    const auto r = nd::histogram(nd::asarray(doubles), bins, nd::bin_range{-1.0, 1.0});
    const auto ri = nd::histogram(nd::asarray(ints), bins, nd::bin_range{-1000.0, 1000.0});
    for (const bool integers : {false, true}) {
      const std::vector<double> edges = integers ? ri.edges.to_host() : r.edges.to_host();
      std::vector<std::int64_t> want(static_cast<std::size_t>(bins), 0);
      const std::size_t count = integers ? ints.size() : doubles.size();
      for (std::size_t i = 0; i < count; ++i) {
        const auto b = host_bin(integers ? static_cast<double>(ints[i]) : doubles[i], edges);
        if (b >= 0) {
          ++want[static_cast<std::size_t>(b)];
        }
      }
      EXPECT_EQ((integers ? ri : r).counts.to_host(), want) << bins << " bins, integers " << integers;
    }
  }
}

TEST(HistogramGpu, EdgesWeightsAndDensity) {
  NDCUDA_REQUIRE_GPU();
  const auto h = nd::testing::uniform_values<std::int32_t>(30000, -100, 100);
  const auto a = nd::asarray(h);
  const std::vector<double> edges = {-50.0, -10.0, -10.0, 0.0, 3.5, 60.0};
  const auto e = nd::asarray(edges);
  const std::vector<double> w = nd::testing::uniform_values<double>(h.size(), 0.0, 2.0);
  const auto counts = nd::histogram(a, e).counts.to_host();
  const auto sums = nd::histogram(a, e, nd::asarray(w)).counts.to_host();
  const auto dens = nd::histogram(a, e, nd::density).counts.to_host();
  std::vector<std::int64_t> want(5, 0);
  std::vector<double> want_w(5, 0.0);
  for (std::size_t i = 0; i < h.size(); ++i) {
    const auto b = host_bin(static_cast<double>(h[i]), edges);
    if (b >= 0) {
      ++want[static_cast<std::size_t>(b)];
      want_w[static_cast<std::size_t>(b)] += w[i];
    }
  }
  EXPECT_EQ(counts, want);
  const double total = static_cast<double>(std::accumulate(want.begin(), want.end(), std::int64_t{0}));
  for (std::size_t b = 0; b < 5; ++b) {
    EXPECT_NEAR(sums[b], want_w[b], 1e-9 * (1.0 + want_w[b]));
    const double width = edges[b + 1] - edges[b];
    if (width > 0) {
      EXPECT_NEAR(dens[b], static_cast<double>(want[b]) / width / total, 1e-12);
    }
  }
  EXPECT_THROW((void)nd::histogram(a, nd::asarray(std::vector<double>{0.0, 2.0, 1.0})), nd::value_error);
  const auto nan_input = nd::asarray(std::vector<double>{1.0, NAN});
  EXPECT_THROW((void)nd::histogram(nan_input), nd::value_error);
}

TEST(HistogramGpu, Histogram2dMatchesTheHost) {
  NDCUDA_REQUIRE_GPU();
  auto hx = random_floats<double>(40000, 0.01);
  auto hy = random_floats<double>(40000, 0.0);
  for (auto& v : hy) {
    if (std::isinf(v)) {
      v = 0.0;
    }
  }
  const auto r = nd::histogram2d(nd::asarray(hx), nd::asarray(hy), std::array<nd::index_t, 2>{7, 5},
                                 std::array<nd::bin_range, 2>{nd::bin_range{-20, 20}, nd::bin_range{-10, 30}});
  ASSERT_EQ(r.counts.shape(), (nd::shape_t{7, 5}));
  const auto ex = r.xedges.to_host();
  const auto ey = r.yedges.to_host();
  std::vector<double> want(35, 0.0);
  for (std::size_t i = 0; i < hx.size(); ++i) {
    const auto bx = host_bin(hx[i], ex);
    const auto by = host_bin(hy[i], ey);
    if (bx >= 0 && by >= 0) {
      want[static_cast<std::size_t>(bx * 5 + by)] += 1.0;
    }
  }
  EXPECT_EQ(r.counts.to_host(), want);
}

TEST(DigitizeGpu, IncreasingAndDecreasingBinsBothSides) {
  NDCUDA_REQUIRE_GPU();
  const auto hx = random_floats<double>(5000, 0.02);
  std::vector<double> inc = {-20.0, -3.0, 0.0, 0.0, 1.5, 9.0, 25.0};
  std::vector<double> dec(inc.rbegin(), inc.rend());
  const auto x = nd::asarray(hx);
  for (bool right : {false, true}) {
    for (bool increasing : {true, false}) {
      const auto& bins = increasing ? inc : dec;
      const auto got = nd::digitize(x, nd::asarray(bins), right).to_host();
      for (std::size_t i = 0; i < hx.size(); ++i) {
        // NumPy's definition: the count of bins below (right: at or below) x, mirrored when decreasing.
        const double v = hx[i];
        std::int64_t want = 0;
        if (increasing) {
          for (double b : bins) {
            want += std::isnan(v) ? 1 : (right ? (b < v) : (b <= v));
          }
        } else {
          for (double b : bins) {
            want += std::isnan(v) ? 0 : (right ? (b >= v) : (b > v));
          }
        }
        ASSERT_EQ(got[i], want) << "x " << v << " right " << right << " increasing " << increasing;
      }
    }
  }
  EXPECT_THROW((void)nd::digitize(x, nd::asarray(std::vector<double>{1.0, 3.0, 2.0})), nd::value_error);
}

namespace {

/// Checks a topk result along the last axis of a (rows, length) host array.
template <class T>
void check_topk(const std::vector<T>& h, std::size_t rows, std::size_t length, std::size_t k, bool largest,
                const std::vector<T>& values, const std::vector<std::int64_t>& indices) {
  ASSERT_EQ(values.size(), rows * k);
  ASSERT_EQ(indices.size(), rows * k);
  for (std::size_t r = 0; r < rows; ++r) {
    std::vector<T> row(h.begin() + static_cast<std::ptrdiff_t>(r * length),
                       h.begin() + static_cast<std::ptrdiff_t>((r + 1) * length));
    std::stable_sort(row.begin(), row.end(), [](T a, T b) { return np_less(a, b); });
    if (largest) {
      std::reverse(row.begin(), row.end());
    }
    std::set<std::int64_t> seen;
    for (std::size_t j = 0; j < k; ++j) {
      const T v = values[r * k + j];
      const std::int64_t i = indices[r * k + j];
      ASSERT_TRUE(same_value(v, row[j])) << "row " << r << " rank " << j << ": " << v << " vs " << row[j];
      ASSERT_GE(i, 0);
      ASSERT_LT(i, static_cast<std::int64_t>(length));
      ASSERT_TRUE(same_value(h[r * length + static_cast<std::size_t>(i)], v)) << "index " << i << " rank " << j;
      ASSERT_TRUE(seen.insert(i).second) << "index " << i << " chosen twice";
    }
  }
}

}  // namespace

TEST(TopkGpu, OneLongRowRadixSelectFloatsWithNansAndTies) {
  NDCUDA_REQUIRE_GPU();
  const auto h = random_floats<float>(200003, 0.001);
  const auto a = nd::asarray(h);
  for (bool largest : {true, false}) {
    for (std::size_t k : {std::size_t{1}, std::size_t{1000}, std::size_t{50000}}) {
      const auto r = nd::topk(a, static_cast<nd::index_t>(k), -1, largest);
      check_topk(h, 1, h.size(), k, largest, r.values.to_host(), r.indices.to_host());
    }
  }
  const auto all = nd::topk(a, static_cast<nd::index_t>(h.size()));
  check_topk(h, 1, h.size(), h.size(), true, all.values.to_host(), all.indices.to_host());
}

TEST(TopkGpu, OneLongRowOtherWidths) {
  NDCUDA_REQUIRE_GPU();
  const auto hi = nd::testing::uniform_values<std::int32_t>(150000, -1000, 1000);
  const auto ri = nd::topk(nd::asarray(hi), 777);
  check_topk(hi, 1, hi.size(), 777, true, ri.values.to_host(), ri.indices.to_host());
  std::vector<std::uint8_t> hb(hi.size());
  for (std::size_t i = 0; i < hi.size(); ++i) {
    hb[i] = static_cast<std::uint8_t>(hi[i] & 0xff);
  }
  const auto rb = nd::topk(nd::asarray(hb), 300, -1, false);
  check_topk(hb, 1, hb.size(), 300, false, rb.values.to_host(), rb.indices.to_host());
  const auto hd = random_floats<double>(100000, 0.01);
  const auto rd = nd::topk(nd::asarray(hd), 2500);
  check_topk(hd, 1, hd.size(), 2500, true, rd.values.to_host(), rd.indices.to_host());
}

TEST(TopkGpu, BatchedRowsAndOtherAxes) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t rows = 37;
  const std::size_t length = 1000;
  const auto h = random_floats<float>(rows * length, 0.01);
  const auto a = nd::asarray(h, {static_cast<nd::index_t>(rows), static_cast<nd::index_t>(length)});
  for (bool largest : {true, false}) {
    const auto r = nd::topk(a, 10, -1, largest);
    ASSERT_EQ(r.values.shape(), (nd::shape_t{37, 10}));
    check_topk(h, rows, length, 10, largest, r.values.to_host(), r.indices.to_host());
  }
  // axis 0 of the transpose is the same selection.
  const auto t = nd::topk(a.T(), 10, 0);
  ASSERT_EQ(t.values.shape(), (nd::shape_t{10, 37}));
  check_topk(h, rows, length, 10, true, t.values.T().copy().to_host(), t.indices.T().copy().to_host());
}

TEST(PartitionGpu, KthElementsAreInPlace) {
  NDCUDA_REQUIRE_GPU();
  const auto h = random_floats<float>(4097, 0.01);
  const auto a = nd::asarray(h);
  std::vector<float> sorted = h;
  std::stable_sort(sorted.begin(), sorted.end(), [](float x, float y) { return np_less(x, y); });
  const std::vector<nd::index_t> kth = {0, 17, 2048, -1};
  const auto p = nd::partition(a, kth).to_host();
  const auto ip = nd::argpartition(a, kth).to_host();
  for (nd::index_t k : kth) {
    const auto kk = static_cast<std::size_t>(k < 0 ? k + 4097 : k);
    EXPECT_TRUE(same_value(p[kk], sorted[kk]));
    EXPECT_TRUE(same_value(h[static_cast<std::size_t>(ip[kk])], sorted[kk]));
    for (std::size_t i = 0; i < h.size(); ++i) {
      const float v = p[i];
      const float w = h[static_cast<std::size_t>(ip[i])];
      if (i < kk) {
        ASSERT_FALSE(np_less(p[kk], v));
        ASSERT_FALSE(np_less(sorted[kk], w));
      } else if (i > kk) {
        ASSERT_FALSE(np_less(v, p[kk]));
        ASSERT_FALSE(np_less(w, sorted[kk]));
      }
    }
  }
  std::vector<std::int64_t> perm = ip;
  std::sort(perm.begin(), perm.end());
  for (std::size_t i = 0; i < perm.size(); ++i) {
    ASSERT_EQ(perm[i], static_cast<std::int64_t>(i));
  }
}

TEST(ChooseSelectGpu, MatchTheHost) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = 3001;
  const auto hi = nd::testing::uniform_values<std::int32_t>(n, -4, 6);
  std::vector<std::vector<float>> hc(3, std::vector<float>(n));
  for (auto& c : hc) {
    c = random_floats<float>(n, 0.0);
  }
  std::vector<nd::ndarray<float>> choices;
  for (const auto& c : hc) {
    choices.push_back(nd::asarray(c));
  }
  const auto idx = nd::asarray(hi);
  const auto wrap = nd::choose(idx, choices, nd::choose_mode::wrap).to_host();
  const auto clip = nd::choose(idx, choices, nd::choose_mode::clip).to_host();
  for (std::size_t i = 0; i < n; ++i) {
    const auto w = static_cast<std::size_t>(((hi[i] % 3) + 3) % 3);
    const auto c = static_cast<std::size_t>(std::clamp(hi[i], 0, 2));
    ASSERT_TRUE(same_value(wrap[i], hc[w][i]));
    ASSERT_TRUE(same_value(clip[i], hc[c][i]));
  }
  EXPECT_THROW((void)nd::choose(idx, choices), nd::value_error);
  // select: the first true condition wins, else the default.
  const auto x = nd::asarray(hc[0]);
  const std::vector<nd::ndarray<bool>> conds = {x < 0.0f, x < 5.0f};
  const auto sel = nd::select(conds, std::vector<nd::ndarray<float>>{choices[1], choices[2]}, -7.0f).to_host();
  for (std::size_t i = 0; i < n; ++i) {
    const float v = hc[0][i];
    const float want = v < 0.0f ? hc[1][i] : (v < 5.0f ? hc[2][i] : -7.0f);
    ASSERT_TRUE(same_value(sel[i], want));
  }
  // copyto with a mask broadcast along rows.
  auto dst = nd::asarray(std::vector<double>(12, 1.0), {3, 4});
  const auto src = nd::asarray(std::vector<float>{2, 3, 4, 5}, {4});
  std::vector<std::uint8_t> mask_bytes = {1, 0, 1, 0};
  nd::copyto(dst, src, nd::asarray(mask_bytes, {4}).astype<bool>());
  const auto d = dst.to_host();
  for (std::size_t i = 0; i < 12; ++i) {
    EXPECT_EQ(d[i], (i % 4 == 0 || i % 4 == 2) ? static_cast<double>(2 + i % 4) : 1.0);
  }
}

TEST(UniqueGpu, AllResultsFollowNumPy) {
  NDCUDA_REQUIRE_GPU();
  auto h = random_floats<float>(6000, 0.01);
  const auto a = nd::asarray(h, {60, 100});
  for (bool equal_nan : {true, false}) {
    const auto r = nd::unique(a, nd::unique_options{true, true, true, equal_nan});
    const auto values = r.values.to_host();
    const auto index = r.indices.to_host();
    const auto inverse = r.inverse_indices.to_host();
    const auto counts = r.counts.to_host();
    ASSERT_EQ(r.inverse_indices.shape(), (nd::shape_t{60, 100}));
    // Host reference: distinct values in order, first occurrences, counts.
    std::vector<float> sorted = h;
    std::stable_sort(sorted.begin(), sorted.end(), [](float x, float y) { return np_less(x, y); });
    std::vector<float> want;
    for (float v : sorted) {
      const bool nan = std::isnan(v);
      if (want.empty() || !same_value(want.back(), v) || (nan && !equal_nan)) {
        want.push_back(v);
      }
    }
    ASSERT_EQ(values.size(), want.size());
    std::int64_t total = 0;
    for (std::size_t g = 0; g < want.size(); ++g) {
      ASSERT_TRUE(same_value(values[g], want[g])) << g;
      total += counts[g];
      const auto first = static_cast<std::size_t>(index[g]);
      ASSERT_TRUE(same_value(h[first], want[g]));
      if (!std::isnan(want[g]) || equal_nan) {
        for (std::size_t i = 0; i < first; ++i) {
          ASSERT_FALSE(same_value(h[i], want[g])) << "index " << first << " is not the first occurrence";
        }
      }
    }
    EXPECT_EQ(total, static_cast<std::int64_t>(h.size()));
    for (std::size_t i = 0; i < h.size(); ++i) {
      ASSERT_TRUE(same_value(values[static_cast<std::size_t>(inverse[i])], h[i]));
    }
  }
  // Array API spellings: NaNs distinct.
  const auto nans = static_cast<std::size_t>(std::count_if(h.begin(), h.end(), [](float v) { return std::isnan(v); }));
  const auto all = nd::unique_all(a);
  const auto c = nd::unique_counts(a).counts.to_host();
  EXPECT_EQ(std::count(c.begin(), c.end(), 1) >= static_cast<std::ptrdiff_t>(nans), true);
  EXPECT_EQ(nd::unique_values(a).size(), all.values.size());
  EXPECT_EQ(nd::unique_inverse(a).inverse_indices.shape(), (nd::shape_t{60, 100}));
}

TEST(UniqueGpu, StaticSizeFillsOrTruncates) {
  NDCUDA_REQUIRE_GPU();
  const auto h = nd::testing::uniform_values<std::int32_t>(5000, 0, 40);
  const std::set<std::int32_t> distinct(h.begin(), h.end());
  const std::vector<std::int32_t> want(distinct.begin(), distinct.end());
  const auto x = nd::asarray(h);
  const auto big = nd::unique(x, nd::size(60), -1).to_host();
  for (std::size_t i = 0; i < 60; ++i) {
    EXPECT_EQ(big[i], i < want.size() ? want[i] : -1);
  }
  const auto small = nd::unique(x, nd::size(5), -1).to_host();
  EXPECT_EQ(small, std::vector<std::int32_t>(want.begin(), want.begin() + 5));
}

TEST(SearchsortedGpu, ScalarAndSorter) {
  NDCUDA_REQUIRE_GPU();
  const auto h = random_floats<double>(3000, 0.0);
  const auto a = nd::asarray(h);
  const auto order = nd::argsort(a);
  std::vector<double> sorted = h;
  std::sort(sorted.begin(), sorted.end(), [](double x, double y) { return np_less(x, y); });
  const auto v = random_floats<double>(500, 0.01);
  const auto got = nd::searchsorted(a, nd::asarray(v), nd::side::right, order).to_host();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto want =
        std::upper_bound(sorted.begin(), sorted.end(), v[i], [](double x, double y) { return np_less(x, y); }) -
        sorted.begin();
    ASSERT_EQ(got[i], want);
  }
  const auto s = nd::searchsorted(nd::sort(a), 0.5);
  EXPECT_EQ(s.ndim(), 0);
  EXPECT_EQ(s.item(), std::lower_bound(sorted.begin(), sorted.end(), 0.5, [](double x, double y) {
                        return np_less(x, y);
                      }) - sorted.begin());
  const auto ints = nd::asarray(std::vector<std::int32_t>{1, 2, 2, 5});
  EXPECT_EQ(nd::searchsorted(ints, 2.5).item(), 3);
  EXPECT_EQ(nd::searchsorted(ints, 2, nd::side::right).item(), 3);
}

TEST(CountingCapture, StaticSizesAndTopkCaptureAndTheOthersRefuseNamingTheFix) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  const auto h = nd::testing::uniform_values<std::int32_t>(100000, 0, 99);
  const auto x = nd::asarray<std::int32_t>(h, {100000}, s);
  const auto f = nd::asarray<float>(random_floats<float>(100000, 0.0), {100000}, s);
  auto counts = nd::empty<std::int64_t>({64}, s);
  auto distinct = nd::empty<std::int32_t>({128}, s);
  auto best = nd::empty<float>({100}, s);
  auto hist = nd::empty<std::int64_t>({16}, s);
  nd::graph g = nd::capture(s, [&] {
    counts(nd::ellipsis) = nd::bincount(x, nd::size(64));
    distinct(nd::ellipsis) = nd::unique(x, nd::size(128), -1);
    best(nd::ellipsis) = nd::topk(f, 100).values;
    hist(nd::ellipsis) = nd::histogram(f, 16, nd::bin_range{-30, 30}).counts;
  });
  g.launch(s);
  s.synchronize();
  EXPECT_EQ(counts.to_host(), nd::bincount(x, nd::size(64)).to_host());
  EXPECT_EQ(distinct.to_host(), nd::unique(x, nd::size(128), -1).to_host());
  EXPECT_EQ(best.to_host(), nd::topk(f, 100).values.to_host());
  EXPECT_EQ(hist.to_host(), nd::histogram(f, 16, nd::bin_range{-30, 30}).counts.to_host());
  const auto refused = [&](const auto& fn, const char* fix) {
    try {
      (void)nd::capture(s, fn);
      ADD_FAILURE() << "not refused during capture: " << fix;
    } catch (const nd::capture_error& e) {
      EXPECT_NE(std::string(e.what()).find(fix), std::string::npos) << e.what();
    }
    EXPECT_FALSE(s.is_capturing());
  };
  refused([&] { (void)nd::bincount(x); }, "nd::size(k)");
  refused([&] { (void)nd::unique_all(x); }, "nd::size(k)");
  refused([&] { (void)nd::histogram(f, 16); }, "nd::bin_range");
}

namespace {

/// The arrays of tests/data/counting_values.txt (written by gen_counting_values.py) by name, as
/// doubles (floats are stored exactly, as float.hex()).
const std::map<std::string, std::vector<double>>& numpy_values() {
  static const auto values = [] {
    std::map<std::string, std::vector<double>> m;
    std::ifstream in(std::string(NDCUDA_TEST_DATA_DIR) + "/counting_values.txt");
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') {
        continue;
      }
      std::istringstream fields(line);
      std::string name;
      std::size_t count = 0;
      fields >> name >> count;
      std::vector<double> v(count);
      for (auto& x : v) {
        std::string text;
        fields >> text;
        x = std::strtod(text.c_str(), nullptr);
      }
      m[name] = std::move(v);
    }
    return m;
  }();
  return values;
}

template <class T>
std::vector<T> numpy_array(const std::string& name) {
  const auto it = numpy_values().find(name);
  if (it == numpy_values().end()) {
    ADD_FAILURE() << name << " is missing from counting_values.txt";
    return {};
  }
  std::vector<T> out;
  for (double v : it->second) {
    out.push_back(static_cast<T>(v));
  }
  return out;
}

template <class T>
void expect_same(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(same_value(got[i], want[i])) << what << " at " << i << ": " << got[i] << " vs " << want[i];
  }
}

}  // namespace

TEST(CountingNumPyCases, HistogramDigitizeAndUniqueAllMatchNumPyExactly) {
  NDCUDA_REQUIRE_GPU();
  const auto x = nd::asarray(numpy_array<float>("hist_f32.x"));
  const auto h = nd::histogram(x, 23);
  expect_same(h.edges.to_host(), numpy_array<float>("hist_f32.edges"), "hist_f32.edges");
  expect_same(h.counts.to_host(), numpy_array<std::int64_t>("hist_f32.counts"), "hist_f32.counts");
  const auto hr = nd::histogram(x, 19, nd::bin_range{-30.1, 25.7});
  expect_same(hr.edges.to_host(), numpy_array<float>("hist_f32_range.edges"), "hist_f32_range.edges");
  expect_same(hr.counts.to_host(), numpy_array<std::int64_t>("hist_f32_range.counts"), "hist_f32_range.counts");

  const auto xi = nd::asarray(numpy_array<std::int32_t>("hist_int.x"));
  const auto edges = numpy_array<double>("hist_int.edges");
  expect_same(nd::histogram(xi, nd::asarray(edges)).counts.to_host(), numpy_array<std::int64_t>("hist_int.counts"),
              "hist_int.counts");
  const std::vector<double> strict = {edges[0], edges[1], edges[3], edges[4], edges[5]};
  const auto density = nd::histogram(xi, nd::asarray(strict), nd::density).counts.to_host();
  const auto want_density = numpy_array<double>("hist_int.density");
  ASSERT_EQ(density.size(), want_density.size());
  for (std::size_t i = 0; i < density.size(); ++i) {
    EXPECT_NEAR(density[i], want_density[i], 1e-15) << i;
  }

  const auto bins = nd::asarray(numpy_array<double>("digitize.bins"));
  const auto xd = x.astype<double>();
  expect_same(nd::digitize(xd, bins, true).to_host(), numpy_array<std::int64_t>("digitize.right"), "digitize.right");
  expect_same(nd::digitize(xd, bins).to_host(), numpy_array<std::int64_t>("digitize.left"), "digitize.left");

  const auto u = nd::unique_all(nd::asarray(numpy_array<double>("unique.x")));
  expect_same(u.values.to_host(), numpy_array<double>("unique.values"), "unique.values");
  expect_same(u.indices.to_host(), numpy_array<std::int64_t>("unique.indices"), "unique.indices");
  expect_same(u.inverse_indices.to_host(), numpy_array<std::int64_t>("unique.inverse"), "unique.inverse");
  expect_same(u.counts.to_host(), numpy_array<std::int64_t>("unique.counts"), "unique.counts");
}
