// Gather, scatter and accumulate kernels of NumPy's advanced indexing: one result element per
// thread, its source offset from the basic strides plus each index array's (wrapped) value.
// Included by the generated sources of src/ops/indexing.cpp after numeric.cuh (and fp16/bf16).
#pragma once

namespace ndcuda {
namespace indexing {

// Must match index_params in src/ops/indexing.cpp byte for byte.
constexpr int max_dims = 24;
constexpr int max_arrays = 8;
struct params {
  long long n;       // result elements
  long long offset;  // source offset of result element 0 without the index arrays
  long long shape[max_dims];
  long long strides[max_dims];
  long long index_strides[max_arrays][max_dims];
  const void* index[max_arrays];
  long long extent[max_arrays];
  long long axis_stride[max_arrays];
  int wide[max_arrays];       // 1: int64 indices, 0: int32
  int mode;                   // np.take's mode: 0 raise (checked), 1 wrap, 2 clip
  unsigned long long* error;  // per array: the first result position with an out-of-range index
};

// The source offset of result element r, or -1 when one of its indices is out of range (noted in
// p.error with an atomicMin, so the host reports the first one).
template <int NDIM, int NIDX>
__device__ __forceinline__ long long source_offset(const params& p, long long r) {
  long long c[NDIM > 0 ? NDIM : 1];
  long long rest = r;
#pragma unroll
  for (int d = NDIM - 1; d >= 1; --d) {  // 64-bit divisions are slow: none for the first axis
    c[d] = rest % p.shape[d];
    rest /= p.shape[d];
  }
  c[0] = rest;
  long long off = p.offset;
#pragma unroll
  for (int d = 0; d < NDIM; ++d) {
    off += c[d] * p.strides[d];
  }
  bool ok = true;
#pragma unroll
  for (int k = 0; k < NIDX; ++k) {
    long long at = 0;
#pragma unroll
    for (int d = 0; d < NDIM; ++d) {
      at += c[d] * p.index_strides[k][d];
    }
    long long v = p.wide[k] ? static_cast<const long long*>(p.index[k])[at]
                            : static_cast<long long>(static_cast<const int*>(p.index[k])[at]);
    if (p.mode == 1) {
      v %= p.extent[k];
      if (v < 0) v += p.extent[k];
    } else if (p.mode == 2) {
      v = v < 0 ? 0 : (v >= p.extent[k] ? p.extent[k] - 1 : v);
    } else if (v < 0) {
      v += p.extent[k];
    }
    if (v < 0 || v >= p.extent[k]) {
      atomicMin(p.error + k, static_cast<unsigned long long>(r));
      ok = false;
    }
    off += v * p.axis_stride[k];
  }
  return ok ? off : -1;
}

// out[r] = src[source_offset(r)] (out C-contiguous); an out-of-range element reads as zero bytes.
template <class U, int NDIM, int NIDX>
__global__ void gather(params p, const U* src, U* out) {
  for (long long r = blockIdx.x * 1ll * blockDim.x + threadIdx.x; r < p.n; r += 1ll * gridDim.x * blockDim.x) {
    const long long off = source_offset<NDIM, NIDX>(p, r);
    U v{};
    if (off >= 0) {
      v = src[off];
    }
    out[r] = v;
  }
}

// offsets[r] = source_offset(r), with out-of-range elements as -1 (scatter and accumulate skip them).
template <int NDIM, int NIDX>
__global__ void offsets(params p, long long* out) {
  for (long long r = blockIdx.x * 1ll * blockDim.x + threadIdx.x; r < p.n; r += 1ll * gridDim.x * blockDim.x) {
    out[r] = source_offset<NDIM, NIDX>(p, r);
  }
}

// NumPy's `=` with repeated indices: the last value in index order wins. `keys` are the offsets
// sorted stably (order[j] their result positions), so the last of each run of equal keys writes.
template <class U>
__global__ void scatter_last(const unsigned long long* keys, const long long* order, long long n, const U* values,
                             U* dst) {
  for (long long j = blockIdx.x * 1ll * blockDim.x + threadIdx.x; j < n; j += 1ll * gridDim.x * blockDim.x) {
    const unsigned long long key = keys[j];
    if (static_cast<long long>(key) >= 0 && (j + 1 == n || keys[j + 1] != key)) {
      dst[key] = values[order[j]];
    }
  }
}

// Every element written (no repeated offsets possible, e.g. a mask's nonzero): a plain scatter.
template <class U>
__global__ void scatter_unique(const long long* offsets, long long n, const U* values, U* dst) {
  for (long long j = blockIdx.x * 1ll * blockDim.x + threadIdx.x; j < n; j += 1ll * gridDim.x * blockDim.x) {
    const long long off = offsets[j];
    if (off >= 0) {
      dst[off] = values[j];
    }
  }
}

// ---- accumulation (np.add.at and friends) -------------------------------------------------------

enum { op_add = 0, op_subtract = 1, op_multiply = 2, op_maximum = 3, op_minimum = 4 };

template <int OP, class C>
__device__ __forceinline__ C combine(C a, C b) {
  if (OP == op_add) {
    return a + b;
  } else if (OP == op_subtract) {
    return a - b;
  } else if (OP == op_multiply) {
    return a * b;
  } else if (OP == op_maximum) {
    return (a != a) ? a : (b != b) ? b : (a < b ? b : a);  // NaN propagates, as np.maximum
  } else {
    return (a != a) ? a : (b != b) ? b : (b < a ? b : a);
  }
}
template <int OP>
__device__ __forceinline__ bool combine(bool a, bool b) {
  return (OP == op_add || OP == op_maximum) ? (a || b) : (a && b);
}
template <int OP, class T>
__device__ __forceinline__ complex<T> combine(complex<T> a, complex<T> b) {
  return OP == op_add ? a + b : OP == op_subtract ? a - b : a * b;
}

template <int OP, class T>
__device__ __forceinline__ T apply(T old, T v) {
  using C = typename ::ndcuda::detail::via<T>::type;
  return T(combine<OP>(C(old), C(v)));
}
template <int OP>
__device__ __forceinline__ bool apply(bool old, bool v) {
  return combine<OP>(old, v);
}
template <int OP, class T>
__device__ __forceinline__ complex<T> apply(complex<T> old, complex<T> v) {
  return combine<OP>(old, v);
}

template <class T, class W>
__device__ __forceinline__ T from_bits(W w) {
  T t;
  const char* from = reinterpret_cast<const char*>(&w);
  char* to = reinterpret_cast<char*>(&t);
  for (unsigned i = 0; i < sizeof(T); ++i) {
    to[i] = from[i];
  }
  return t;
}
template <class W, class T>
__device__ __forceinline__ W to_bits(T t) {
  W w = 0;
  const char* from = reinterpret_cast<const char*>(&t);
  char* to = reinterpret_cast<char*>(&w);
  for (unsigned i = 0; i < sizeof(T); ++i) {
    to[i] = from[i];
  }
  return w;
}

// *p = apply(*p, v) atomically: a compare-and-swap loop on the aligned 32- or 64-bit word that
// holds *p (1- and 2-byte types share their word with neighbours, which the loop leaves as is).
template <int OP, class T>
__device__ void atomic_apply(T* p, T v) {
  if (sizeof(T) == 8) {
    unsigned long long* w = reinterpret_cast<unsigned long long*>(p);
    unsigned long long old = *w;
    for (;;) {
      const unsigned long long next = to_bits<unsigned long long>(apply<OP>(from_bits<T>(old), v));
      const unsigned long long seen = atomicCAS(w, old, next);
      if (seen == old) {
        return;
      }
      old = seen;
    }
  } else {
    const unsigned long long addr = reinterpret_cast<unsigned long long>(p);
    unsigned int* w = reinterpret_cast<unsigned int*>(addr & ~3ull);
    const unsigned shift = static_cast<unsigned>(addr & 3ull) * 8u;
    const unsigned mask = sizeof(T) == 4 ? 0xffffffffu : (((1u << (8 * sizeof(T))) - 1u) << shift);
    unsigned old = *w;
    for (;;) {
      const T cur = from_bits<T>(static_cast<unsigned>((old & mask) >> shift));
      const unsigned bits = to_bits<unsigned>(apply<OP>(cur, v));
      const unsigned next = (old & ~mask) | ((bits << shift) & mask);
      const unsigned seen = atomicCAS(w, old, next);
      if (seen == old) {
        return;
      }
      old = seen;
    }
  }
}

// Hardware atomics where they exist.
template <int OP, class T>
__device__ __forceinline__ void atomic_combine(T* p, T v) {
  atomic_apply<OP>(p, v);
}
#define NDCUDA_INDEXING_ATOMIC_ADD(T)                                     \
  template <>                                                             \
  __device__ __forceinline__ void atomic_combine<op_add, T>(T * p, T v) { \
    atomicAdd(p, v);                                                      \
  }
NDCUDA_INDEXING_ATOMIC_ADD(float)
NDCUDA_INDEXING_ATOMIC_ADD(double)
NDCUDA_INDEXING_ATOMIC_ADD(int)
NDCUDA_INDEXING_ATOMIC_ADD(unsigned int)
NDCUDA_INDEXING_ATOMIC_ADD(unsigned long long)
#undef NDCUDA_INDEXING_ATOMIC_ADD
template <>
__device__ __forceinline__ void atomic_combine<op_add, long long>(long long* p, long long v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
template <>
__device__ __forceinline__ void atomic_combine<op_subtract, long long>(long long* p, long long v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(p), 0ull - static_cast<unsigned long long>(v));
}
template <>
__device__ __forceinline__ void atomic_combine<op_add, complex<double>>(complex<double>* p, complex<double> v) {
  double* d = reinterpret_cast<double*>(p);
  atomicAdd(d, v.real());
  atomicAdd(d + 1, v.imag());
}
template <>
__device__ __forceinline__ void atomic_combine<op_subtract, complex<double>>(complex<double>* p, complex<double> v) {
  double* d = reinterpret_cast<double*>(p);
  atomicAdd(d, -v.real());
  atomicAdd(d + 1, -v.imag());
}

// np.add.at into a small dense destination (k-means' centres, a few hundred bins): each block adds
// its share of the values into its own copy of the destination in shared memory, where atomics on
// a few hot addresses are cheap, and writes that copy to partials[block]. Nothing is written to
// dst, so the host can still refuse an out-of-range index (p.error) before add_partials folds the
// copies in. A copy starts at -0.0, the identity of IEEE addition: an element no index names
// stays bit for bit what it was (0.0 would turn -0.0 into 0.0).
//
// A float atomicAdd on shared memory is a compare-and-swap loop, which holds back the loads that
// follow it: four elements' loads are issued before their adds. (Interleaved per-lane copies of
// the bins, which keep a warp's lanes off each other's addresses, measured no faster on an H200.)
template <class T, int NDIM, int NIDX>
__global__ void add_private(params p, const T* values, long long lo, long long span, T* partials) {
  extern __shared__ double ndcuda_private_bins[];
  T* bins = reinterpret_cast<T*>(ndcuda_private_bins);
  for (long long b = threadIdx.x; b < span; b += blockDim.x) {
    bins[b] = T(-0.0);
  }
  __syncthreads();
  const long long stride = 1ll * gridDim.x * blockDim.x;
  long long r = blockIdx.x * 1ll * blockDim.x + threadIdx.x;
  constexpr int batch = 4;
  for (; r + (batch - 1) * stride < p.n; r += batch * stride) {
    long long off[batch];
    T v[batch];
#pragma unroll
    for (int u = 0; u < batch; ++u) {
      off[u] = source_offset<NDIM, NIDX>(p, r + u * stride);
      v[u] = values[r + u * stride];
    }
#pragma unroll
    for (int u = 0; u < batch; ++u) {
      if (off[u] >= 0) {
        atomic_combine<op_add>(bins + (off[u] - lo), v[u]);
      }
    }
  }
  for (; r < p.n; r += stride) {
    const long long off = source_offset<NDIM, NIDX>(p, r);
    if (off >= 0) {
      atomic_combine<op_add>(bins + (off - lo), values[r]);
    }
  }
  __syncthreads();
  for (long long b = threadIdx.x; b < span; b += blockDim.x) {
    partials[blockIdx.x * span + b] = bins[b];
  }
}

// dst[b] += the sum over k of partials[k * span + b], the copies of add_private's blocks. A block
// of 32 warps folds 32 consecutive elements: warp w sums rows w, w + 32, ... (each read one
// coalesced segment of a row), and the warps' sums meet in shared memory. One thread per element
// summing a thousand rows in a chain was latency-bound: it took longer than add_private itself.
// The sums start at -0.0, so an element no block touched leaves dst's bits as they were.
template <class T>
__global__ void add_partials(const T* partials, int blocks, long long span, T* dst) {
  constexpr int lanes = 32;
  __shared__ __align__(16) unsigned char storage[lanes * (lanes + 1) * sizeof(T)];  // +1: no bank conflicts
  T* sums = reinterpret_cast<T*>(storage);
  const int lane = static_cast<int>(threadIdx.x) % lanes;
  const int warp = static_cast<int>(threadIdx.x) / lanes;
  const int warps = static_cast<int>(blockDim.x) / lanes;
  for (long long first = blockIdx.x * 1ll * lanes; first < span; first += 1ll * gridDim.x * lanes) {
    const long long b = first + lane;
    T sum = T(-0.0);
    if (b < span) {
      for (int k = warp; k < blocks; k += warps) {
        sum += partials[k * span + b];
      }
    }
    sums[warp * (lanes + 1) + lane] = sum;
    __syncthreads();
    if (warp == 0 && b < span) {
      T total = sums[lane];
      for (int w = 1; w < warps; ++w) {
        total += sums[w * (lanes + 1) + lane];
      }
      dst[b] += total;
    }
    __syncthreads();
  }
}

// dst[offsets[j]] = dst[...] OP values[j] for every j, repeated offsets included.
template <class T, int OP>
__global__ void accumulate(const long long* offsets, long long n, const T* values, T* dst) {
  for (long long j = blockIdx.x * 1ll * blockDim.x + threadIdx.x; j < n; j += 1ll * gridDim.x * blockDim.x) {
    const long long off = offsets[j];
    if (off >= 0) {
      atomic_combine<OP>(dst + off, values[j]);
    }
  }
}

}  // namespace indexing
}  // namespace ndcuda

namespace ndcuda {
namespace indexing {

// Flat C-order positions (of an array of `shape`, k axes) to coordinates: out[i * row + j * col]
// = coordinate j of flat[i]; a negative flat position (nd::size's padding) gives `fill`.
struct unravel_params {
  long long shape[max_dims];
  int k;
  long long row;
  long long col;
  long long fill;
};
__global__ void unravel(unravel_params p, const long long* flat, long long n, long long* out) {
  for (long long i = blockIdx.x * 1ll * blockDim.x + threadIdx.x; i < n; i += 1ll * gridDim.x * blockDim.x) {
    long long rest = flat[i];
    for (int j = p.k - 1; j >= 0; --j) {
      long long c = p.fill;
      if (rest >= 0) {
        c = rest % p.shape[j];
      }
      out[i * p.row + j * p.col] = c;
      if (rest >= 0) {
        rest /= p.shape[j];
      }
    }
  }
}

}  // namespace indexing
}  // namespace ndcuda
