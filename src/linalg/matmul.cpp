// numpy.matmul on the device: float/complex through one cublasGemm(StridedBatched)Ex call that
// reads transposed and strided operands in place, integers and bool through an exact kernel.
#include <algorithm>
#include <atomic>
#include <climits>
#include <mutex>
#include <ndcuda/fft/detail/entry_points.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <ndcuda/linalg/detail/entry_points.hpp>
#include <ndcuda/linalg/detail/matmul_plan.hpp>
#include <ndcuda/linalg/detail/operands.hpp>
#include <ndcuda/linalg/linalg_error.hpp>
#include <string>

#include "linalg/erased_ops.hpp"
#include "linalg/handles.hpp"
#include "linalg/library_check.hpp"
#include "linalg/lt_gemm.hpp"
#include "linalg/solver_kernels.hpp"

namespace ndcuda::linalg {

namespace {
std::atomic<bool> tf32_allowed{false};
}  // namespace

void set_allow_tf32(bool allow) noexcept {
  tf32_allowed.store(allow, std::memory_order_relaxed);
}
bool allow_tf32() noexcept {
  return tf32_allowed.load(std::memory_order_relaxed);
}

namespace detail {

namespace {

thread_local matmul_report report;

int as_int(index_t v, const char* what) {
  if (v > INT_MAX) {
    throw shape_error(std::string("matmul: ") + what + " " + std::to_string(v) +
                      " exceeds cuBLAS's 32-bit limit (2^31 - 1); split the product into smaller blocks");
  }
  return static_cast<int>(v);
}

/// The operand's view as (batch..., rows, cols) with broadcast (zero) strides on the batch axes.
erased_array batched_view(const erased_array& x, bool vector_as_row, const matmul_plan& p, index_t rows, index_t cols) {
  view_layout l = x.layout;
  if (x.ndim() == 1) {
    // NumPy's promotion: a 1-d a is (1, k), a 1-d b is (k, 1); the new axis has extent 1.
    l.shape.insert(vector_as_row ? l.shape.begin() : l.shape.end(), 1);
    l.strides.insert(vector_as_row ? l.strides.begin() : l.strides.end(), 0);
  }
  shape_t full = p.batch;
  full.push_back(rows);
  full.push_back(cols);
  l.strides = broadcast_strides(l.shape, l.strides, full);
  l.shape = full;
  return with_layout(x, std::move(l));
}

// out = a @ b, or out += a @ b when `accumulate` (cuBLAS's beta = 1).
void cublas_matmul(const erased_array& out, erased_array a, erased_array b, const matmul_plan& p, bool accumulate) {
  const std::size_t nb = p.batch.size();
  gemm_layout la = plan_gemm_operand(p.batch, p.m, p.k, a.layout.strides);
  if (!la.ok) {
    a = contiguous_copy(a, a.type, a.layout.shape);
    la = plan_gemm_operand(p.batch, p.m, p.k, a.layout.strides);
    ++report.copies;
  }
  gemm_layout lb = plan_gemm_operand(p.batch, p.k, p.n, b.layout.strides);
  if (!lb.ok) {
    b = contiguous_copy(b, b.type, b.layout.shape);
    lb = plan_gemm_operand(p.batch, p.k, p.n, b.layout.strides);
    ++report.copies;
  }
  (void)nb;
  const dtype t = out.type;
  const cudaDataType_t ct = cuda_type(t);
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  const float one_f = 1.0f, zero_f = 0.0f;
  const double one_d = 1.0, zero_d = 0.0;
  const float one_c[2] = {1.0f, 0.0f}, zero_c[2] = {0.0f, 0.0f};
  const double one_z[2] = {1.0, 0.0}, zero_z[2] = {0.0, 0.0};
  const void* alpha = &one_f;
  const void* beta = accumulate ? &one_f : &zero_f;
  switch (t) {
    case dtype::float32:
      compute = allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      break;
    case dtype::complex64:
      compute = allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      alpha = one_c;
      beta = accumulate ? one_c : zero_c;
      break;
    case dtype::float64:
      compute = CUBLAS_COMPUTE_64F;
      alpha = &one_d;
      beta = accumulate ? &one_d : &zero_d;
      break;
    case dtype::complex128:
      compute = CUBLAS_COMPUTE_64F;
      alpha = one_z;
      beta = accumulate ? one_z : zero_z;
      break;
    default:  // float16, bfloat16: tensor cores, float32 accumulation
      break;
  }
  const int m = as_int(p.m, "row count");
  const int n = as_int(p.n, "column count");
  const int k = as_int(p.k, "inner extent");
  const index_t batch = p.batch_count();
  // Large products want cuBLAS's recommended Hopper workspace; small ones need little.
  const double work = static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
  // Large half-precision products go through cuBLASLt's heuristic, as PyTorch routes them: on the
  // H100 it offers faster Hopper kernels than cublasGemmEx's default choice. Small ones keep the
  // cheaper host path (the heuristic query costs microseconds per call).
  if ((t == dtype::float16 || t == dtype::bfloat16) && batch == 1 && work >= 1.0e8 &&
      lt_gemm(out, a, la, b, lb, p.m, p.n, p.k, nullptr, 0, accumulate)) {
    report.cublas = true;
    return;
  }
  const std::size_t workspace = work >= 1.0e8 ? (32u << 20) : (4u << 20);
  blas_lease lease(out.s, workspace);
  // Row-major C = A B is column-major C^T = B^T A^T: B is cuBLAS's first operand.
  const cublasOperation_t op_b = lb.column_major ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = la.column_major ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int ldb = as_int(lb.ld, "leading dimension");
  const int lda = as_int(la.ld, "leading dimension");
  if (batch == 1) {
    NDCUDA_LIB_CHECK(cublasGemmEx(lease.get(), op_b, op_a, n, m, k, alpha, b.data(), ct, ldb, a.data(), ct, lda, beta,
                                  out.data(), ct, n, compute, CUBLAS_GEMM_DEFAULT));
  } else {
    NDCUDA_LIB_CHECK(cublasGemmStridedBatchedEx(
        lease.get(), op_b, op_a, n, m, k, alpha, b.data(), ct, ldb, static_cast<long long>(lb.batch_stride), a.data(),
        ct, lda, static_cast<long long>(la.batch_stride), beta, out.data(), ct, n, static_cast<long long>(p.m * p.n),
        as_int(batch, "batch count"), compute, CUBLAS_GEMM_DEFAULT));
  }
  report.cublas = true;
}

std::string integer_matmul_source(dtype t) {
  const std::string acc = t == dtype::bool_ ? "acc = acc | (unsigned long long)(x && y);"
                                            : "acc += (unsigned long long)x * (unsigned long long)y;";
  return "typedef " + std::string(cuda_type_name(t)) + R"( T;
// Exact integer matmul: products and sums modulo 2^64, truncated to T (NumPy's wrap-around).
extern "C" __global__ void nd_integer_matmul(const T* a, const T* b, T* c, long long m, long long n, long long k,
    long long batch, long long a_sb, long long a_sr, long long a_sc, long long b_sb, long long b_sr, long long b_sc) {
  __shared__ T sa[16][16];
  __shared__ T sb[16][16];
  const long long row = (long long)blockIdx.y * 16 + threadIdx.y;
  const long long col = (long long)blockIdx.x * 16 + threadIdx.x;
  for (long long z = blockIdx.z; z < batch; z += gridDim.z) {
    const T* A = a + z * a_sb;
    const T* B = b + z * b_sb;
    unsigned long long acc = 0;
    for (long long t = 0; t < k; t += 16) {
      const long long ak = t + threadIdx.x;
      const long long bk = t + threadIdx.y;
      sa[threadIdx.y][threadIdx.x] = (row < m && ak < k) ? A[row * a_sr + ak * a_sc] : (T)0;
      sb[threadIdx.y][threadIdx.x] = (bk < k && col < n) ? B[bk * b_sr + col * b_sc] : (T)0;
      __syncthreads();
      for (int i = 0; i < 16; ++i) {
        const T x = sa[threadIdx.y][i];
        const T y = sb[i][threadIdx.x];
        )" +
         acc + R"(
      }
      __syncthreads();
    }
    if (row < m && col < n) {
      c[z * m * n + row * n + col] = (T)acc;
    }
  }
}
)";
}

const raw_kernel& integer_kernel(dtype t) {
  static std::mutex mutex;
  static std::unique_ptr<raw_kernel> kernels[dtype_count];
  std::lock_guard lock(mutex);
  auto& k = kernels[static_cast<std::size_t>(t)];
  if (!k) {
    k = std::make_unique<raw_kernel>(integer_matmul_source(t), "nd_integer_matmul");
  }
  return *k;
}

void integer_matmul(const erased_array& out, erased_array a, erased_array b, const matmul_plan& p) {
  // Only the batch axes must collapse to one stride; rows and columns may have any strides.
  if (!plan_gemm_operand(p.batch, 1, 1, a.layout.strides).ok) {
    a = contiguous_copy(a, a.type, a.layout.shape);
    ++report.copies;
  }
  if (!plan_gemm_operand(p.batch, 1, 1, b.layout.strides).ok) {
    b = contiguous_copy(b, b.type, b.layout.shape);
    ++report.copies;
  }
  const std::size_t nb = p.batch.size();
  const long long a_sb = static_cast<long long>(plan_gemm_operand(p.batch, 1, 1, a.layout.strides).batch_stride);
  const long long b_sb = static_cast<long long>(plan_gemm_operand(p.batch, 1, 1, b.layout.strides).batch_stride);
  const index_t grid_y = (p.m + 15) / 16;
  if (grid_y > 65535) {
    throw shape_error("matmul: " + std::to_string(p.m) + " rows exceed the integer matmul kernel's limit (" +
                      std::to_string(65535 * 16) + "); split the product, or use a float dtype");
  }
  const launch_config config{dim3(static_cast<unsigned>((p.n + 15) / 16), static_cast<unsigned>(grid_y),
                                  static_cast<unsigned>(std::min<index_t>(p.batch_count(), 65535))),
                             dim3(16, 16, 1), 0};
  const void* ap = a.data();
  const void* bp = b.data();
  void* cp = out.data();
  integer_kernel(out.type).launch(
      config, out.s, ap, bp, cp, static_cast<long long>(p.m), static_cast<long long>(p.n), static_cast<long long>(p.k),
      static_cast<long long>(p.batch_count()), a_sb, static_cast<long long>(a.layout.strides[nb]),
      static_cast<long long>(a.layout.strides[nb + 1]), b_sb, static_cast<long long>(b.layout.strides[nb]),
      static_cast<long long>(b.layout.strides[nb + 1]));
}

}  // namespace

