// The type-erased device half of topk (src/ops/topk.cpp): a radix select for one long row, a
// segmented sort for many rows. Builds on expr/leaf_ref.hpp and device/.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/expr/leaf_ref.hpp>

namespace ndcuda::detail {

/// The k largest (or smallest) elements of each row of x (rows along its LAST axis), sorted
/// (largest first, or smallest first), into the C-contiguous (rows..., k) `values` (x's dtype)
/// and `indices` (positions within the row). NaN orders above +inf, as in NumPy's sort. Ties:
/// any of the tied elements may be chosen.
void topk_into(const leaf_ref& x, index_t k, bool largest, void* values, std::int64_t* indices, const stream& s);

/// Compiles the topk kernels for `cc` without a device.
NDCUDA_INTERNAL void compile_topk_kernels(compute_capability cc);

}  // namespace ndcuda::detail

#pragma GCC visibility pop
