// Device numeric types for JIT kernels: ndcuda::complex<T>, and CUDA's own __half/__nv_bfloat16
// (the very types the host side uses, so both sides have the same operators), plus cast<To>().
#pragma once

#include "ndcuda/complex.cuh"

// half and bfloat16 come from cuda_fp16.h / cuda_bf16.h, which cost NVRTC 10 to 20 ms each: a
// kernel that uses them includes them before this header (ndcuda's generators do), and only then
// are the names below defined.
namespace ndcuda {
#if defined(__CUDA_FP16_TYPES_EXIST__)
using half = ::__half;
#endif
#if defined(__CUDA_BF16_TYPES_EXIST__)
using bfloat16 = ::__nv_bfloat16;
#endif

// An enumerator, not a static member, which would become a __device__ variable (ufuncs_common.cuh).
template <class T>
struct is_complex {
  enum : bool { value = false };
};
template <class T>
struct is_complex<complex<T>> {
  enum : bool { value = true };
};

namespace detail {

// The arithmetic type a value goes through when converted: half and bfloat16 through float, so
// that every pair of element types converts without ambiguous overloads.
template <class T>
struct via {
  using type = T;
};
#if defined(__CUDA_FP16_TYPES_EXIST__)
template <>
struct via<__half> {
  using type = float;
};
#endif
#if defined(__CUDA_BF16_TYPES_EXIST__)
template <>
struct via<__nv_bfloat16> {
  using type = float;
};
#endif

template <class To, class From>
struct caster {
  static __forceinline__ To apply(const From& v) { return To(typename via<From>::type(v)); }
};
// To bool: nonzero is true, as in NumPy's astype(bool).
template <class From>
struct caster<bool, From> {
  static __forceinline__ bool apply(const From& v) {
    return typename via<From>::type(v) != typename via<From>::type(0);
  }
};
template <class T, class From>
struct caster<complex<T>, From> {
  static __forceinline__ complex<T> apply(const From& v) { return complex<T>(caster<T, From>::apply(v)); }
};
// complex to real keeps the real part (NumPy does the same, with a ComplexWarning on the host).
template <class To, class T>
struct caster<To, complex<T>> {
  static __forceinline__ To apply(const complex<T>& v) { return caster<To, T>::apply(v.real()); }
};
template <class T>
struct caster<bool, complex<T>> {
  static __forceinline__ bool apply(const complex<T>& v) { return v.real() != T(0) || v.imag() != T(0); }
};
template <class T, class U>
struct caster<complex<T>, complex<U>> {
  static __forceinline__ complex<T> apply(const complex<U>& v) { return complex<T>(T(v.real()), T(v.imag())); }
};
template <class T>
struct caster<T, T> {
  static __forceinline__ T apply(const T& v) { return v; }
};
template <class T>
struct caster<complex<T>, complex<T>> {
  static __forceinline__ complex<T> apply(const complex<T>& v) { return v; }
};
template <>
struct caster<bool, bool> {
  static __forceinline__ bool apply(const bool& v) { return v; }
};

}  // namespace detail

/// Converts between any two element types the way NumPy's astype does.
template <class To, class From>
__forceinline__ To cast(const From& v) {
  return detail::caster<To, From>::apply(v);
}

}  // namespace ndcuda
