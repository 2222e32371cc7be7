// Block-level reduction built from warp shuffles (no CUB: CUB costs NVRTC about a second per
// kernel), and the reduction kernel templates on top: a strided block per output, rows (a warp or
// block per output, aligned vectors along dense rows), columns (a thread per output), each able
// to split the reduced elements over blockIdx.y into partial results that a second pass folds.
// Builds on indexer.cuh, numeric.cuh and elementwise.cuh (aligned vectors, the fused ufuncs).
#pragma once

#include "ndcuda/elementwise.cuh"
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

namespace detail {

// The mapped value at one reduced position: map(in0[...], in1[...], ...).
template <class Map, class IndexT, int NA, int NI, int... I, class... In>
__forceinline__ auto map_at(const Map& map, const IndexT (&base)[NA], const IndexT (&off)[NI], index_list<I...>,
                            const In... in) {
  return map(in[base[I + 1] + off[I]]...);
}

// The first pass's result for output `o`: the final value when the grid does not split the
// reduced elements (gridDim.y == 1), else this split's partial result.
// gridDim.y is read through volatile asm, which the optimizer cannot hoist: tested as plain
// gridDim.y, the test is loop-invariant and NVVM unswitches the whole loop over outputs into two
// copies, which doubled the kernel NVRTC compiles (~30% of a new reduction's first-call compile
// time) to save one branch per output.
template <class R, class Acc, class Out, class IndexT>
__forceinline__ void store_result(const R& r, const Acc& acc, Out* out, void* partials, IndexT out_offset, IndexT o,
                                  IndexT outputs, long long count) {
  unsigned splits;
  asm volatile("mov.u32 %0, %%nctaid.y;" : "=r"(splits));
  if (splits == 1) {
    out[out_offset] = r.finalize(acc, count);
  } else {
    static_cast<Acc*>(partials)[IndexT(blockIdx.y) * outputs + o] = acc;
  }
}

template <int VEC, class R, class Map, class Acc, class IndexT, class... V>
__forceinline__ void fold_loaded(const R& r, const Map& map, Acc& acc, IndexT k, const V&... v) {
#pragma unroll
  for (int j = 0; j < VEC; ++j) acc = r.combine(acc, r.map(map(v.v[j]...), (long long)(k + j)));
}

// Folds the VEC elements at dense position k (a multiple of VEC) of every input's row.
template <int VEC, class R, class Map, class Acc, class IndexT, int NA, int... I, class... In>
__forceinline__ void fold_vectors(const R& r, const Map& map, Acc& acc, IndexT k, const IndexT (&base)[NA],
                                  index_list<I...>, const In... in) {
  fold_loaded<VEC>(r, map, acc, k, load_vector<VEC>(in + base[I + 1], k / VEC)...);
}

}  // namespace detail

/// Rows: GROUP threads (a warp, or the whole BLOCK) fold each output's reduced elements, which
/// blockIdx.y splits into chunks of `chunk` (a multiple of VEC). With VEC > 1 the rows are dense
/// (one reduced dimension of stride 1 in every input) and start VEC-aligned: aligned vector loads.
/// TAIL = false: the caller promises rows of a multiple of VEC elements, so the loop over the last
/// few is left out (less code for NVRTC to compile on a first call).
template <int BLOCK, int GROUP, int VEC, bool TAIL = true, class Map, class R, int NO, int NA, int NR, int NI,
          class IndexT, class Out, class... In>
__forceinline__ void reduce_rows(const Map& map, const R& r, const strided_indexer<NO, NA, IndexT>& outer,
                                 const strided_indexer<NR, NI, IndexT>& inner, IndexT chunk, Out* out, void* partials,
                                 const In... in) {
  typedef decltype(r.identity()) Acc;
  typedef typename make_index_list<sizeof...(In)>::type inputs;
  constexpr int groups = BLOCK / GROUP;
  const int lane = int(threadIdx.x) % GROUP;
  const IndexT begin = IndexT(blockIdx.y) * chunk;
  const IndexT end = begin + chunk < inner.size ? begin + chunk : inner.size;
  for (IndexT o = IndexT(blockIdx.x) * groups + IndexT(threadIdx.x) / GROUP; o < outer.size;
       o += IndexT(gridDim.x) * groups) {
    IndexT base[NA];
    outer.offsets(o, base);
    Acc acc = r.identity();
    if constexpr (VEC > 1) {
      const IndexT vector_end = begin + (end - begin) / VEC * VEC;
      for (IndexT k = begin + IndexT(lane) * VEC; k < vector_end; k += IndexT(GROUP) * VEC) {
        detail::fold_vectors<VEC>(r, map, acc, k, base, inputs(), in...);
      }
      // The tail: fewer than VEC elements per row, so at most one step per lane; unrolled it
      // would only add code for NVRTC to compile.
      if constexpr (TAIL) {
#pragma unroll 1
        for (IndexT k = vector_end + lane; k < end; k += GROUP) {
          IndexT off[NI];
#pragma unroll
          for (int a = 0; a < NI; ++a) off[a] = k;
          acc = r.combine(acc, r.map(detail::map_at(map, base, off, inputs(), in...), (long long)k));
        }
      }
    } else {
#pragma unroll 4
      for (IndexT k = begin + lane; k < end; k += GROUP) {
        IndexT off[NI];
        inner.offsets(k, off);
        acc = r.combine(acc, r.map(detail::map_at(map, base, off, inputs(), in...), (long long)k));
      }
    }
    if constexpr (GROUP == 32) {
      acc = warp_reduce(acc, detail::combine_with<R>{r});
    } else {
      acc = block_reduce<GROUP>(acc, detail::combine_with<R>{r});
    }
    if (lane == 0) detail::store_result(r, acc, out, partials, base[0], o, outer.size, (long long)inner.size);
  }
}

