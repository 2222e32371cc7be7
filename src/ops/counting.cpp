// bincount and histogram binning on the device: NVRTC raw kernels (per-block shared-memory
// counters, a binary search over the edges), instantiated per input dtype on first use.
#include <map>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <ndcuda/ops/detail/counting_kernels.hpp>
#include <string>
#include <utility>

namespace ndcuda::detail {
namespace {

// Shared counters cost 4 bytes (counts) or 8 bytes (weight sums) per bin; up to 32 KiB of them
// leaves room for several blocks per SM.
constexpr index_t shared_count_bins = 8192;
constexpr index_t shared_sum_bins = 4096;
// histogram's fused count keeps the edges (8 bytes each) and the counters (4) in shared memory up
// to 2049 edges: 24 KiB.
constexpr index_t shared_edge_count = 2049;

constexpr const char* counting_source = R"(
// Adds a block's shared counters into the global ones, once per block and nonzero bin.
__device__ __forceinline__ void flush_counts(const unsigned int* shared_counts, unsigned long long* counts,
                                             long long nbins) {
  __syncthreads();
  for (long long b = threadIdx.x; b < nbins; b += blockDim.x) {
    const unsigned int c = shared_counts[b];
    if (c != 0) atomicAdd(&counts[b], (unsigned long long)c);
  }
}

// One block's counts in shared memory (when `use_shared`), flushed once to the global counters:
// far fewer global atomics than elements, and shared atomics are fast even on hot bins.
template <class T>
__global__ void nd_bincount(const T* x, unsigned long long n, unsigned long long* counts, long long nbins,
                            int use_shared) {
  extern __shared__ unsigned int shared_counts[];
  if (use_shared) {
    for (long long b = threadIdx.x; b < nbins; b += blockDim.x) shared_counts[b] = 0;
    __syncthreads();
  }
  const unsigned long long stride = 1ull * gridDim.x * blockDim.x;
  unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x;
  // Four independent loads in flight per thread before the atomics.
  for (; i + 3 * stride < n; i += 4 * stride) {
    long long v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = (long long)x[i + u * stride];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      if (v[u] >= 0 && v[u] < nbins) {
        if (use_shared) atomicAdd(&shared_counts[v[u]], 1u);
        else atomicAdd(&counts[v[u]], 1ull);
      }
    }
  }
  for (; i < n; i += stride) {
    const long long v = (long long)x[i];
    if (v >= 0 && v < nbins) {
      if (use_shared) atomicAdd(&shared_counts[v], 1u);
      else atomicAdd(&counts[v], 1ull);
    }
  }
  if (use_shared) flush_counts(shared_counts, counts, nbins);
}

// Sums in shared memory when `copies` > 0: `copies` (a power of two) interleaved copies of the bins,
// sums[b * copies + c], lane l adding into copy l % copies. A double atomicAdd on shared memory is
// a compare-and-swap loop, which retries whenever lanes of a warp name the same bin; separate copies
// make that rare: with 256 bins, 77 us instead of 110 us for 2^24 weights on an H200. (add_at's
// float32 copies measured no faster: add_private keeps one.)
template <class T, class W>
__global__ void nd_bincount_weighted(const T* x, unsigned long long n, const W* w, double* sums,
                                     long long nbins, int copies) {
  extern __shared__ double shared_sums[];
  const long long cells = nbins * copies;
  for (long long b = threadIdx.x; b < cells; b += blockDim.x) shared_sums[b] = 0.0;
  if (copies > 0) __syncthreads();
  const int copy = copies > 0 ? (int)(threadIdx.x & (copies - 1)) : 0;
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n;
       i += 1ull * gridDim.x * blockDim.x) {
    const long long v = (long long)x[i];
    if (v >= 0 && v < nbins) {
      if (copies > 0) atomicAdd(&shared_sums[v * copies + copy], (double)w[i]);
      else atomicAdd(&sums[v], (double)w[i]);
    }
  }
  if (copies > 0) {
    __syncthreads();
    for (long long b = threadIdx.x; b < nbins; b += blockDim.x) {
      double c = 0.0;
      for (int k = 0; k < copies; ++k) c += shared_sums[b * copies + ((b + k) & (copies - 1))];
      if (c != 0.0) atomicAdd(&sums[b], c);
    }
  }
}

