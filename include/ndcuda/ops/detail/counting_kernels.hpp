// The type-erased device halves of counting, binning, top-k and unique (src/ops/counting.cpp,
// topk.cpp, unique_all.cpp): NVRTC raw kernels on contiguous buffers. Builds on core/ and device/.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <cstdint>
#include <memory>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/expr/leaf_ref.hpp>

namespace ndcuda::detail {

/// counts[b] += how many of the n contiguous integers idx (dtype idx_type) equal b, for b in
/// [0, nbins); other values (negative, too large) are ignored. With `weights` (n contiguous
/// elements of weight_type, float32 or float64) the weights are summed in float64 instead, into
/// `sums`. The output (int64 counts or double sums) must be zeroed before. Shared-memory
/// per-block counters when nbins is small, global atomics otherwise.
void bincount_into(dtype idx_type, const void* idx, index_t n, dtype weight_type, const void* weights, index_t nbins,
                   std::int64_t* counts, double* sums, const stream& s);

/// out[i] = b with edges[b] <= x[i] < edges[b + 1] (the last bin closed: x == edges[nedges - 1]
/// counts in bin nedges - 2), or -1 outside the edges and for NaN. `edges` are nedges >= 2
/// ascending doubles; x (n contiguous elements of x_type, a real dtype but float16/bfloat16) is
/// compared as double, as NumPy compares integers with float64 edges.
void bin_index_into(dtype x_type, const void* x, index_t n, const double* edges, index_t nedges, std::int64_t* out,
                    const stream& s);

/// counts[b] += how many of x's n elements fall in bin b of `edges`, binned as bin_index_into bins
/// them (elements outside the edges and NaN are not counted). counts (nedges - 1 int64) must be
/// zeroed before. histogram's counts without the per-element bin array of bin_index_into.
void bin_count_into(dtype x_type, const void* x, index_t n, const double* edges, index_t nedges, std::int64_t* counts,
                    const stream& s);

/// out = np.linspace(lo, hi, n) in float64, bit for bit as NumPy computes it (i * step + lo
/// without a fused multiply-add; the last element exactly hi).
void linspace_edges(double* out, double lo, double hi, index_t n, const stream& s);

/// Compiles every counting kernel for `cc` without a device (CI checks the sources with NVRTC).
NDCUDA_INTERNAL void compile_counting_kernels(compute_capability cc);

/// out[i] = in[idx[i]] for n elements of `itemsize` bytes (1, 2, 4, 8 or a multiple).
void gather_elements(const void* in, void* out, const std::int64_t* idx, index_t n, std::size_t itemsize,
                     const stream& s);

/// What unique_all_into makes: `count` distinct elements (first in sorted order) and, when asked,
/// their first indices, every element's group (n of them) and the group sizes. New buffers on the
/// stream, each kept alive by its owner.
struct unique_parts {
  index_t count = 0;
  void* values = nullptr;
  std::int64_t* index = nullptr;
  std::int64_t* inverse = nullptr;
  std::int64_t* counts = nullptr;
  std::shared_ptr<const void> values_owner, index_owner, inverse_owner, counts_owner;
};

/// np.unique(x flattened, return_index, return_inverse, return_counts, equal_nan): WAITS for `s`
/// to learn the count, and refuses (capture_error) while `s` is capturing.
unique_parts unique_all_into(const leaf_ref& x, bool equal_nan, bool want_index, bool want_inverse, bool want_counts,
                             const stream& s);

/// The first k distinct elements of x (sorted, NaNs equal) into `values` (k elements, already
/// filled with the fill value where fewer exist): no host wait, so it can be captured.
void unique_sized_into(const leaf_ref& x, index_t k, void* values, const stream& s);

NDCUDA_INTERNAL void compile_unique_kernels(compute_capability cc);

}  // namespace ndcuda::detail

#pragma GCC visibility pop
