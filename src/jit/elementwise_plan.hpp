// Internal: how an elementwise launch runs: dimensions collapsed where every operand is
// contiguous across them, and the variant that follows (contiguous with aligned vectors, or
// strided of some ndim; 32- or 64-bit indexing). Pure host logic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ndcuda/core/shape.hpp>
#include <span>
#include <vector>

namespace ndcuda::jit::detail {

/// The most dimensions a strided variant takes after collapsing (more is refused, since the
/// indexer's parameters would outgrow what a launch can pass).
inline constexpr int elementwise_max_ndim = 32;
/// Largest element count and offset that 32-bit indexing handles: half of INT32_MAX's range, so
/// a grid-stride index plus one full stride (<= 2^29 threads) never overflows.
inline constexpr index_t index32_limit = index_t{1} << 30;
/// Contiguous variants: vector widths 1, 2, 4, 8, 16 by index width; then strided ndim 1..32.
inline constexpr int elementwise_variant_count = 10 + 2 * elementwise_max_ndim;

struct elementwise_plan {
  bool contiguous = true;
  bool index64 = false;
  int vector = 1;  ///< contiguous: elements per aligned vector access
  index_t size = 0;
  shape_t shape;                   ///< strided: collapsed iteration shape, outermost first
  std::vector<strides_t> strides;  ///< strided: per operand (output first), collapsed

  [[nodiscard]] int ndim() const { return contiguous ? 1 : static_cast<int>(shape.size()); }
  /// Dense id in [0, elementwise_variant_count): one compiled kernel per id.
  [[nodiscard]] int variant() const;
};

/// For `n` dense elements at `addresses` (output first) of `itemsizes` bytes each.
[[nodiscard]] elementwise_plan plan_contiguous(index_t n, std::span<const std::uintptr_t> addresses,
                                               std::span<const std::size_t> itemsizes);

/// For an iteration `shape` over operands with `strides` (elements, already broadcast to `shape`,
/// output first). Collapses, orders dimensions by the output's strides, and falls back to the
/// contiguous plan when everything is dense. Throws shape_error when more than
/// elementwise_max_ndim dimensions remain.
[[nodiscard]] elementwise_plan plan_strided(std::span<const index_t> shape, std::span<const strides_t> strides,
                                            std::span<const std::uintptr_t> addresses,
                                            std::span<const std::size_t> itemsizes);

}  // namespace ndcuda::jit::detail
