// The N-d strided indexer of JIT kernels: maps a linear position in the (collapsed) iteration
// shape to an element offset in each operand. Builds on nothing; the host fills it field by field.
#pragma once

namespace ndcuda {

/// Plain data, passed by value as a kernel parameter. The host writes it as an array of IndexT
/// in exactly this order: size, shape[NDIM], strides[NARGS][NDIM] (elements, may be 0 or < 0).
/// Dimension 0 is the outermost (slowest varying).
template <int NDIM, int NARGS, class IndexT>
struct strided_indexer {
  IndexT size;
  IndexT shape[NDIM];
  IndexT strides[NARGS][NDIM];

  __forceinline__ void offsets(IndexT linear, IndexT (&offset)[NARGS]) const {
#pragma unroll
    for (int a = 0; a < NARGS; ++a) offset[a] = 0;
#pragma unroll
    for (int d = NDIM - 1; d > 0; --d) {
      const IndexT outer = linear / shape[d];
      const IndexT position = linear - outer * shape[d];
#pragma unroll
      for (int a = 0; a < NARGS; ++a) offset[a] += position * strides[a][d];
      linear = outer;
    }
#pragma unroll
    for (int a = 0; a < NARGS; ++a) offset[a] += linear * strides[a][0];
  }
};

namespace detail {
/// The element type an input accessor yields: T for a `const T*`; a draw's item for a
/// random.cuh philox_source (a computed input with no memory behind it).
template <class A>
struct element_of;
template <class T>
struct element_of<const T*> {
  typedef T type;
};
template <class T>
struct element_of<T*> {
  typedef T type;
};
}  // namespace detail

/// The integer sequence 0..N-1 as a type, to pair a parameter pack of operands with their
/// offsets (NVRTC kernels include no standard headers, so no std::index_sequence).
template <int... I>
struct index_list {};
template <int N, int... I>
struct make_index_list : make_index_list<N - 1, N - 1, I...> {};
template <int... I>
struct make_index_list<0, I...> {
  using type = index_list<I...>;
};

}  // namespace ndcuda
