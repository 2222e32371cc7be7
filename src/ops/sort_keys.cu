// Sort keys: the element <-> unsigned key transforms (NumPy's order, NaN last), unique and
// searchsorted on keys. Kernels are instantiated per key width (1, 2, 4, 8 bytes), not per dtype.
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>

#include <cub/device/device_select.cuh>
#include <exception>
#include <string>

#include "cub_call.cuh"
#include "sort_codec.hpp"

namespace ndcuda::detail {
namespace {

constexpr unsigned block_size = 256;

template <class U>
__global__ void encode_kernel(codec<U> c, const U* in, U* keys, long long* row_index, long long n, long long segment) {
  for (long long i = blockIdx.x * 1ll * blockDim.x + threadIdx.x; i < n; i += 1ll * gridDim.x * blockDim.x) {
    keys[i] = c.encode(in[i]);
    if (row_index != nullptr) {
      row_index[i] = segment >= n ? i : i % segment;
    }
  }
}

template <class U>
__global__ void decode_kernel(codec<U> c, const U* keys, U* out, long long n) {
  for (long long i = blockIdx.x * 1ll * blockDim.x + threadIdx.x; i < n; i += 1ll * gridDim.x * blockDim.x) {
    out[i] = c.decode(keys[i]);
  }
}

}  // namespace

void encode_keys(const key_format& f, const void* in, void* keys, std::int64_t* row_index, index_t n, index_t segment,
                 const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  if (n <= 0) {
    return;
  }
  with_key_type(f.bytes, "encode_keys", [&](auto u) {
    using U = decltype(u);
    encode_kernel<U><<<grid_for(n, block_size), block_size, 0, s.handle()>>>(
        make_codec<U>(f), static_cast<const U*>(in), static_cast<U*>(keys), reinterpret_cast<long long*>(row_index), n,
        segment);
    check_launch("encode_keys kernel launch");
  });
}

void decode_keys(const key_format& f, const void* keys, void* out, index_t n, const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  if (n <= 0) {
    return;
  }
  with_key_type(f.bytes, "decode_keys", [&](auto u) {
    using U = decltype(u);
    decode_kernel<U><<<grid_for(n, block_size), block_size, 0, s.handle()>>>(
        make_codec<U>(f), static_cast<const U*>(keys), static_cast<U*>(out), n);
    check_launch("decode_keys kernel launch");
  });
}

void unique_keys(std::size_t key_bytes, const void* sorted, void* out, std::int64_t* count, index_t n,
                 const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  with_key_type(key_bytes, "unique_keys", [&](auto u) {
    using U = decltype(u);
    const U* in = static_cast<const U*>(sorted);
    U* d_out = static_cast<U*>(out);
    run_cub("cub::DeviceSelect::Unique", s, [&](void* temp, std::size_t& bytes) {
      return cub::DeviceSelect::Unique(temp, bytes, in, d_out, count, static_cast<long long>(n), s.handle());
    });
  });
}

void search_keys(std::size_t key_bytes, const void* sorted, index_t m, const void* values, std::int64_t* out, index_t n,
                 bool right, const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  if (n <= 0) {
    return;
  }
  with_key_type(key_bytes, "search_keys", [&](auto u) {
    using U = decltype(u);
    const U* a = static_cast<const U*>(sorted);
    const U* v = static_cast<const U*>(values);
    auto* d_out = reinterpret_cast<long long*>(out);
    // Thrust reports failures as thrust::system_error; ndcuda's callers expect nd::error.
    try {
      const auto policy = thrust::cuda::par_nosync.on(s.handle());
      if (right) {
        thrust::upper_bound(policy, a, a + m, v, v + n, d_out);
      } else {
        thrust::lower_bound(policy, a, a + m, v, v + n, d_out);
      }
    } catch (const std::exception& e) {
      throw error(std::string("searchsorted: thrust::") + (right ? "upper_bound" : "lower_bound") +
                  " failed: " + e.what());
    }
    check_launch("searchsorted (thrust binary search)");
  });
}

}  // namespace ndcuda::detail
