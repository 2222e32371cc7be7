// a(mask, nd::size(k), fill) (the static-size mask read: types on the CPU, values on the GPU
// against host loops), and NumPy's check-before-write: a failed scatter leaves its destination as it was.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <ndcuda/ndcuda.hpp>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
using nd::testing::rng;

namespace {

// ---- types (no device needed) -----------------------------------------------------------------------

using farray = nd::ndarray<float>;
using sized_read = decltype(std::declval<const farray&>()(std::declval<const nd::ndarray<bool>&>(), nd::size(3)));
using sized_fill = decltype(std::declval<const farray&>()(std::declval<const nd::ndarray<bool>&>(), nd::size(3), -1.0));
using sized_expr = decltype(std::declval<const farray&>()(std::declval<const farray&>() > 0.5f, nd::size(3), 2));
using sized_host = decltype(std::declval<const farray&>()(std::declval<const std::vector<bool>&>(), nd::size(3)));

static_assert(std::is_same_v<sized_read, const farray>);
static_assert(std::is_same_v<sized_fill, const farray>);
static_assert(std::is_same_v<sized_expr, const farray>);
static_assert(std::is_same_v<sized_host, const farray>);
// Read-only: a write into the copy could never reach the source, so it does not compile.
static_assert(!std::is_assignable_v<sized_read, float>);
static_assert(!std::is_assignable_v<sized_read, const farray&>);
template <class T>
concept compound_addable = requires(T x) {
  std::move(x) += 1.0f;
};
static_assert(compound_addable<farray>);
static_assert(!compound_addable<sized_read>);
// The plain advanced read stays the proxy.
static_assert(std::is_same_v<decltype(std::declval<const farray&>()(std::declval<const nd::ndarray<bool>&>())),
                             nd::indexed<float>>);

TEST(IndexingSized, MaskWithStaticSizeIsAConstCopy) {
  // Runs on the CPU: the static checks above are the test; this names them in the report.
  SUCCEED();
}

// ---- values (GPU) ----------------------------------------------------------------------------------

std::vector<bool> random_mask(std::size_t n) {
  std::bernoulli_distribution d(0.4);
  std::vector<bool> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = d(rng());
  }
  return v;
}

// The host reference of a(mask, size(k), fill) for a mask over the leading axes: rows of `row`
// elements where the mask is true, the first k, padded with fill.
std::vector<double> sized_rows(const std::vector<float>& a, const std::vector<bool>& mask, std::size_t row,
                               std::size_t k, double fill) {
  std::vector<double> out;
  for (std::size_t i = 0; i < mask.size() && out.size() < k * row; ++i) {
    if (mask[i]) {
      for (std::size_t j = 0; j < row; ++j) {
        out.push_back(static_cast<double>(a[i * row + j]));
      }
    }
  }
  out.resize(k * row, fill);
  return out;
}

std::vector<double> as_double(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

std::size_t count_true(const std::vector<bool>& m) {
  std::size_t n = 0;
  for (bool b : m) {
    n += b ? 1 : 0;
  }
  return n;
}

TEST(IndexingSizedGpu, OneDimensionalMaskCutsOrPadsToK) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = 1000;
  const std::vector<float> host = nd::testing::uniform_values<float>(n, -1.0, 1.0);
  const auto a = nd::asarray<float>(host, {static_cast<nd::index_t>(n)});
  std::vector<bool> mask(n);
  for (std::size_t i = 0; i < n; ++i) {
    mask[i] = host[i] > 0.5f;
  }
  const std::size_t count = count_true(mask);
  ASSERT_GT(count, 10U);  // about 250 of 1000
  for (const std::size_t k : {std::size_t{0}, std::size_t{7}, count, count + 5}) {
    const auto k_i = static_cast<nd::index_t>(k);
    const nd::ndarray<float> filled = a(a > 0.5f, nd::size(k_i), -3.0);
    ASSERT_EQ(filled.shape(), (nd::shape_t{k_i}));
    EXPECT_EQ(as_double(filled.to_host()), sized_rows(host, mask, 1, k, -3.0)) << "k = " << k;
    const nd::ndarray<float> zero_fill = a(nd::asarray<bool>(mask), nd::size(k_i));
    EXPECT_EQ(as_double(zero_fill.to_host()), sized_rows(host, mask, 1, k, 0.0)) << "k = " << k;
  }
  // The same machinery as nd::extract(mask, a, nd::size(k), fill).
  EXPECT_EQ(nd::ndarray<float>(a(a > 0.5f, nd::size(20), 9.0f)).to_host(),
            nd::extract(a > 0.5f, a, nd::size(20), 9.0f).to_host());
}

