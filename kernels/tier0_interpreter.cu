// Tier 0 of fused expressions: one interpreter kernel, compiled ahead of time by NVRTC at build
// time (src/jit/tier0/build_images.cpp) with the options of the generated kernels, and run while a
// new expression's own kernel compiles on a background thread (docs/design.md, "Tiered first
// calls"). Each thread runs the register program of tier0_program.cuh over a few elements at once,
// calling the very ufunc helpers the fused kernel calls, in the same order.
#include "ndcuda/tier0_program.cuh"
#include "ndcuda/ufuncs.cuh"

namespace {

union tier0_value {
  bool b;
  int i32;
  long long i64;
  float f32;
  double f64;
  unsigned long long bits;
};

template <class T>
struct slot;
template <>
struct slot<bool> {
  static __forceinline__ bool& of(tier0_value& v) { return v.b; }
};
template <>
struct slot<int> {
  static __forceinline__ int& of(tier0_value& v) { return v.i32; }
};
template <>
struct slot<long long> {
  static __forceinline__ long long& of(tier0_value& v) { return v.i64; }
};
template <>
struct slot<float> {
  static __forceinline__ float& of(tier0_value& v) { return v.f32; }
};
template <>
struct slot<double> {
  static __forceinline__ double& of(tier0_value& v) { return v.f64; }
};

template <class T>
__forceinline__ T& as(tier0_value& v) {
  return slot<T>::of(v);
}

// An operation's result type: bool for a predicate, else its operands' type.
template <bool Predicate, class T>
struct result_type {
  using type = T;
};
template <class T>
struct result_type<true, T> {
  using type = bool;
};

// Calls f(T{}) with T the value type of `code`, for the types in the mask `types` only (the others
// are never encoded, and their instantiations might not compile).
template <int Types, class F>
__forceinline__ void with_type(int code, F&& f) {
  switch (code) {
    case NDCUDA_TIER0_BOOL:
      if constexpr ((Types & NDCUDA_TIER0_B) != 0) {
        f(bool{});
      }
      break;
    case NDCUDA_TIER0_INT32:
      if constexpr ((Types & NDCUDA_TIER0_I) != 0) {
        f(int{});
      }
      break;
    case NDCUDA_TIER0_INT64:
      if constexpr ((Types & NDCUDA_TIER0_I) != 0) {
        f(static_cast<long long>(0));
      }
      break;
    case NDCUDA_TIER0_FLOAT32:
      if constexpr ((Types & NDCUDA_TIER0_F) != 0) {
        f(float{});
      }
      break;
    case NDCUDA_TIER0_FLOAT64:
      if constexpr ((Types & NDCUDA_TIER0_F) != 0) {
        f(double{});
      }
      break;
    default:
      break;
  }
}

// The register file: NDCUDA_TIER0_REGISTERS x NDCUDA_TIER0_LANES values per thread, in local
// memory (256 bytes a thread, cached in L1). Measured on an H200 (docs/performance.md): a file in
// shared memory instead ran the interpreter at a third of this speed, 8 lanes at 86% of 4.
struct register_file {
  tier0_value* base;
  __forceinline__ tier0_value& at(int reg, int lane) const { return base[reg * NDCUDA_TIER0_LANES + lane]; }
};

// Strided operands only: the element's offset from its index in the collapsed iteration.
__forceinline__ long long strided_offset(const ndcuda_tier0_params* p, int operand, long long element) {
  long long offset = 0;
  for (int d = p->ndim - 1; d >= 0; --d) {
    offset += (element % p->shape[d]) * p->strides[operand][d];
    element /= p->shape[d];
  }
  return offset;
}

__forceinline__ long long offset_of(const ndcuda_tier0_params& p, int operand, long long element) {
  return p.ndim == 0 ? element : strided_offset(&p, operand, element);
}

// One step of the program over the thread's lanes (`element` and `valid` per lane). Each lane
// reads its operands before it writes its result, so dst may be an operand's register. Loads are
// unrolled over the lanes, so that their memory accesses are all in flight at once; operations are
// not, which keeps the interpreter's code (and its load time) as small as one lane's.
__forceinline__ void run_step(const ndcuda_tier0_params& p, const ndcuda_tier0_step& s, const register_file& r,
                              const long long* element, const bool* valid) {
  switch (s.op) {
    case ndcuda_tier0_load_input:
      with_type<NDCUDA_TIER0_BIF>(s.type, [&](auto t) {
        using T = decltype(t);
        const T* base = static_cast<const T*>(p.pointers[s.aux + 1]);
#pragma unroll
        for (int l = 0; l < NDCUDA_TIER0_LANES; ++l) {
          if (valid[l]) {
            as<T>(r.at(s.dst, l)) = base[offset_of(p, s.aux + 1, element[l])];
          }
        }
      });
      return;
    case ndcuda_tier0_load_scalar:
#pragma unroll
      for (int l = 0; l < NDCUDA_TIER0_LANES; ++l) {
        r.at(s.dst, l).bits = p.scalars[s.aux];
      }
      return;
    case ndcuda_tier0_cast:
      with_type<NDCUDA_TIER0_BIF>(s.type, [&](auto from) {
        using From = decltype(from);
        with_type<NDCUDA_TIER0_BIF>(s.aux, [&](auto to) {
          using To = decltype(to);
#pragma unroll 1
          for (int l = 0; l < NDCUDA_TIER0_LANES; ++l) {
            as<To>(r.at(s.dst, l)) = ndcuda::cast<To>(as<From>(r.at(s.a, l)));
          }
        });
      });
      return;
    case ndcuda_tier0_where:
      with_type<NDCUDA_TIER0_BIF>(s.type, [&](auto t) {
        using T = decltype(t);
#pragma unroll
        for (int l = 0; l < NDCUDA_TIER0_LANES; ++l) {
          as<T>(r.at(s.dst, l)) = r.at(s.a, l).b ? as<T>(r.at(s.b, l)) : as<T>(r.at(s.c, l));
        }
      });
      return;
    case ndcuda_tier0_logical_not:
#pragma unroll
      for (int l = 0; l < NDCUDA_TIER0_LANES; ++l) {
        r.at(s.dst, l).b = !r.at(s.a, l).b;
      }
      return;
#define NDCUDA_TIER0_CALL_CASE(tag, arity, types, predicate)                                  \
  case ndcuda_tier0_##tag:                                                                    \
    with_type<types>(s.type, [&](auto t) {                                                    \
      using T = decltype(t);                                                                  \
      using R = typename result_type<predicate != 0, T>::type;                                \
      _Pragma("unroll 1") for (int l = 0; l < NDCUDA_TIER0_LANES; ++l) {                      \
        if constexpr (arity == 1) {                                                           \
          as<R>(r.at(s.dst, l)) = ndcuda::nd_##tag(as<T>(r.at(s.a, l)));                      \
        } else {                                                                              \
          as<R>(r.at(s.dst, l)) = ndcuda::nd_##tag(as<T>(r.at(s.a, l)), as<T>(r.at(s.b, l))); \
        }                                                                                     \
      }                                                                                       \
    });                                                                                       \
    return;
      NDCUDA_TIER0_CALLS(NDCUDA_TIER0_CALL_CASE)
#undef NDCUDA_TIER0_CALL_CASE
#define NDCUDA_TIER0_INFIX_CASE(tag, op, types, predicate)                         \
  case ndcuda_tier0_##tag:                                                         \
    with_type<types>(s.type, [&](auto t) {                                         \
      using T = decltype(t);                                                       \
      using R = typename result_type<predicate != 0, T>::type;                     \
      _Pragma("unroll 1") for (int l = 0; l < NDCUDA_TIER0_LANES; ++l) {           \
        as<R>(r.at(s.dst, l)) = ((R)(as<T>(r.at(s.a, l)) op as<T>(r.at(s.b, l)))); \
      }                                                                            \
    });                                                                            \
    return;
      NDCUDA_TIER0_INFIX(NDCUDA_TIER0_INFIX_CASE)
#undef NDCUDA_TIER0_INFIX_CASE
    default:
      return;
  }
}

}  // namespace

