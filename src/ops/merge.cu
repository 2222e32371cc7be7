// Merging two sorted runs of unsigned keys: cub::DeviceMerge, instantiated per key width. The
// distributed sample sort (dist/sorting.hpp) merges the runs each rank receives instead of sorting
// them again.
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>

#include <cub/device/device_merge.cuh>

#include "cub_call.cuh"

namespace ndcuda::detail {
namespace {

/// (key, value) pairs ordered by key, then value: with unique values (global positions) a strict
/// total order, so CUB's unstable merge comes out as the stable one.
struct key_then_value {
  template <class Pair>
  __host__ __device__ bool operator()(const Pair& a, const Pair& b) const {
    const auto ka = thrust::get<0>(a);
    const auto kb = thrust::get<0>(b);
    return ka < kb || (ka == kb && thrust::get<1>(a) < thrust::get<1>(b));
  }
};

}  // namespace

void merge_keys(std::size_t key_bytes, const void* a, index_t na, const void* b, index_t nb, void* out,
                const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  if (na + nb == 0) {
    return;
  }
  with_key_type(key_bytes, "merge_keys", [&](auto u) {
    using U = decltype(u);
    run_cub("cub::DeviceMerge::MergeKeys", s, [&](void* temp, std::size_t& bytes) {
      return cub::DeviceMerge::MergeKeys(temp, bytes, static_cast<const U*>(a), na, static_cast<const U*>(b), nb,
                                         static_cast<U*>(out), ::cuda::std::less<>{}, s.handle());
    });
  });
}

void merge_pairs(std::size_t key_bytes, const void* a, const std::int64_t* a_values, index_t na, const void* b,
                 const std::int64_t* b_values, index_t nb, void* out, std::int64_t* out_values, const stream& s) {
  const device_guard guard(s.device());
  if (na + nb == 0) {
    return;
  }
  with_key_type(key_bytes, "merge_pairs", [&](auto u) {
    using U = decltype(u);
    const auto first = thrust::make_zip_iterator(static_cast<const U*>(a), a_values);
    const auto second = thrust::make_zip_iterator(static_cast<const U*>(b), b_values);
    const auto result = thrust::make_zip_iterator(static_cast<U*>(out), out_values);
    run_cub("cub::DeviceMerge::MergeKeys", s, [&](void* temp, std::size_t& bytes) {
      return cub::DeviceMerge::MergeKeys(temp, bytes, first, na, second, nb, result, key_then_value{}, s.handle());
    });
  });
}

}  // namespace ndcuda::detail
