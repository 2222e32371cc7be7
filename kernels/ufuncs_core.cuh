// The few ufunc helpers that most fused expressions and every reducer call (nd_add, nd_multiply,
// nd_maximum, nd_abs, nd_isnan, ...): templates only, cheap for NVRTC to parse. Builds on
// numeric.cuh; ufuncs.cuh includes it and adds the rest (docs/jit.md, "First-call compile time").
#pragma once

#include "ndcuda/numeric.cuh"

namespace ndcuda {

namespace detail {
// Spelled out per type: NVRTC kernels include no <type_traits>. Each trait holds an enumerator,
// not a static constexpr member: NVRTC emits such a member of an explicit specialization (and of
// each instantiation used) as a __device__ variable, sixteen and more globals in every CUBIN.
template <class T>
struct is_int {
  enum : bool { value = false };
};
template <class T>
struct is_signed_int {
  enum : bool { value = false };
};
#define NDCUDA_INT_TRAIT(type, is_signed) \
  template <>                             \
  struct is_int<type> {                   \
    enum : bool { value = true };         \
  };                                      \
  template <>                             \
  struct is_signed_int<type> {            \
    enum : bool { value = is_signed };    \
  };
NDCUDA_INT_TRAIT(signed char, true)
NDCUDA_INT_TRAIT(short, true)
NDCUDA_INT_TRAIT(int, true)
NDCUDA_INT_TRAIT(long long, true)
NDCUDA_INT_TRAIT(unsigned char, false)
NDCUDA_INT_TRAIT(unsigned short, false)
NDCUDA_INT_TRAIT(unsigned int, false)
NDCUDA_INT_TRAIT(unsigned long long, false)
#undef NDCUDA_INT_TRAIT
template <class T>
struct bits_of {
  enum : int { value = int(sizeof(T)) * 8 };
};
}  // namespace detail

// Every helper takes and returns its compute type T (float for half and bfloat16: the host casts
// operands first). T(...) around integer results wraps as NumPy's fixed-width arithmetic does.
template <class T>
__forceinline__ T nd_add(T a, T b) {
  return T(a + b);
}
template <class T>
__forceinline__ T nd_subtract(T a, T b) {
  return T(a - b);
}
template <class T>
__forceinline__ T nd_multiply(T a, T b) {
  return T(a * b);
}
template <class T>
__forceinline__ T nd_true_divide(T a, T b) {
  return a / b;
}
template <class T>
__forceinline__ T nd_negative(T a) {
  return T(-a);
}

// maximum/minimum propagate NaN (either operand); fmax/fmin ignore it, as in NumPy.
template <class T>
__forceinline__ T nd_maximum(T a, T b) {
  if (a != a) return a;
  if (b != b) return b;
  return a > b ? a : b;
}
template <class T>
__forceinline__ T nd_minimum(T a, T b) {
  if (a != a) return a;
  if (b != b) return b;
  return a < b ? a : b;
}
template <class T>
__forceinline__ T nd_fmax(T a, T b) {
  if (a != a) return b;
  if (b != b) return a;
  return a > b ? a : b;
}
template <class T>
__forceinline__ T nd_fmin(T a, T b) {
  if (a != a) return b;
  if (b != b) return a;
  return a < b ? a : b;
}

// Complex: NumPy 2's loops. maximum/minimum return the first operand with a NaN part, else the
// lexicographically larger/smaller (the first on a tie); fmax/fmin return the other operand when
// one has a NaN part (the first when both do).
template <class T>
__forceinline__ complex<T> nd_maximum(complex<T> a, complex<T> b) {
  if (a != a) return a;
  if (b != b) return b;
  return a >= b ? a : b;
}
template <class T>
__forceinline__ complex<T> nd_minimum(complex<T> a, complex<T> b) {
  if (a != a) return a;
  if (b != b) return b;
  return a <= b ? a : b;
}
template <class T>
__forceinline__ complex<T> nd_fmax(complex<T> a, complex<T> b) {
  if (b != b) return a;
  if (a != a) return b;
  return a >= b ? a : b;
}
template <class T>
__forceinline__ complex<T> nd_fmin(complex<T> a, complex<T> b) {
  if (b != b) return a;
  if (a != a) return b;
  return a <= b ? a : b;
}

template <class T>
__forceinline__ T nd_abs(T a) {
  if constexpr (detail::is_int<T>::value) {
    return T(a < T(0) ? T(T(0) - a) : a);
  } else {
    return ::fabs(a);
  }
}
__forceinline__ bool nd_abs(bool a) {
  return a;
}
template <class T>
__forceinline__ T nd_abs(const complex<T>& z) {
  return abs(z);
}

template <class T>
__forceinline__ bool nd_isnan(T a) {
  return a != a;
}
template <class T>
__forceinline__ bool nd_isinf(T a) {
  if constexpr (detail::is_int<T>::value) {
    return false;
  } else {
    return ::isinf(a);
  }
}
template <class T>
__forceinline__ bool nd_isfinite(T a) {
  if constexpr (detail::is_int<T>::value) {
    return true;
  } else {
    return ::isfinite(a);
  }
}
// bool is neither an integer trait nor has ::isinf: never infinite, always finite (as NumPy).
__forceinline__ bool nd_isinf(bool) {
  return false;
}
__forceinline__ bool nd_isfinite(bool) {
  return true;
}
template <class T>
__forceinline__ bool nd_isnan(const complex<T>& z) {
  return z.real() != z.real() || z.imag() != z.imag();
}
template <class T>
__forceinline__ bool nd_isinf(const complex<T>& z) {
  return ::isinf(z.real()) || ::isinf(z.imag());
}
template <class T>
__forceinline__ bool nd_isfinite(const complex<T>& z) {
  return ::isfinite(z.real()) && ::isfinite(z.imag());
}

}  // namespace ndcuda
