// sort, argsort, unique and searchsorted on the GPU for every real dtype, against host references
// built with std::stable_sort and NumPy's comparison (NaN last whatever its sign, -0.0 == +0.0):
// random data with duplicates, NaNs of both signs, signed zeros and infinities; 1-d to 3-d arrays,
// every axis, C-order, transposed and reversed-strided views. argsort must match exactly (it is
// stable); sort must match element for element as NumPy compares, and keep every bit pattern.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ndcuda/ndcuda.hpp>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "support/gpu.hpp"

namespace nd = ndcuda;

namespace {

using bf16 = __nv_bfloat16;

template <class T>
constexpr bool is_low = std::is_same_v<T, __half> || std::is_same_v<T, bf16>;
template <class T>
constexpr bool is_float = std::is_floating_point_v<T> || is_low<T>;

template <class T>
double to_double(T x) {
  if constexpr (std::is_same_v<T, __half>) {
    return static_cast<double>(__half2float(x));
  } else if constexpr (std::is_same_v<T, bf16>) {
    return static_cast<double>(__bfloat162float(x));
  } else {
    return static_cast<double>(x);
  }
}

// NumPy's order. Integers compare exactly (int64 through double would not).
template <class T>
bool np_less(T a, T b) {
  if constexpr (is_float<T>) {
    const double x = to_double(a);
    const double y = to_double(b);
    return !std::isnan(x) && (std::isnan(y) || x < y);
  } else {
    return a < b;
  }
}
template <class T>
bool np_equal(T a, T b) {
  return !np_less(a, b) && !np_less(b, a);
}

template <class T>
std::uint64_t bits_of(T x) {
  std::uint64_t b = 0;
  std::memcpy(&b, &x, sizeof(T));
  return b;
}

template <class T>
T from_bits(std::uint64_t b) {
  T x;
  std::memcpy(static_cast<void*>(&x), &b, sizeof(T));
  return x;
}

template <class T>
std::uint64_t inf_bits() {
  if constexpr (std::is_same_v<T, __half>) {
    return 0x7c00;
  } else if constexpr (std::is_same_v<T, bf16>) {
    return 0x7f80;
  } else if constexpr (std::is_same_v<T, float>) {
    return 0x7f800000;
  } else {
    return 0x7ff0000000000000;
  }
}

// Random elements with many duplicates and the special values of the type.
template <class T>
std::vector<T> random_values(std::size_t n) {
  auto& g = nd::testing::rng();
  std::vector<T> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned pick = static_cast<unsigned>(g() % 16);
    if constexpr (std::is_same_v<T, bool>) {
      v.push_back((g() & 1) != 0);
    } else if constexpr (is_float<T>) {
      const std::uint64_t sign = std::uint64_t{1} << (8 * sizeof(T) - 1);
      const std::uint64_t inf = inf_bits<T>();
      const std::uint64_t low = inf & (~inf + 1);  // the lowest exponent bit
      if (pick == 0) {
        // A NaN of either sign with a random nonzero payload.
        const std::uint64_t payload = 1 + g() % (low - 1);
        v.push_back(from_bits<T>(((g() & 1) != 0 ? sign : 0) | inf | payload));
      } else if (pick == 1) {
        v.push_back(from_bits<T>((g() & 1) != 0 ? sign : 0));  // -0.0 or +0.0
      } else if (pick == 2) {
        v.push_back(from_bits<T>(((g() & 1) != 0 ? sign : 0) | inf));
      } else if (pick < 10) {
        v.push_back(nd::detail::element_from<T>(static_cast<double>(static_cast<int>(g() % 41) - 20) / 4.0));
      } else {
        std::normal_distribution<double> normal(0.0, 1000.0);
        v.push_back(nd::detail::element_from<T>(normal(g)));
      }
    } else {
      if (pick == 0) {
        v.push_back(std::numeric_limits<T>::min());
      } else if (pick == 1) {
        v.push_back(std::numeric_limits<T>::max());
      } else if (pick < 10) {
        v.push_back(static_cast<T>(static_cast<long long>(g() % 21) - (std::is_signed_v<T> ? 10 : 0)));
      } else {
        v.push_back(static_cast<T>(g()));
      }
    }
  }
  return v;
}

template <class T>
T at(const std::vector<T>& v, std::size_t i) {
  return v[i];
}

