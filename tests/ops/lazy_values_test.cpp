// Lazy values read like arrays (issue 36): an expression and a reduction answer shape, ndim, size,
// type(), device and stream without computing anything, and item(), a conversion, indexing,
// reshape, transpose and copy compute them once and give what the array would. Host checks on
// fake arrays (nothing launched); GPU checks against host references in double precision.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ndcuda/ndcuda.hpp>
#include <sstream>
#include <vector>

#include "support/counted_pool.hpp"
#include "support/fake_array.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

using nd::testing::fake;

// The array and the lazy spellings answer type() alike: a static constexpr function on both.
static_assert(nd::ndarray<float>::type() == nd::dtype::float32);
static_assert(decltype(std::declval<nd::ndarray<float>>() * 2.0)::type() == nd::dtype::float32);
static_assert(decltype(nd::sum(std::declval<nd::ndarray<std::int8_t>>()))::type() == nd::dtype::int64);

// The host reference of a row-major m x n matrix's column sums.
std::vector<double> column_sums(const std::vector<float>& v, std::size_t m, std::size_t n) {
  std::vector<double> s(n, 0.0);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      s[j] += v[i * n + j];
    }
  }
  return s;
}

}  // namespace

TEST(LazyValues, ShapesAndDtypesAreKnownWithoutComputing) {
  const auto a = fake<float>({3, 1, 5});
  const auto b = fake<float>({4, 1});
  const auto e = a * 2.0F + b;  // broadcast to (3, 4, 5)
  EXPECT_EQ(e.shape(), (nd::shape_t{3, 4, 5}));
  EXPECT_EQ(e.ndim(), 3);
  EXPECT_EQ(e.size(), 60);
  EXPECT_EQ(e.type(), nd::dtype::float32);
  EXPECT_EQ(e.device(), a.device());
  EXPECT_EQ(&e.stream(), &std::get<0>(std::get<0>(e.args).args).array.stream());
  const auto r = nd::sum(a, 0);
  EXPECT_EQ(r.shape(), (nd::shape_t{1, 5}));
  EXPECT_EQ(r.ndim(), 2);
  EXPECT_EQ(r.size(), 5);
  EXPECT_EQ(r.type(), nd::dtype::float32);
  const auto mixed = (a - nd::mean(a, 2, nd::keepdims)).astype<double>();
  EXPECT_EQ(mixed.shape(), (nd::shape_t{3, 1, 5}));
  EXPECT_EQ(mixed.type(), nd::dtype::float64);
}