/// Columns: a thread per output, consecutive threads on consecutive outputs, so that where the
/// outputs are the dense dimension every step of the reduced loop is one coalesced read per warp.
/// blockIdx.y splits the reduced elements into chunks of `chunk`.
template <class Map, class R, int NO, int NA, int NR, int NI, class IndexT, class Out, class... In>
__forceinline__ void reduce_columns(const Map& map, const R& r, const strided_indexer<NO, NA, IndexT>& outer,
                                    const strided_indexer<NR, NI, IndexT>& inner, IndexT chunk, Out* out,
                                    void* partials, const In... in) {
  typedef decltype(r.identity()) Acc;
  typedef typename make_index_list<sizeof...(In)>::type inputs;
  const IndexT begin = IndexT(blockIdx.y) * chunk;
  const IndexT end = begin + chunk < inner.size ? begin + chunk : inner.size;
  for (IndexT o = IndexT(blockIdx.x) * IndexT(blockDim.x) + IndexT(threadIdx.x); o < outer.size;
       o += IndexT(gridDim.x) * IndexT(blockDim.x)) {
    IndexT base[NA];
    outer.offsets(o, base);
    Acc acc = r.identity();
#pragma unroll 8
    for (IndexT k = begin; k < end; ++k) {
      IndexT off[NI];
      inner.offsets(k, off);
      acc = r.combine(acc, r.map(detail::map_at(map, base, off, inputs(), in...), (long long)k));
    }
    detail::store_result(r, acc, out, partials, base[0], o, outer.size, (long long)inner.size);
  }
}

/// Second pass after columns: a thread per output folds its `splits` partial results.
template <class R, int NO, int NA, class IndexT, class Out>
__forceinline__ void reduce_finish_columns(const R& r, const strided_indexer<NO, NA, IndexT>& outer, IndexT splits,
                                           long long count, Out* out, const void* partials) {
  typedef decltype(r.identity()) Acc;
  const Acc* p = static_cast<const Acc*>(partials);
  for (IndexT o = IndexT(blockIdx.x) * IndexT(blockDim.x) + IndexT(threadIdx.x); o < outer.size;
       o += IndexT(gridDim.x) * IndexT(blockDim.x)) {
    Acc acc = r.identity();
#pragma unroll 4
    for (IndexT y = 0; y < splits; ++y) acc = r.combine(acc, p[y * outer.size + o]);
    IndexT base[NA];
    outer.offsets(o, base);
    out[base[0]] = r.finalize(acc, count);
  }
}

/// Second pass after rows (few outputs, many splits): a block per output folds its partials.
template <int BLOCK, class R, int NO, int NA, class IndexT, class Out>
__forceinline__ void reduce_finish_rows(const R& r, const strided_indexer<NO, NA, IndexT>& outer, IndexT splits,
                                        long long count, Out* out, const void* partials) {
  typedef decltype(r.identity()) Acc;
  const Acc* p = static_cast<const Acc*>(partials);
  for (IndexT o = IndexT(blockIdx.x); o < outer.size; o += IndexT(gridDim.x)) {
    Acc acc = r.identity();
    // A few partials per thread (splits are at most 65535, usually hundreds): not worth unrolling.
#pragma unroll 1
    for (IndexT y = IndexT(threadIdx.x); y < splits; y += BLOCK) acc = r.combine(acc, p[y * outer.size + o]);
    acc = block_reduce<BLOCK>(acc, detail::combine_with<R>{r});
    if (threadIdx.x == 0) {
      IndexT base[NA];
      outer.offsets(o, base);
      out[base[0]] = r.finalize(acc, count);
    }
  }
}

}  // namespace ndcuda
