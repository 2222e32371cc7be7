// The small generated kernels the solvers need around cuSOLVER: zeroing a triangle, the
// determinant from an LU factorization. Private to ndcuda::linalg; NVRTC-compiled on first use.
#pragma once

#include <ndcuda/array/detail/erased.hpp>
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

/// Compiles both kernels for every dtype they serve, for `cc`, without a device (CI's check).
void compile_solver_kernels(compute_capability cc);

}  // namespace ndcuda::linalg::detail

namespace ndcuda::linalg::detail {
/// Compiles the exact integer matmul kernel of every integer dtype and bool for `cc` (matmul.cpp).
void compile_integer_matmul_kernels(compute_capability cc);
}  // namespace ndcuda::linalg::detail