TEST(LazyValues, ItemConversionsIndexingAndViewsEqualTheArraysOnTheGpu) {
  NDCUDA_REQUIRE_GPU();
  constexpr std::size_t m = 7;
  constexpr std::size_t n = 9;
  const std::vector<float> host = nd::testing::uniform_values<float>(m * n, -2.0, 2.0);
  const nd::ndarray<float> x = nd::asarray(host, {m, n});

  // item() and static_cast of a 0-d expression of a reduction (NumPy: float(np.sum(x) / n)).
  double total = 0.0;
  for (float v : host) {
    total += v;
  }
  const double mean_want = total / static_cast<double>(m * n);
  EXPECT_NEAR((nd::sum(x) / static_cast<float>(m * n)).item(), mean_want, 1e-5);
  EXPECT_NEAR(static_cast<double>(nd::sum(x) / static_cast<float>(m * n)), mean_want, 1e-5);
  EXPECT_NEAR(static_cast<double>(nd::sum(x)), total, 1e-3);
  EXPECT_THROW((void)static_cast<double>(x * 2.0F), nd::error);  // 63 elements: not one value

  // Indexing a reduction: the column sums with a new axis, and a mask over them.
  const std::vector<double> sums = column_sums(host, m, n);
  const nd::ndarray<float> col = nd::sum(x, 0)(nd::all, nd::newaxis);
  ASSERT_EQ(col.shape(), (nd::shape_t{n, 1}));
  const std::vector<float> got = col.to_host();
  for (std::size_t j = 0; j < n; ++j) {
    EXPECT_NEAR(got[j], sums[j], 1e-4) << j;
  }
  const auto positive = nd::sum(x, 0)(nd::sum(x, 0) > 0.0F).to_host();
  std::vector<double> want_positive;
  for (double s : sums) {
    if (s > 0) {
      want_positive.push_back(s);
    }
  }
  ASSERT_EQ(positive.size(), want_positive.size());
  for (std::size_t k = 0; k < positive.size(); ++k) {
    EXPECT_NEAR(positive[k], want_positive[k], 1e-4);
  }

  // Slicing, reshape, transpose, copy and ravel of an expression.
  const auto z = x * 3.0F - 1.0F;
  // NVRTC may contract x * 3 - 1 into one FMA, which near x = 1/3 differs from two roundings by
  // more than 4 ulps of the small result: the bound is an ulp of the operands (|3x| <= 6).
  constexpr double fma_tol = 6.0 * 1.2e-7;
  const std::vector<float> row2 = z(2, nd::all).to_host();
  for (std::size_t j = 0; j < n; ++j) {
    EXPECT_NEAR(row2[j], host[2 * n + j] * 3.0 - 1.0, fma_tol);
  }
  const std::vector<float> t = z.T().copy().to_host();
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      EXPECT_NEAR(t[j * m + i], host[i * n + j] * 3.0 - 1.0, fma_tol);
    }
  }
  EXPECT_EQ(z.reshape({n, m}).shape(), (nd::shape_t{n, m}));
  EXPECT_EQ(z.ravel().shape(), (nd::shape_t{m * n}));
  const std::vector<float> flat = z.flatten().to_host();
  for (std::size_t k = 0; k < m * n; ++k) {
    EXPECT_NEAR(flat[k], host[k] * 3.0 - 1.0, fma_tol);
  }
}

TEST(LazyValues, ReductionsWrittenIntoAnArrayAllocateNothingOnTheGpu) {
  NDCUDA_REQUIRE_GPU();
  constexpr std::size_t rows = 4096;
  constexpr std::size_t cols = 96;
  const std::vector<float> host = nd::testing::uniform_values<float>(rows * cols, -1.0, 1.0);
  const nd::ndarray<float> a = nd::asarray(host, {rows, cols});
  std::vector<double> row_sums(rows, 0.0);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      row_sums[i] += static_cast<double>(host[i * cols + j]) * 2.0;
    }
  }
  nd::ndarray<float> c = nd::empty<float>({rows}, a.stream());
  nd::ndarray<float> k = nd::empty<float>({rows, 1}, a.stream());
  // Compiled first: a first call on tier 0 maps into a temporary buffer (docs/jit.md).
  c(nd::ellipsis) = nd::sum(a * 2.0F, 1);
  k.assign(nd::sum(a * 2.0F, 1, nd::keepdims));
  nd::jit::wait_all();
  a.stream().synchronize();
  {
    const nd::testing::counted_pool counted;
    const nd::memory_stats before = counted.pool->stats();
    c(nd::ellipsis) = nd::sum(a * 2.0F, 1);  // straight into c's memory
    k.assign(nd::sum(a * 2.0F, 1, nd::keepdims));
    c.stream().synchronize();
    EXPECT_EQ(counted.pool->stats().allocation_count, before.allocation_count);
  }
  const std::vector<float> got = c.to_host();
  const std::vector<float> got_keep = k.to_host();
  for (std::size_t i = 0; i < rows; ++i) {
    EXPECT_NEAR(got[i], row_sums[i], 1e-3) << i;
    EXPECT_NEAR(got_keep[i], row_sums[i], 1e-3) << i;
  }
  // A target that overlaps the operand (its first column) still gets the right values: the
  // reduction goes through a temporary there.
  nd::ndarray<float> b = a.copy();
  b(nd::all, 0) = nd::sum(b, 1);
  const std::vector<float> first = b(nd::all, 0).copy().to_host();
  for (std::size_t i = 0; i < rows; ++i) {
    EXPECT_NEAR(first[i], row_sums[i] / 2.0, 1e-3) << i;
  }
}