TEST(IndexingSizedGpu, MaskOverLeadingAxesGivesKRowsOfTheRest) {
  NDCUDA_REQUIRE_GPU();
  const nd::index_t r = 37, c = 5, d = 3;
  const std::vector<float> host = nd::testing::uniform_values<float>(static_cast<std::size_t>(r * c * d), -1.0, 1.0);
  const auto a = nd::asarray<float>(host, {r, c, d});
  // A mask over axis 0: whole (c, d) rows.
  const std::vector<bool> rows = random_mask(static_cast<std::size_t>(r));
  const auto m1 = nd::asarray<bool>(rows);
  const auto n1 = static_cast<nd::index_t>(count_true(rows));
  for (const nd::index_t k : {n1 / 2, n1 + 3}) {
    const nd::ndarray<float> got = a(m1, nd::size(k), 1.5f);
    ASSERT_EQ(got.shape(), (nd::shape_t{k, c, d}));
    EXPECT_EQ(as_double(got.to_host()),
              sized_rows(host, rows, static_cast<std::size_t>(c * d), static_cast<std::size_t>(k), 1.5));
  }
  // A mask over axes 0 and 1 (host bools, uploaded): rows of d.
  const std::vector<bool> cells = random_mask(static_cast<std::size_t>(r * c));
  const auto m2 = nd::asarray<bool>(cells, {r, c});
  const auto n2 = static_cast<nd::index_t>(count_true(cells));
  const nd::ndarray<float> got2 = a(m2, nd::size(n2 + 2), -1);
  ASSERT_EQ(got2.shape(), (nd::shape_t{n2 + 2, d}));
  EXPECT_EQ(as_double(got2.to_host()),
            sized_rows(host, cells, static_cast<std::size_t>(d), static_cast<std::size_t>(n2 + 2), -1.0));
  // A transposed (strided) source reads its logical rows.
  const auto t = a.transpose({1, 0, 2});  // (c, r, d)
  const std::vector<bool> trows = random_mask(static_cast<std::size_t>(c));
  const nd::ndarray<float> got3 = t(nd::asarray<bool>(trows), nd::size(2), 0.25f);
  const std::vector<float> dense = t.copy().to_host();
  EXPECT_EQ(as_double(got3.to_host()), sized_rows(dense, trows, static_cast<std::size_t>(r * d), 2, 0.25));
}

TEST(IndexingSizedGpu, EmptyMaskAndErrors) {
  NDCUDA_REQUIRE_GPU();
  const auto a = nd::asarray<float>(nd::testing::uniform_values<float>(20, -1.0, 1.0), {5, 4});
  // An empty 1-d mask matches any axis (NumPy): nothing selected, so k rows of fill.
  const nd::ndarray<float> none = a(nd::zeros<bool>({0}), nd::size(3), 7.0f);
  ASSERT_EQ(none.shape(), (nd::shape_t{3, 4}));
  EXPECT_EQ(none.to_host(), std::vector<float>(12, 7.0f));
  EXPECT_THROW((void)a(nd::zeros<bool>({4}), nd::size(2)), nd::index_error);
  EXPECT_THROW((void)a(nd::zeros<bool>({5}), nd::size(-1)), nd::shape_error);
}

TEST(IndexingSizedGpu, CapturesWithoutAWait) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  const std::vector<float> host = nd::testing::uniform_values<float>(4096, -1.0, 1.0);
  const auto x = nd::asarray<float>(host, {1024, 4}, s);
  auto out = nd::empty<float>({16, 4}, s);
  nd::graph g = nd::capture(s, [&] { out(nd::ellipsis) = x(x(nd::all, 0) > 0.0f, nd::size(16), -9.0f); });
  ASSERT_TRUE(g);
  g.launch(s);
  std::vector<bool> rows(1024);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i] = host[i * 4] > 0.0f;
  }
  EXPECT_EQ(as_double(out.to_host()), sized_rows(host, rows, 4, 16, -9.0));
}

// ---- check before write (GPU) ------------------------------------------------------------------------

std::vector<std::uint32_t> bits(const farray& a) {
  const std::vector<float> h = a.to_host();
  std::vector<std::uint32_t> b(h.size());
  std::memcpy(b.data(), h.data(), h.size() * sizeof(float));
  return b;
}

std::string error_text(const std::function<void()>& f) {
  try {
    f();
  } catch (const nd::index_error& e) {
    return e.what();
  } catch (const nd::error& e) {
    return std::string("not an index_error: ") + e.what();
  }
  return "no error";
}

