// The device half of sums that give the same bits however the array is cut (nd::sum(x,
// nd::deterministic), dist::sum(x, nd::deterministic)): fixed blocks of the global array summed in
// a fixed order, then their sums added in a fixed tree. src/ops/deterministic_sum.cpp, kernels
// in kernels/deterministic_sum.cuh. Builds on core/ and device/.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/stream.hpp>

namespace ndcuda::detail {

/// Global elements per fixed block. Part of the result's definition: changing it changes bits.
inline constexpr index_t deterministic_block = index_t{1} << 14;

/// How many fixed blocks n elements make.
[[nodiscard]] constexpr index_t deterministic_blocks(index_t n) noexcept {
  return (n + deterministic_block - 1) / deterministic_block;
}

/// out[k] = the fixed-order sum, in double, of x[k * deterministic_block, ...) for every block k of
/// the n contiguous elements of x (dtype t: float32 or float64). x must begin at a block boundary
/// of the global array; its last block may be short only if it is the global array's last.
void deterministic_block_sums(dtype t, const void* x, index_t n, double* out, const stream& s);

/// *out (one element of dtype t) = the fixed-tree sum of `count` block sums divided by `divisor`,
/// rounded once to t.
void deterministic_total(const double* partials, index_t count, double divisor, dtype t, void* out, const stream& s);

/// Compiles the kernels for `cc` without a device (CI checks the source with NVRTC).
NDCUDA_INTERNAL void compile_deterministic_kernels(compute_capability cc);

}  // namespace ndcuda::detail

#pragma GCC visibility pop
