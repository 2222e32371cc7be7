// Batched QR / SVD / eigh of stacks of small matrices (cuBLAS geqrfBatched + the Q kernel, cuSOLVER gesvdjBatched,
// syevjBatched), checked on fresh random stacks against host references in double: reconstruction, orthonormality,
// triangularity, order, and |R_jj| / singular values / eigenvalues from a host Jacobi; NaN input as NumPy
// (tests/data/linalg_nan_cases.txt); graph capture. Plus the dispatch rule (CPU).
// Tolerances (times max(1, ||A||_F) of each matrix): float32/complex64 2e-4, float64 1e-11.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <fstream>
#include <limits>
#include <ndcuda/linalg.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "linalg/batched_solvers.hpp"
#include "linalg/gpu_support.hpp"

namespace nd = ndcuda;
using nd::index_t;
using nd::testing::cd;
using nd::testing::from_cd;
using nd::testing::host_values;

namespace {

// ---- dispatch (no GPU needed) ----

TEST(BatchedSolverDispatch, LimitsAndSingleMatrices) {
  using namespace nd::linalg::detail;
  EXPECT_TRUE(use_batched_eigh(32, 2));
  EXPECT_TRUE(use_batched_eigh(1, 1024));
  EXPECT_FALSE(use_batched_eigh(33, 1024));  // syevjBatched takes n <= 32
  EXPECT_FALSE(use_batched_eigh(8, 1));      // a single matrix keeps syevd
  EXPECT_FALSE(use_batched_eigh(0, 8));
  EXPECT_TRUE(use_batched_svd(32, 20, 2));
  EXPECT_TRUE(use_batched_svd(20, 32, 2));
  EXPECT_FALSE(use_batched_svd(33, 20, 2));  // gesvdjBatched takes m, n <= 32
  EXPECT_FALSE(use_batched_svd(20, 33, 2));
  EXPECT_FALSE(use_batched_svd(0, 5, 2));
  EXPECT_FALSE(use_batched_svd(5, 5, 1));
  EXPECT_TRUE(use_batched_qr(64, 48, 2));
  EXPECT_TRUE(use_batched_qr(3, 64, 2));
  EXPECT_FALSE(use_batched_qr(65, 4, 2));
  EXPECT_FALSE(use_batched_qr(4, 0, 2));
  EXPECT_FALSE(use_batched_qr(4, 4, 1));
  EXPECT_FALSE(use_batched_qr(4, 4, index_t{1} << 32));  // cuBLAS's batch count is an int
}

// ---- host references in double ----

template <class T>
double tol() {
  return std::is_same_v<T, float> || std::is_same_v<T, std::complex<float>> ? 2e-4 : 1e-11;
}

/// Matrix b of a host stack (row-major, C order over the batch).
struct stack_view {
  const std::vector<cd>* v;
  index_t rows, cols;
  [[nodiscard]] cd at(index_t b, index_t i, index_t j) const {
    return (*v)[static_cast<std::size_t>((b * rows + i) * cols + j)];
  }
};

/// The host values of a stack (kept in `storage`) and a view of its matrices.
template <class T>
stack_view host_stack(const nd::ndarray<T>& a, std::vector<cd>& storage) {
  storage = host_values(a);
  const auto& s = a.shape();
  return stack_view{&storage, s[s.size() - 2], s.back()};
}

double frobenius(const stack_view& a, index_t b) {
  double f = 0;
  for (index_t i = 0; i < a.rows; ++i)
    for (index_t j = 0; j < a.cols; ++j) f += std::norm(a.at(b, i, j));
  return std::sqrt(f);
}

/// Eigenvalues (ascending) of a real symmetric matrix (row-major, n x n), cyclic Jacobi in double.
std::vector<double> jacobi_symmetric(std::vector<double> a, index_t n) {
  auto A = [&](index_t i, index_t j) -> double& { return a[static_cast<std::size_t>(i * n + j)]; };
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, all = 0;
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) {
        all += A(i, j) * A(i, j);
        off += i != j ? A(i, j) * A(i, j) : 0.0;
      }
    if (off <= 1e-32 * all) {
      break;
    }
    for (index_t p = 0; p < n; ++p)
      for (index_t q = p + 1; q < n; ++q) {
        if (A(p, q) == 0) {
          continue;
        }
        const double theta = (A(q, q) - A(p, p)) / (2 * A(p, q));
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (index_t k = 0; k < n; ++k) {  // A J
          const double g = A(k, p), h = A(k, q);
          A(k, p) = c * g - s * h;
          A(k, q) = s * g + c * h;
        }
        for (index_t k = 0; k < n; ++k) {  // J^T (A J)
          const double g = A(p, k), h = A(q, k);
          A(p, k) = c * g - s * h;
          A(q, k) = s * g + c * h;
        }
      }
  }
  std::vector<double> w(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) w[static_cast<std::size_t>(i)] = A(i, i);
  std::sort(w.begin(), w.end());
  return w;
}

