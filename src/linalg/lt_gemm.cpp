// One 2-d product through cuBLASLt with an optional epilogue: descriptors, the heuristic's first
// algorithm for the operands' true alignment, and the call on out's stream. Builds on the linalg
// handles and the erased arrays.
#include "linalg/lt_gemm.hpp"

#include <cublasLt.h>

#include <algorithm>
#include <cstdint>
#include <ndcuda/linalg/linalg_error.hpp>
#include <ndcuda/memory/detail/buffer.hpp>
#include <string>

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

// The largest power of two, at most 256, that divides the address (cuBLASLt's alignment hints).
std::uint32_t pointer_alignment(const void* p) noexcept {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  std::uint32_t alignment = 256;
  while (alignment > 1 && address % alignment != 0) {
    alignment /= 2;
  }
  return alignment;
}

int as_int(index_t v) {
  if (v > 2147483647) {
    throw shape_error("matmul: extent " + std::to_string(v) + " exceeds cuBLASLt's 32-bit limit");
  }
  return static_cast<int>(v);
}

struct lt_descriptors {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ~lt_descriptors() {
    if (pref != nullptr) {
      (void)cublasLtMatmulPreferenceDestroy(pref);
    }
    if (c != nullptr) {
      (void)cublasLtMatrixLayoutDestroy(c);
    }
    if (b != nullptr) {
      (void)cublasLtMatrixLayoutDestroy(b);
    }
    if (a != nullptr) {
      (void)cublasLtMatrixLayoutDestroy(a);
    }
    if (op != nullptr) {
      (void)cublasLtMatmulDescDestroy(op);
    }
  }
};

}  // namespace

bool lt_gemm(const erased_array& out, const erased_array& a, const gemm_layout& la, const erased_array& b,
             const gemm_layout& lb, index_t m, index_t n, index_t k, const void* bias, int activation,
             bool accumulate) {
  const stream& s = out.s;
  const cudaDataType_t t = cuda_type(out.type);
  const bool dbl = out.type == dtype::float64;
  const cublasComputeType_t compute =
      dbl ? CUBLAS_COMPUTE_64F
          : (out.type == dtype::float32 && allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F);
  const cudaDataType_t scale = dbl ? CUDA_R_64F : CUDA_R_32F;
  lt_descriptors d;
  NDCUDA_LIB_CHECK(cublasLtMatmulDescCreate(&d.op, compute, scale));
  // Column-major D^T (n x m) = op(B) op(A), as in matmul: B is the first operand; the bias runs
  // along D^T's rows, i.e. one value per column of the row-major product.
  const cublasOperation_t op_b = lb.column_major ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = la.column_major ? CUBLAS_OP_T : CUBLAS_OP_N;
  NDCUDA_LIB_CHECK(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSA, &op_b, sizeof op_b));
  NDCUDA_LIB_CHECK(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSB, &op_a, sizeof op_a));
  const cublasLtEpilogue_t epi = lt_epilogue(activation, bias != nullptr);
  NDCUDA_LIB_CHECK(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
  if (bias != nullptr) {
    const void* bp = bias;
    NDCUDA_LIB_CHECK(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp));
    NDCUDA_LIB_CHECK(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &t, sizeof t));
  }
  const int mi = as_int(m), ni = as_int(n), ki = as_int(k);
  // Stored shapes (column-major rows x cols) of the operands as cuBLASLt reads them.
  NDCUDA_LIB_CHECK(cublasLtMatrixLayoutCreate(
      &d.a, t, op_b == CUBLAS_OP_N ? static_cast<std::uint64_t>(ni) : static_cast<std::uint64_t>(ki),
      op_b == CUBLAS_OP_N ? static_cast<std::uint64_t>(ki) : static_cast<std::uint64_t>(ni), lb.ld));
  NDCUDA_LIB_CHECK(cublasLtMatrixLayoutCreate(
      &d.b, t, op_a == CUBLAS_OP_N ? static_cast<std::uint64_t>(ki) : static_cast<std::uint64_t>(mi),
      op_a == CUBLAS_OP_N ? static_cast<std::uint64_t>(mi) : static_cast<std::uint64_t>(ki), la.ld));
  NDCUDA_LIB_CHECK(
      cublasLtMatrixLayoutCreate(&d.c, t, static_cast<std::uint64_t>(ni), static_cast<std::uint64_t>(mi), ni));
  const std::size_t workspace = 32u << 20;
  NDCUDA_LIB_CHECK(cublasLtMatmulPreferenceCreate(&d.pref));
  NDCUDA_LIB_CHECK(cublasLtMatmulPreferenceSetAttribute(d.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                        sizeof workspace));
  // cuBLASLt assumes 256-byte aligned operands unless told: views at an offset must say so.
  // cuBLASLt's A is our b and its B our a (the column-major transpose above).
  const std::uint32_t align_a = pointer_alignment(b.data()), align_b = pointer_alignment(a.data()),
                      align_c = pointer_alignment(out.data());
  NDCUDA_LIB_CHECK(cublasLtMatmulPreferenceSetAttribute(d.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align_a,
                                                        sizeof align_a));
  NDCUDA_LIB_CHECK(cublasLtMatmulPreferenceSetAttribute(d.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align_b,
                                                        sizeof align_b));
  NDCUDA_LIB_CHECK(cublasLtMatmulPreferenceSetAttribute(d.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align_c,
                                                        sizeof align_c));
  NDCUDA_LIB_CHECK(cublasLtMatmulPreferenceSetAttribute(d.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_c,
                                                        sizeof align_c));
  const cublasLtHandle_t lt = lt_handle(s);
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  NDCUDA_LIB_CHECK(cublasLtMatmulAlgoGetHeuristic(lt, d.op, d.a, d.b, d.c, d.c, d.pref, 1, &heuristic, &found));
  if (found == 0) {
    return false;
  }
  void* ws = nullptr;
  const auto ws_owner = ndcuda::detail::allocate_buffer(std::max<std::size_t>(heuristic.workspaceSize, 1), s, &ws);
  const float one_f = 1, zero_f = 0;
  const double one_d = 1, zero_d = 0;
  const void* alpha = dbl ? static_cast<const void*>(&one_d) : static_cast<const void*>(&one_f);
  // accumulate: out += product (beta = 1), as SUMMA adds its panels.
  const void* beta = dbl ? static_cast<const void*>(accumulate ? &one_d : &zero_d)
                         : static_cast<const void*>(accumulate ? &one_f : &zero_f);
  device_guard guard(s.device());
  NDCUDA_LIB_CHECK(cublasLtMatmul(lt, d.op, alpha, b.data(), d.a, a.data(), d.b, beta, out.data(), d.c, out.data(), d.c,
                                  &heuristic.algo, ws, heuristic.workspaceSize, s.handle()));
  return true;
}

}  // namespace ndcuda::linalg::detail
