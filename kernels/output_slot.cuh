// A second output of an elementwise kernel (divmod, frexp, modf write two arrays in one pass):
// passed as a computed input whose element is a writable slot. Builds on indexer.cuh's element_of;
// the generated source includes it before elementwise.cuh, whose vector loads it overloads.
#pragma once

#include "ndcuda/indexer.cuh"

namespace ndcuda {
namespace detail {

/// One element of the second output: the body writes it with `inN.set(value)`.
template <class T>
struct slot {
  T* p;
  __forceinline__ void set(const T& v) const { *p = v; }
};

/// The second output as a kernel input: element i is the slot at p + i (i is the offset the
/// engine computes from this operand's strides, so any layout works). 24 bytes, the size of every
/// computed input's parameter block (the host passes {p, 0, 0}).
template <class T>
struct output_slot {
  typedef slot<T> value_type;
  T* p;
  unsigned long long unused[2];
  template <class I>
  __forceinline__ slot<T> operator[](I i) const {
    return slot<T>{p + i};
  }
  template <class I>
  __forceinline__ output_slot operator+(I i) const {
    output_slot s = *this;
    s.p += i;
    return s;
  }
};

template <class T>
struct element_of<output_slot<T> > {
  typedef slot<T> type;
};

template <class T, int VEC>
struct slot_vector {
  slot<T> v[VEC];
};

template <int VEC, class T, class IndexT>
__forceinline__ slot_vector<T, VEC> load_vector(const output_slot<T>& s, IndexT v) {
  slot_vector<T, VEC> r;
#pragma unroll
  for (int k = 0; k < VEC; ++k) r.v[k] = s[v * VEC + k];
  return r;
}

// An output is never broadcast (the host checks): `inner` is 1 wherever the row is vectorised.
template <int VEC, class T, class IndexT>
__forceinline__ slot_vector<T, VEC> row_vector(const output_slot<T>& s, IndexT) {
  slot_vector<T, VEC> r;
#pragma unroll
  for (int k = 0; k < VEC; ++k) r.v[k] = s[k];
  return r;
}

}  // namespace detail
}  // namespace ndcuda