/// Eigenvalues (ascending) of a Hermitian n x n matrix given by h(i, j): the real symmetric embedding
/// [[X, -Y], [Y, X]] of X + iY has each eigenvalue twice.
template <class F>
std::vector<double> host_eigvalsh(F&& h, index_t n) {
  const index_t n2 = 2 * n;
  std::vector<double> e(static_cast<std::size_t>(n2 * n2));
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      const cd x = h(i, j);
      e[static_cast<std::size_t>(i * n2 + j)] = x.real();
      e[static_cast<std::size_t>((i + n) * n2 + j + n)] = x.real();
      e[static_cast<std::size_t>(i * n2 + j + n)] = -x.imag();
      e[static_cast<std::size_t>((i + n) * n2 + j)] = x.imag();
    }
  const auto w2 = jacobi_symmetric(std::move(e), n2);
  std::vector<double> w;
  for (std::size_t i = 0; i < w2.size(); i += 2) w.push_back(w2[i]);
  return w;
}

/// Singular values (descending) of matrix b by one-sided (Hestenes) Jacobi in double on the columns of A (of A^H
/// when wide): rotations orthogonalise the columns, whose norms are then the singular values, to high relative
/// accuracy even for the small ones (a Gram matrix would lose them).
std::vector<double> host_singular_values(const stack_view& a, index_t b) {
  const bool tall = a.rows >= a.cols;
  const index_t k = std::min(a.rows, a.cols), len = tall ? a.rows : a.cols;
  std::vector<std::vector<cd>> col(static_cast<std::size_t>(k), std::vector<cd>(static_cast<std::size_t>(len)));
  for (index_t j = 0; j < k; ++j)
    for (index_t i = 0; i < len; ++i) {
      col[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)] = tall ? a.at(b, i, j) : std::conj(a.at(b, j, i));
    }
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool rotated = false;
    for (index_t p = 0; p < k; ++p)
      for (index_t q = p + 1; q < k; ++q) {
        auto& x = col[static_cast<std::size_t>(p)];
        auto& y = col[static_cast<std::size_t>(q)];
        double alpha = 0, beta = 0;
        cd gamma = 0;
        for (index_t i = 0; i < len; ++i) {
          const auto u = static_cast<std::size_t>(i);
          alpha += std::norm(x[u]);
          beta += std::norm(y[u]);
          gamma += std::conj(x[u]) * y[u];
        }
        const double g = std::abs(gamma);
        if (g <= 1e-15 * std::sqrt(alpha * beta) || g == 0) {
          continue;
        }
        rotated = true;
        // With y' = y e^{-i arg gamma}, x^H y' = |gamma| is real: a real rotation of (x, y') zeroes it.
        const cd phase = std::conj(gamma) / g;
        const double zeta = (beta - alpha) / (2 * g);
        const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t), s = c * t;
        for (index_t i = 0; i < len; ++i) {
          const auto u = static_cast<std::size_t>(i);
          const cd xv = x[u], yv = y[u] * phase;
          x[u] = c * xv - s * yv;
          y[u] = s * xv + c * yv;
        }
      }
    if (!rotated) {
      break;
    }
  }
  std::vector<double> sv;
  for (const auto& c : col) {
    double norm = 0;
    for (const cd& x : c) norm += std::norm(x);
    sv.push_back(std::sqrt(norm));
  }
  std::sort(sv.rbegin(), sv.rend());
  return sv;
}

