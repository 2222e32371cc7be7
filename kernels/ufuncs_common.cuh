// What every family of ufunc helpers (kernels/ufuncs_<family>.cuh) builds on: integer traits
// (NVRTC kernels include no <type_traits>) and the two macros that spell a math function's float,
// double and complex overloads. Builds on numeric.cuh.
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

}  // namespace ndcuda

// Real and complex math under one name: ::f for float/double, ndcuda:: for complex
// (NDCUDA_UNARY_MATH), or float/double only (NDCUDA_REAL_MATH). Used by the families of math
// functions (exp_log, powers, trig, rounding); they stay defined, as every family may need them.
#define NDCUDA_UNARY_MATH(name, real_fn, complex_expr)        \
  __forceinline__ float nd_##name(float x) {                  \
    return ::real_fn(x);                                      \
  }                                                           \
  __forceinline__ double nd_##name(double x) {                \
    return ::real_fn(x);                                      \
  }                                                           \
  template <class T>                                          \
  __forceinline__ complex<T> nd_##name(const complex<T>& z) { \
    return complex_expr;                                      \
  }
#define NDCUDA_REAL_MATH(name, real_fn)        \
  __forceinline__ float nd_##name(float x) {   \
    return ::real_fn(x);                       \
  }                                            \
  __forceinline__ double nd_##name(double x) { \
    return ::real_fn(x);                       \
  }
