/// @file
/// nd::linalg_error (NumPy's LinAlgError) and the precision switch of the products.
/// Builds on core/error.hpp only, so CPU-side planning code can throw it without the math libraries.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/core/error.hpp>

namespace ndcuda {

/// A matrix the operation cannot handle: "Singular matrix", "Matrix is not positive definite",
/// "SVD did not converge" (numpy.linalg.LinAlgError, with NumPy's wording).
class linalg_error : public error {
 public:
  using error::error;
};

namespace linalg {

/// Whether float32 products (matmul, dot, einsum, tensordot, solvers' products) may use TF32
/// tensor cores: 10 mantissa bits in the multiplications, about 3x the speed on H100/H200. Off by
/// default, as NumPy's float32 results expect (torch.backends.cuda.matmul.allow_tf32 alike).
/// Process-wide; read at each call.
void set_allow_tf32(bool allow) noexcept;
/// Whether float32 products may use TF32 tensor cores (set_allow_tf32).
[[nodiscard]] bool allow_tf32() noexcept;

}  // namespace linalg
}  // namespace ndcuda

namespace ndcuda::linalg {

/// Solvers check LAPACK's info codes (singular, not positive definite, no convergence) by reading
/// them back at once, which waits for the stream. While the stream captures a graph, that wait is
/// impossible: the codes are then written to pinned host memory on every replay instead, and this
/// call checks them. Call it after a replay has finished (e.g. after s.synchronize()): it throws
/// linalg_error naming the first failed operation of the last replay, or returns quietly.
void check_captured_info();

/// Forgets the info slots of captured solver calls (after their graphs are destroyed); their
/// pinned memory is freed. Slots are small (4 bytes per matrix), so this is only for programs
/// that capture many graphs.
void clear_captured_info();

}  // namespace ndcuda::linalg

#pragma GCC visibility pop