/// |R_jj| of a QR of matrix b (first min(m, n) columns), by modified Gram-Schmidt with re-orthogonalisation.
std::vector<double> host_r_diagonal(const stack_view& a, index_t b) {
  const index_t m = a.rows, k = std::min(a.rows, a.cols);
  std::vector<std::vector<cd>> q;
  std::vector<double> d;
  for (index_t j = 0; j < k; ++j) {
    std::vector<cd> v(static_cast<std::size_t>(m));
    for (index_t i = 0; i < m; ++i) v[static_cast<std::size_t>(i)] = a.at(b, i, j);
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& qi : q) {
        cd r = 0;
        for (index_t i = 0; i < m; ++i)
          r += std::conj(qi[static_cast<std::size_t>(i)]) * v[static_cast<std::size_t>(i)];
        for (index_t i = 0; i < m; ++i) v[static_cast<std::size_t>(i)] -= r * qi[static_cast<std::size_t>(i)];
      }
    double norm = 0;
    for (const cd& x : v) norm += std::norm(x);
    norm = std::sqrt(norm);
    d.push_back(norm);
    for (cd& x : v) x /= norm;
    q.push_back(std::move(v));
  }
  return d;
}

/// max |(X^H X)_ij - I_ij| over the columns of matrix b of x (rows x cols).
double orthonormality_error(const stack_view& x, index_t b) {
  double e = 0;
  for (index_t i = 0; i < x.cols; ++i)
    for (index_t j = 0; j < x.cols; ++j) {
      cd acc = 0;
      for (index_t l = 0; l < x.rows; ++l) acc += std::conj(x.at(b, l, i)) * x.at(b, l, j);
      e = std::max(e, std::abs(acc - (i == j ? cd(1) : cd(0))));
    }
  return e;
}

/// A stack of random matrices with `shape` (uniform in [-1, 1), both parts for complex) on `s`.
template <class T>
nd::ndarray<T> random_stack(const nd::shape_t& shape, std::optional<nd::stream> s = std::nullopt) {
  return nd::asarray<T>(nd::testing::random_values<T>(nd::shape_size(shape)), shape, s);
}

/// Random square matrices, not Hermitian, with a real diagonal (LAPACK ignores its imaginary part; cuSOLVER's
/// Jacobi is not documented to): each triangle defines a Hermitian matrix of its own.
template <class T>
nd::ndarray<T> random_triangles(const nd::shape_t& shape) {
  const index_t n = shape.back(), count = nd::shape_size(shape) / (n * n);
  std::vector<T> v = nd::testing::random_values<T>(nd::shape_size(shape));
  for (index_t b = 0; b < count; ++b)
    for (index_t i = 0; i < n; ++i) {
      auto& x = v[static_cast<std::size_t>((b * n + i) * n + i)];
      x = from_cd<T>(cd(nd::testing::to_cd(x).real(), 0));
    }
  return nd::asarray<T>(v, shape);
}

/// A stack of random Hermitian matrices (exactly Hermitian in T: the mirror is the conjugate, the diagonal real).
template <class T>
nd::ndarray<T> hermitian_stack(const nd::shape_t& shape, std::optional<nd::stream> s = std::nullopt) {
  const index_t n = shape.back(), count = nd::shape_size(shape) / (n * n);
  std::vector<T> v = nd::testing::random_values<T>(nd::shape_size(shape));
  for (index_t b = 0; b < count; ++b)
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j <= i; ++j) {
        const cd x = nd::testing::to_cd(v[static_cast<std::size_t>((b * n + i) * n + j)]);
        const cd y = i == j ? cd(x.real(), 0) : x;
        v[static_cast<std::size_t>((b * n + i) * n + j)] = from_cd<T>(y);
        v[static_cast<std::size_t>((b * n + j) * n + i)] = from_cd<T>(std::conj(y));
      }
  return nd::asarray<T>(v, shape, s);
}

index_t batch_count(const nd::shape_t& s) {
  return nd::shape_size(s) / (s[s.size() - 2] * s.back());
}

// ---- the checks ----

