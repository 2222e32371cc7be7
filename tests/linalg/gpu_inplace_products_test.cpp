// Products written into existing arrays (issue 36): `c(nd::ellipsis) = nd::matmul(a, b)`, its
// assign() spelling and the fused epilogue form are cuBLAS(Lt) writing into c's memory, so the pool
// counts no allocation; targets that cannot take the product directly (overlapping an operand,
// strided, of another dtype, batched with broadcasting) still get NumPy's values. References are
// host products in double precision of fresh random inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ndcuda/linalg.hpp>
#include <vector>

#include "support/counted_pool.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

// Row-major (m, k) @ (k, n) in double.
std::vector<double> host_matmul(const std::vector<float>& a, const std::vector<float>& b, std::size_t m, std::size_t k,
                                std::size_t n) {
  std::vector<double> c(m * n, 0.0);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t p = 0; p < k; ++p) {
      for (std::size_t j = 0; j < n; ++j) {
        c[i * n + j] += static_cast<double>(a[i * k + p]) * static_cast<double>(b[p * n + j]);
      }
    }
  }
  return c;
}

template <class T>
void expect_close(const std::vector<T>& got, const std::vector<double>& want, double tol, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(static_cast<double>(got[i]), want[i], tol) << what << " at " << i;
  }
}

constexpr std::size_t m = 96;
constexpr std::size_t k = 40;
constexpr std::size_t n = 72;
constexpr double tol = 1e-4 * k;  // float32 accumulation of k products of values in [-1, 1)

}  // namespace

TEST(InplaceProductsGpu, MatmulIntoAnArrayAllocatesNothing) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<float> ha = nd::testing::uniform_values<float>(m * k, -1.0, 1.0);
  const std::vector<float> hb = nd::testing::uniform_values<float>(k * n, -1.0, 1.0);
  const std::vector<float> hbias = nd::testing::uniform_values<float>(n, -1.0, 1.0);
  const std::vector<double> want = host_matmul(ha, hb, m, k, n);
  std::vector<double> want_relu(want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    want_relu[i] = std::max(0.0, want[i] + static_cast<double>(hbias[i % n]));
  }
  const nd::ndarray<float> a = nd::asarray(ha, {m, k});
  const nd::ndarray<float> b = nd::asarray(hb, {k, n});
  const nd::ndarray<float> bias = nd::asarray(hbias, {n});
  nd::ndarray<float> c = nd::full<float>({m, n}, 7.0F, a.stream());
  nd::ndarray<float> d = nd::full<float>({m, n}, 7.0F, a.stream());
  nd::ndarray<float> e = nd::full<float>({m, n}, 7.0F, a.stream());
  // The first call of each creates cuBLAS(Lt) handles and workspaces, once per device: not counted.
  c(nd::ellipsis) = nd::matmul(a, b);
  e(nd::ellipsis) = nd::maximum(nd::matmul(a, b) + bias, 0.0F);
  c(nd::ellipsis) = 7.0F;
  a.stream().synchronize();
  // Each cuBLAS(Lt) call takes its scratch workspace from the pool, stream-ordered (one pool
  // allocation per call, none of them the result). So the count that matters is against the same
  // products made as new arrays: a write into c must allocate exactly one fewer per product.
  std::int64_t as_new_arrays = 0;
  {
    const nd::testing::counted_pool counted;
    const nd::memory_stats before = counted.pool->stats();
    nd::ndarray<float> c2 = nd::matmul(a, b);
    nd::ndarray<float> d2 = nd::matmul(a, b);
    nd::ndarray<float> e2 = nd::maximum(nd::matmul(a, b) + bias, 0.0F);
    a.stream().synchronize();
    as_new_arrays = static_cast<std::int64_t>(counted.pool->stats().allocation_count - before.allocation_count);
  }
  {
    const nd::testing::counted_pool counted;
    const nd::memory_stats before = counted.pool->stats();
    c(nd::ellipsis) = nd::matmul(a, b);
    d.assign(nd::matmul(a, b));
    e(nd::ellipsis) = nd::maximum(nd::matmul(a, b) + bias, 0.0F);  // one cuBLASLt call with its epilogue
    a.stream().synchronize();
    EXPECT_EQ(static_cast<std::int64_t>(counted.pool->stats().allocation_count - before.allocation_count),
              as_new_arrays - 3)
        << "a product written into an array must allocate no result";
  }
  expect_close(c.to_host(), want, tol, "c(ellipsis) = matmul");
  expect_close(d.to_host(), want, tol, "d.assign(matmul)");
  expect_close(e.to_host(), want_relu, tol, "relu epilogue");
}

