// topk: the k largest (or smallest) elements along the last axis, sorted, with their indices. One
// long row: a radix select on the sort keys (per-digit histograms in 11-bit passes, all on the
// device, then the candidates compacted and only they sorted). Many rows: a segmented sort.
#include <cstring>
#include <map>
#include <mutex>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/jit/detail/kernels_by_itemsize.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <ndcuda/ops/detail/counting_kernels.hpp>
#include <ndcuda/ops/detail/device_algorithms.hpp>
#include <ndcuda/ops/detail/selection_kernels.hpp>
#include <string>

#include "layout_plan.hpp"

namespace ndcuda::detail {
namespace {

constexpr int digit_bits = 11;
constexpr int digit_bins = 1 << digit_bits;
// Below this row length one segmented sort is as fast as the select's fixed number of launches.
constexpr index_t radix_select_min_length = 1 << 16;

constexpr const char* topk_source = R"(
// state: [0] the key prefix found so far, [1] its mask, [2] how many keys equal to the k-th
// are still to take, [3] and [4] the compaction's counters (keys below the k-th, equal to it).

// The histogram of one digit of the keys that match the prefix found so far. Loops are uniform
// across each warp, so lanes with the same digit are merged by __match_any_sync first: skewed
// data (most floats share a few exponents) would otherwise serialise on a few shared counters.
template <class U>
__global__ void nd_radix_histogram(const U* keys, unsigned long long n, U flip, const unsigned long long* state,
                                   unsigned long long* hist, int shift, int width, int first) {
  __shared__ unsigned int h[2048];
  const int bins = 1 << width;
  for (int b = threadIdx.x; b < bins; b += blockDim.x) h[b] = 0;
  __syncthreads();
  const U prefix = first ? (U)0 : (U)state[0];
  const U mask = first ? (U)0 : (U)state[1];
  const unsigned lane = threadIdx.x & 31u;
  const unsigned long long stride = 1ull * gridDim.x * blockDim.x;
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i - lane < n; i += stride) {
    int bin = -1;
    if (i < n) {
      const U key = (U)(keys[i] ^ flip);
      if ((U)(key & mask) == prefix) bin = (int)((key >> shift) & (unsigned long long)(bins - 1));
    }
    const unsigned peers = __match_any_sync(0xffffffffu, bin);
    if (bin >= 0 && lane == (unsigned)(__ffs(peers) - 1)) atomicAdd(&h[bin], (unsigned)__popc(peers));
  }
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += blockDim.x) {
    const unsigned c = h[b];
    if (c != 0) atomicAdd(&hist[b], (unsigned long long)c);
  }
}

// One block of 256 threads: finds the digit whose bucket holds the k-th key, extends the prefix.
extern "C" __global__ void nd_radix_select(const unsigned long long* hist, unsigned long long* state, int shift, int width,
                                long long k, int first) {
  __shared__ unsigned long long partial[256];
  const int bins = 1 << width;
  const int per = (bins + 255) / 256;
  unsigned long long sum = 0;
  for (int j = 0; j < per; ++j) {
    const int b = threadIdx.x * per + j;
    if (b < bins) sum += hist[b];
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long rem = first ? k : (long long)state[2];
    int t = 0;
    while (t < 255 && (long long)partial[t] < rem) {
      rem -= (long long)partial[t];
      ++t;
    }
    int b = t * per;
    const int end = min(b + per, bins);
    while (b < end - 1 && (long long)hist[b] < rem) {
      rem -= (long long)hist[b];
      ++b;
    }
    const unsigned long long digit_mask = ((1ull << width) - 1ull) << shift;
    state[0] = (first ? 0ull : state[0]) | ((unsigned long long)b << shift);
    state[1] = (first ? 0ull : state[1]) | digit_mask;
    state[2] = (unsigned long long)rem;
  }
}

