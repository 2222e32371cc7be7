// Complex sort, argsort, unique and searchsorted in NumPy's order: each element becomes a pair of
// unsigned keys (sort_codec.hpp), sorted by the existing stable radix sorts (one 8-byte pass for
// complex64, two LSD passes for complex128). Small kernels only: no new CUB instantiation.
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/memory/transfer.hpp>

#include "cub_call.cuh"
#include "sort_codec.hpp"
#include "sort_complex.hpp"

namespace ndcuda::detail {
namespace {

constexpr unsigned block_size = 256;

// One complex element as its two parts' bits (8-byte alignment: std::complex<double>'s).
template <class U>
struct parts {
  U re;
  U im;
};

template <class U>
__device__ complex_key<U> key_at(const parts<U>* p, long long i) {
  const parts<U> e = p[i];
  return complex_sort_key<U>(e.re, e.im);
}

#define NDCUDA_GRID_LOOP(i, n) \
  for (long long i = blockIdx.x * 1ll * blockDim.x + threadIdx.x; i < (n); i += 1ll * gridDim.x * blockDim.x)

// complex64: one 8-byte key (hi << 32 | lo).
__global__ void encode_narrow(const parts<std::uint32_t>* in, std::uint64_t* keys, long long* index, long long n) {
  NDCUDA_GRID_LOOP(i, n) {
    const complex_key<std::uint32_t> k = key_at(in, i);
    keys[i] = (static_cast<std::uint64_t>(k.hi) << 32) | k.lo;
    index[i] = i;
  }
}

// complex128: two 8-byte keys, sorted least significant first.
__global__ void encode_wide(const parts<std::uint64_t>* in, std::uint64_t* hi, std::uint64_t* lo, long long* index,
                            long long n) {
  NDCUDA_GRID_LOOP(i, n) {
    const complex_key<std::uint64_t> k = key_at(in, i);
    hi[i] = k.hi;
    lo[i] = k.lo;
    index[i] = i;
  }
}

__global__ void gather_keys(const std::uint64_t* keys, const long long* idx, std::uint64_t* out, long long n) {
  NDCUDA_GRID_LOOP(i, n) {
    out[i] = keys[idx[i]];
  }
}

template <class U>
__global__ void gather_sorted(const parts<U>* in, const long long* idx, parts<U>* sorted, long long* positions,
                              long long n, long long segment) {
  NDCUDA_GRID_LOOP(i, n) {
    const long long j = idx[i];
    if (sorted != nullptr) {
      sorted[i] = in[j];
    }
    if (positions != nullptr) {
      positions[i] = j % segment;
    }
  }
}

// flags[i] = 1 where sorted[i] starts a run of one element (np.unique's equality, all NaNs one).
template <class U>
__global__ void unique_flags(const parts<U>* sorted, std::uint64_t* flags, long long n) {
  NDCUDA_GRID_LOOP(i, n) {
    flags[i] = (i == 0 || !complex_same_element(key_at(sorted, i - 1), key_at(sorted, i))) ? 1 : 0;
  }
}

// After an inclusive scan of the flags: an element that starts a run goes to place scan[i] - 1.
template <class U>
__global__ void unique_scatter(const parts<U>* sorted, const std::uint64_t* scan, parts<U>* out, long long n) {
  NDCUDA_GRID_LOOP(i, n) {
    if (i == 0 || scan[i] != scan[i - 1]) {
      out[scan[i] - 1] = sorted[i];
    }
  }
}

template <class U>
__global__ void search(const parts<U>* sorted, long long m, const parts<U>* values, long long* out, long long n,
                       bool right) {
  NDCUDA_GRID_LOOP(i, n) {
    const complex_key<U> v = key_at(values, i);
    long long lo = 0;
    long long hi = m;
    while (lo < hi) {
      const long long mid = lo + (hi - lo) / 2;
      const complex_key<U> k = key_at(sorted, mid);
      if (right ? !complex_key_less(v, k) : complex_key_less(k, v)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    out[i] = lo;
  }
}

#undef NDCUDA_GRID_LOOP

/// A scratch buffer of n 8-byte words on `s`.
struct words {
  std::shared_ptr<const void> owner;
  void* data = nullptr;
  // Assigned in the body: a member initializer for `owner` would write `data` before data's own
  // default initializer runs and resets it to null.
  words(index_t n, const stream& s) { owner = allocate_buffer(static_cast<std::size_t>(n) * 8, s, &data); }
  std::uint64_t* u() const { return static_cast<std::uint64_t*>(data); }
  long long* ll() const { return static_cast<long long*>(data); }
};

template <class F>
void with_width(bool wide, F&& f) {
  if (wide) {
    f(std::uint64_t{});
  } else {
    f(std::uint32_t{});
  }
}

}  // namespace

void complex_sort_indices(bool wide, const void* in, std::int64_t* idx, index_t n, index_t segment, const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  if (n <= 0) {
    return;
  }
  const unsigned grid = grid_for(n, block_size);
  const words index(n, s);
  const words keys_out(n, s);
  if (!wide) {
    const words keys(n, s);
    encode_narrow<<<grid, block_size, 0, s.handle()>>>(static_cast<const parts<std::uint32_t>*>(in), keys.u(),
                                                       index.ll(), n);
    check_launch("complex sort: key kernel launch");
    sort_pairs(8, keys.data, keys_out.data, reinterpret_cast<const std::int64_t*>(index.data), idx, n, segment, s);
    return;
  }
  const words hi(n, s);
  const words lo(n, s);
  const words first(n, s);
  encode_wide<<<grid, block_size, 0, s.handle()>>>(static_cast<const parts<std::uint64_t>*>(in), hi.u(), lo.u(),
                                                   index.ll(), n);
  check_launch("complex sort: key kernel launch");
  // LSD: by the low key, then (stably) by the high key carried to the new order.
  sort_pairs(8, lo.data, keys_out.data, reinterpret_cast<const std::int64_t*>(index.data),
             static_cast<std::int64_t*>(first.data), n, segment, s);
  gather_keys<<<grid, block_size, 0, s.handle()>>>(hi.u(), first.ll(), lo.u(), n);
  check_launch("complex sort: gather kernel launch");
  sort_pairs(8, lo.data, keys_out.data, static_cast<const std::int64_t*>(first.data), idx, n, segment, s);
}

void complex_gather_sorted(bool wide, const void* in, const std::int64_t* idx, void* sorted, std::int64_t* positions,
                           index_t n, index_t segment, const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  if (n <= 0) {
    return;
  }
  with_width(wide, [&](auto u) {
    using U = decltype(u);
    gather_sorted<U><<<grid_for(n, block_size), block_size, 0, s.handle()>>>(
        static_cast<const parts<U>*>(in), reinterpret_cast<const long long*>(idx), static_cast<parts<U>*>(sorted),
        reinterpret_cast<long long*>(positions), n, segment);
    check_launch("complex sort: result kernel launch");
  });
}

index_t complex_unique_sorted(bool wide, const void* sorted, void* out, index_t n, const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  if (n <= 0) {
    return 0;
  }
  const words scan(n, s);
  const unsigned grid = grid_for(n, block_size);
  with_width(wide, [&](auto u) {
    using U = decltype(u);
    unique_flags<U><<<grid, block_size, 0, s.handle()>>>(static_cast<const parts<U>*>(sorted), scan.u(), n);
    check_launch("complex unique: flag kernel launch");
  });
  inclusive_scan(dtype::uint64, scan_op::sum, scan.data, scan.data, n, n, s);
  with_width(wide, [&](auto u) {
    using U = decltype(u);
    unique_scatter<U><<<grid, block_size, 0, s.handle()>>>(static_cast<const parts<U>*>(sorted), scan.u(),
                                                           static_cast<parts<U>*>(out), n);
    check_launch("complex unique: scatter kernel launch");
  });
  std::uint64_t found = 0;
  copy_to_host(&found, scan.u() + (n - 1), sizeof(found), s);
  synchronize_for(s, "unique");
  return static_cast<index_t>(found);
}

void complex_search(bool wide, const void* sorted, index_t m, const void* values, std::int64_t* out, index_t n,
                    bool right, const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  if (n <= 0) {
    return;
  }
  with_width(wide, [&](auto u) {
    using U = decltype(u);
    search<U><<<grid_for(n, block_size), block_size, 0, s.handle()>>>(static_cast<const parts<U>*>(sorted), m,
                                                                      static_cast<const parts<U>*>(values),
                                                                      reinterpret_cast<long long*>(out), n, right);
    check_launch("searchsorted: complex search kernel launch");
  });
}

}  // namespace ndcuda::detail
