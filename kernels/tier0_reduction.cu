// Tier 0 of reductions: a fold and a finish kernel per reducer of tier0_reducers.cuh, compiled
// ahead of time by NVRTC at build time (src/jit/tier0/build_images.cpp) with the options of the
// generated kernels. They run while a new reduction's own two passes compile in the background
// (docs/design.md, "Tiered first calls"), over the values its map wrote (the tier-0 interpreter)
// or over its one input. The fold visits the elements in the order of reduce_rows and
// reduce_columns (reduction.cuh) for the same plan and grid, with runtime group and vector instead
// of template ones, and combines them with the same warp and block trees, so both tiers give the
// same bits; the finish is reduction.cuh's own second pass.
#include "ndcuda/reducers.cuh"
#include "ndcuda/reduction.cuh"
#include "ndcuda/tier0_reducers.cuh"

namespace {

typedef ndcuda::strided_indexer<NDCUDA_TIER0_REDUCE_DIMS, 1, long long> result_indexer;

__forceinline__ result_indexer results_of(const ndcuda_tier0_reduce_params& p) {
  result_indexer outer;
  outer.size = p.outputs;
#pragma unroll
  for (int d = 0; d < NDCUDA_TIER0_REDUCE_DIMS; ++d) {
    outer.shape[d] = p.out_shape[d];
    outer.strides[0][d] = p.out_strides[d];
  }
  return outer;
}

// Not inlined: every fold of every reducer calls it once per output, and one copy keeps the
// image (and its load on the first call) small.
__noinline__ long long result_offset(const result_indexer& outer, long long o) {
  long long offset[1];
  outer.offsets(o, offset);
  return offset[0];
}

template <class R>
struct result_of {
  typedef decltype(R{0.0}.finalize(R{0.0}.identity(), 0LL)) type;
};

template <class V, class R>
__forceinline__ void fold_rows(const ndcuda_tier0_reduce_params& p, const R& r, const result_indexer& outer) {
  typedef decltype(r.identity()) Acc;
  typedef typename result_of<R>::type Out;
  const V* values = static_cast<const V*>(p.values);
  const int groups = 256 / p.group;
  const int lane = int(threadIdx.x) % p.group;
  const long long begin = (long long)blockIdx.y * p.chunk;
  const long long end = begin + p.chunk < p.reduced ? begin + p.chunk : p.reduced;
  const long long vector_end = begin + (end - begin) / p.vector * p.vector;
  for (long long o = (long long)blockIdx.x * groups + int(threadIdx.x) / p.group; o < p.outputs;
       o += (long long)gridDim.x * groups) {
    const V* row = values + o * p.row_stride;
    Acc acc = r.identity();
    // reduce_rows with vectors: a step folds `vector` neighbours in turn, then the last few
    // elements one per lane; without, one element per lane and step. Both are this loop pair
    // (with vector 1 the first loop is the whole row).
#pragma unroll 1
    for (long long k = begin + (long long)lane * p.vector; k < vector_end; k += (long long)p.group * p.vector) {
#pragma unroll 1
      for (int j = 0; j < p.vector; ++j) {
        acc = r.combine(acc, r.map(row[(k + j) * p.element_stride], k + j));
      }
    }
#pragma unroll 1
    for (long long k = vector_end + lane; k < end; k += p.group) {
      acc = r.combine(acc, r.map(row[k * p.element_stride], k));
    }
    if (p.group == 32) {
      acc = ndcuda::warp_reduce(acc, ndcuda::detail::combine_with<R>{r});
    } else {
      acc = ndcuda::block_reduce<256>(acc, ndcuda::detail::combine_with<R>{r});
    }
    if (lane == 0) {
      ndcuda::detail::store_result(r, acc, static_cast<Out*>(p.out), p.partials, result_offset(outer, o), o, p.outputs,
                                   p.reduced);
    }
  }
}

template <class V, class R>
__forceinline__ void fold_columns(const ndcuda_tier0_reduce_params& p, const R& r, const result_indexer& outer) {
  typedef decltype(r.identity()) Acc;
  typedef typename result_of<R>::type Out;
  const V* values = static_cast<const V*>(p.values);
  const long long begin = (long long)blockIdx.y * p.chunk;
  const long long end = begin + p.chunk < p.reduced ? begin + p.chunk : p.reduced;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < p.outputs;
       o += (long long)gridDim.x * blockDim.x) {
    const V* row = values + o * p.row_stride;
    Acc acc = r.identity();
#pragma unroll 1
    for (long long k = begin; k < end; ++k) {
      acc = r.combine(acc, r.map(row[k * p.element_stride], k));
    }
    ndcuda::detail::store_result(r, acc, static_cast<Out*>(p.out), p.partials, result_offset(outer, o), o, p.outputs,
                                 p.reduced);
  }
}

template <class V, class R>
__forceinline__ void fold(const ndcuda_tier0_reduce_params& p) {
  const R r{p.param};
  const result_indexer outer = results_of(p);
  if (p.columns != 0) {
    fold_columns<V>(p, r, outer);
  } else {
    fold_rows<V>(p, r, outer);
  }
}

template <class R>
__forceinline__ void finish(const ndcuda_tier0_reduce_params& p) {
  typedef typename result_of<R>::type Out;
  const R r{p.param};
  const result_indexer outer = results_of(p);
  if (p.columns != 0) {
    ndcuda::reduce_finish_columns(r, outer, p.splits, p.reduced, static_cast<Out*>(p.out), p.partials);
  } else {
    ndcuda::reduce_finish_rows<256>(r, outer, p.splits, p.reduced, static_cast<Out*>(p.out), p.partials);
  }
}

}  // namespace

#define NDCUDA_TIER0_REDUCE_KERNELS(id, V, ...)                                                                    \
  extern "C" __global__ void __launch_bounds__(256) ndcuda_tier0_fold_##id(const ndcuda_tier0_reduce_params p) {   \
    fold<V, __VA_ARGS__>(p);                                                                                       \
  }                                                                                                                \
  extern "C" __global__ void __launch_bounds__(256) ndcuda_tier0_finish_##id(const ndcuda_tier0_reduce_params p) { \
    finish<__VA_ARGS__>(p);                                                                                        \
  }
NDCUDA_TIER0_REDUCERS(NDCUDA_TIER0_REDUCE_KERNELS)
#undef NDCUDA_TIER0_REDUCE_KERNELS
