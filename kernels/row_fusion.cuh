// The row-resident kernels of fused reductions (src/ops/row_fusion.cpp generates them): a block
// folds one row of mapped values with a reducer of reducers.cuh and every thread gets the result.
// Builds on reduction.cuh (block_reduce).
#pragma once

#include "ndcuda/reducers.cuh"
#include "ndcuda/reduction.cuh"

namespace ndcuda {

/// reducer r folded over value_at(0), ..., value_at(cols - 1) by a BLOCK-thread block: each thread
/// takes a strided share, the block combines, and the finalized result reaches every thread.
/// Every thread must call it; it ends with a barrier, so it may be called again at once.
template <int BLOCK, class R, class F>
__forceinline__ auto row_reduce(const R& r, long long cols, const F& value_at) {
  auto acc = r.identity();
  // Unrolled so that a thread has several loads in flight: the first stage is the one that reads
  // the row from memory (the later ones find it in L1).
#pragma unroll 4
  for (long long c = threadIdx.x; c < cols; c += BLOCK) acc = r.combine(acc, r.map(value_at(c), c));
  acc = block_reduce<BLOCK>(acc, detail::combine_with<R>{r});
  using O = decltype(r.finalize(acc, cols));
  // Raw storage: a __shared__ variable cannot have a constructor (complex<T> and __half do).
  __shared__ __align__(16) unsigned char slot[sizeof(O)];
  if (threadIdx.x == 0) *reinterpret_cast<O*>(slot) = r.finalize(acc, cols);
  __syncthreads();
  const O result = *reinterpret_cast<const O*>(slot);
  __syncthreads();  // before the next row's thread 0 overwrites the slot
  return result;
}

}  // namespace ndcuda
