// sort/argsort of one row: CUB's onesweep radix sort on unsigned keys (stable), instantiated per
// key width; many rows go to sort_segmented.cu.
#include <cub/device/device_radix_sort.cuh>

#include "cub_call.cuh"

namespace ndcuda::detail {

void sort_keys(std::size_t key_bytes, const void* in, void* out, index_t n, index_t segment, const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  if (n <= 1) {
    if (n == 1) {
      check_cuda(cudaMemcpyAsync(out, in, key_bytes, cudaMemcpyDeviceToDevice, s.handle()), "sort_keys: one element");
    }
    return;
  }
  if (segment < n) {
    return segmented_sort_keys(key_bytes, in, out, n, segment, s);
  }
  with_key_type(key_bytes, "sort_keys", [&](auto u) {
    using U = decltype(u);
    const U* d_in = static_cast<const U*>(in);
    U* d_out = static_cast<U*>(out);
    run_cub("cub::DeviceRadixSort::SortKeys", s, [&](void* temp, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortKeys(temp, bytes, d_in, d_out, static_cast<long long>(n), 0,
                                            static_cast<int>(sizeof(U) * 8), s.handle());
    });
  });
}

void sort_pairs(std::size_t key_bytes, const void* keys_in, void* keys_out, const std::int64_t* values_in,
                std::int64_t* values_out, index_t n, index_t segment, const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  if (n <= 1) {
    if (n == 1) {
      check_cuda(cudaMemcpyAsync(values_out, values_in, sizeof(std::int64_t), cudaMemcpyDeviceToDevice, s.handle()),
                 "sort_pairs: one element");
    }
    return;
  }
  if (segment < n) {
    return segmented_sort_pairs(key_bytes, keys_in, keys_out, values_in, values_out, n, segment, s);
  }
  with_key_type(key_bytes, "sort_pairs", [&](auto u) {
    using U = decltype(u);
    const U* k_in = static_cast<const U*>(keys_in);
    U* k_out = static_cast<U*>(keys_out);
    const auto* v_in = reinterpret_cast<const long long*>(values_in);
    auto* v_out = reinterpret_cast<long long*>(values_out);
    run_cub("cub::DeviceRadixSort::SortPairs", s, [&](void* temp, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(temp, bytes, k_in, k_out, v_in, v_out, static_cast<long long>(n), 0,
                                             static_cast<int>(sizeof(U) * 8), s.handle());
    });
  });
}

}  // namespace ndcuda::detail
