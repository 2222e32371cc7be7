// sort/argsort of many rows in one call: cub::DeviceSegmentedSort (stable), whose small, medium
// and large segment paths suit both many short rows and few long ones. Row offsets are computed
// on the fly (row r starts at r * segment), so nothing is stored per row.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_segmented_sort.cuh>

#include "cub_call.cuh"

namespace ndcuda::detail {
namespace {

struct row_start {
  long long segment;
  __host__ __device__ long long operator()(long long row) const { return row * segment; }
};

auto row_offsets(index_t segment) {
  return thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0), row_start{segment});
}

}  // namespace

void segmented_sort_keys(std::size_t key_bytes, const void* in, void* out, index_t n, index_t segment,
                         const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  const index_t rows = n / segment;
  const auto begins = row_offsets(segment);
  const auto ends = begins + 1;
  with_key_type(key_bytes, "segmented_sort_keys", [&](auto u) {
    using U = decltype(u);
    const U* d_in = static_cast<const U*>(in);
    U* d_out = static_cast<U*>(out);
    run_cub("cub::DeviceSegmentedSort::StableSortKeys", s, [&](void* temp, std::size_t& bytes) {
      return cub::DeviceSegmentedSort::StableSortKeys(temp, bytes, d_in, d_out, n, rows, begins, ends, s.handle());
    });
  });
}

void segmented_sort_pairs(std::size_t key_bytes, const void* keys_in, void* keys_out, const std::int64_t* values_in,
                          std::int64_t* values_out, index_t n, index_t segment, const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  const index_t rows = n / segment;
  const auto begins = row_offsets(segment);
  const auto ends = begins + 1;
  with_key_type(key_bytes, "segmented_sort_pairs", [&](auto u) {
    using U = decltype(u);
    const U* k_in = static_cast<const U*>(keys_in);
    U* k_out = static_cast<U*>(keys_out);
    const auto* v_in = reinterpret_cast<const long long*>(values_in);
    auto* v_out = reinterpret_cast<long long*>(values_out);
    run_cub("cub::DeviceSegmentedSort::StableSortPairs", s, [&](void* temp, std::size_t& bytes) {
      return cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, k_in, k_out, v_in, v_out, n, rows, begins, ends,
                                                       s.handle());
    });
  });
}

}  // namespace ndcuda::detail
