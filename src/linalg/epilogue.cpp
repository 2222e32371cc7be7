// act(a @ b + bias) as one cuBLASLt matmul with a bias/ReLU/GELU epilogue: the product never
// makes a round trip through memory before the activation.
#include <cublasLt.h>

#include <algorithm>
#include <cstdint>
#include <ndcuda/linalg/detail/entry_points.hpp>
#include <ndcuda/linalg/detail/matmul_plan.hpp>
#include <ndcuda/linalg/linalg_error.hpp>
#include <ndcuda/memory/buffer.hpp>
#include <string>

#include "linalg/erased_ops.hpp"
#include "linalg/handles.hpp"
#include "linalg/library_check.hpp"

namespace ndcuda::linalg::detail {

namespace {

cublasLtEpilogue_t lt_epilogue(int e, bool bias) {
  // 0 none, 1 relu, 2 gelu (the activation); the bias flag adds the bias.
  switch (e) {
    case 1:
      return bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
    case 2:
      return bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
    default:
      return bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
  }
}

cudaDataType_t lt_type(dtype t) {
  switch (t) {
    case dtype::float16:
      return CUDA_R_16F;
    case dtype::bfloat16:
      return CUDA_R_16BF;
    case dtype::float32:
      return CUDA_R_32F;
    case dtype::float64:
      return CUDA_R_64F;
    default:
      throw error("matmul_epilogue: " + std::string(name(t)) +
                  " is not supported; use float16, bfloat16, float32 or float64 operands");
  }
}

int as_int(index_t v) {
  if (v > 2147483647) {
    throw shape_error("matmul_epilogue: extent " + std::to_string(v) + " exceeds cuBLASLt's 32-bit limit");
  }
  return static_cast<int>(v);
}

struct lt_descriptors {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ~lt_descriptors() {
    if (pref != nullptr) (void)cublasLtMatmulPreferenceDestroy(pref);
    if (c != nullptr) (void)cublasLtMatrixLayoutDestroy(c);
    if (b != nullptr) (void)cublasLtMatrixLayoutDestroy(b);
    if (a != nullptr) (void)cublasLtMatrixLayoutDestroy(a);
    if (op != nullptr) (void)cublasLtMatmulDescDestroy(op);
  }
};

}  // namespace

erased_array matmul_epilogue(const erased_array& a_in, const erased_array& b_in, const erased_array* bias_in,
                             dtype out_type, int activation) {
  if (a_in.ndim() != 2 || b_in.ndim() != 2) {
    throw shape_error("matmul_epilogue: needs 2-d a and b (got shapes " + format_shape(a_in.layout.shape) + " and " +
                      format_shape(b_in.layout.shape) + ")");
  }
  const matmul_plan p = plan_matmul(a_in.layout.shape, b_in.layout.shape, "matmul_epilogue");
  const stream s = a_in.s;
  erased_array a = on_stream(a_in, s);
  erased_array b = on_stream(b_in, s);
  if (a.type != out_type) {
    a = contiguous_copy(a, out_type);
  }
  if (b.type != out_type) {
    b = contiguous_copy(b, out_type);
  }
  erased_array bias;
  if (bias_in != nullptr) {
    if (bias_in->ndim() != 1 || bias_in->layout.shape[0] != p.n) {
      throw shape_error("matmul_epilogue: bias must have shape (" + std::to_string(p.n) +
                        ",), one value per column "
                        "of the product; got " +
                        format_shape(bias_in->layout.shape));
    }
    bias = as_contiguous(on_stream(*bias_in, s), out_type);
  }
  erased_array out = empty_array(out_type, {p.m, p.n}, s);
  if (out.size() == 0) {
    return out;
  }
  if (p.k == 0) {
    // No product: act(bias) broadcast; rare enough to go through plain matmul and the caller.
    throw shape_error("matmul_epilogue: the inner extent is 0; use matmul and elementwise operations instead");
  }
  gemm_layout la = plan_gemm_operand({}, p.m, p.k, a.layout.strides);
  if (!la.ok) {
    a = contiguous_copy(a, out_type);
    la = plan_gemm_operand({}, p.m, p.k, a.layout.strides);
  }
  gemm_layout lb = plan_gemm_operand({}, p.k, p.n, b.layout.strides);
  if (!lb.ok) {
    b = contiguous_copy(b, out_type);
    lb = plan_gemm_operand({}, p.k, p.n, b.layout.strides);
  }
  const cudaDataType_t t = lt_type(out_type);
  const bool dbl = out_type == dtype::float64;
  const cublasComputeType_t compute =
      dbl ? CUBLAS_COMPUTE_64F
          : (out_type == dtype::float32 && allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F);
  const cudaDataType_t scale = dbl ? CUDA_R_64F : CUDA_R_32F;
  lt_descriptors d;
  NDCUDA_LIB_CHECK(cublasLtMatmulDescCreate(&d.op, compute, scale));
  // Column-major D^T (n x m) = op(B) op(A), as in matmul: B is the first operand; the bias runs
  // along D^T's rows, i.e. one value per column of the row-major product.
  const cublasOperation_t op_b = lb.column_major ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = la.column_major ? CUBLAS_OP_T : CUBLAS_OP_N;
  NDCUDA_LIB_CHECK(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSA, &op_b, sizeof op_b));
  NDCUDA_LIB_CHECK(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSB, &op_a, sizeof op_a));
  const cublasLtEpilogue_t epi = lt_epilogue(activation, bias_in != nullptr);
  NDCUDA_LIB_CHECK(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
  if (bias_in != nullptr) {
    const void* bp = bias.data();
    NDCUDA_LIB_CHECK(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp));
    NDCUDA_LIB_CHECK(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &t, sizeof t));
  }
  const int m = as_int(p.m), n = as_int(p.n), k = as_int(p.k);
  // Stored shapes (column-major rows x cols) of the operands as cuBLASLt reads them.
  NDCUDA_LIB_CHECK(cublasLtMatrixLayoutCreate(
      &d.a, t, op_b == CUBLAS_OP_N ? static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(k),
      op_b == CUBLAS_OP_N ? static_cast<std::uint64_t>(k) : static_cast<std::uint64_t>(n), lb.ld));
  NDCUDA_LIB_CHECK(cublasLtMatrixLayoutCreate(
      &d.b, t, op_a == CUBLAS_OP_N ? static_cast<std::uint64_t>(k) : static_cast<std::uint64_t>(m),
      op_a == CUBLAS_OP_N ? static_cast<std::uint64_t>(m) : static_cast<std::uint64_t>(k), la.ld));
  NDCUDA_LIB_CHECK(
      cublasLtMatrixLayoutCreate(&d.c, t, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(m), n));
  const std::size_t workspace = 32u << 20;
  NDCUDA_LIB_CHECK(cublasLtMatmulPreferenceCreate(&d.pref));
  NDCUDA_LIB_CHECK(cublasLtMatmulPreferenceSetAttribute(d.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                        sizeof workspace));
  const cublasLtHandle_t lt = lt_handle(s);
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  NDCUDA_LIB_CHECK(cublasLtMatmulAlgoGetHeuristic(lt, d.op, d.a, d.b, d.c, d.c, d.pref, 1, &heuristic, &found));
  if (found == 0) {
    return erased_array{};  // no cuBLASLt kernel for this combination: the caller composes it
  }
  void* ws = nullptr;
  const auto ws_owner = ndcuda::detail::allocate_buffer(std::max<std::size_t>(heuristic.workspaceSize, 1), s, &ws);
  const float one_f = 1, zero_f = 0;
  const double one_d = 1, zero_d = 0;
  const void* alpha = dbl ? static_cast<const void*>(&one_d) : static_cast<const void*>(&one_f);
  const void* beta = dbl ? static_cast<const void*>(&zero_d) : static_cast<const void*>(&zero_f);
  device_guard guard(s.device());
  NDCUDA_LIB_CHECK(cublasLtMatmul(lt, d.op, alpha, b.data(), d.a, a.data(), d.b, beta, out.data(), d.c, out.data(), d.c,
                                  &heuristic.algo, ws, heuristic.workspaceSize, s.handle()));
  return out;
}

}  // namespace ndcuda::linalg::detail