// Writes the k selected (key, index) pairs: every key below the k-th at slots [0, k - take), and
// the first `take` keys equal to it after them. Warp-aggregated counters.
template <class U>
__global__ void nd_radix_compact(const U* keys, unsigned long long n, U flip, unsigned long long* state, long long k,
                                 U* out_keys, long long* out_idx) {
  const U kth = (U)state[0];
  const long long take = (long long)state[2];
  const long long below_total = k - take;
  const unsigned lane = threadIdx.x & 31u;
  const unsigned lower = (1u << lane) - 1u;
  const unsigned long long stride = 1ull * gridDim.x * blockDim.x;
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i - lane < n; i += stride) {
    U key = 0;
    bool less = false, equal = false;
    if (i < n) {
      key = (U)(keys[i] ^ flip);
      less = key < kth;
      equal = key == kth;
    }
    const unsigned lm = __ballot_sync(0xffffffffu, less);
    const unsigned em = __ballot_sync(0xffffffffu, equal);
    if ((lm | em) == 0u) continue;
    unsigned long long lbase = 0, ebase = 0;
    if (lane == 0) {
      if (lm) lbase = atomicAdd(&state[3], (unsigned long long)__popc(lm));
      if (em) ebase = atomicAdd(&state[4], (unsigned long long)__popc(em));
    }
    lbase = __shfl_sync(0xffffffffu, lbase, 0);
    ebase = __shfl_sync(0xffffffffu, ebase, 0);
    if (less) {
      const long long p = (long long)lbase + __popc(lm & lower);
      out_keys[p] = key;
      out_idx[p] = (long long)i;
    } else if (equal) {
      const long long t = (long long)ebase + __popc(em & lower);
      if (t < take) {
        out_keys[below_total + t] = key;
        out_idx[below_total + t] = (long long)i;
      }
    }
  }
}

template <class U>
__global__ void nd_flip_keys(U* keys, unsigned long long n, U flip) {
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n; i += 1ull * gridDim.x * blockDim.x)
    keys[i] = (U)(keys[i] ^ flip);
}

// The first k of each sorted row: indices as they are, values gathered from the row.
template <class U>
__global__ void nd_topk_rows(const U* values, const long long* sorted_idx, U* out_values, long long* out_idx,
                             unsigned long long rows, unsigned long long length, unsigned long long k) {
  const unsigned long long total = rows * k;
  for (unsigned long long t = blockIdx.x * 1ull * blockDim.x + threadIdx.x; t < total;
       t += 1ull * gridDim.x * blockDim.x) {
    const unsigned long long r = t / k;
    const long long j = sorted_idx[r * length + (t - r * k)];
    out_idx[t] = j;
    out_values[t] = values[r * length + (unsigned long long)j];
  }
}
)";

const raw_kernel& kernel(const std::string& name) {
  static const jit::detail::kernel_family family(topk_source);
  return family.get(name);
}

std::string instance(const char* name, std::size_t bytes) {
  return std::string(name) + "<" + jit::detail::unsigned_type_name(bytes) + ">";
}

/// A key flip mask of `bytes` bytes, passed by value as the kernel's U.
template <class F>
void with_flip(std::size_t bytes, bool largest, F&& f) {
  switch (bytes) {
    case 1:
      return f(static_cast<std::uint8_t>(largest ? 0xffu : 0u));
    case 2:
      return f(static_cast<std::uint16_t>(largest ? 0xffffu : 0u));
    case 4:
      return f(static_cast<std::uint32_t>(largest ? 0xffffffffu : 0u));
    default:
      return f(static_cast<std::uint64_t>(largest ? ~0ull : 0ull));
  }
}