template <class T>
void check_qr(const nd::ndarray<T>& a, nd::linalg::qr_mode mode) {
  const auto& shape = a.shape();
  const index_t m = shape[shape.size() - 2], n = shape.back(), k = std::min(m, n), count = batch_count(shape);
  const auto [q, r] = nd::linalg::qr(a, mode);
  const index_t r_rows = mode == nd::linalg::qr_mode::complete ? m : k;
  nd::shape_t r_shape = shape;
  r_shape[r_shape.size() - 2] = r_rows;
  ASSERT_EQ(r.shape(), r_shape);
  std::vector<cd> ha_s, hr_s, hq_s;
  const stack_view ha = host_stack(a, ha_s);
  const stack_view hr = host_stack(r, hr_s);
  for (index_t b = 0; b < count; ++b) {
    const double scale = std::max(1.0, frobenius(ha, b));
    for (index_t i = 0; i < r_rows; ++i)
      for (index_t j = 0; j < std::min(i, n); ++j) {
        ASSERT_EQ(hr.at(b, i, j), cd(0)) << "R below its diagonal, matrix " << b;
      }
    const auto d = host_r_diagonal(ha, b);
    for (index_t j = 0; j < k; ++j) {
      EXPECT_NEAR(std::abs(hr.at(b, j, j)), d[static_cast<std::size_t>(j)], tol<T>() * scale)
          << "|R_jj|, matrix " << b << ", j " << j;
    }
  }
  if (mode == nd::linalg::qr_mode::r) {
    // R alone equals the R of the reduced mode (the same factorization).
    const std::vector<cd> h2 = host_values(std::get<1>(nd::linalg::qr(a)));
    ASSERT_EQ(h2.size(), hr_s.size());
    for (std::size_t i = 0; i < hr_s.size(); ++i) {
      ASSERT_LE(std::abs(hr_s[i] - h2[i]), tol<T>() * (1 + std::abs(h2[i]))) << "element " << i;
    }
    return;
  }
  const index_t q_cols = mode == nd::linalg::qr_mode::complete ? m : k;
  nd::shape_t q_shape = shape;
  q_shape.back() = q_cols;
  ASSERT_EQ(q.shape(), q_shape);
  const stack_view hq = host_stack(q, hq_s);
  for (index_t b = 0; b < count; ++b) {
    const double scale = std::max(1.0, frobenius(ha, b));
    EXPECT_LE(orthonormality_error(hq, b), tol<T>()) << "Q^H Q != I, matrix " << b;
    double err = 0;
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) {
        cd acc = 0;
        for (index_t l = 0; l < q_cols; ++l) acc += hq.at(b, i, l) * hr.at(b, l, j);
        err = std::max(err, std::abs(acc - ha.at(b, i, j)));
      }
    EXPECT_LE(err, tol<T>() * scale) << "Q R != A, matrix " << b << " of " << count;
  }
}

template <class T>
void check_svd(const nd::ndarray<T>& a, bool full) {
  const auto& shape = a.shape();
  const index_t m = shape[shape.size() - 2], n = shape.back(), k = std::min(m, n), count = batch_count(shape);
  const auto [u, s, vh] = nd::linalg::svd(a, full);
  const index_t u_cols = full ? m : k, v_rows = full ? n : k;
  nd::shape_t u_shape = shape, s_shape(shape.begin(), shape.end() - 2), v_shape = shape;
  u_shape.back() = u_cols;
  s_shape.push_back(k);
  v_shape[v_shape.size() - 2] = v_rows;
  ASSERT_EQ(u.shape(), u_shape);
  ASSERT_EQ(s.shape(), s_shape);
  ASSERT_EQ(vh.shape(), v_shape);
  std::vector<cd> ha_s, hu_s, hv_s;
  const stack_view ha = host_stack(a, ha_s);
  const stack_view hu = host_stack(u, hu_s);
  const stack_view hv = host_stack(vh, hv_s);
  const std::vector<cd> hs = host_values(s);
  const std::vector<cd> hsv = host_values(nd::linalg::svdvals(a));
  ASSERT_EQ(hsv.size(), hs.size());
  // Vh's rows are orthonormal: check the columns of its conjugate transpose.
  std::vector<cd> vt(hv_s.size());
  for (index_t b = 0; b < count; ++b)
    for (index_t i = 0; i < v_rows; ++i)
      for (index_t j = 0; j < n; ++j) {
        vt[static_cast<std::size_t>((b * n + j) * v_rows + i)] = std::conj(hv.at(b, i, j));
      }
  const stack_view hvt{&vt, n, v_rows};
  for (index_t b = 0; b < count; ++b) {
    const double scale = std::max(1.0, frobenius(ha, b));
    const auto ref = host_singular_values(ha, b);
    for (index_t i = 0; i < k; ++i) {
      const double si = hs[static_cast<std::size_t>(b * k + i)].real();
      EXPECT_NEAR(si, ref[static_cast<std::size_t>(i)], tol<T>() * scale) << "s, matrix " << b << ", i " << i;
      EXPECT_NEAR(hsv[static_cast<std::size_t>(b * k + i)].real(), si, tol<T>() * scale) << "svdvals";
      if (i > 0) {
        EXPECT_GE(hs[static_cast<std::size_t>(b * k + i - 1)].real(), si) << "s not descending, matrix " << b;
      }
    }
    // One-sided Jacobi orthogonalises to its tolerance relative to the column norms; 10x the margin for the
    // completed columns of the full factors.
    EXPECT_LE(orthonormality_error(hu, b), 10 * tol<T>()) << "U^H U != I, matrix " << b;
    EXPECT_LE(orthonormality_error(hvt, b), 10 * tol<T>()) << "Vh Vh^H != I, matrix " << b;
    double err = 0;
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) {
        cd acc = 0;
        for (index_t l = 0; l < k; ++l)
          acc += hu.at(b, i, l) * hs[static_cast<std::size_t>(b * k + l)] * hv.at(b, l, j);
        err = std::max(err, std::abs(acc - ha.at(b, i, j)));
      }
    EXPECT_LE(err, tol<T>() * scale) << "U S Vh != A, matrix " << b << " of " << count;
  }
}

