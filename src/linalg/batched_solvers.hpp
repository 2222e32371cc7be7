// The one-call paths for stacks of small matrices: eigh through cuSOLVER's XsyevBatched (syevjBatched under graph
// capture), svd through gesvdjBatched, QR through cuBLAS's geqrfBatched (Q formed by solver_kernels'
// householder_q). Private to ndcuda::linalg.
#pragma once

#include <algorithm>
#include <climits>
#include <ndcuda/array/erased_array.hpp>

namespace ndcuda::linalg::detail {

using ndcuda::detail::erased_array;

/// cuSOLVER's batched Jacobi routines take matrices of at most 32 x 32.
constexpr index_t batched_jacobi_limit = 32;
/// cuBLAS's geqrfBatched is meant for small matrices; past this extent one geqrf per matrix is faster (the same bound
/// as the batched LU's).
constexpr index_t batched_qr_limit = 64;

/// Whether a stack of `count` Hermitian n x n matrices goes through eigh_batched (else one syevd per matrix). A single
/// matrix keeps syevd: the batched routine gains nothing there.
constexpr bool use_batched_eigh(index_t n, index_t count) {
  return count > 1 && count <= INT_MAX && n >= 1 && n <= batched_jacobi_limit;
}
/// Whether a stack of m x n matrices goes through gesvdjBatched (else one gesvdj per matrix).
constexpr bool use_batched_svd(index_t m, index_t n, index_t count) {
  return count > 1 && count <= INT_MAX && std::min(m, n) >= 1 && std::max(m, n) <= batched_jacobi_limit;
}
/// Whether a stack of m x n matrices goes through geqrfBatched and the Q kernel (else geqrf/orgqr per matrix).
constexpr bool use_batched_qr(index_t m, index_t n, index_t count) {
  return count > 1 && count <= INT_MAX && std::min(m, n) >= 1 && std::max(m, n) <= batched_qr_limit;
}

/// Eigenvalues (ascending, into `w`: count x n, consecutive) and, with `vectors`, eigenvectors (over `f`'s columns) of
/// the column-major n x n matrices packed in `f` (count of them), from the lower (or `upper`) triangle. info[b] > 0:
/// matrix b did not converge. XsyevBatched; under graph capture syevjBatched (tolerance the dtype's epsilon, at most
/// 100 sweeps).
void eigh_batched(const erased_array& f, void* w, index_t n, index_t count, bool upper, bool vectors, int* info);

/// Singular values (descending, min(m, n) per matrix into `s`) and, with `vectors`, the full U (m x m) and V (n x n,
/// not V^H), column-major and packed, of the column-major m x n matrices packed in `f`. `u` and `v` must hold
/// count * m * m and count * n * n elements even without vectors (cuSOLVER's batched call wants them).
void svd_batched(const erased_array& f, void* s, void* u, void* v, index_t m, index_t n, index_t count, bool vectors,
                 int* info);

/// Householder QR of the column-major m x n matrices packed in `f`, in place (LAPACK's geqrf layout), with min(m, n)
/// scalars per matrix in `tau`.
void qr_factor_batched(const erased_array& f, void* tau, index_t m, index_t n, index_t count);

}  // namespace ndcuda::linalg::detail
