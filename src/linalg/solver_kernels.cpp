// NVRTC sources of the solvers' helper kernels, one raw_kernel per dtype, built on first use.
#include "linalg/solver_kernels.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <ndcuda/jit/raw_kernel.hpp>
#include <string>

namespace ndcuda::linalg::detail {

namespace {

// Elements are moved as unsigned words of their size: zero bits are zero in every dtype.
const char* word_for(std::size_t bytes) {
  switch (bytes) {
    case 2:
      return "unsigned short";
    case 4:
      return "unsigned int";
    case 8:
      return "unsigned long long";
    default:
      return "ulonglong2";
  }
}

std::string triangle_source(std::size_t bytes) {
  return std::string("typedef ") + word_for(bytes) + R"( W;
extern "C" __global__ void nd_zero_triangle(W* x, long long batch, long long rows, long long cols, long long sb,
                                            long long sr, long long sc, int keep_upper) {
  const long long total = batch * rows * cols;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
    const long long c = i % cols;
    const long long r = (i / cols) % rows;
    const long long b = i / (cols * rows);
    if (keep_upper ? (r > c) : (r < c)) {
      W zero;
      memset(&zero, 0, sizeof(W));
      x[b * sb + r * sr + c * sc] = zero;
    }
  }
}
)";
}

std::string determinant_source(dtype t) {
  const bool cplx = is_complex(t);
  const bool dbl = t == dtype::float64 || t == dtype::complex128;
  std::string src =
      std::string("typedef ") + (dbl ? "double" : "float") + " R;\n#define ND_COMPLEX " + (cplx ? "1" : "0") + "\n";
  src += R"(
// One thread per matrix: sign and log|det| from the diagonal of U and the pivots' parity.
extern "C" __global__ void nd_lu_determinant(const R* lu, const int* ipiv, R* sign, R* logabs, long long n,
                                             long long batch, int det_only) {
  for (long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x; b < batch; b += (long long)gridDim.x * blockDim.x) {
    R sr = 1, si = 0, la = 0;
    for (long long i = 0; i < n; ++i) {
#if ND_COMPLEX
      const R dr = lu[2 * (b * n * n + i * n + i)];
      const R di = lu[2 * (b * n * n + i * n + i) + 1];
      const R mag = hypot(dr, di);
      if (mag == 0) { sr = 0; si = 0; la = log((R)0); break; }
      const R ur = dr / mag, ui = di / mag;
      const R tr = sr * ur - si * ui;
      si = sr * ui + si * ur;
      sr = tr;
      la += log(mag);
#else
      const R d = lu[b * n * n + i * n + i];
      if (d == 0) { sr = 0; la = log((R)0); break; }
      if (d < 0) sr = -sr;
      la += log(fabs(d));
#endif
      if (ipiv[b * n + i] != i + 1) { sr = -sr; si = -si; }
    }
#if ND_COMPLEX
    if (det_only) {
      const R e = exp(la);
      sign[2 * b] = sr * e;
      sign[2 * b + 1] = si * e;
    } else {
      sign[2 * b] = sr;
      sign[2 * b + 1] = si;
      logabs[b] = la;
    }
#else
    if (det_only) {
      sign[b] = sr * exp(la);
    } else {
      sign[b] = sr;
      logabs[b] = la;
    }
#endif
  }
}
)";
  return src;
}

std::string scalar_prelude(dtype t) {
  const bool cplx = is_complex(t);
  const bool dbl = t == dtype::float64 || t == dtype::complex128;
  std::string src = std::string("typedef ") + (dbl ? "double" : "float") + " R;\n";
  src += cplx ? R"(
struct T { R re, im; };
__device__ T t_make(R re) { T r; r.re = re; r.im = 0; return r; }
__device__ T t_add(T a, T b) { T r; r.re = a.re + b.re; r.im = a.im + b.im; return r; }
__device__ T t_sub(T a, T b) { T r; r.re = a.re - b.re; r.im = a.im - b.im; return r; }
__device__ T t_mul(T a, T b) { T r; r.re = a.re * b.re - a.im * b.im; r.im = a.re * b.im + a.im * b.re; return r; }
__device__ T t_conj(T a) { a.im = -a.im; return a; }
)"
              : R"(
