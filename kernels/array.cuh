// The array layer's own kernels (src/array/kernels.cpp launches them as raw kernels): fill with a
// byte pattern, and index-generated sequences for arange/linspace. Needs nothing from the others.
#pragma once

namespace ndcuda {

/// 16 bytes moved as one value: fill's pattern for complex128.
struct bytes16 {
  unsigned long long lo, hi;
};

/// out[i * stride] = value for i < n (U is an unsigned type of the element's size, or bytes16).
template <class U>
__global__ void fill_kernel(U* out, U value, long long n, long long stride) {
  for (long long i = blockIdx.x * 1ll * blockDim.x + threadIdx.x; i < n; i += 1ll * gridDim.x * blockDim.x) {
    out[i * stride] = value;
  }
}

}  // namespace ndcuda

/// out[i] = start + i * step in double; the last element is `last` when has_last (linspace's
/// endpoint), and every value is rounded down when round_down (linspace into integers).
extern "C" __global__ void ndcuda_sequence_f64(double* out, double start, double step, long long n, int has_last,
                                               double last, int round_down) {
  for (long long i = blockIdx.x * 1ll * blockDim.x + threadIdx.x; i < n; i += 1ll * gridDim.x * blockDim.x) {
    double v = (has_last && i == n - 1) ? last : start + static_cast<double>(i) * step;
    out[i] = round_down ? floor(v) : v;
  }
}

/// out[i] = start + i * step in int64 (arange of integers, exact beyond 2^53).
extern "C" __global__ void ndcuda_sequence_i64(long long* out, long long start, long long step, long long n) {
  for (long long i = blockIdx.x * 1ll * blockDim.x + threadIdx.x; i < n; i += 1ll * gridDim.x * blockDim.x) {
    out[i] = start + i * step;
  }
}
