/// @file
/// nd::matmul, lazily: it returns the node nd::matmul_expr (linalg/detail/matmul_node.hpp), and
/// act(matmul + bias) inside an expression evaluates as ONE cuBLASLt call with a bias/ReLU/GELU
/// epilogue (linalg/detail/epilogue_rewrite.hpp, a lazy_rewrite specialisation). Builds on those
/// two, both included before nd::matmul: wherever a product can be made, the rewrite is declared
/// before an evaluation instantiates lazy_rewrite.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/linalg/detail/epilogue_rewrite.hpp>  // IWYU pragma: export
#include <ndcuda/linalg/detail/matmul_node.hpp>       // IWYU pragma: export
#include <ndcuda/linalg/detail/operands.hpp>

namespace ndcuda {

/// numpy.matmul (Python's @), lazily: the product is computed where the value is used (see
/// matmul_expr). 1-d operands are promoted to matrices and that axis is removed from the result;
/// batch axes broadcast; dtypes promote (int32 @ float32 is float64). Float and complex go through
/// one cuBLAS call that reads transposed and strided views in place (a copy only when cuBLAS cannot
/// express the layout); float16/bfloat16 use tensor cores with float32 accumulation; float32 stays
/// exact unless linalg::set_allow_tf32(true); integers and bool are exact (NumPy's wrap-around).
/// Runs on a's stream. Expression operands are evaluated now.
template <array_operand X, array_operand Y>
[[nodiscard]] auto matmul(const X& x, const Y& y) {
  const ndcuda::detail::op_range<"nd::matmul"> nvtx;
  using R = promote_t<linalg::detail::value_t<X>, linalg::detail::value_t<Y>>;
  return matmul_expr<R>(linalg::detail::erase(linalg::detail::to_array(x)),
                        linalg::detail::erase(linalg::detail::to_array(y)));
}

}  // namespace ndcuda

#pragma GCC visibility pop
