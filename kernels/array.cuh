// The array layer's own kernels (src/array/kernels.cpp launches them as raw kernels): fill with a
// byte pattern, and index-generated sequences for arange/linspace. Builds on numeric.cuh (cast<To>,
// so a sequence is converted as astype converts); a kernel of float16 or bfloat16 elements includes
// cuda_fp16.h or cuda_bf16.h first.
#pragma once

#include "ndcuda/numeric.cuh"

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

/// Element i of a sequence computed in double: start + i * step, or `last` at index `last_index`
/// (linspace's endpoint; -1 for none), rounded down when `round_down` (linspace into integers).
/// Every block of a sequence computes its elements with this one function, so a block equals the
/// same indices of the whole sequence bit for bit.
__forceinline__ double sequence_value(long long i, double start, double step, long long last_index, double last,
                                      int round_down) {
  const double v = i == last_index ? last : start + static_cast<double>(i) * step;
  return round_down ? floor(v) : v;
}

/// out[j] = cast<T>(sequence_value(first + j, ...)) for j < n: elements [first, first + n) of a
/// double sequence (arange, linspace) written straight into T, converted as astype converts. A
/// distributed array's rank passes its block's first global index; a whole sequence passes 0.
template <class T>
__global__ void sequence_f64_kernel(T* out, long long first, long long n, double start, double step,
                                    long long last_index, double last, int round_down) {
  for (long long j = blockIdx.x * 1ll * blockDim.x + threadIdx.x; j < n; j += 1ll * gridDim.x * blockDim.x) {
    out[j] = cast<T>(sequence_value(first + j, start, step, last_index, last, round_down));
  }
}

/// out[j] = cast<T>(start + (first + j) * step) computed in int64 for j < n (integer arange, exact
/// beyond 2^53; the host checked that no element overflows).
template <class T>
__global__ void sequence_i64_kernel(T* out, long long first, long long n, long long start, long long step) {
  for (long long j = blockIdx.x * 1ll * blockDim.x + threadIdx.x; j < n; j += 1ll * gridDim.x * blockDim.x) {
    out[j] = cast<T>(start + (first + j) * step);
  }
}

}  // namespace ndcuda