// The bin of v among nedges ascending edges: the last edge <= v (a binary search), the last bin
// closed; -1 outside the edges and for NaN.
__device__ __forceinline__ long long bin_of(double v, const double* edges, long long nedges) {
  if (!(v >= edges[0] && v <= edges[nedges - 1])) return -1;  // NaN too
  long long lo = 0, hi = nedges;
  while (lo < hi) {
    const long long mid = (lo + hi) / 2;
    if (edges[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  const long long b = lo - 1;
  return b > nedges - 2 ? nedges - 2 : b;
}

template <class T>
__global__ void nd_bin_index(const T* x, unsigned long long n, const double* edges, long long nedges,
                             long long* out) {
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n;
       i += 1ull * gridDim.x * blockDim.x) {
    out[i] = bin_of((double)x[i], edges, nedges);
  }
}

// np.histogram's counts in one pass: each element's bin as nd_bin_index finds it, counted as
// nd_bincount counts (with `use_shared`, the edges and a block's counters in shared memory, the
// counters flushed once per block). No per-element bin array is written and read back.
template <class T>
__global__ void nd_bin_count(const T* x, unsigned long long n, const double* edges, long long nedges,
                             unsigned long long* counts, int use_shared) {
  extern __shared__ double shared_edges[];
  unsigned int* shared_counts = reinterpret_cast<unsigned int*>(shared_edges + (use_shared ? nedges : 0));
  const long long nbins = nedges - 1;
  if (use_shared) {
    for (long long e = threadIdx.x; e < nedges; e += blockDim.x) shared_edges[e] = edges[e];
    for (long long b = threadIdx.x; b < nbins; b += blockDim.x) shared_counts[b] = 0;
    __syncthreads();
    edges = shared_edges;
  }
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n;
       i += 1ull * gridDim.x * blockDim.x) {
    const long long b = bin_of((double)x[i], edges, nedges);
    if (b >= 0) {
      if (use_shared) atomicAdd(&shared_counts[b], 1u);
      else atomicAdd(&counts[b], 1ull);
    }
  }
  if (use_shared) flush_counts(shared_counts, counts, nbins);
}

// np.linspace(lo, hi, n) as NumPy computes it: i * step + lo, rounded twice (no fused
// multiply-add, which would change the last bit of some edges), the last edge exactly hi.
extern "C" __global__ void nd_linspace_edges(double* out, double lo, double step, long long n, double hi) {
  for (long long i = blockIdx.x * 1ll * blockDim.x + threadIdx.x; i < n; i += 1ll * gridDim.x * blockDim.x)
    out[i] = i == n - 1 ? hi : __dadd_rn(__dmul_rn((double)i, step), lo);
}

template <class U>
__global__ void nd_gather(const U* in, U* out, const long long* idx, unsigned long long n,
                          unsigned long long units) {
  const unsigned long long total = n * units;
  for (unsigned long long t = blockIdx.x * 1ull * blockDim.x + threadIdx.x; t < total;
       t += 1ull * gridDim.x * blockDim.x) {
    const unsigned long long e = t / units;
    out[t] = in[(unsigned long long)idx[e] * units + (t - e * units)];
  }
}
)";

/// The C++ spelling of a dtype's element type inside the kernel source (bool is read as its byte).
const char* c_type(dtype t) {
  switch (t) {
    case dtype::bool_:
    case dtype::uint8:
      return "unsigned char";
    case dtype::int8:
      return "signed char";
    case dtype::int16:
      return "short";
    case dtype::uint16:
      return "unsigned short";
    case dtype::int32:
      return "int";
    case dtype::uint32:
      return "unsigned int";
    case dtype::int64:
      return "long long";
    case dtype::uint64:
      return "unsigned long long";
    case dtype::float32:
      return "float";
    case dtype::float64:
      return "double";
    default:
      throw type_error("counting kernels: no kernel for " + std::string(name(t)) +
                       "; convert with astype<float>() first");
  }
}

/// One raw_kernel per name expression, made once and shared (each compiles once per device).
const raw_kernel& kernel(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, raw_kernel> kernels;
  const std::lock_guard lock(mutex);
  auto it = kernels.find(name);
  if (it == kernels.end()) {
    it = kernels.emplace(name, raw_kernel(counting_source, name)).first;
  }
  return it->second;
}

std::string instance(const char* kernel_name, dtype t) {
  return std::string(kernel_name) + "<" + c_type(t) + ">";
}

const char* unit_type(std::size_t unit) {
  return unit == 8 ? "unsigned long long" : unit == 4 ? "unsigned int" : unit == 2 ? "unsigned short" : "unsigned char";
}

void require_two_edges(index_t nedges) {
  if (nedges < 2) {
    throw shape_error("histogram: the bin edges must have at least 2 elements, got " + std::to_string(nedges));
  }
}

}  // namespace