/// eigh of the Hermitian matrices read from one triangle of `a` (which may hold anything in the other).
template <class T>
void check_eigh(const nd::ndarray<T>& a, bool upper) {
  const auto& shape = a.shape();
  const index_t n = shape.back(), count = batch_count(shape);
  const auto [w, v] = nd::linalg::eigh(a, upper);
  nd::shape_t w_shape(shape.begin(), shape.end() - 1);
  ASSERT_EQ(w.shape(), w_shape);
  ASSERT_EQ(v.shape(), shape);
  std::vector<cd> ha_s, hv_s;
  const stack_view ha = host_stack(a, ha_s);
  const stack_view hv = host_stack(v, hv_s);
  const std::vector<cd> hw = host_values(w);
  const std::vector<cd> hw2 = host_values(nd::linalg::eigvalsh(a, upper));
  for (index_t b = 0; b < count; ++b) {
    // The Hermitian matrix the chosen triangle defines.
    auto h = [&](index_t i, index_t j) {
      const bool stored = upper ? i <= j : i >= j;
      const cd x = stored ? ha.at(b, i, j) : std::conj(ha.at(b, j, i));
      return i == j ? cd(x.real(), 0) : x;
    };
    double f = 0;
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) f += std::norm(h(i, j));
    const double scale = std::max(1.0, std::sqrt(f));
    const auto ref = host_eigvalsh(h, n);
    for (index_t i = 0; i < n; ++i) {
      const double wi = hw[static_cast<std::size_t>(b * n + i)].real();
      EXPECT_NEAR(wi, ref[static_cast<std::size_t>(i)], tol<T>() * scale) << "w, matrix " << b << ", i " << i;
      EXPECT_NEAR(hw2[static_cast<std::size_t>(b * n + i)].real(), wi, tol<T>() * scale) << "eigvalsh";
      if (i > 0) {
        EXPECT_LE(hw[static_cast<std::size_t>(b * n + i - 1)].real(), wi) << "w not ascending, matrix " << b;
      }
    }
    EXPECT_LE(orthonormality_error(hv, b), tol<T>()) << "V^H V != I, matrix " << b;
    double err = 0;
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) {
        cd av = 0;
        for (index_t l = 0; l < n; ++l) av += h(i, l) * hv.at(b, l, j);
        err = std::max(err, std::abs(av - hv.at(b, i, j) * hw[static_cast<std::size_t>(b * n + j)].real()));
      }
    EXPECT_LE(err, tol<T>() * scale) << "A V != V diag(w), matrix " << b << " of " << count;
  }
}

template <class T>
class BatchedSolvers : public ::testing::Test {};
using batched_types = ::testing::Types<float, double, std::complex<float>>;
TYPED_TEST_SUITE(BatchedSolvers, batched_types);

