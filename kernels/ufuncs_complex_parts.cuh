// The parts of a complex number: nd_real, nd_imag and nd_conj, which also take real values (the
// value, 0, the value), as NumPy's real, imag and conj do. Builds on numeric.cuh (complex).
#pragma once

#include "ndcuda/numeric.cuh"

namespace ndcuda {

template <class T>
__forceinline__ T nd_real(const complex<T>& z) {
  return z.real();
}
template <class T>
__forceinline__ T nd_imag(const complex<T>& z) {
  return z.imag();
}
template <class T>
__forceinline__ complex<T> nd_conj(const complex<T>& z) {
  return conj(z);
}
template <class T>
__forceinline__ T nd_real(T a) {
  return a;
}
template <class T>
__forceinline__ T nd_imag(T) {
  return T(0);
}
template <class T>
__forceinline__ T nd_conj(T a) {
  return a;
}

}  // namespace ndcuda
