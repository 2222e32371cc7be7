// nd::linalg's solvers on the GPU, checked through identities computed on the host in
// complex<double> (a @ x = b, L L^H = a, Q R = a, U S Vh = a, a v = v w, ...) and against a host
// LU for det/slogdet, on fresh random, well-conditioned input (random + n I).
// Tolerances: float32/complex64 2e-3, float64/complex128 1e-9, relative to the norms involved.
#include <gtest/gtest.h>

#include <complex>
#include <ndcuda/linalg.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "linalg/gpu_support.hpp"

namespace nd = ndcuda;
using nd::testing::cd;
using nd::testing::host_values;
using nd::testing::random_array;

namespace {

template <class T>
double tol() {
  return std::is_same_v<T, float> || std::is_same_v<T, std::complex<float>> ? 2e-3 : 1e-9;
}

/// Well-conditioned square matrices: random values + n on the diagonal.
template <class T>
nd::ndarray<T> well_conditioned(const nd::shape_t& batch, nd::index_t n) {
  nd::shape_t shape = batch;
  shape.push_back(n);
  shape.push_back(n);
  auto a = random_array<T>(shape);
  nd::ndarray<T> eye = nd::eye<T>(n);
  return nd::ndarray<T>(a + eye * nd::testing::from_cd<T>(cd(static_cast<double>(n), 0)));
}

/// Hermitian positive definite: m m^H + n I.
template <class T>
nd::ndarray<T> positive_definite(const nd::shape_t& batch, nd::index_t n) {
  nd::shape_t shape = batch;
  shape.push_back(n);
  shape.push_back(n);
  const auto m = random_array<T>(shape);
  nd::ndarray<T> mh = nd::conj(m.swapaxes(-1, -2));
  nd::ndarray<T> p = nd::matmul(m, mh);
  nd::ndarray<T> eye = nd::eye<T>(n);
  return nd::ndarray<T>(p + eye * nd::testing::from_cd<T>(cd(static_cast<double>(n), 0)));
}

/// max |x - y| / (1 + max |y|) over two same-shaped arrays.
template <class X, class Y>
double rel_diff(const nd::ndarray<X>& x, const nd::ndarray<Y>& y) {
  EXPECT_EQ(x.shape(), y.shape());
  const auto hx = host_values(x), hy = host_values(y);
  double d = 0, m = 0;
  for (std::size_t i = 0; i < hx.size() && i < hy.size(); ++i) {
    d = std::max(d, std::abs(hx[i] - hy[i]));
    m = std::max(m, std::abs(hy[i]));
  }
  return d / (1 + m);
}

template <class T>
nd::ndarray<T> herm(const nd::ndarray<T>& a) {
  return nd::ndarray<T>(nd::conj(a.swapaxes(-1, -2)));
}

template <class T>
class SolverTyped : public ::testing::Test {};
using solver_types = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(SolverTyped, solver_types);

TYPED_TEST(SolverTyped, SolveInvDetSlogdet) {
  NDCUDA_REQUIRE_GPU();
  using T = TypeParam;
  const auto a = well_conditioned<T>({3}, 17);
  const auto b = random_array<T>({3, 17, 4});
  const auto x = nd::linalg::solve(a, b);
  ASSERT_EQ(x.shape(), (nd::shape_t{3, 17, 4}));
  EXPECT_LT(rel_diff(nd::ndarray<T>(nd::matmul(a, x)), b), tol<T>());
  // A vector b broadcast against the batch; a transposed view as a.
  const auto v = random_array<T>({17});
  const auto at = a.swapaxes(-1, -2);
  const auto xv = nd::linalg::solve(at, v);
  ASSERT_EQ(xv.shape(), (nd::shape_t{3, 17}));
  // NumPy's matmul reads the (3, 17) result as one matrix, so each row goes back as a column.
  const nd::ndarray<T> back = nd::matmul(at, xv.expand_dims({2}));
  EXPECT_LT(rel_diff(back.reshape({3, 17}), nd::ndarray<T>(v.broadcast_to({3, 17}).copy())), tol<T>());
  // Matrices above the batched-LU limit (64) go through cuSOLVER one at a time.
  const auto big = well_conditioned<T>({2}, 70);
  const auto big_b = random_array<T>({2, 70, 3});
  EXPECT_LT(rel_diff(nd::ndarray<T>(nd::matmul(big, nd::linalg::solve(big, big_b))), big_b), tol<T>());
  const auto ai = nd::linalg::inv(a);
  const nd::ndarray<T> eye = nd::eye<T>(17);
  EXPECT_LT(rel_diff(nd::ndarray<T>(nd::matmul(a, ai)), nd::ndarray<T>(eye.broadcast_to({3, 17, 17}).copy())),
            tol<T>());
  // det and slogdet against a host LU in double.
  const auto small = well_conditioned<T>({2}, 6);
  const auto det = host_values(nd::linalg::det(small));
  const auto [sign, logabs] = nd::linalg::slogdet(small);
  const auto hs = host_values(sign), hl = host_values(logabs);
  const auto hv = host_values(small);
  for (int z = 0; z < 2; ++z) {
    nd::testing::host_matrix m{6, 6, std::vector<cd>(hv.begin() + z * 36, hv.begin() + (z + 1) * 36)};
    const cd ref = nd::testing::host_det(m);
    EXPECT_LT(std::abs(det[static_cast<std::size_t>(z)] - ref), tol<T>() * std::abs(ref) * 10);
    EXPECT_LT(std::abs(hs[static_cast<std::size_t>(z)] * std::exp(hl[static_cast<std::size_t>(z)].real()) - ref),
              tol<T>() * std::abs(ref) * 10);
  }
}

TYPED_TEST(SolverTyped, CholeskyQrSvdEigh) {
  NDCUDA_REQUIRE_GPU();
  using T = TypeParam;
  using R = nd::linalg::detail::real_t<T>;
  const auto p = positive_definite<T>({2}, 9);
  const auto l = nd::linalg::cholesky(p);
  EXPECT_LT(rel_diff(nd::ndarray<T>(nd::matmul(l, herm(l))), p), tol<T>());
  const auto hl = host_values(l);
  for (int z = 0; z < 2; ++z)
    for (int i = 0; i < 9; ++i)
      for (int j = i + 1; j < 9; ++j) {
        EXPECT_EQ(hl[static_cast<std::size_t>((z * 9 + i) * 9 + j)], cd(0)) << "upper triangle of L";
      }
  const auto u = nd::linalg::cholesky(p, true);
  EXPECT_LT(rel_diff(nd::ndarray<T>(nd::matmul(herm(u), u)), p), tol<T>());
  // QR of tall and wide matrices in every mode.
  for (const auto& shape : {nd::shape_t{2, 12, 7}, nd::shape_t{7, 12}}) {
    const auto a = random_array<T>(shape);
    const nd::index_t m = shape[shape.size() - 2], n = shape.back(), k = std::min(m, n);
    const auto [q, r] = nd::linalg::qr(a);
    EXPECT_EQ(q.shape().back(), k);
    EXPECT_LT(rel_diff(nd::ndarray<T>(nd::matmul(q, r)), a), tol<T>());
    const nd::ndarray<T> eye_k = nd::eye<T>(k);
    EXPECT_LT(rel_diff(nd::ndarray<T>(nd::matmul(herm(q), q)),
                       nd::ndarray<T>(eye_k.broadcast_to(nd::matmul(herm(q), q).shape()).copy())),
              tol<T>());
    const auto [qc, rc] = nd::linalg::qr(a, nd::linalg::qr_mode::complete);
    EXPECT_EQ(qc.shape().back(), m);
    EXPECT_EQ(rc.shape()[rc.shape().size() - 2], m);
    EXPECT_LT(rel_diff(nd::ndarray<T>(nd::matmul(qc, rc)), a), tol<T>());
    const auto hr = host_values(rc);
    const nd::index_t batch = rc.size() / (m * n);
    for (nd::index_t z = 0; z < batch; ++z)
      for (nd::index_t i = 0; i < m; ++i)
        for (nd::index_t j = 0; j < std::min(i, n); ++j) {
          EXPECT_EQ(hr[static_cast<std::size_t>((z * m + i) * n + j)], cd(0)) << "below the diagonal of R";
        }
    // SVD, reduced and full: u diag(s) vh = a, s descending.
    const auto [su, ss, svh] = nd::linalg::svd(a, false);
    const nd::ndarray<T> us = su * nd::ndarray<T>(ss.template astype<T>()).expand_dims({-2});
    EXPECT_LT(rel_diff(nd::ndarray<T>(nd::matmul(us, svh)), a), tol<T>());
    const auto hs = host_values(ss);
    for (std::size_t i = 1; i < hs.size(); ++i) {
      if (static_cast<nd::index_t>(i) % k != 0) {
        EXPECT_GE(hs[i - 1].real(), hs[i].real() - 1e-6);
      }
    }
    const auto [fu, fs, fvh] = nd::linalg::svd(a, true);
    EXPECT_EQ(fu.shape().back(), m);
    EXPECT_EQ(fvh.shape().back(), n);
    EXPECT_EQ(fvh.shape()[fvh.shape().size() - 2], n);
    EXPECT_LT(rel_diff(nd::linalg::svdvals(a), fs), tol<T>());
  }
  // eigh: a v = v diag(w), ascending.
  const auto [w, vecs] = nd::linalg::eigh(p);
  const nd::ndarray<T> vw = vecs * nd::ndarray<T>(w.template astype<T>()).expand_dims({-2});
  EXPECT_LT(rel_diff(nd::ndarray<T>(nd::matmul(p, vecs)), vw), tol<T>() * 10);
  EXPECT_LT(rel_diff(nd::linalg::eigvalsh(p), w), tol<T>());
  const auto hw = host_values(w);
  for (std::size_t i = 1; i < hw.size(); ++i) {
    if (i % 9 != 0) {
      EXPECT_LE(hw[i - 1].real(), hw[i].real());
    }
  }
  (void)sizeof(R);
}

TYPED_TEST(SolverTyped, PinvLstsqRankNormsCond) {
  NDCUDA_REQUIRE_GPU();
  using T = TypeParam;
  using R = nd::linalg::detail::real_t<T>;
  const auto a = random_array<T>({11, 6});
  const auto pa = nd::linalg::pinv(a);
  ASSERT_EQ(pa.shape(), (nd::shape_t{6, 11}));
  const nd::ndarray<T> apa = nd::matmul(a, pa);
  EXPECT_LT(rel_diff(nd::ndarray<T>(nd::matmul(apa, a)), a), tol<T>() * 10);
  // Rank 1: an outer product.
  const auto r1 = nd::outer(random_array<T>({5}), random_array<T>({7}));
  EXPECT_EQ(nd::linalg::matrix_rank(r1).item(), 1);
  EXPECT_EQ(nd::linalg::matrix_rank(a).item(), 6);
  // lstsq of an overdetermined system equals the normal equations' solution.
  const auto b = random_array<T>({11});
  const auto res = nd::linalg::lstsq(a, b);
  EXPECT_EQ(res.rank, 6);
  const auto ah = herm(a);
  const nd::ndarray<T> aha = nd::matmul(ah, a);
  const nd::ndarray<T> ahb = nd::matmul(ah, b);
  EXPECT_LT(rel_diff(res.x, nd::linalg::solve(aha, ahb)), tol<T>() * 10);
  ASSERT_EQ(res.residuals.shape(), (nd::shape_t{1}));
  // Norms against host sums.
  const auto ha = host_values(a);
  double fro = 0, one = 0, inf = 0;
  std::vector<double> cols(6, 0.0);
  for (int i = 0; i < 11; ++i) {
    double row = 0;
    for (int j = 0; j < 6; ++j) {
      const double x = std::abs(ha[static_cast<std::size_t>(i * 6 + j)]);
      fro += x * x;
      row += x;
      cols[static_cast<std::size_t>(j)] += x;
    }
    inf = std::max(inf, row);
  }
  for (double c : cols) {
    one = std::max(one, c);
  }
  EXPECT_NEAR(static_cast<double>(nd::linalg::matrix_norm(a).item()), std::sqrt(fro), tol<T>() * std::sqrt(fro));
  EXPECT_NEAR(static_cast<double>(nd::linalg::norm(a).item()), std::sqrt(fro), tol<T>() * std::sqrt(fro));
  EXPECT_NEAR(static_cast<double>(nd::linalg::matrix_norm(a, "1").item()), one, tol<T>() * one);
  EXPECT_NEAR(static_cast<double>(nd::linalg::matrix_norm(a, "inf").item()), inf, tol<T>() * inf);
  const auto s = host_values(nd::linalg::svdvals(a));
  double nuc = 0;
  for (const cd& x : s) {
    nuc += x.real();
  }
  EXPECT_NEAR(static_cast<double>(nd::linalg::matrix_norm(a, "nuc").item()), nuc, tol<T>() * nuc);
  EXPECT_NEAR(static_cast<double>(nd::linalg::matrix_norm(a, 2.0).item()), s.front().real(), tol<T>() * nuc);
  const auto sq = well_conditioned<T>({}, 8);
  const auto sv = host_values(nd::linalg::svdvals(sq));
  EXPECT_NEAR(static_cast<double>(nd::linalg::cond(sq).item()), sv.front().real() / sv.back().real(),
              tol<T>() * 10 * sv.front().real() / sv.back().real());
  (void)sizeof(R);
}

TEST(Solvers, SingularAndNotPositiveDefiniteThrowNumPyWording) {
  NDCUDA_REQUIRE_GPU();
  // Two equal rows: singular.
  const auto singular = nd::asarray<double>({1, 2, 3, 1, 2, 3, 4, 5, 7}, {3, 3});
  try {
    (void)nd::linalg::inv(singular);
    ADD_FAILURE() << "inv of a singular matrix did not throw";
  } catch (const nd::linalg_error& e) {
    EXPECT_NE(std::string(e.what()).find("Singular matrix"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)nd::linalg::solve(singular, nd::asarray<double>({1, 2, 3})), nd::linalg_error);
  EXPECT_EQ(nd::linalg::det(singular).item(), 0.0);
  const auto [sign, logabs] = nd::linalg::slogdet(singular);
  EXPECT_EQ(sign.item(), 0.0);
  EXPECT_TRUE(std::isinf(logabs.item()) && logabs.item() < 0);
  // Indefinite: eigenvalues 3 and -1.
  const auto indefinite = nd::asarray<float>({1, 2, 2, 1}, {2, 2});
  try {
    (void)nd::linalg::cholesky(indefinite);
    ADD_FAILURE() << "cholesky of an indefinite matrix did not throw";
  } catch (const nd::linalg_error& e) {
    EXPECT_NE(std::string(e.what()).find("Matrix is not positive definite"), std::string::npos) << e.what();
  }
  // A stack of small matrices (batched Cholesky) names the failing one.
  const auto stack = nd::asarray<double>({4, 0, 0, 4, 1, 2, 2, 1}, {2, 2, 2});
  try {
    (void)nd::linalg::cholesky(stack);
    ADD_FAILURE() << "cholesky of a stack with an indefinite matrix did not throw";
  } catch (const nd::linalg_error& e) {
    EXPECT_NE(std::string(e.what()).find("Matrix is not positive definite (cholesky: matrix 1 of the batch of 2)"),
              std::string::npos)
        << e.what();
  }
  // One singular matrix in a batch names its index.
  const auto batch = nd::asarray<double>({2, 0, 0, 2, 1, 1, 1, 1}, {2, 2, 2});
  try {
    (void)nd::linalg::inv(batch);
    ADD_FAILURE() << "inv of a batch with a singular matrix did not throw";
  } catch (const nd::linalg_error& e) {
    EXPECT_NE(std::string(e.what()).find("matrix 1 of the batch of 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)nd::linalg::inv(random_array<double>({3, 4})), nd::linalg_error);  // not square
}

TEST(Solvers, IntegerInputComputesInFloat64AndEmptyBatches) {
  NDCUDA_REQUIRE_GPU();
  const auto a = nd::asarray<int>({4, 1, 2, 3}, {2, 2});
  const nd::ndarray<double> d = nd::linalg::det(a);
  EXPECT_NEAR(d.item(), 10.0, 1e-12);
  const auto e = nd::linalg::inv(random_array<double>({0, 3, 3}));
  EXPECT_EQ(e.shape(), (nd::shape_t{0, 3, 3}));
  // Matrices no routine visits leave their info codes at "no failure".
  EXPECT_EQ(nd::linalg::cholesky(random_array<double>({3, 0, 0})).shape(), (nd::shape_t{3, 0, 0}));
  EXPECT_EQ(
      nd::linalg::solve(random_array<double>({2, 4, 4}) + nd::eye<double>(4) * 4.0, random_array<double>({2, 4, 0}))
          .shape(),
      (nd::shape_t{2, 4, 0}));
  const auto z = nd::linalg::det(random_array<double>({4, 0, 0}));
  for (double x : z.to_host()) {
    EXPECT_EQ(x, 1.0);  // the empty product
  }
}

TEST(Solvers, CapturedInfoIsCheckedAfterReplay) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  nd::ndarray<double> a = nd::asarray<double>({2, 0, 0, 2}, {2, 2}, s);
  const nd::ndarray<double> b = nd::asarray<double>({1, 1}, {2}, s);
  nd::ndarray<double> x = nd::zeros<double>({2}, s);
  nd::linalg::clear_captured_info();
  // The first solver call on a device creates its cuSOLVER handle: do that outside the capture.
  (void)nd::linalg::solve(a, b);
  s.synchronize();
  nd::graph g = nd::capture(s, [&] { x(nd::ellipsis) = nd::linalg::solve(a, b); });
  g.launch(s);
  s.synchronize();
  EXPECT_NO_THROW(nd::linalg::check_captured_info());
  const auto hx = x.to_host();
  EXPECT_NEAR(hx[0], 0.5, 1e-12);
  // Make a singular in place, replay: the failure shows up in check_captured_info.
  a(nd::ellipsis) = 0.0;
  g.launch(s);
  s.synchronize();
  EXPECT_THROW(nd::linalg::check_captured_info(), nd::linalg_error);
  nd::linalg::clear_captured_info();
  EXPECT_NO_THROW(nd::linalg::check_captured_info());
}

}  // namespace
