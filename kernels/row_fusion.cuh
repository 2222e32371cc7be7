// The row-resident kernels of fused reductions (src/jit/row_program_source.cpp generates them): a
// block folds one row of mapped values with a reducer of reducers.cuh and every thread gets the
// result.
// Builds on reduction.cuh (block_reduce).
#pragma once

#include "ndcuda/reducers.cuh"
#include "ndcuda/reduction.cuh"

namespace ndcuda {

/// The block's combination of every thread's `acc`, finalized, in every thread. Every thread must
/// call it; it ends with a barrier, so it may be called again at once.
template <int BLOCK, class R, class A>
__forceinline__ auto row_result(const R& r, A acc, long long cols) {
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

/// reducer r folded over value_at(0), ..., value_at(cols - 1) by a BLOCK-thread block, each thread
/// taking a strided share; the result reaches every thread (rows too long for registers).
template <int BLOCK, class R, class F>
__forceinline__ auto row_reduce(const R& r, long long cols, const F& value_at) {
  auto acc = r.identity();
  // Unrolled so that a thread has several loads in flight: the first stage is the one that reads
  // the row from memory (the later ones find it in L1).
#pragma unroll 4
  for (long long c = threadIdx.x; c < cols; c += BLOCK) acc = r.combine(acc, r.map(value_at(c), c));
  return row_result<BLOCK>(r, acc, cols);
}

/// The same over a row held in registers: ITEMS columns per thread (column threadIdx.x + i * BLOCK),
/// value_at(i, c) reading the thread's registers.
template <int BLOCK, int ITEMS, class R, class F>
__forceinline__ auto row_reduce_held(const R& r, long long cols, const F& value_at) {
  auto acc = r.identity();
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const long long c = threadIdx.x + (long long)i * BLOCK;
    if (c < cols) acc = r.combine(acc, r.map(value_at(i, c), c));
  }
  return row_result<BLOCK>(r, acc, cols);
}

}  // namespace ndcuda
