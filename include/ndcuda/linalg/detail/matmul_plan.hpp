// Shape planning of the products, without a device: NumPy's matmul rules (1-d promotion and
// removal, batch broadcasting) and how one operand's strides map onto a strided-batched GEMM.
// Builds on core/shape.hpp; implemented in src/linalg/matmul_plan.cpp, tested on the CPU.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/core/shape.hpp>
#include <span>

namespace ndcuda::linalg::detail {

/// out[..., m, n] = sum_k a[..., m, k] * b[..., k, n] over the broadcast batch.
struct matmul_plan {
  shape_t batch;          ///< broadcast batch shape (empty for plain matrices)
  index_t m = 0;          ///< rows of a (1 when a was a vector)
  index_t n = 0;          ///< columns of b (1 when b was a vector)
  index_t k = 0;          ///< the contracted extent
  bool a_vector = false;  ///< a was 1-d: promoted to (1, k), that axis removed from the result
  bool b_vector = false;  ///< b was 1-d: promoted to (k, 1), that axis removed from the result
  shape_t out_shape;      ///< NumPy's result shape
  [[nodiscard]] index_t batch_count() const { return shape_size(batch); }
};

/// numpy.matmul's shape rule; `what` names the function in messages ("matmul"). Throws
/// shape_error with NumPy's wording for 0-d operands, mismatched core dimensions, or batch
/// dimensions that do not broadcast.
[[nodiscard]] matmul_plan plan_matmul(std::span<const index_t> a, std::span<const index_t> b,
                                      const char* what = "matmul");

/// How one operand of a strided-batched GEMM is read: its (rows x cols) matrices, batch index i at
/// data + i * batch_stride, each matrix row-major (leading dimension ld = row stride) or
/// column-major (ld = column stride). `ok` is false when cuBLAS cannot express the layout
/// (negative or overlapping strides, batch axes that do not collapse to one stride): the caller
/// copies the operand then.
struct gemm_layout {
  bool ok = false;
  bool column_major = false;
  index_t ld = 0;
  index_t batch_stride = 0;
};

/// `strides` are the operand's strides for (batch..., rows, cols) after broadcasting to `batch`
/// (zero on broadcast axes), in elements.
[[nodiscard]] gemm_layout plan_gemm_operand(std::span<const index_t> batch, index_t rows, index_t cols,
                                            std::span<const index_t> strides);

}  // namespace ndcuda::linalg::detail

#pragma GCC visibility pop
