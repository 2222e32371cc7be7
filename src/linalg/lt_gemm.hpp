// One 2-d product through cuBLASLt, with an optional bias/activation epilogue: shared by matmul
// (half-precision products, as PyTorch routes them) and matmul_epilogue.
#pragma once

#include <ndcuda/linalg/detail/matmul_plan.hpp>

#include "linalg/erased_ops.hpp"

namespace ndcuda::linalg::detail {

/// out (m x n, C-contiguous, float16/bfloat16/float32/float64) = activation(a @ b + bias), with a
/// and b read in place through their gemm layouts; bias is (n,) of out's type or null; activation
/// 0 none, 1 relu, 2 gelu. Returns false, having queued nothing, when cuBLASLt offers no
/// algorithm for the combination (the caller then takes another path).
[[nodiscard]] bool lt_gemm(const erased_array& out, const erased_array& a, const gemm_layout& la, const erased_array& b,
                           const gemm_layout& lb, index_t m, index_t n, index_t k, const void* bias, int activation,
                           bool accumulate = false);

}  // namespace ndcuda::linalg::detail