TYPED_TEST(BatchedSolvers, QrEveryModeMatchesHost) {
  NDCUDA_REQUIRE_GPU();
  using T = TypeParam;
  // Batched (m, n <= 64) tall, wide and square stacks, a 2-d batch, and a size past the batched path (looped).
  for (const nd::shape_t& shape :
       {nd::shape_t{64, 8, 8}, nd::shape_t{100, 32, 32}, nd::shape_t{32, 32, 20}, nd::shape_t{32, 20, 32},
        nd::shape_t{2, 3, 5, 4}, nd::shape_t{4, 64, 48}, nd::shape_t{3, 70, 9}}) {
    SCOPED_TRACE(nd::format_shape(shape));
    const auto a = random_stack<T>(shape);
    for (const auto mode : {nd::linalg::qr_mode::reduced, nd::linalg::qr_mode::complete, nd::linalg::qr_mode::r}) {
      SCOPED_TRACE(static_cast<int>(mode));
      check_qr(a, mode);
    }
  }
}

TYPED_TEST(BatchedSolvers, SvdFullReducedAndValuesMatchHost) {
  NDCUDA_REQUIRE_GPU();
  using T = TypeParam;
  // Batched (m, n <= 32), a 2-d batch, a transposed view as input, and a size past gesvdjBatched's limit (looped).
  for (const nd::shape_t& shape : {nd::shape_t{64, 8, 8}, nd::shape_t{100, 32, 32}, nd::shape_t{32, 32, 20},
                                   nd::shape_t{32, 20, 32}, nd::shape_t{2, 3, 5, 4}, nd::shape_t{2, 40, 33}}) {
    SCOPED_TRACE(nd::format_shape(shape));
    const auto a = random_stack<T>(shape);
    check_svd(a, false);
    check_svd(a, true);
  }
  const auto t = random_stack<T>({6, 7, 12});
  check_svd(nd::ndarray<T>(t.swapaxes(-1, -2)), false);
}

TYPED_TEST(BatchedSolvers, EighBothTrianglesMatchesHost) {
  NDCUDA_REQUIRE_GPU();
  using T = TypeParam;
  for (const nd::shape_t& shape :
       {nd::shape_t{64, 8, 8}, nd::shape_t{100, 32, 32}, nd::shape_t{2, 3, 5, 5}, nd::shape_t{2, 33, 33}}) {
    SCOPED_TRACE(nd::format_shape(shape));
    check_eigh(hermitian_stack<T>(shape), false);
  }
  // Not Hermitian: each triangle defines its own matrix (numpy's UPLO), on the batched path and past it.
  for (const nd::shape_t& shape : {nd::shape_t{16, 12, 12}, nd::shape_t{2, 34, 34}}) {
    SCOPED_TRACE(nd::format_shape(shape));
    const auto a = random_triangles<T>(shape);
    check_eigh(a, false);
    check_eigh(a, true);
  }
}

/// The message of the linalg_error f throws ("" when it throws none).
template <class F>
std::string linalg_message(F&& f) {
  try {
    f();
  } catch (const nd::linalg_error& e) {
    return e.what();
  }
  return "";
}

/// Which matrices of a (4, ...) stack of results hold a NaN.
template <class E>
std::vector<bool> nan_matrices(const nd::ndarray<E>& x, std::vector<bool> seen) {
  const auto h = host_values(x);
  const std::size_t per = h.size() / seen.size();
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (std::isnan(h[i].real()) || std::isnan(h[i].imag())) {
      seen[i / per] = true;
    }
  }
  return seen;
}