TEST(LazyValues, ScansWrittenIntoAnArraySaveTheirResultBufferOnTheGpu) {
  NDCUDA_REQUIRE_GPU();
  constexpr std::size_t rows = 513;
  constexpr std::size_t cols = 77;
  const std::vector<float> host = nd::testing::uniform_values<float>(rows * cols, -1.0, 1.0);
  const nd::ndarray<float> a = nd::asarray(host, {rows, cols});
  std::vector<double> along_rows(rows * cols);
  std::vector<double> flat(rows * cols);
  double total = 0.0;
  for (std::size_t i = 0; i < rows; ++i) {
    double run = 0.0;
    for (std::size_t j = 0; j < cols; ++j) {
      run += host[i * cols + j];
      total += host[i * cols + j];
      along_rows[i * cols + j] = run;
      flat[i * cols + j] = total;
    }
  }
  nd::ndarray<float> c = nd::empty<float>({rows, cols}, a.stream());
  nd::ndarray<float> f = nd::empty<float>({rows * cols}, a.stream());
  a.stream().synchronize();
  std::uint64_t as_new_array = 0;
  std::uint64_t into_target = 0;
  {
    const nd::testing::counted_pool counted;
    const nd::memory_stats before = counted.pool->stats();
    const nd::ndarray<float> fresh = nd::cumsum(a, 1);
    fresh.stream().synchronize();
    const nd::memory_stats middle = counted.pool->stats();
    c(nd::ellipsis) = nd::cumsum(a, 1);  // the scan writes into c
    f.assign(nd::cumsum(a));
    c.stream().synchronize();
    as_new_array = middle.allocation_count - before.allocation_count;
    into_target = (counted.pool->stats().allocation_count - middle.allocation_count) / 2;
  }
  EXPECT_EQ(into_target + 1, as_new_array) << "a scan into an array must not allocate its result";
  const std::vector<float> got = c.to_host();
  const std::vector<float> got_flat = f.to_host();
  for (std::size_t k = 0; k < rows * cols; ++k) {
    EXPECT_NEAR(got[k], along_rows[k], 1e-4 * (1.0 + std::abs(along_rows[k]))) << k;
    EXPECT_NEAR(got_flat[k], flat[k], 2e-3 * (1.0 + std::abs(flat[k]))) << k;
  }
  // A target that is the operand (in place) or strided still gets NumPy's values, via a temporary.
  nd::ndarray<float> b = a.copy();
  b(nd::ellipsis) = nd::cumsum(b, 1);
  nd::ndarray<float> wide = nd::zeros<float>({rows, 2 * cols}, a.stream());
  wide(nd::all, nd::slice(0, nd::none, 2)) = nd::cumsum(a, 1);
  const std::vector<float> in_place = b.to_host();
  const std::vector<float> strided = wide.to_host();
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      EXPECT_NEAR(in_place[i * cols + j], along_rows[i * cols + j], 1e-4 * (1.0 + std::abs(along_rows[i * cols + j])));
      EXPECT_NEAR(strided[i * 2 * cols + 2 * j], along_rows[i * cols + j],
                  1e-4 * (1.0 + std::abs(along_rows[i * cols + j])));
      EXPECT_EQ(strided[i * 2 * cols + 2 * j + 1], 0.0F);
    }
  }
  // A scan is an operand like any lazy value, and reports its shape without running.
  EXPECT_EQ(nd::cumsum(a).shape(), (nd::shape_t{rows * cols}));
  EXPECT_NEAR((nd::cumsum(a, 1) * 2.0F)(rows - 1, cols - 1).item(), 2.0 * along_rows.back(), 1e-3);
}