void bincount_into(dtype idx_type, const void* idx, index_t n, dtype weight_type, const void* weights, index_t nbins,
                   std::int64_t* counts, double* sums, const stream& s) {
  if (n == 0 || nbins == 0) {
    return;
  }
  const auto un = static_cast<unsigned long long>(n);
  const auto bins = static_cast<long long>(nbins);
  if (weights == nullptr) {
    const int use_shared = nbins <= shared_count_bins ? 1 : 0;
    const std::size_t shared = use_shared ? static_cast<std::size_t>(nbins) * sizeof(unsigned) : 0;
    const raw_kernel& k = kernel(instance("nd_bincount", idx_type));
    k.launch(k.occupancy_config(static_cast<std::size_t>(n), s, shared), s, idx, un, counts, bins, use_shared);
  } else {
    int copies = nbins <= shared_sum_bins ? 1 : 0;  // as many interleaved copies as fit, up to 32
    while (copies > 0 && copies < 32 && nbins * copies * 2 <= shared_sum_bins) {
      copies *= 2;
    }
    const auto shared = static_cast<std::size_t>(nbins * copies) * sizeof(double);
    if (weight_type != dtype::float32 && weight_type != dtype::float64) {
      throw type_error(std::string("bincount: the weights must be float32 or float64 here, got ") +
                       std::string(name(weight_type)));
    }
    const raw_kernel& k =
        kernel("nd_bincount_weighted<" + std::string(c_type(idx_type)) + ", " + std::string(c_type(weight_type)) + ">");
    k.launch(k.occupancy_config(static_cast<std::size_t>(n), s, shared), s, idx, un, weights, sums, bins, copies);
  }
}

void bin_index_into(dtype x_type, const void* x, index_t n, const double* edges, index_t nedges, std::int64_t* out,
                    const stream& s) {
  if (n == 0) {
    return;
  }
  require_two_edges(nedges);
  const raw_kernel& k = kernel(instance("nd_bin_index", x_type));
  k.launch(k.occupancy_config(static_cast<std::size_t>(n), s), s, x, static_cast<unsigned long long>(n), edges,
           static_cast<long long>(nedges), out);
}

void bin_count_into(dtype x_type, const void* x, index_t n, const double* edges, index_t nedges, std::int64_t* counts,
                    const stream& s) {
  require_two_edges(nedges);
  if (n == 0) {
    return;
  }
  const int use_shared = nedges <= shared_edge_count ? 1 : 0;
  const std::size_t shared = use_shared ? static_cast<std::size_t>(nedges) * sizeof(double) +
                                              static_cast<std::size_t>(nedges - 1) * sizeof(unsigned)
                                        : 0;
  const raw_kernel& k = kernel(instance("nd_bin_count", x_type));
  k.launch(k.occupancy_config(static_cast<std::size_t>(n), s, shared), s, x, static_cast<unsigned long long>(n), edges,
           static_cast<long long>(nedges), counts, use_shared);
}

void linspace_edges(double* out, double lo, double hi, index_t n, const stream& s) {
  if (n <= 0) {
    return;
  }
  const double step = n > 1 ? (hi - lo) / static_cast<double>(n - 1) : 0.0;
  const raw_kernel& k = kernel("nd_linspace_edges");
  k.launch(k.occupancy_config(static_cast<std::size_t>(n), s), s, out, lo, step, static_cast<long long>(n), hi);
}

void gather_elements(const void* in, void* out, const std::int64_t* idx, index_t n, std::size_t itemsize,
                     const stream& s) {
  if (n == 0 || itemsize == 0) {
    return;
  }
  const std::size_t unit = itemsize % 8 == 0 ? 8 : itemsize % 4 == 0 ? 4 : itemsize % 2 == 0 ? 2 : 1;
  const auto units = static_cast<unsigned long long>(itemsize / unit);
  const raw_kernel& k = kernel(std::string("nd_gather<") + unit_type(unit) + ">");
  k.launch(k.occupancy_config(static_cast<std::size_t>(n) * units, s), s, in, out, idx,
           static_cast<unsigned long long>(n), units);
}

void compile_counting_kernels(compute_capability cc) {
  for (dtype t : {dtype::bool_, dtype::int8, dtype::int16, dtype::int32, dtype::int64, dtype::uint8, dtype::uint16,
                  dtype::uint32, dtype::uint64}) {
    kernel(instance("nd_bincount", t)).compile(cc);
    for (dtype w : {dtype::float32, dtype::float64}) {
      kernel("nd_bincount_weighted<" + std::string(c_type(t)) + ", " + std::string(c_type(w)) + ">").compile(cc);
    }
  }
  for (dtype t : {dtype::int32, dtype::int64, dtype::uint64, dtype::float32, dtype::float64}) {
    kernel(instance("nd_bin_index", t)).compile(cc);
    kernel(instance("nd_bin_count", t)).compile(cc);
  }
  kernel("nd_linspace_edges").compile(cc);
  for (std::size_t unit : {1, 2, 4, 8}) {
    kernel(std::string("nd_gather<") + unit_type(unit) + ">").compile(cc);
  }
}

}  // namespace ndcuda::detail