TEST(InplaceProductsGpu, TargetsThatCannotTakeTheProductDirectlyStillGetNumpysValues) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<float> ha = nd::testing::uniform_values<float>(m * k, -1.0, 1.0);
  const std::vector<float> hb = nd::testing::uniform_values<float>(k * n, -1.0, 1.0);
  const std::vector<double> want = host_matmul(ha, hb, m, k, n);
  const nd::ndarray<float> a = nd::asarray(ha, {m, k});
  const nd::ndarray<float> b = nd::asarray(hb, {k, n});
  // Strided: every other column of a wider array.
  nd::ndarray<float> wide = nd::zeros<float>({m, 2 * n}, a.stream());
  wide(nd::all, nd::slice(0, nd::none, 2)) = nd::matmul(a, b);
  expect_close(wide(nd::all, nd::slice(0, nd::none, 2)).copy().to_host(), want, tol, "strided target");
  // Another dtype: float64 target of a float32 product (converted as NumPy's out= would).
  nd::ndarray<double> wider = nd::zeros<double>({m, n}, a.stream());
  wider(nd::ellipsis) = nd::matmul(a, b);
  expect_close(wider.to_host(), want, tol, "float64 target");
  // Broadcast: one row of the product into a (2, m, n) target.
  nd::ndarray<float> twice = nd::zeros<float>({2, m, n}, a.stream());
  twice(nd::ellipsis) = nd::matmul(a, b);
  std::vector<double> want_twice = want;
  want_twice.insert(want_twice.end(), want.begin(), want.end());
  expect_close(twice.to_host(), want_twice, tol, "broadcast target");
  // Overlapping an operand: s = s @ t reads s while the product is written, so it goes through a
  // temporary and must equal the product of the old s.
  const std::vector<float> hs = nd::testing::uniform_values<float>(k * k, -1.0, 1.0);
  const std::vector<float> ht = nd::testing::uniform_values<float>(k * k, -1.0, 1.0);
  nd::ndarray<float> s = nd::asarray(hs, {k, k});
  const nd::ndarray<float> t = nd::asarray(ht, {k, k});
  s(nd::ellipsis) = nd::matmul(s, t);
  expect_close(s.to_host(), host_matmul(hs, ht, k, k, k), tol, "overlapping target");
  // Integers: the exact kernel writes into the target as well.
  std::vector<std::int32_t> ia(m * k);
  std::vector<std::int32_t> ib(k * n);
  for (std::size_t i = 0; i < ia.size(); ++i) {
    ia[i] = static_cast<std::int32_t>(ha[i] * 100.0F);
  }
  for (std::size_t i = 0; i < ib.size(); ++i) {
    ib[i] = static_cast<std::int32_t>(hb[i] * 100.0F);
  }
  std::vector<double> want_int(m * n, 0.0);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t p = 0; p < k; ++p) {
      for (std::size_t j = 0; j < n; ++j) {
        want_int[i * n + j] += static_cast<double>(ia[i * k + p]) * static_cast<double>(ib[p * n + j]);
      }
    }
  }
  nd::ndarray<std::int32_t> ci = nd::zeros<std::int32_t>({m, n}, a.stream());
  ci(nd::ellipsis) = nd::matmul(nd::asarray(ia, {m, k}), nd::asarray(ib, {k, n}));
  expect_close(ci.to_host(), want_int, 0.0, "int32 product");
  // Batched, with b broadcast over the batch: (3, m, k) @ (k, n) into (3, m, n).
  std::vector<float> h3 = ha;
  for (int copy = 1; copy < 3; ++copy) {
    for (float v : ha) {
      h3.push_back(v * static_cast<float>(copy + 1));
    }
  }
  nd::ndarray<float> c3 = nd::zeros<float>({3, m, n}, a.stream());
  c3(nd::ellipsis) = nd::matmul(nd::asarray(h3, {3, m, k}), b);
  std::vector<double> want3;
  for (int copy = 0; copy < 3; ++copy) {
    for (double v : want) {
      want3.push_back(v * (copy + 1));
    }
  }
  expect_close(c3.to_host(), want3, 3 * tol, "batched product");
}