TEST(LazyValues, ShapesPrintAsNumpyWithoutComputing) {
  const auto a = fake<float>({3, 1, 5});
  std::ostringstream os;
  os << (a * 2.0F).shape() << ' ' << nd::sum(a, 1).shape() << ' ' << nd::shape_t{} << ' ' << nd::shape_t{5};
  EXPECT_EQ(os.str(), "(3, 1, 5) (3, 5) () (5,)");
}

// The conversion rule (docs/differences-from-numpy.md): same_kind conversions of a lazy value stay
// implicit; across kinds astype<T>() spells the cast (the refusal: compile_fail's
// unsafe_cast_from_lazy_value).
TEST(LazyValues, SameKindConversionsAreImplicitAndUnsafeOnesSpelledOnTheGpu) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<double> host = nd::testing::uniform_values<double>(1000, -50.0, 50.0);
  const nd::ndarray<double> d = nd::asarray(host, {1000});
  const nd::ndarray<float> narrowed = d * 2.0;  // float64 -> float32: same_kind
  nd::ndarray<std::int32_t> truncated = (d * 2.5).astype<std::int32_t>();
  const nd::ndarray<std::int64_t> counts = nd::asarray(std::vector<std::int64_t>{5, -7, 1 << 20}, {3});
  nd::ndarray<std::int32_t> smaller = counts * 3;  // int64 -> int32: same_kind
  truncated = (d * 2.5).astype<std::int32_t>();    // rebinding: the same rule
  const std::vector<float> got = narrowed.to_host();
  const std::vector<std::int32_t> got_int = truncated.to_host();
  for (std::size_t i = 0; i < host.size(); ++i) {
    EXPECT_EQ(got[i], static_cast<float>(host[i] * 2.0)) << i;
    EXPECT_EQ(got_int[i], static_cast<std::int32_t>(host[i] * 2.5)) << i;  // C's truncation, as NumPy's astype
  }
  EXPECT_EQ(smaller.to_host(), (std::vector<std::int32_t>{15, -21, 3 << 20}));
}

// A braced list may mix arrays and lazy values of one element type (NumPy takes any sequence of
// array-likes): each entry refers to its value, an array's entry shares the array's buffer.
TEST(LazyValues, BracedListEntriesReferToTheirValuesWithoutComputing) {
  const auto a = fake<float>({2, 3});
  const auto b = fake<float>({2, 3});
  const std::vector<nd::ndarray<float>> values = nd::detail::values_of<float>({a, b, a});
  ASSERT_EQ(values.size(), 3U);
  EXPECT_EQ(values[0].data(), a.data());
  EXPECT_EQ(values[1].data(), b.data());
  EXPECT_EQ(values[2].data(), a.data());
}

TEST(LazyValues, BracedListsMixArraysExpressionsAndReductionsOnTheGpu) {
  NDCUDA_REQUIRE_GPU();
  constexpr std::size_t n = 37;
  const std::vector<float> host = nd::testing::uniform_values<float>(n, -3.0, 3.0);
  const nd::ndarray<float> t = nd::asarray(host, {n});

  // np.stack([np.ones_like(t), t, t * t], 1): the Vandermonde columns.
  const nd::ndarray<float> v = nd::stack({nd::ones_like(t), t, t * t}, 1);
  ASSERT_EQ(v.shape(), (nd::shape_t{n, 3}));
  const std::vector<float> got_v = v.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(got_v[i * 3], 1.0F) << i;
    EXPECT_EQ(got_v[i * 3 + 1], host[i]) << i;
    EXPECT_NEAR(got_v[i * 3 + 2], double(host[i]) * host[i], 1e-6 * (1.0 + double(host[i]) * host[i])) << i;
  }

  // np.concatenate([t * 2, t, [t.sum()]]): an expression, an array and a reduction (reshaped).
  double total = 0.0;
  for (float x : host) {
    total += x;
  }
  const nd::ndarray<float> c = nd::concatenate({t * 2.0F, t, nd::sum(t, 0, nd::keepdims)});
  ASSERT_EQ(c.shape(), (nd::shape_t{2 * n + 1}));
  const std::vector<float> got_c = c.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(got_c[i], host[i] * 2.0F) << i;
    EXPECT_EQ(got_c[n + i], host[i]) << i;
  }
  EXPECT_NEAR(got_c[2 * n], total, 1e-4);

  // hstack/vstack, and lexsort with an expression key: keys (-t, t > 0) sort by sign, then by -t.
  EXPECT_EQ(nd::vstack({t, t + 1.0F}).shape(), (nd::shape_t{2, n}));
  EXPECT_EQ(nd::hstack({t - 1.0F, t}).to_host()[n], host[0]);
  const std::vector<std::int64_t> order = nd::lexsort({-t, (t > 0.0F).astype<float>()}).to_host();
  std::vector<std::int64_t> want(n);
  for (std::size_t i = 0; i < n; ++i) {
    want[i] = static_cast<std::int64_t>(i);
  }
  std::stable_sort(want.begin(), want.end(), [&](std::int64_t i, std::int64_t j) {
    const bool pi = host[i] > 0.0F;
    const bool pj = host[j] > 0.0F;
    return pi != pj ? pj : -host[i] < -host[j];
  });
  EXPECT_EQ(order, want);
}