typedef R T;
__device__ T t_make(R re) { return re; }
__device__ T t_add(T a, T b) { return a + b; }
__device__ T t_sub(T a, T b) { return a - b; }
__device__ T t_mul(T a, T b) { return a * b; }
__device__ T t_conj(T a) { return a; }
)";
  return src;
}

std::string householder_source(dtype t) {
  return scalar_prelude(t) + R"(
// Q = H(0) H(1) ... H(k-1) e_c for column c, one thread per (matrix, column): H(i) = I - tau_i v v^H with v[i] = 1,
// v[r > i] = f[i * m + r] (LAPACK's geqrf layout, column-major m x n). The reflectors with i > c leave e_c alone,
// so the product starts at i = min(c, k - 1). q is column-major m x qcols per matrix, consecutive.
extern "C" __global__ void nd_householder_q(const T* f, const T* tau, T* q, long long m, long long n, long long k,
                                            long long qcols, long long batch) {
  const long long total = batch * qcols;
  for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < total;
       idx += (long long)gridDim.x * blockDim.x) {
    const long long b = idx / qcols, c = idx % qcols;
    const T* a = f + b * m * n;
    const T* t = tau + b * k;
    T* x = q + (b * qcols + c) * m;
    for (long long r = 0; r < m; ++r) x[r] = t_make(r == c ? (R)1 : (R)0);
    for (long long i = (c < k ? c : k - 1); i >= 0; --i) {
      const T* v = a + i * m;
      T w = x[i];
      for (long long r = i + 1; r < m; ++r) w = t_add(w, t_mul(t_conj(v[r]), x[r]));
      w = t_mul(t[i], w);
      x[i] = t_sub(x[i], w);
      for (long long r = i + 1; r < m; ++r) x[r] = t_sub(x[r], t_mul(v[r], w));
    }
  }
}
)";
}

std::string nan_mark_source(dtype real_type) {
  return std::string("typedef ") + (real_type == dtype::float64 ? "double" : "float") + R"( R;
// A NaN among matrix b's eigen/singular values marks it as not converged (NumPy's LAPACK fails on NaN input).
// A warp per matrix: the lanes read its values side by side (coalesced, no load waits on another) and vote.
// The block size is a multiple of 32, so every warp has one matrix.
extern "C" __global__ void nd_mark_nan(const R* values, int* info, long long per, long long batch, int code) {
  const long long lane = threadIdx.x % 32;
  const long long warps = (long long)gridDim.x * blockDim.x / 32;
  for (long long b = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32; b < batch; b += warps) {
    bool nan = false;
    for (long long j = lane; j < per; j += 32) nan |= values[b * per + j] != values[b * per + j];
    if (__any_sync(0xffffffffu, nan) && lane == 0 && info[b] == 0) info[b] = code;
  }
}
)";
}

const raw_kernel& householder_kernel(dtype t) {
  static std::mutex mutex;
  static std::unique_ptr<raw_kernel> kernels[dtype_count];
  std::lock_guard lock(mutex);
  auto& k = kernels[static_cast<std::size_t>(t)];
  if (!k) {
    k = std::make_unique<raw_kernel>(householder_source(t), "nd_householder_q");
  }
  return *k;
}

const raw_kernel& nan_mark_kernel(dtype real_type) {
  static const raw_kernel f32(nan_mark_source(dtype::float32), "nd_mark_nan");
  static const raw_kernel f64(nan_mark_source(dtype::float64), "nd_mark_nan");
  return real_type == dtype::float64 ? f64 : f32;
}

const raw_kernel& triangle_kernel(std::size_t bytes) {
  static std::mutex mutex;
  static std::unique_ptr<raw_kernel> kernels[17];
  std::lock_guard lock(mutex);
  auto& k = kernels[bytes];
  if (!k) {
    k = std::make_unique<raw_kernel>(triangle_source(bytes), "nd_zero_triangle");
  }
  return *k;
}

const raw_kernel& determinant_kernel(dtype t) {
  static std::mutex mutex;
  static std::unique_ptr<raw_kernel> kernels[dtype_count];
  std::lock_guard lock(mutex);
  auto& k = kernels[static_cast<std::size_t>(t)];
  if (!k) {
    k = std::make_unique<raw_kernel>(determinant_source(t), "nd_lu_determinant");
  }
  return *k;
}