void compile_integer_matmul_kernels(compute_capability cc) {
  for (dtype t : all_dtypes) {
    if (is_integral(t) || t == dtype::bool_) {
      integer_kernel(t).compile(cc);
    }
  }
}

matmul_report last_matmul_report() noexcept {
  return report;
}

namespace {

// The product of a_in and b_in into `out`, a C-contiguous buffer of the plan's full shape (batch,
// m, n) and of out_type, on s. Operands of another dtype are converted first.
void run_matmul(erased_array out, const erased_array& a_in, const erased_array& b_in, const matmul_plan& p,
                const stream& s, bool accumulate = false) {
  const dtype out_type = out.type;
  erased_array a = on_stream(a_in, s);
  erased_array b = on_stream(b_in, s);
  if (a.type != out_type) {
    a = contiguous_copy(a, out_type);
    ++report.copies;
  }
  if (b.type != out_type) {
    b = contiguous_copy(b, out_type);
    ++report.copies;
  }
  if (out.size() == 0 || p.k == 0) {
    return;
  }
  erased_array av = batched_view(a, true, p, p.m, p.k);
  erased_array bv = batched_view(b, false, p, p.k, p.n);
  if (is_floating(out_type) || is_complex(out_type)) {
    cublas_matmul(out, std::move(av), std::move(bv), p, accumulate);
  } else {
    if (accumulate) {
      throw error("ndcuda internal error: matmul_accumulate_into takes float and complex dtypes; please report this");
    }
    integer_matmul(out, std::move(av), std::move(bv), p);
  }
}

shape_t full_shape(const matmul_plan& p) {
  shape_t full = p.batch;
  full.push_back(p.m);
  full.push_back(p.n);
  return full;
}

}  // namespace

