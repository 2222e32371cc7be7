// NVRTC sources of the solvers' helper kernels, one raw_kernel per dtype, built on first use.
#include "linalg/solver_kernels.hpp"

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

void compile_solver_kernels(compute_capability cc) {
  for (std::size_t bytes : {2u, 4u, 8u, 16u}) {
    triangle_kernel(bytes).compile(cc);
  }
  for (dtype t : {dtype::float32, dtype::float64, dtype::complex64, dtype::complex128}) {
    determinant_kernel(t).compile(cc);
  }
  pointer_kernel().compile(cc);
}

}  // namespace ndcuda::linalg::detail