// Rows along `axis` of a C-order array of `shape`: element k of row r is at base(r) + k * inner.
struct rows_of {
  std::size_t outer = 1, len = 1, inner = 1;
  rows_of(const nd::shape_t& shape, int axis) {
    for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
      const auto e = static_cast<std::size_t>(shape[static_cast<std::size_t>(d)]);
      (d < axis ? outer : d == axis ? len : inner) *= e;
    }
  }
  [[nodiscard]] std::size_t count() const { return outer * inner; }
  [[nodiscard]] std::size_t at(std::size_t row, std::size_t k) const {
    return (row / inner) * len * inner + k * inner + row % inner;
  }
};

// NumPy's argsort(kind="stable") along `axis`.
template <class T>
std::vector<std::int64_t> host_argsort(const std::vector<T>& v, const nd::shape_t& shape, int axis) {
  const rows_of r(shape, axis);
  std::vector<std::int64_t> out(v.size());
  std::vector<std::int64_t> idx(r.len);
  for (std::size_t row = 0; row < r.count(); ++row) {
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](std::int64_t a, std::int64_t b) {
      return np_less(at(v, r.at(row, static_cast<std::size_t>(a))), at(v, r.at(row, static_cast<std::size_t>(b))));
    });
    for (std::size_t k = 0; k < r.len; ++k) {
      out[r.at(row, k)] = idx[k];
    }
  }
  return out;
}

template <class T>
std::vector<T> upload_values(const nd::shape_t& shape) {
  return random_values<T>(static_cast<std::size_t>(nd::shape_size(shape)));
}

// The views every case runs on: C order, all axes reversed (transpose), axis 0 reversed with step 2.
template <class T>
std::vector<std::pair<std::string, nd::ndarray<T>>> views_of(const nd::ndarray<T>& a) {
  std::vector<std::pair<std::string, nd::ndarray<T>>> v;
  v.emplace_back("c-order", a);
  if (a.ndim() > 1) {
    v.emplace_back("transposed", a.T());
  }
  v.emplace_back("reversed step -2", a(nd::slice(nd::none, nd::none, -2)));
  return v;
}

template <class T>
class SortGpu : public ::testing::Test {};
using real_types = ::testing::Types<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
                                    std::uint16_t, std::uint32_t, std::uint64_t, __half, bf16, float, double>;
TYPED_TEST_SUITE(SortGpu, real_types);

TYPED_TEST(SortGpu, SortAndArgsortMatchStableSortOnEveryAxisAndView) {
  NDCUDA_REQUIRE_GPU();
  using T = TypeParam;
  const std::vector<nd::shape_t> shapes = {{1000}, {37, 53}, {5, 7, 11}, {3, 6000}, {4000, 2}};
  for (const nd::shape_t& shape : shapes) {
    const std::vector<T> host = upload_values<T>(shape);
    const nd::ndarray<T> a = nd::asarray(host, shape);
    for (const auto& [view_name, x] : views_of(a)) {
      const std::vector<T> logical = x.to_host();
      for (int axis = -1; axis < x.ndim(); ++axis) {
        const int ax = axis < 0 ? axis + x.ndim() : axis;
        SCOPED_TRACE("shape " + nd::format_shape(x.shape()) + ", " + view_name + ", axis " + std::to_string(axis));
        const std::vector<std::int64_t> want = host_argsort(logical, x.shape(), ax);
        const std::vector<std::int64_t> got = nd::argsort(x, axis).to_host();
        ASSERT_EQ(got, want);
        const nd::ndarray<T> sorted = nd::sort(x, axis);
        ASSERT_EQ(sorted.shape(), x.shape());
        const std::vector<T> s = sorted.to_host();
        const rows_of r(x.shape(), ax);
        for (std::size_t row = 0; row < r.count(); ++row) {
          std::vector<std::uint64_t> in_bits, out_bits;
          for (std::size_t k = 0; k < r.len; ++k) {
            const std::size_t i = r.at(row, k);
            const T expected = at(logical, r.at(row, static_cast<std::size_t>(want[i])));
            ASSERT_TRUE(np_equal(at(s, i), expected))
                << "row " << row << " position " << k << ": " << to_double(at(s, i)) << " vs " << to_double(expected);
            in_bits.push_back(bits_of(at(logical, i)));
            out_bits.push_back(bits_of(at(s, i)));
          }
          // Sorting only moves elements: -0.0 stays -0.0, NaN payloads and signs survive.
          std::sort(in_bits.begin(), in_bits.end());
          std::sort(out_bits.begin(), out_bits.end());
          ASSERT_EQ(in_bits, out_bits) << "row " << row;
        }
      }
    }
  }
}

