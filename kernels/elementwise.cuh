// The elementwise kernel templates: an Op applied to every position of an iteration space, in a
// contiguous variant (aligned vector loads) and an N-d strided one. Builds on indexer.cuh,
// numeric.cuh and ufuncs.cuh (what fused expressions call); each variant is one small kernel.
#pragma once

#include "ndcuda/indexer.cuh"
#include "ndcuda/numeric.cuh"
#include "ndcuda/ufuncs.cuh"

namespace ndcuda {

/// VEC elements read or written with one aligned load/store (16 bytes at most).
template <class T, int VEC>
struct alignas(sizeof(T) * VEC) aligned_vector {
  T v[VEC];
};

namespace detail {

template <int VEC, class T, class IndexT>
__forceinline__ aligned_vector<T, VEC> load_vector(const T* p, IndexT v) {
  return reinterpret_cast<const aligned_vector<T, VEC>*>(p)[v];
}

template <int VEC, class Op, class Out, class IndexT, class... V>
__forceinline__ void apply_vector(const Op& op, Out* out, IndexT v, const V&... in) {
  aligned_vector<Out, VEC> result;
#pragma unroll
  for (int k = 0; k < VEC; ++k) op(result.v[k], in.v[k]...);
  reinterpret_cast<aligned_vector<Out, VEC>*>(out)[v] = result;
}

template <class Op, class Out, class IndexT, int NARGS, int... I, class... In>
__forceinline__ void apply_strided(const Op& op, Out* out, const IndexT (&offset)[NARGS], index_list<I...>,
                                   const In*... in) {
  op(out[offset[0]], in[offset[I + 1]]...);
}

}  // namespace detail

/// Every operand dense and laid out alike, n elements. With VEC > 1 each thread handles VEC
/// neighbours per step through aligned vectors: the host picks VEC > 1 only when every pointer is
/// aligned to VEC elements. A grid-stride loop, so any grid size is correct.
template <int VEC, class IndexT, class Op, class Out, class... In>
__forceinline__ void elementwise_contiguous(const Op& op, IndexT n, Out* out, const In*... in) {
  const IndexT step = IndexT(gridDim.x) * IndexT(blockDim.x);
  IndexT first = IndexT(blockIdx.x) * IndexT(blockDim.x) + IndexT(threadIdx.x);
  if constexpr (VEC > 1) {
    const IndexT vectors = n / VEC;
#pragma unroll 1
    for (IndexT v = first; v < vectors; v += step) {
      detail::apply_vector<VEC>(op, out, v, detail::load_vector<VEC>(in, v)...);
    }
    first += vectors * VEC;  // the tail, fewer than VEC elements, one per thread
  }
#pragma unroll 1
  for (IndexT i = first; i < n; i += step) op(out[i], in[i]...);
}

/// Any layout: broadcast inputs (stride 0), reversed or transposed views. The host has collapsed
/// dimensions that are contiguous across all operands, so NDIM is as small as it can be.
template <int NDIM, class IndexT, class Op, class Out, class... In>
__forceinline__ void elementwise_strided(const Op& op, const strided_indexer<NDIM, 1 + sizeof...(In), IndexT>& index,
                                         Out* out, const In*... in) {
  const IndexT step = IndexT(gridDim.x) * IndexT(blockDim.x);
  for (IndexT i = IndexT(blockIdx.x) * IndexT(blockDim.x) + IndexT(threadIdx.x); i < index.size; i += step) {
    IndexT offset[1 + sizeof...(In)];
    index.offsets(i, offset);
    detail::apply_strided(op, out, offset, typename make_index_list<sizeof...(In)>::type(), in...);
  }
}

}  // namespace ndcuda