erased_array matmul(const erased_array& a_in, const erased_array& b_in, dtype out_type) {
  report = {};
  const matmul_plan p = plan_matmul(a_in.layout.shape, b_in.layout.shape);
  const stream s = a_in.s;
  const shape_t full = full_shape(p);
  erased_array out = p.k == 0 ? zeros_array(out_type, full, s) : empty_array(out_type, full, s);
  run_matmul(out, a_in, b_in, p, s);
  // Dropping the promoted extent-1 axes keeps the buffer C-contiguous.
  out.layout = contiguous_layout(p.out_shape);
  return out;
}

void matmul_into(const erased_array& into, const erased_array& a_in, const erased_array& b_in, bool accumulate) {
  report = {};
  const matmul_plan p = plan_matmul(a_in.layout.shape, b_in.layout.shape);
  if (p.k == 0 || into.layout.shape != p.out_shape || !is_c_contiguous(into.layout.shape, into.layout.strides) ||
      may_share(into, a_in) || may_share(into, b_in)) {
    throw error(
        "ndcuda internal error: matmul_into needs a non-empty inner extent and a C-contiguous target of the "
        "product's shape " +
        format_shape(p.out_shape) + " sharing no memory with the operands; please report this");
  }
  const stream s = a_in.s;
  erased_array out = on_stream(into, s);          // s waits for earlier work on the target (its reads)
  out.layout = contiguous_layout(full_shape(p));  // the same bytes, with the promoted extent-1 axes
  run_matmul(out, a_in, b_in, p, s, accumulate);
  ndcuda::detail::order_after(into.s, s);  // later work on the target's stream sees the product
}

handle_bits created_handles() noexcept {
  const handle_census c = census();
  handle_bits bits;
  bits.blas = c.blas;
  bits.lt = c.lt;
  bits.solver = c.solver;
  bits.fft = fft::detail::plan_devices();
  return bits;
}

}  // namespace detail
}  // namespace ndcuda::linalg