TYPED_TEST(SortGpu, UniqueMatchesSortedDistinctElements) {
  NDCUDA_REQUIRE_GPU();
  using T = TypeParam;
  for (const nd::shape_t& shape : {nd::shape_t{2000}, nd::shape_t{31, 17}}) {
    const std::vector<T> host = upload_values<T>(shape);
    const nd::ndarray<T> a = nd::asarray(host, shape);
    for (const auto& [view_name, x] : views_of(a)) {
      SCOPED_TRACE("shape " + nd::format_shape(x.shape()) + ", " + view_name);
      std::vector<T> logical = x.to_host();
      std::vector<std::int64_t> order(logical.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](std::int64_t i, std::int64_t j) {
        return np_less(at(logical, static_cast<std::size_t>(i)), at(logical, static_cast<std::size_t>(j)));
      });
      std::vector<T> want;
      for (std::int64_t i : order) {
        const T e = at(logical, static_cast<std::size_t>(i));
        if (want.empty() || !np_equal<T>(want.back(), e)) {
          want.push_back(e);
        }
      }
      const nd::ndarray<T> u = nd::unique(x);
      ASSERT_EQ(u.ndim(), 1);
      const std::vector<T> got = u.to_host();
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_TRUE(np_equal(at(got, i), at(want, i))) << "position " << i;
      }
    }
  }
}

TYPED_TEST(SortGpu, SearchsortedMatchesCountsOnBothSides) {
  NDCUDA_REQUIRE_GPU();
  using T = TypeParam;
  const std::vector<T> unsorted = random_values<T>(3001);
  // Sorted through an index permutation (std::vector<bool> cannot be sorted in place portably).
  const std::vector<std::int64_t> order = host_argsort(unsorted, nd::shape_t{3001}, 0);
  std::vector<T> sorted_host;
  for (std::int64_t i : order) {
    sorted_host.push_back(at(unsorted, static_cast<std::size_t>(i)));
  }
  const nd::ndarray<T> full = nd::asarray(sorted_host);
  // A strided sorted operand: every other element of the sorted array is still sorted.
  const nd::ndarray<T> a = full(nd::slice(nd::none, nd::none, 2));
  const std::vector<T> a_host = a.to_host();
  const nd::shape_t vshape{13, 7};
  const nd::ndarray<T> values = nd::asarray(random_values<T>(13 * 7), vshape).T();
  const std::vector<T> v_host = values.to_host();
  for (nd::side which : {nd::side::left, nd::side::right}) {
    const nd::ndarray<std::int64_t> got = nd::searchsorted(a, values, which);
    ASSERT_EQ(got.shape(), values.shape());
    const std::vector<std::int64_t> g = got.to_host();
    for (std::size_t i = 0; i < v_host.size(); ++i) {
      std::int64_t want = 0;
      for (std::size_t j = 0; j < a_host.size(); ++j) {
        const bool before =
            which == nd::side::left ? np_less(at(a_host, j), at(v_host, i)) : !np_less(at(v_host, i), at(a_host, j));
        want += before ? 1 : 0;
      }
      ASSERT_EQ(g[i], want) << "value " << to_double(at(v_host, i)) << ", side "
                            << (which == nd::side::left ? "left" : "right");
    }
  }
}

TEST(SortGpuLarge, OneLongRowMatchesStdStableSort) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = (std::size_t{1} << 20) + 3;
  const std::vector<float> host = random_values<float>(n);
  const nd::ndarray<float> a = nd::asarray(host);
  std::vector<std::int64_t> want(n);
  std::iota(want.begin(), want.end(), 0);
  std::stable_sort(want.begin(), want.end(), [&](std::int64_t i, std::int64_t j) {
    return np_less(host[static_cast<std::size_t>(i)], host[static_cast<std::size_t>(j)]);
  });
  EXPECT_EQ(nd::argsort(a).to_host(), want);
  const std::vector<float> s = nd::sort(a).to_host();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(np_equal(s[i], host[static_cast<std::size_t>(want[i])])) << i;
  }
  const std::vector<std::int64_t> h64 = random_values<std::int64_t>(n);
  std::vector<std::int64_t> s64 = h64;
  std::stable_sort(s64.begin(), s64.end());
  EXPECT_EQ(nd::sort(nd::asarray(h64)).to_host(), s64);
}

