// The small generated kernels the solvers need around cuSOLVER: zeroing a triangle, the
// determinant from an LU factorization. Private to ndcuda::linalg; NVRTC-compiled on first use.
#pragma once

#include <ndcuda/array/erased_array.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/stream.hpp>

namespace ndcuda::linalg::detail {

using ndcuda::detail::erased_array;

/// Zeroes, in place, the elements of x's matrices (..., rows, cols; any strides, batch axes
/// collapsible to one stride) strictly below the diagonal (`keep_upper`) or strictly above it.
void zero_triangle(const erased_array& x, bool keep_upper);

/// From LU factors (column-major n x n, consecutive, `batch` of them) and their pivots: sign and
/// log|det| per matrix (det_only: det into `sign`, `logabs` unused). `type` is the factors' dtype.
void lu_determinant(dtype type, const void* lu, const int* ipiv, void* sign, void* logabs, index_t n, index_t batch,
                    bool det_only, const stream& s);

/// out[i] = base + i * stride_bytes for i < count, on the device (cuBLAS's batched routines take
/// arrays of matrix pointers; building them on the device keeps the call capturable).
void fill_pointer_array(void** out, void* base, index_t stride_bytes, index_t count, const stream& s);

/// Q of a batched Householder QR: from the reflectors in `f` (column-major m x n per matrix, consecutive, LAPACK's
/// geqrf layout) and `tau` (k per matrix), writes the first `q_cols` columns of Q = H(0)...H(k-1) to `q` (column-major
/// m x q_cols per matrix, consecutive). One thread per column of the whole stack: no loop over matrices on the host.
void householder_q(dtype type, const void* f, const void* tau, void* q, index_t m, index_t n, index_t k, index_t q_cols,
                   index_t batch, const stream& s);

/// Sets info[b] = code (when it is 0) for each matrix b whose `per` values (real_type, consecutive) hold a NaN:
/// NumPy's LAPACK reports NaN input as a failure to converge, the Jacobi solvers return NaNs.
void mark_nan_failures(dtype real_type, const void* values, int* info, index_t per, index_t batch, int code,
                       const stream& s);

/// Compiles the kernels above for `cc` without a device (CI's check): the triangle and determinant kernels for every
/// dtype they serve, the Q and NaN kernels for one real and one complex (or one float) dtype.
void compile_solver_kernels(compute_capability cc);

}  // namespace ndcuda::linalg::detail

namespace ndcuda::linalg::detail {
/// Compiles the exact integer matmul kernel of every integer dtype and bool for `cc` (matmul.cpp).
void compile_integer_matmul_kernels(compute_capability cc);
}  // namespace ndcuda::linalg::detail
