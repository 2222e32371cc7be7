/// @file
/// numpy.linalg's factorizations and what is built on them: solve, inv, det, slogdet, cholesky,
/// qr, svd, eigh, eigvalsh, lstsq, pinv, matrix_rank, norm/matrix_norm, cond. Builds on
/// linalg/detail/entry_points.hpp (cuSOLVER, compiled into ndcuda::linalg) and ops/reductions.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cmath>
#include <limits>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/linalg/detail/entry_points.hpp>
#include <ndcuda/linalg/detail/operands.hpp>
#include <ndcuda/linalg/linalg_error.hpp>
#include <ndcuda/linalg/products.hpp>
#include <ndcuda/linalg/vector_norm.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <string>
#include <string_view>
#include <tuple>

namespace ndcuda::linalg {

// Stacks of matrices (..., m, n): stacks of small matrices in one batched library call, larger ones
// matrix by matrix (docs/linalg.md, "Batches"). Integers and bool compute in float64,
// float16/bfloat16 in float32; results have that dtype (or its real type).

/// x with a @ x = b. b is a stack of vectors only when it is 1-d (NumPy 2's rule); otherwise
/// (..., n, k). Batch axes broadcast. Singular a: linalg_error("Singular matrix").
template <array_operand X, array_operand Y>
[[nodiscard]] auto solve(const X& a, const Y& b) {
  const ndcuda::detail::op_range<"nd::linalg::solve"> nvtx;
  using T = type_of<promote_types(detail::solver_dtype(dtype_of<detail::value_t<X>>),
                                  detail::solver_dtype(dtype_of<detail::value_t<Y>>))>;
  const auto aa = detail::to_array(a);
  const auto bb = detail::to_array(b);
  return detail::restore<T>(detail::solve(detail::erase(aa), detail::erase(bb), bb.ndim() == 1, dtype_of<T>));
}

/// The inverse of each matrix (linalg_error("Singular matrix") when there is none).
template <array_operand X>
[[nodiscard]] auto inv(const X& a) {
  const ndcuda::detail::op_range<"nd::linalg::inv"> nvtx;
  using T = detail::solver_t<detail::value_t<X>>;
  return detail::restore<T>(detail::inv(detail::erase(detail::to_array(a)), dtype_of<T>));
}

/// The determinant of each matrix, from an LU factorization (0 for singular matrices).
template <array_operand X>
[[nodiscard]] auto det(const X& a) {
  const ndcuda::detail::op_range<"nd::linalg::det"> nvtx;
  using T = detail::solver_t<detail::value_t<X>>;
  return detail::restore<T>(detail::slogdet(detail::erase(detail::to_array(a)), dtype_of<T>, true).first);
}

/// (sign, logabsdet) of each matrix: det = sign * exp(logabsdet) without overflow. Singular:
/// sign 0, logabsdet -inf. sign is complex for complex input (of modulus 1).
template <array_operand X>
[[nodiscard]] auto slogdet(const X& a) {
  const ndcuda::detail::op_range<"nd::linalg::slogdet"> nvtx;
  using T = detail::solver_t<detail::value_t<X>>;
  auto r = detail::slogdet(detail::erase(detail::to_array(a)), dtype_of<T>, false);
  return std::make_tuple(detail::restore<T>(std::move(r.first)),
                         detail::restore<detail::real_t<T>>(std::move(r.second)));
}

/// The Cholesky factor L (lower, a = L L^H) of each Hermitian positive-definite matrix, reading
/// a's lower triangle; upper = true gives U = L^H from the upper triangle. linalg_error("Matrix
/// is not positive definite") otherwise.
template <array_operand X>
[[nodiscard]] auto cholesky(const X& a, bool upper = false) {
  const ndcuda::detail::op_range<"nd::linalg::cholesky"> nvtx;
  using T = detail::solver_t<detail::value_t<X>>;
  return detail::restore<T>(detail::cholesky(detail::erase(detail::to_array(a)), dtype_of<T>, upper));
}

/// numpy.linalg.qr's modes.
enum class qr_mode { reduced, complete, r };

/// (Q, R) with a = Q R; "r" mode leaves Q empty (a 0-size array).
template <array_operand X>
[[nodiscard]] auto qr(const X& a, qr_mode mode = qr_mode::reduced) {
  const ndcuda::detail::op_range<"nd::linalg::qr"> nvtx;
  using T = detail::solver_t<detail::value_t<X>>;
  auto r = detail::qr(detail::erase(detail::to_array(a)), dtype_of<T>, static_cast<int>(mode));
  ndarray<T> rr = detail::restore<T>(std::move(r.second.base == nullptr && mode == qr_mode::r ? r.first : r.second));
  if (mode == qr_mode::r) {
    return std::make_tuple(empty<T>({0}, rr.stream()), rr);
  }
  return std::make_tuple(detail::restore<T>(std::move(r.first)), rr);
}

/// (u, s, vh) with a = u @ diag(s) @ vh, s descending. full_matrices=false gives the reduced
/// factors (u: m x k, vh: k x n, k = min(m, n)). Through cuSOLVER's Jacobi SVD (gesvdjBatched for
/// stacks of matrices up to 32 x 32, gesvdj otherwise).
template <array_operand X>
[[nodiscard]] auto svd(const X& a, bool full_matrices = true) {
  const ndcuda::detail::op_range<"nd::linalg::svd"> nvtx;
  using T = detail::solver_t<detail::value_t<X>>;
  using R = detail::real_t<T>;
  auto r = detail::svd(detail::erase(detail::to_array(a)), dtype_of<T>, full_matrices, true);
  ndarray<T> vh = detail::restore<T>(std::move(r.vh));
  if constexpr (is_complex(dtype_of<T>)) {
    vh = eval(conj(vh));
  }
  return std::make_tuple(detail::restore<T>(std::move(r.u)), detail::restore<R>(std::move(r.s)), vh);
}

/// The singular values only (numpy.linalg.svdvals / svd(compute_uv=False)), descending.
template <array_operand X>
[[nodiscard]] auto svdvals(const X& a) {
  const ndcuda::detail::op_range<"nd::linalg::svdvals"> nvtx;
  using T = detail::solver_t<detail::value_t<X>>;
  return detail::restore<detail::real_t<T>>(
      detail::svd(detail::erase(detail::to_array(a)), dtype_of<T>, false, false).s);
}

/// (eigenvalues ascending, eigenvectors as columns) of each Hermitian matrix, from its lower
/// triangle (upper = true: the upper one), numpy's UPLO.
template <array_operand X>
[[nodiscard]] auto eigh(const X& a, bool upper = false) {
  const ndcuda::detail::op_range<"nd::linalg::eigh"> nvtx;
  using T = detail::solver_t<detail::value_t<X>>;
  auto r = detail::eigh(detail::erase(detail::to_array(a)), dtype_of<T>, upper, true);
  return std::make_tuple(detail::restore<detail::real_t<T>>(std::move(r.first)),
                         detail::restore<T>(std::move(r.second)));
}

/// numpy.linalg.eigvalsh: the eigenvalues (ascending) of each Hermitian matrix, from the triangle eigh reads, without
/// vectors.
template <array_operand X>
[[nodiscard]] auto eigvalsh(const X& a, bool upper = false) {
  const ndcuda::detail::op_range<"nd::linalg::eigvalsh"> nvtx;
  using T = detail::solver_t<detail::value_t<X>>;
  return detail::restore<detail::real_t<T>>(
      detail::eigh(detail::erase(detail::to_array(a)), dtype_of<T>, upper, false).first);
}

namespace detail {

/// The default rcond of pinv/lstsq/matrix_rank: max(m, n) * eps of the dtype.
template <class R>
double default_rtol(index_t m, index_t n) {
  return static_cast<double>(std::max(m, n)) * static_cast<double>(std::numeric_limits<R>::epsilon());
}

}  // namespace detail

/// The Moore-Penrose pseudo-inverse through the SVD: singular values at most rcond * max(s) count
/// as zero (rcond < 0: NumPy 2's default max(m, n) * eps).
template <array_operand X>
[[nodiscard]] auto pinv(const X& x, double rcond = -1) {
  const ndcuda::detail::op_range<"nd::linalg::pinv"> nvtx;
  using T = detail::solver_t<detail::value_t<X>>;
  using R = detail::real_t<T>;
  const ndarray<T> a = ndarray<T>(detail::to_array(x).template astype<T>());
  const index_t m = a.shape()[a.shape().size() - 2], n = a.shape().back();
  if (rcond < 0) {
    rcond = detail::default_rtol<R>(m, n);
  }
  auto [u, s, vh] = svd(a, false);
  const ndarray<R> smax = max(s, axes{-1});
  const auto cutoff = smax.expand_dims({-1}) * static_cast<R>(rcond);
  const ndarray<R> sinv = where(s > cutoff, static_cast<R>(1) / s, static_cast<R>(0));
  // pinv = V diag(sinv) U^H = (Vh^H * sinv) @ U^H.
  const auto v = vh.swapaxes(-1, -2);
  const auto uh = u.swapaxes(-1, -2);
  if constexpr (is_complex(dtype_of<T>)) {
    const ndarray<T> vs = conj(v) * sinv.expand_dims({-2});
    return ndarray<T>(matmul(vs, ndarray<T>(conj(uh))));
  } else {
    const ndarray<T> vs = v * sinv.expand_dims({-2});
    return ndarray<T>(matmul(vs, uh));
  }
}

/// The number of singular values above tol (tol < 0: max(s) * max(m, n) * eps), per matrix.
/// 1-d input: 1 unless all zero, as NumPy.
template <array_operand X>
[[nodiscard]] ndarray<std::int64_t> matrix_rank(const X& x, double tol = -1) {
  const ndcuda::detail::op_range<"nd::linalg::matrix_rank"> nvtx;
  using T = detail::solver_t<detail::value_t<X>>;
  using R = detail::real_t<T>;
  const auto a = detail::to_array(x);
  if (a.ndim() < 2) {
    return ndarray<std::int64_t>(any(a != detail::value_t<X>{}).template astype<std::int64_t>());
  }
  const ndarray<R> s = svdvals(a);
  const index_t m = a.shape()[a.shape().size() - 2], n = a.shape().back();
  const ndarray<R> smax = max(s, axes{-1});
  if (tol < 0) {
    const auto cut = smax.expand_dims({-1}) * static_cast<R>(detail::default_rtol<R>(m, n));
    return count_nonzero(s > cut, axes{-1});
  }
  return count_nonzero(s > static_cast<R>(tol), axes{-1});
}

/// numpy.linalg.lstsq's result: the solution, the squared residual norms (empty unless a has
/// full column rank and more rows than columns), the rank and the singular values.
template <class T>
struct lstsq_result {
  ndarray<T> x;  ///< the least-squares solution
  ndarray<detail::real_t<T>>
      residuals;          ///< the squared residual norms (empty unless full column rank and more rows than columns)
  std::int64_t rank = 0;  ///< the effective rank of a
  ndarray<detail::real_t<T>> s;  ///< the singular values of a
};

/// The least-squares solution of a @ x = b (a: m x n; b: m or m x k) through the SVD. Reads the
/// rank back (waits for the stream), as NumPy returns it as a Python int.
template <array_operand X, array_operand Y>
[[nodiscard]] auto lstsq(const X& ax, const Y& bx, double rcond = -1) {
  const ndcuda::detail::op_range<"nd::linalg::lstsq"> nvtx;
  using T = type_of<promote_types(detail::solver_dtype(dtype_of<detail::value_t<X>>),
                                  detail::solver_dtype(dtype_of<detail::value_t<Y>>))>;
  using R = detail::real_t<T>;
  const ndarray<T> a = detail::to_array(ax).template astype<T>();
  const ndarray<T> b = detail::to_array(bx).template astype<T>();
  if (a.ndim() != 2) {
    throw linalg_error("lstsq: " + std::to_string(a.ndim()) +
                       "-dimensional array given. Array must be two-dimensional");
  }
  const index_t m = a.shape()[0], n = a.shape()[1];
  if (b.ndim() < 1 || b.ndim() > 2 || b.shape()[0] != m) {
    throw linalg_error("lstsq: Incompatible dimensions: a is " + format_shape(a.shape()) + ", b is " +
                       format_shape(b.shape()));
  }
  if (rcond < 0) {
    rcond = detail::default_rtol<R>(m, n);
  }
  auto [u, s, vh] = svd(a, false);
  lstsq_result<T> out{pinv(a, rcond), empty<R>({0}, a.stream()), 0, s};
  out.x = ndarray<T>(matmul(out.x, b));
  out.rank = matrix_rank(a, s.size() > 0 ? static_cast<double>(max(s).item()) * rcond : 0.0).item();
  if (out.rank == n && m > n) {
    const ndarray<T> r = matmul(a, out.x) - b;
    if constexpr (is_complex(dtype_of<T>)) {
      out.residuals = ndarray<R>(sum(real(r * conj(r)), axes{0}));
    } else {
      out.residuals = ndarray<R>(sum(r * r, axes{0}));
    }
    if (b.ndim() == 1) {
      out.residuals = out.residuals.reshape({1});
    }
  }
  return out;
}

/// Matrix norms over the last two axes: "fro", "nuc", and ord 1, -1, 2, -2, inf, -inf
/// (numpy.linalg.matrix_norm). Real result dtype.
template <array_operand X>
[[nodiscard]] auto matrix_norm(const X& x, std::string_view ord = "fro") {
  const ndcuda::detail::op_range<"nd::linalg::matrix_norm"> nvtx;
  using V = detail::value_t<X>;
  using T = detail::solver_t<V>;
  using R = detail::real_t<T>;
  const ndarray<T> a = detail::to_array(x).template astype<T>();
  if (a.ndim() < 2) {
    throw linalg_error("matrix_norm: " + std::to_string(a.ndim()) +
                       "-dimensional array given. Array must be at "
                       "least two-dimensional");
  }
  if (ord == "fro") {
    return ndarray<R>(sqrt(sum(real(a * conj(a)), axes{-2, -1})));
  }
  if (ord == "nuc") {
    return ndarray<R>(sum(svdvals(a), axes{-1}));
  }
  if (ord == "1" || ord == "-1") {
    const ndarray<R> col = sum(abs(a), axes{-2});
    return ord == "1" ? ndarray<R>(max(col, axes{-1})) : ndarray<R>(min(col, axes{-1}));
  }
  if (ord == "inf" || ord == "-inf") {
    const ndarray<R> row = sum(abs(a), axes{-1});
    return ord == "inf" ? ndarray<R>(max(row, axes{-1})) : ndarray<R>(min(row, axes{-1}));
  }
  if (ord == "2" || ord == "-2") {
    const ndarray<R> s = svdvals(a);
    return ord == "2" ? ndarray<R>(max(s, axes{-1})) : ndarray<R>(min(s, axes{-1}));
  }
  throw error("matrix_norm: Invalid norm order '" + std::string(ord) +
              "' for matrices; use \"fro\", \"nuc\", \"1\", \"-1\", \"2\", \"-2\", \"inf\" or \"-inf\"");
}
/// matrix_norm with a numeric order: 1, -1, 2, -2, inf or -inf (std::numeric_limits<double>::infinity()).
template <array_operand X>
[[nodiscard]] auto matrix_norm(const X& x, double ord) {
  const ndcuda::detail::op_range<"nd::linalg::matrix_norm"> nvtx;
  if (std::isinf(ord)) {
    return matrix_norm(x, ord > 0 ? "inf" : "-inf");
  }
  if (ord == 1 || ord == -1 || ord == 2 || ord == -2) {
    return matrix_norm(x, ord == 1 ? "1" : ord == -1 ? "-1" : ord == 2 ? "2" : "-2");
  }
  throw error("matrix_norm: Invalid norm order " + std::to_string(ord) + " for matrices");
}

/// numpy.linalg.norm without axis: the 2-norm of a 1-d array, the Frobenius norm of a 2-d one.
template <array_operand X>
[[nodiscard]] auto norm(const X& x) {
  const ndcuda::detail::op_range<"nd::linalg::norm"> nvtx;
  const auto a = detail::to_array(x);
  if (a.ndim() == 2) {
    return matrix_norm(a, "fro");
  }
  using R = detail::real_t<detail::solver_t<detail::value_t<X>>>;
  return ndarray<R>(ndcuda::norm(a.reshape({-1}), 2.0).template astype<R>());
}
/// numpy.linalg.norm(x, ord) of a 1-d (vector orders, as nd::norm) or 2-d (matrix orders) array.
template <array_operand X>
[[nodiscard]] auto norm(const X& x, std::string_view ord) {
  const ndcuda::detail::op_range<"nd::linalg::norm"> nvtx;
  const auto a = detail::to_array(x);
  if (a.ndim() == 1) {  // NumPy's texts
    throw value_error("norm: Invalid norm order '" + std::string(ord) + "' for vectors");
  }
  if (a.ndim() != 2) {
    throw value_error("norm: Improper number of dimensions to norm. (ord given without axis for a " +
                      std::to_string(a.ndim()) + "-d array: pass the axes, or use matrix_norm for stacks)");
  }
  return matrix_norm(a, ord);
}
/// numpy.linalg.norm(x, ord) with a numeric order: a vector norm of a 1-d array (any ord, 0 and
/// negative p included), a matrix norm of a 2-d one.
template <array_operand X>
[[nodiscard]] auto norm(const X& x, double ord) {
  const ndcuda::detail::op_range<"nd::linalg::norm"> nvtx;
  const auto a = detail::to_array(x);
  using R = detail::real_t<detail::solver_t<detail::value_t<X>>>;
  if (a.ndim() > 2) {
    throw value_error("norm: Improper number of dimensions to norm. (ord given without axis for a " +
                      std::to_string(a.ndim()) + "-d array: pass the axes, or use matrix_norm for stacks)");
  }
  if (a.ndim() == 2) {
    return matrix_norm(a, ord);
  }
  return ndarray<R>(vector_norm(a, ord));
}

/// The condition number in the 2-norm (s_max / s_min), or in ord ("fro", "nuc", 1, inf, ...) as
/// norm(a, ord) * norm(inv(a), ord).
template <array_operand X>
[[nodiscard]] auto cond(const X& x) {
  const ndcuda::detail::op_range<"nd::linalg::cond"> nvtx;
  const ndarray<detail::real_t<detail::solver_t<detail::value_t<X>>>> s = svdvals(x);
  using R = detail::real_t<detail::solver_t<detail::value_t<X>>>;
  return ndarray<R>(max(s, axes{-1}) / min(s, axes{-1}));
}
/// The condition number in `ord` ("fro", "nuc", "1", "inf", ...): norm(a, ord) * norm(inv(a), ord).
template <array_operand X>
[[nodiscard]] auto cond(const X& x, std::string_view ord) {
  const ndcuda::detail::op_range<"nd::linalg::cond"> nvtx;
  const auto a = detail::to_array(x);
  using R = detail::real_t<detail::solver_t<detail::value_t<X>>>;
  return ndarray<R>(matrix_norm(a, ord) * matrix_norm(inv(a), ord));
}

}  // namespace ndcuda::linalg

#pragma GCC visibility pop