TEST(SortGpuApi, ExpressionsExplicitStreamsAndPromotion) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<float> host = random_values<float>(500);
  const nd::ndarray<float> a = nd::asarray(host);
  // An expression is evaluated first: sort(-a) is -(sort(a) reversed), as NumPy compares.
  nd::stream s;
  const std::vector<float> neg = nd::sort(-a, -1, s).to_host();
  const std::vector<float> pos = nd::sort(a).to_host();
  const auto nans =
      static_cast<std::size_t>(std::count_if(host.begin(), host.end(), [](float v) { return std::isnan(v); }));
  const std::size_t finite = host.size() - nans;
  for (std::size_t i = 0; i < host.size(); ++i) {
    if (i < finite) {
      ASSERT_TRUE(np_equal(neg[i], -pos[finite - 1 - i])) << i;
    } else {
      ASSERT_TRUE(std::isnan(neg[i])) << i;  // NaNs last in both
    }
  }
  // Promotion: int32 sorted with float64 values compares in float64, as NumPy does.
  const nd::ndarray<std::int32_t> ints = nd::asarray(std::vector<std::int32_t>{-5, -1, 0, 0, 3, 7});
  const nd::ndarray<double> probes = nd::asarray(std::vector<double>{-0.5, 0.0, 2.5, 7.0, 8.0, std::nan("")});
  EXPECT_EQ(nd::searchsorted(ints, probes).to_host(), (std::vector<std::int64_t>{2, 2, 4, 5, 6, 6}));
  EXPECT_EQ(nd::searchsorted(ints, probes, nd::side::right).to_host(), (std::vector<std::int64_t>{2, 4, 4, 6, 6, 6}));
  // NumPy: np.searchsorted([1., 2., nan, nan], [nan, 2.]) -> [2, 1]; side right -> [4, 2].
  const nd::ndarray<double> with_nan = nd::asarray(std::vector<double>{1.0, 2.0, std::nan(""), -std::nan("")});
  const nd::ndarray<double> q = nd::asarray(std::vector<double>{std::nan(""), 2.0});
  EXPECT_EQ(nd::searchsorted(with_nan, q).to_host(), (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(nd::searchsorted(with_nan, q, nd::side::right).to_host(), (std::vector<std::int64_t>{4, 2}));
  // Empty inputs give empty results without launching anything.
  EXPECT_EQ(nd::sort(nd::empty<float>({0, 4})).shape(), (nd::shape_t{0, 4}));
  EXPECT_EQ(nd::unique(nd::empty<int>({0})).size(), 0);
}

TEST(SortGpuApi, UniqueRefusesAGraphCaptureAndLeavesItValid) {
  NDCUDA_REQUIRE_GPU();
  const nd::ndarray<int> a = nd::asarray(std::vector<int>{3, 1, 3});
  nd::stream s;
  a.stream().synchronize();  // the upload is done: b needs no ordering on s
  const nd::ndarray<int> b = a.on_stream(s);
  ASSERT_EQ(cudaStreamBeginCapture(s.handle(), cudaStreamCaptureModeThreadLocal), cudaSuccess);
  try {
    (void)nd::unique(b);
    ADD_FAILURE() << "unique did not refuse the capture";
  } catch (const nd::capture_error& e) {
    EXPECT_NE(std::string(e.what()).find("unique"), std::string::npos) << e.what();
  }
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(s.handle(), &graph), cudaSuccess);  // the capture is still valid
  if (graph != nullptr) {
    cudaGraphDestroy(graph);
  }
  EXPECT_EQ(nd::unique(b).to_host(), (std::vector<int>{1, 3}));
}

TEST(SortGpuApi, MultiGpuSortRunsOnTheArraysDevice) {
  NDCUDA_REQUIRE_GPUS(2);
  nd::stream s1(1);
  const std::vector<double> host = random_values<double>(777);
  const nd::ndarray<double> a = nd::asarray(host, {777}, s1);
  const nd::ndarray<double> sorted = nd::sort(a);
  EXPECT_EQ(sorted.device(), 1);
  std::vector<double> want = host;
  std::stable_sort(want.begin(), want.end(), [](double x, double y) { return np_less(x, y); });
  const std::vector<double> got = sorted.to_host();
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(np_equal(got[i], want[i])) << i;
  }
  EXPECT_EQ(nd::argsort(a).device(), 1);
  EXPECT_EQ(nd::unique(a).device(), 1);
  EXPECT_EQ(nd::cumsum(a).device(), 1);
}

}  // namespace
