// The complex half of the sort family (src/ops/sort_complex.cu): NumPy's complex order as keys
// (sort_codec.hpp's complex_sort_key), sorted with the radix sorts of sort_radix.cu/sort_segmented.cu.
#pragma once

#include <cstdint>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/device/stream.hpp>

namespace ndcuda::detail {

// `wide`: complex128 (two 8-byte parts) rather than complex64 (two 4-byte parts). All buffers are
// contiguous device memory; n counts complex elements.

/// idx[i] = the position (0..n) of the element that goes to place i when each run of `segment`
/// elements of `in` is sorted stably in NumPy's order.
void complex_sort_indices(bool wide, const void* in, std::int64_t* idx, index_t n, index_t segment, const stream& s);
/// sorted[i] = in[idx[i]] (when sorted is not null); positions[i] = idx[i] % segment (when not null).
void complex_gather_sorted(bool wide, const void* in, const std::int64_t* idx, void* sorted, std::int64_t* positions,
                           index_t n, index_t segment, const stream& s);
/// The distinct elements of `sorted` (sorted in NumPy's order, n >= 1) into `out` (room for n);
/// returns how many, after waiting for `s`.
index_t complex_unique_sorted(bool wide, const void* sorted, void* out, index_t n, const stream& s);
/// out[i] = np.searchsorted(sorted (m elements), values[i], side) in NumPy's complex order.
void complex_search(bool wide, const void* sorted, index_t m, const void* values, std::int64_t* out, index_t n,
                    bool right, const stream& s);

}  // namespace ndcuda::detail