// Each thread carries NDCUDA_TIER0_LANES elements, one per `threads` apart (so each lane's loads
// are coalesced across a warp), through one pass of the program: the dispatch of a step is paid
// once for all its lanes.
extern "C" __global__ void ndcuda_tier0_elementwise(const ndcuda_tier0_params p) {
  tier0_value registers[NDCUDA_TIER0_REGISTERS * NDCUDA_TIER0_LANES];
  const register_file r{registers};
  const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; first < p.size;
       first += threads * NDCUDA_TIER0_LANES) {
    long long element[NDCUDA_TIER0_LANES];
    bool valid[NDCUDA_TIER0_LANES];
#pragma unroll
    for (int l = 0; l < NDCUDA_TIER0_LANES; ++l) {
      element[l] = first + l * threads;
      valid[l] = element[l] < p.size;
    }
    for (int step = 0; step < p.step_count; ++step) {
      run_step(p, p.steps[step], r, element, valid);
    }
    const int result = p.steps[p.step_count - 1].dst;
    with_type<NDCUDA_TIER0_BIF>(p.out_type, [&](auto t) {
      using T = decltype(t);
      T* out = static_cast<T*>(p.pointers[0]);
#pragma unroll
      for (int l = 0; l < NDCUDA_TIER0_LANES; ++l) {
        if (valid[l]) {
          out[offset_of(p, 0, element[l])] = as<T>(r.at(result, l));
        }
      }
    });
  }
}