// Valid indices first (so a writer without the check would have written them), the bad one last.
std::vector<std::int64_t> indices_then(std::int64_t bad, std::int64_t n, std::size_t count) {
  std::vector<std::int64_t> v = nd::testing::uniform_integers<std::int64_t>(count, -n, n - 1);
  v.push_back(bad);
  return v;
}

TEST(IndexingSizedGpu, OutOfRangeWritesLeaveTheDestinationUnchanged) {
  NDCUDA_REQUIRE_GPU();
  const nd::index_t r = 64, c = 8;
  const auto a =
      nd::asarray<float>(nd::testing::uniform_values<float>(static_cast<std::size_t>(r * c), -1.0, 1.0), {r, c});
  const std::vector<std::uint32_t> before = bits(a);
  const auto expect_untouched = [&](const std::function<void()>& write, const std::string& text) {
    EXPECT_EQ(error_text(write), text);
    EXPECT_EQ(bits(a), before) << "after: " << text;
  };
  const std::vector<std::int64_t> rows = indices_then(r + 3, r, 50);
  const auto vals =
      nd::asarray<float>(nd::testing::uniform_values<float>(rows.size() * static_cast<std::size_t>(c), -1.0, 1.0),
                         {static_cast<nd::index_t>(rows.size()), c});
  // a(idx) = v (values and a scalar), and the compound a(idx) += v.
  expect_untouched([&] { a(rows) = vals; }, "index 67 is out of bounds for axis 0 with size 64");
  expect_untouched([&] { a(nd::asarray<std::int64_t>(rows)) = 5.0f; },
                   "index 67 is out of bounds for axis 0 with size 64");
  expect_untouched([&] { a(rows) += 1.0f; }, "index 67 is out of bounds for axis 0 with size 64");
  // Mixed basic and advanced: a slice then an int32 index array on axis 1.
  const std::vector<std::int64_t> cols64 = indices_then(-c - 1, c, 30);
  const auto cols = nd::asarray<std::int32_t>(std::vector<std::int32_t>(cols64.begin(), cols64.end()));
  expect_untouched([&] { a(nd::slice(2, 40), cols) = 3.0f; }, "index -9 is out of bounds for axis 1 with size 8");
  // Two index arrays, the second one bad.
  const std::vector<std::int64_t> i2 = indices_then(0, r, 30);
  expect_untouched([&] { a(i2, cols) = -1.0f; }, "index -9 is out of bounds for axis 1 with size 8");
  // put (flat positions), also on a non-contiguous view.
  const std::vector<std::int64_t> flat = indices_then(r * c, r * c, 100);
  expect_untouched([&] { nd::put(a, flat, nd::asarray<float>(nd::testing::uniform_values<float>(7, -1.0, 1.0))); },
                   "index 512 is out of bounds for axis 0 with size 512");
  expect_untouched([&] { nd::put(a.T(), flat, 2.0f); }, "index 512 is out of bounds for axis 0 with size 512");
  // put_along_axis along axis 1.
  std::vector<std::int64_t> along = indices_then(0, c, static_cast<std::size_t>(r * 3 - 1));
  along[static_cast<std::size_t>(r * 3 / 2)] = c;  // one bad index in the middle
  const auto along_idx = nd::asarray<std::int64_t>(along, {r, 3});
  expect_untouched([&] { nd::put_along_axis(a, along_idx, 4.0f, 1); },
                   "index 8 is out of bounds for axis 1 with size 8");
  // add_at and friends: no atomic may have landed.
  expect_untouched([&] { nd::add_at(a, rows, 1.0f); }, "index 67 is out of bounds for axis 0 with size 64");
  expect_untouched([&] { nd::maximum_at(a(nd::all, cols), 100.0f); },
                   "index -9 is out of bounds for axis 1 with size 8");
  // An int32 destination through add_at with a host index list.
  const std::vector<std::int64_t> bins = indices_then(-11, 10, 200);
  const auto counts = nd::zeros<std::int32_t>({10});
  EXPECT_EQ(error_text([&] { nd::add_at(counts, bins, 1); }), "index -11 is out of bounds for axis 0 with size 10");
  EXPECT_EQ(counts.to_host(), std::vector<std::int32_t>(10, 0));
  // The valid form still writes, after the check.
  std::vector<std::int64_t> good(rows.begin(), rows.end() - 1);
  a(good) = 0.0f;
  const std::vector<float> after = a.to_host();
  for (std::int64_t i : good) {
    const auto row = static_cast<std::size_t>(i < 0 ? i + r : i);
    for (std::size_t j = 0; j < static_cast<std::size_t>(c); ++j) {
      EXPECT_EQ(after[row * static_cast<std::size_t>(c) + j], 0.0f);
    }
  }
}

}  // namespace
