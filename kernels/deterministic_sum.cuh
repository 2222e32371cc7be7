// Sums whose bits depend only on the values and their positions in the global array, never on
// how the array is cut (shards, GPUs, alignment): the array is split into fixed blocks of
// `block_elements` global elements, each summed in one fixed order by one CUDA block, and the block
// sums are added in a fixed tree (src/ops/deterministic_sum.cpp, docs/distributed.md). Included by
// the generated source of src/ops/deterministic_sum.cpp.
#pragma once

namespace ndcuda {
namespace deterministic {

constexpr int threads = 256;  // per CUDA block; the order below depends on it, so it is fixed
constexpr int lanes = 4;      // independent running sums per thread (loads in flight)

// Thread t adds elements t, t + threads, t + 2 threads, ... of x[0, len), element j of its own
// sequence into running sum j % lanes; then the lanes pairwise, then a fixed shuffle tree over the
// warp and one over the warps. Every step is fixed by (t, len), so any buffer holding the same
// values gives the same bits.
template <class T>
__device__ double fixed_order_sum(const T* x, long long len) {
  __shared__ double warp_sums[threads / 32];
  double acc[lanes] = {0.0, 0.0, 0.0, 0.0};
  for (long long i = threadIdx.x; i < len; i += static_cast<long long>(lanes) * threads) {
#pragma unroll
    for (int u = 0; u < lanes; ++u) {
      const long long j = i + static_cast<long long>(u) * threads;
      if (j < len) {
        acc[u] += static_cast<double>(x[j]);
      }
    }
  }
  double v = (acc[0] + acc[1]) + (acc[2] + acc[3]);
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  const int warp = static_cast<int>(threadIdx.x) / 32;
  if (threadIdx.x % 32 == 0) {
    warp_sums[warp] = v;
  }
  __syncthreads();
  if (warp == 0) {
    v = threadIdx.x < threads / 32 ? warp_sums[threadIdx.x] : 0.0;
#pragma unroll
    for (int offset = threads / 64; offset > 0; offset /= 2) {
      v += __shfl_down_sync(0xffffffffu, v, offset);
    }
  }
  __syncthreads();  // warp_sums is reused by the caller's next block
  return v;         // meaningful in thread 0
}

// out[k] = the fixed-order sum of x[k * block_elements, min((k + 1) * block_elements, n)).
template <class T>
__global__ void __launch_bounds__(threads) block_sums(const T* x, long long n, long long block_elements, double* out) {
  const long long blocks = (n + block_elements - 1) / block_elements;
  for (long long k = blockIdx.x; k < blocks; k += gridDim.x) {
    const long long begin = k * block_elements;
    const long long len = n - begin < block_elements ? n - begin : block_elements;
    const double v = fixed_order_sum(x + begin, len);
    if (threadIdx.x == 0) {
      out[k] = v;
    }
  }
}

// *out = the fixed-order sum of the `count` block sums, divided by `divisor` (1 for a sum, the
// element count for a mean), rounded once to T. One CUDA block.
template <class T>
__global__ void __launch_bounds__(threads) total(const double* partials, long long count, double divisor, T* out) {
  const double v = fixed_order_sum(partials, count);
  if (threadIdx.x == 0) {
    *out = static_cast<T>(v / divisor);
  }
}

}  // namespace deterministic
}  // namespace ndcuda
