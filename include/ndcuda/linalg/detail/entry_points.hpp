// The compiled entry points of ndcuda::linalg (src/linalg), on type-erased arrays: the public
// templates in linalg/ convert, call one of these, and restore the element type.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <ndcuda/array/erased_array.hpp>
#include <utility>

namespace ndcuda::linalg::detail {

using ndcuda::detail::erased_array;

/// numpy.matmul of a and b with the result in `out_type` (operands converted to it first when
/// their dtype differs). Float and complex types go to cuBLAS, integers and bool to an exact
/// generated kernel.
[[nodiscard]] erased_array matmul(const erased_array& a, const erased_array& b, dtype out_type);
/// The same written into `into`: C-contiguous, of the product's shape (NumPy's, extent-1 axes
/// included), of the result dtype, sharing no memory with a or b; the inner extent non-zero. The product runs on a's
/// stream, ordered after `into`'s and before later work on it; nothing is allocated for the result.
/// With `accumulate` (float and complex dtypes only) the product is added to what `into` holds
/// (cuBLAS's beta = 1): what a distributed SUMMA product sums its panels with.
void matmul_into(const erased_array& into, const erased_array& a, const erased_array& b, bool accumulate = false);

/// What the matmul of these operands would do, for tests and docs: how many operands were copied
/// because cuBLAS could not read them in place, and whether the call used cuBLAS.
struct matmul_report {
  int copies = 0;
  bool cublas = false;
};
[[nodiscard]] matmul_report last_matmul_report() noexcept;

/// activation(a @ b + bias) of 2-d a and b as one cuBLASLt call; bias (n,) or null; activation
/// 0 none, 1 relu, 2 gelu (tanh approximation). An empty result (null base) means cuBLASLt has no
/// kernel for the combination: the caller then composes matmul and elementwise operations.
[[nodiscard]] erased_array matmul_epilogue(const erased_array& a, const erased_array& b, const erased_array* bias,
                                           dtype out_type, int activation);
/// The same written into `into` (C-contiguous, (m, n), of out_type, overlapping no operand), as
/// evaluating `nd::maximum(nd::matmul(a, b) + bias, 0)` into an existing array does. Returns
/// false, having queued nothing, when cuBLASLt has no kernel for the combination.
[[nodiscard]] bool matmul_epilogue_into(const erased_array& into, const erased_array& a, const erased_array& b,
                                        const erased_array* bias, int activation);
/// Test hook: how many fused cuBLASLt epilogue calls this process has queued (both entry points),
/// so tests can tell the fused path from the composed one.
[[nodiscard]] long long epilogue_calls() noexcept;

// ---- solvers (src/linalg/solvers.cpp); `type` is the computation dtype (float32/64, complex) ----

/// x with a @ x = b over the broadcast batch; `b_vector`: b is (..., n) rather than (..., n, k).
[[nodiscard]] erased_array solve(const erased_array& a, const erased_array& b, bool b_vector, dtype type);
/// The inverse of each matrix.
[[nodiscard]] erased_array inv(const erased_array& a, dtype type);
/// (sign, logabsdet) per matrix; sign has `type`, logabsdet its real type. det is sign * exp(logabsdet)
/// computed in the same kernel when `det_only` (then .first is det and .second is empty).
[[nodiscard]] std::pair<erased_array, erased_array> slogdet(const erased_array& a, dtype type, bool det_only);
/// The lower Cholesky factor (upper=false) or the upper one.
[[nodiscard]] erased_array cholesky(const erased_array& a, dtype type, bool upper);
/// mode 0 "reduced", 1 "complete", 2 "r" (then .first is R and .second empty).
[[nodiscard]] std::pair<erased_array, erased_array> qr(const erased_array& a, dtype type, int mode);
/// (u, s, vh) of each matrix; with compute_uv false only s (u, vh empty).
struct svd_result {
  erased_array u, s, vh;
};
[[nodiscard]] svd_result svd(const erased_array& a, dtype type, bool full_matrices, bool compute_uv);
/// (eigenvalues ascending, eigenvectors in columns); with vectors false only the values.
[[nodiscard]] std::pair<erased_array, erased_array> eigh(const erased_array& a, dtype type, bool upper, bool vectors);

/// Tests' view of the handles: bit d set when device d has a handle of that library.
struct handle_bits {
  unsigned long long blas = 0, lt = 0, solver = 0, fft = 0;
};
[[nodiscard]] handle_bits created_handles() noexcept;

}  // namespace ndcuda::linalg::detail

#pragma GCC visibility pop