TEST(BatchedSolverErrors, NanMatrixFailsAsNumPy) {
  NDCUDA_REQUIRE_GPU();
  // tests/data/linalg_nan_cases.txt (gen_linalg_nan_cases.py): NumPy raises LinAlgError for a NaN in the matrices
  // eigh / eigvalsh / svd read, and returns NaNs from qr for that matrix only.
  std::ifstream in(std::string(NDCUDA_TEST_DATA_DIR) + "/linalg_nan_cases.txt");
  ASSERT_TRUE(in) << "tests/data/linalg_nan_cases.txt not found";
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    SCOPED_TRACE(line);
    ++rows;
    std::istringstream row(line);
    std::string function, uplo, where, bar, kind;
    row >> function >> uplo >> where >> bar >> kind;
    std::string expected;
    std::getline(row >> std::ws, expected);
    std::vector<double> h = hermitian_stack<double>({4, 8, 8}).to_host();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (where == "lower" || where == "both") {
      h[static_cast<std::size_t>((2 * 8 + 5) * 8 + 1)] = nan;
    }
    if (where == "upper" || where == "both") {
      h[static_cast<std::size_t>((2 * 8 + 1) * 8 + 5)] = nan;
    }
    const auto a = nd::asarray<double>(h, {4, 8, 8});
    const bool upper = uplo == "U";
    std::vector<bool> bad(4, false);
    const std::string message = linalg_message([&] {
      if (function == "eigh") {
        const auto [w, v] = nd::linalg::eigh(a, upper);
        bad = nan_matrices(v, nan_matrices(w, bad));
      } else if (function == "eigvalsh") {
        bad = nan_matrices(nd::linalg::eigvalsh(a, upper), bad);
      } else if (function == "svd") {
        const auto [u, sv, vh] = nd::linalg::svd(a);
        bad = nan_matrices(vh, nan_matrices(sv, nan_matrices(u, bad)));
      } else if (function == "svdvals") {
        bad = nan_matrices(nd::linalg::svdvals(a), bad);
      } else if (function == "qr") {
        const auto [q, r] = nd::linalg::qr(a);
        bad = nan_matrices(r, nan_matrices(q, bad));
      } else {
        bad = nan_matrices(std::get<1>(nd::linalg::qr(a, nd::linalg::qr_mode::r)), bad);
      }
    });
    if (kind == "raise") {
      EXPECT_NE(message.find(expected), std::string::npos) << "expected a linalg_error: " << message;
      EXPECT_NE(message.find("matrix 2 of the batch of 4"), std::string::npos) << message;
      continue;
    }
    EXPECT_EQ(message, "") << "NumPy returns NaNs here";
    std::string got;
    for (std::size_t b = 0; b < bad.size(); ++b) {
      if (bad[b]) {
        got += (got.empty() ? "" : ",") + std::to_string(b);
      }
    }
    EXPECT_EQ(got.empty() ? "-" : got, expected);
  }
  EXPECT_EQ(rows, 12);
}

TEST(BatchedSolverCapture, EighSvdQrReplay) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  const nd::ndarray<float> h = hermitian_stack<float>({16, 8, 8}, s);
  const nd::ndarray<float> g = random_stack<float>({16, 9, 6}, s);
  // Eager first: creates the handles and loads the Q kernel outside the capture.
  const nd::ndarray<float> w0 = nd::linalg::eigvalsh(h);
  const nd::ndarray<float> s0 = nd::linalg::svdvals(g);
  const nd::ndarray<float> q0 = std::get<0>(nd::linalg::qr(g));
  s.synchronize();
  nd::ndarray<float> w = nd::zeros<float>(w0.shape(), s);
  nd::ndarray<float> sv = nd::zeros<float>(s0.shape(), s);
  nd::ndarray<float> q = nd::zeros<float>(q0.shape(), s);
  nd::linalg::clear_captured_info();
  nd::graph graph = nd::capture(s, [&] {
    w(nd::ellipsis) = nd::linalg::eigvalsh(h);
    sv(nd::ellipsis) = nd::linalg::svdvals(g);
    q(nd::ellipsis) = std::get<0>(nd::linalg::qr(g));
  });
  graph.launch(s);
  s.synchronize();
  EXPECT_NO_THROW(nd::linalg::check_captured_info());
  nd::linalg::clear_captured_info();
  const auto close = [](const nd::ndarray<float>& x, const nd::ndarray<float>& y) {
    const auto hx = x.to_host(), hy = y.to_host();
    double d = 0;
    for (std::size_t i = 0; i < hx.size(); ++i) d = std::max(d, std::abs(static_cast<double>(hx[i] - hy[i])));
    return d;
  };
  EXPECT_LT(close(w, w0), 1e-4);
  EXPECT_LT(close(sv, s0), 1e-4);
  EXPECT_LT(close(q, q0), 1e-4);
}

}  // namespace