// An advanced-index read is a lazy value too (NumPy: a[mask].sum(), a[idx] * 2, a[idx].shape):
// operators, reductions and functions take it, and it answers the array interface.
TEST(LazyValues, IndexReadsAreOperandsAndAnswerTheArrayInterfaceOnTheGpu) {
  NDCUDA_REQUIRE_GPU();
  constexpr std::size_t n = 41;
  const std::vector<float> host = nd::testing::uniform_values<float>(n, -5.0, 5.0);
  const nd::ndarray<float> a = nd::asarray(host, {n});
  const std::vector<std::int64_t> picks{3, 0, 40, 3, 17};
  const nd::ndarray<std::int64_t> idx = nd::asarray(picks, {static_cast<nd::index_t>(picks.size())});

  std::vector<float> positive;
  double positive_sum = 0.0;
  for (float v : host) {
    if (v > 0.0F) {
      positive.push_back(v);
      positive_sum += v;
    }
  }
  const auto mask = a > 0.0F;
  EXPECT_NEAR(nd::sum(a(mask)).item(), positive_sum, 1e-4);
  EXPECT_NEAR(static_cast<double>(nd::mean(a(mask))), positive_sum / double(positive.size()), 1e-5);
  EXPECT_EQ(a(mask).shape(), (nd::shape_t{static_cast<nd::index_t>(positive.size())}));
  EXPECT_EQ(a(mask).size(), static_cast<nd::index_t>(positive.size()));
  EXPECT_EQ(a(mask).to_host(), positive);

  const std::vector<float> doubled = (a(idx) * 2.0F).to_host();
  const std::vector<float> sorted = nd::sort(a(idx)).to_host();
  std::vector<float> want_sorted;
  for (std::size_t k = 0; k < picks.size(); ++k) {
    EXPECT_EQ(doubled[k], host[static_cast<std::size_t>(picks[k])] * 2.0F) << k;
    want_sorted.push_back(host[static_cast<std::size_t>(picks[k])]);
  }
  std::sort(want_sorted.begin(), want_sorted.end());
  EXPECT_EQ(sorted, want_sorted);
  EXPECT_EQ(a(idx).ndim(), 1);
  EXPECT_EQ(a(idx).type(), nd::dtype::float32);
  EXPECT_EQ(a(idx)(1).item(), host[0]);
  EXPECT_EQ(a(idx).astype<double>().to_host()[2], double(host[40]));
  EXPECT_EQ(nd::stack({a(idx), a(idx) + 1.0F}).shape(), (nd::shape_t{2, static_cast<nd::index_t>(picks.size())}));

  // A named proxy reads a when asked, as an expression does.
  nd::ndarray<float> b = a.copy();
  const auto p = b(idx);
  b(idx) = 7.0F;
  EXPECT_EQ(p.to_host(), std::vector<float>(picks.size(), 7.0F));
}