const raw_kernel& pointer_kernel() {
  static const raw_kernel k(R"(
extern "C" __global__ void nd_pointer_array(char** out, char* base, long long stride, long long count) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += (long long)gridDim.x * blockDim.x) {
    out[i] = base + i * stride;
  }
}
)",
                            "nd_pointer_array");
  return k;
}

}  // namespace

void fill_pointer_array(void** out, void* base, index_t stride_bytes, index_t count, const stream& s) {
  if (count == 0) {
    return;
  }
  const raw_kernel& k = pointer_kernel();
  k.launch(k.occupancy_config(static_cast<std::size_t>(count), s), s, out, base, static_cast<long long>(stride_bytes),
           static_cast<long long>(count));
}

void zero_triangle(const erased_array& x, bool keep_upper) {
  const std::size_t nd = x.layout.shape.size();
  const index_t rows = x.layout.shape[nd - 2];
  const index_t cols = x.layout.shape[nd - 1];
  const index_t total = x.size();
  if (total == 0) {
    return;
  }
  const index_t batch = total / (rows * cols);
  // Batch axes of the buffers the solvers make are C-ordered: the innermost batch stride steps one matrix.
  const index_t sb = nd > 2 ? x.layout.strides[nd - 3] : 0;
  void* p = x.data();
  const raw_kernel& k = triangle_kernel(itemsize(x.type));
  const launch_config config = k.occupancy_config(static_cast<std::size_t>(total), x.s);
  k.launch(config, x.s, p, static_cast<long long>(batch), static_cast<long long>(rows), static_cast<long long>(cols),
           static_cast<long long>(sb), static_cast<long long>(x.layout.strides[nd - 2]),
           static_cast<long long>(x.layout.strides[nd - 1]), keep_upper ? 1 : 0);
}

void lu_determinant(dtype type, const void* lu, const int* ipiv, void* sign, void* logabs, index_t n, index_t batch,
                    bool det_only, const stream& s) {
  if (batch == 0) {
    return;
  }
  const raw_kernel& k = determinant_kernel(type);
  const launch_config config = k.occupancy_config(static_cast<std::size_t>(batch), s);
  k.launch(config, s, lu, ipiv, sign, logabs, static_cast<long long>(n), static_cast<long long>(batch),
           det_only ? 1 : 0);
}

void householder_q(dtype type, const void* f, const void* tau, void* q, index_t m, index_t n, index_t k, index_t q_cols,
                   index_t batch, const stream& s) {
  if (batch == 0 || q_cols == 0 || m == 0) {
    return;
  }
  const raw_kernel& kern = householder_kernel(type);
  const launch_config config = kern.occupancy_config(static_cast<std::size_t>(batch * q_cols), s);
  kern.launch(config, s, f, tau, q, static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k),
              static_cast<long long>(q_cols), static_cast<long long>(batch));
}

void mark_nan_failures(dtype real_type, const void* values, int* info, index_t per, index_t batch, int code,
                       const stream& s) {
  if (batch == 0 || per == 0) {
    return;
  }
  const raw_kernel& kern = nan_mark_kernel(real_type);
  constexpr unsigned warp = 32;
  launch_config config = kern.occupancy_config(static_cast<std::size_t>(batch) * warp, s);
  config.block.x = std::max(warp, config.block.x / warp * warp);  // whole warps: one matrix each
  kern.launch(config, s, values, info, static_cast<long long>(per), static_cast<long long>(batch), code);
}

void compile_solver_kernels(compute_capability cc) {
  for (std::size_t bytes : {2u, 4u, 8u, 16u}) {
    triangle_kernel(bytes).compile(cc);
  }
  for (dtype t : {dtype::float32, dtype::float64, dtype::complex64, dtype::complex128}) {
    determinant_kernel(t).compile(cc);
  }
  pointer_kernel().compile(cc);
  // The batched QR's Q: one real and one complex dtype (the source differs only in R's width).
  householder_kernel(dtype::float32).compile(cc);
  householder_kernel(dtype::complex128).compile(cc);
  nan_mark_kernel(dtype::float32).compile(cc);
}

}  // namespace ndcuda::linalg::detail
