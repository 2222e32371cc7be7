// Block-level reduction built from warp shuffles (no CUB: CUB costs NVRTC about a second per
// kernel), and a strided reduction kernel template on top. Builds on indexer.cuh and numeric.cuh.
#pragma once

#include "ndcuda/indexer.cuh"
#include "ndcuda/numeric.cuh"

namespace ndcuda {

/// __shfl_down_sync for any trivially copyable T (complex, half, structs), 32 bits at a time.
template <class T>
__forceinline__ T shuffle_down(const T& value, unsigned offset) {
  constexpr int words = (sizeof(T) + 3) / 4;
  unsigned bits[words];
  memcpy(bits, &value, sizeof(T));
#pragma unroll
  for (int w = 0; w < words; ++w) bits[w] = __shfl_down_sync(0xffffffffu, bits[w], offset);
  T result;
  memcpy(&result, bits, sizeof(T));
  return result;
}

/// Combines the values of the first WIDTH lanes (a power of two <= 32); lane 0 holds the result.
/// Every lane of the warp must call it.
template <int WIDTH = 32, class T, class Op>
__forceinline__ T warp_reduce(T value, const Op& op) {
  static_assert(WIDTH >= 1 && WIDTH <= 32 && (WIDTH & (WIDTH - 1)) == 0, "WIDTH must be a power of two <= 32");
#pragma unroll
  for (int offset = WIDTH / 2; offset > 0; offset /= 2) value = op(value, shuffle_down(value, unsigned(offset)));
  return value;
}

/// Combines one value per thread of a BLOCK-thread block (a power of two, 32..1024); thread 0
/// gets the result. Every thread must call it; it ends with __syncthreads(), so it can be called
/// again at once (in a loop over outputs).
template <int BLOCK, class T, class Op>
__forceinline__ T block_reduce(T value, const Op& op) {
  static_assert(BLOCK >= 32 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0, "BLOCK must be a power of two, 32..1024");
  constexpr int warps = BLOCK / 32;
  // Raw storage: __shared__ variables cannot have constructors, and complex<T> has one.
  __shared__ __align__(16) unsigned char storage[warps * sizeof(T)];
  T* partial = reinterpret_cast<T*>(storage);
  const int lane = int(threadIdx.x) % 32;
  const int warp = int(threadIdx.x) / 32;
  value = warp_reduce(value, op);
  if constexpr (warps == 1) return value;
  if (lane == 0) partial[warp] = value;
  __syncthreads();
  if (warp == 0) value = warp_reduce<warps>(partial[lane < warps ? lane : 0], op);
  __syncthreads();
  return value;
}

namespace detail {
template <class R>
struct combine_with {
  const R& reducer;
  template <class T>
  __forceinline__ T operator()(const T& a, const T& b) const {
    return reducer.combine(a, b);
  }
};
}  // namespace detail

/// One block per output element (grid-stride over outputs): each thread folds a strided share of
/// the reduced elements, then the block combines. `outer` maps an output position to {output
/// offset, input base offset}; `inner` maps a reduced position to an input offset. R provides
///   Acc identity() const;  Acc map(const In&) const;  Acc combine(const Acc&, const Acc&) const;
///   Out finalize(const Acc&, IndexT count) const;
/// This is the general strategy; specialised ones (warp per output, two passes) build on the
/// same block_reduce.
template <int BLOCK, int NDIM_OUT, int NDIM_RED, class IndexT, class R, class Out, class In>
__forceinline__ void reduce_strided(const R& reducer, const strided_indexer<NDIM_OUT, 2, IndexT>& outer,
                                    const strided_indexer<NDIM_RED, 1, IndexT>& inner, Out* out, const In* in) {
  for (IndexT o = IndexT(blockIdx.x); o < outer.size; o += IndexT(gridDim.x)) {
    IndexT base[2];
    outer.offsets(o, base);
    auto acc = reducer.identity();
    for (IndexT k = IndexT(threadIdx.x); k < inner.size; k += IndexT(BLOCK)) {
      IndexT offset[1];
      inner.offsets(k, offset);
      acc = reducer.combine(acc, reducer.map(in[base[1] + offset[0]]));
    }
    acc = block_reduce<BLOCK>(acc, detail::combine_with<R>{reducer});
    if (threadIdx.x == 0) out[base[0]] = reducer.finalize(acc, inner.size);
  }
}

}  // namespace ndcuda