/// The radix select on one row of n keys: indices of the k selected keys, sorted, into `indices`.
void radix_select(const key_format& f, const void* keys, index_t n, index_t k, bool largest, std::int64_t* indices,
                  const stream& s) {
  const int key_bits = static_cast<int>(f.bytes * 8);
  const int passes = (key_bits + digit_bits - 1) / digit_bits;
  const dense_elements state = scratch(5 * sizeof(std::uint64_t), s);
  const index_t hist_words = index_t{passes} * digit_bins;
  const dense_elements hist = scratch(checked_bytes(hist_words, sizeof(std::uint64_t)), s);
  check_cuda(cudaMemsetAsync(state.writable(), 0, 5 * sizeof(std::uint64_t), s.handle()), "topk: clearing state");
  check_cuda(
      cudaMemsetAsync(hist.writable(), 0, static_cast<std::size_t>(hist_words) * sizeof(std::uint64_t), s.handle()),
      "topk: clearing histograms");
  auto* st = static_cast<unsigned long long*>(state.writable());
  auto* h = static_cast<unsigned long long*>(hist.writable());
  const auto un = static_cast<unsigned long long>(n);
  const auto kk = static_cast<long long>(k);
  const raw_kernel& hk = kernel(instance("nd_radix_histogram", f.bytes));
  const raw_kernel& sk = kernel("nd_radix_select");
  const raw_kernel& ck = kernel(instance("nd_radix_compact", f.bytes));
  const launch_config hist_config = hk.occupancy_config(static_cast<std::size_t>(n), s);
  with_flip(f.bytes, largest, [&](auto flip) {
    int remaining = key_bits;
    for (int p = 0; p < passes; ++p) {
      const int width = remaining < digit_bits ? remaining : digit_bits;
      remaining -= width;
      const int shift = remaining;
      const int first = p == 0 ? 1 : 0;
      unsigned long long* const pass_hist = h + std::ptrdiff_t{p} * digit_bins;
      hk.launch(hist_config, s, keys, un, flip, static_cast<const unsigned long long*>(st), pass_hist, shift, width,
                first);
      sk.launch(launch_config{dim3(1), dim3(256), 0}, s, static_cast<const unsigned long long*>(pass_hist), st, shift,
                width, kk, first);
    }
    using U = decltype(flip);
    const dense_elements cand_keys = scratch(checked_bytes(k, f.bytes), s);
    const dense_elements cand_idx = scratch(checked_bytes(k, sizeof(std::int64_t)), s);
    ck.launch(ck.occupancy_config(static_cast<std::size_t>(n), s), s, keys, un, flip, st, kk,
              static_cast<U*>(cand_keys.writable()), static_cast<long long*>(cand_idx.writable()));
    const dense_elements sorted_keys = scratch(checked_bytes(k, f.bytes), s);
    sort_pairs(f.bytes, cand_keys.data, sorted_keys.writable(), static_cast<const std::int64_t*>(cand_idx.data),
               indices, k, k, s);
  });
}

}  // namespace

void topk_into(const leaf_ref& x, index_t k, bool largest, void* values, std::int64_t* indices, const stream& s) {
  retain_for_capture(s, std::span<const leaf_ref>(&x, 1));
  const key_format f = key_format_for(x.type, true, "topk");
  check_same_device(x, s, "topk");
  const shape_t& shape = x.layout->shape;
  const index_t n = shape_size(shape);
  const index_t length = shape.empty() ? 1 : shape.back();
  if (n == 0 || k == 0) {
    return;
  }
  const index_t rows = n / length;
  device_guard guard(x.device);
  order_after(s, *x.s);
  const axis_last flat = move_axis_last(shape, x.layout->strides, std::nullopt);
  const dense_elements dense = dense_copy(x, flat, x.type, s);
  const dense_elements keys = scratch(checked_bytes(n, f.bytes), s);
  if (rows == 1 && length >= radix_select_min_length && k < length) {
    encode_keys(f, dense.data, keys.writable(), nullptr, n, n, s);
    radix_select(f, keys.data, n, k, largest, indices, s);
    gather_elements(dense.data, values, indices, k, f.bytes, s);
    return;
  }
  const dense_elements row_index = scratch(checked_bytes(n, sizeof(std::int64_t)), s);
  encode_keys(f, dense.data, keys.writable(), static_cast<std::int64_t*>(row_index.writable()), n, length, s);
  if (largest) {
    with_flip(f.bytes, true, [&](auto flip) {
      const raw_kernel& fk = kernel(instance("nd_flip_keys", f.bytes));
      fk.launch(fk.occupancy_config(static_cast<std::size_t>(n), s), s, keys.writable(),
                static_cast<unsigned long long>(n), flip);
    });
  }
  const dense_elements sorted_keys = scratch(checked_bytes(n, f.bytes), s);
  const dense_elements sorted_idx = scratch(checked_bytes(n, sizeof(std::int64_t)), s);
  sort_pairs(f.bytes, keys.data, sorted_keys.writable(), static_cast<const std::int64_t*>(row_index.data),
             static_cast<std::int64_t*>(sorted_idx.writable()), n, length, s);
  const raw_kernel& rk = kernel(instance("nd_topk_rows", f.bytes));
  rk.launch(rk.occupancy_config(static_cast<std::size_t>(rows * k), s), s, dense.data, sorted_idx.data, values, indices,
            static_cast<unsigned long long>(rows), static_cast<unsigned long long>(length),
            static_cast<unsigned long long>(k));
}

void compile_topk_kernels(compute_capability cc) {
  kernel("nd_radix_select").compile(cc);
  for (std::size_t bytes : {1, 2, 4, 8}) {
    for (const char* name : {"nd_radix_histogram", "nd_radix_compact", "nd_flip_keys", "nd_topk_rows"}) {
      kernel(instance(name, bytes)).compile(cc);
    }
  }
}

}  // namespace ndcuda::detail
