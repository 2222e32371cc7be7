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
/// Contiguous variants: vector widths 1, 2, 4, 8, 16 by index width; then strided ndim 1..32
/// (ndim 2 runs as a 2-d grid of rows and columns, no div/mod per element); then 2-d tiled; then
/// the 2-d grid with vectors along the rows, widths 2, 4, 8, 16 by index width; then contiguous
/// with a tail (sizes not a multiple of the vector), widths 2, 4, 8, 16 by index width.
inline constexpr int elementwise_variant_count = 28 + 2 * elementwise_max_ndim;
/// Threads per block of the vectorised 2-d variant (its kernels' launch bound).
inline constexpr int row_vector_block = 256;
/// The tiled variant's tile edge and its block (tile_edge x tile_block_rows threads, each thread
/// covering tile_edge / tile_block_rows rows). The generator passes both to kernels/elementwise.cuh's
/// templates, so this is their only definition.
inline constexpr int tile_edge = 32;
inline constexpr int tile_block_rows = 8;
/// The 2-d variant runs rows narrower than this as one flat loop over a 1-d grid (a block per
/// row would leave most of a warp idle); passed to elementwise_2d<NARROW> the same way.
inline constexpr index_t narrow_columns = 32;
/// A transposed input is staged only when both iteration extents reach this: a tile mostly
/// outside a thin iteration leaves most of its threads idle.
inline constexpr index_t tile_min_extent = 16;
/// Dynamic shared memory the tiles may take without opting in to more (per block).
inline constexpr std::size_t tile_max_bytes = std::size_t{48} * 1024;

/// Shared memory of one staged input's tile: tile_edge x (tile_edge + 1) elements (the pad column
/// keeps the transposed reads free of bank conflicts), rounded to 16 bytes so the next is aligned.
[[nodiscard]] constexpr std::size_t tile_bytes(std::size_t itemsize) {
  return (static_cast<std::size_t>(tile_edge * (tile_edge + 1)) * itemsize + 15) / 16 * 16;
}

struct elementwise_plan {
  bool contiguous = true;
  bool index64 = false;
  /// Elements per aligned vector access. Contiguous: along the whole array; 2-d (not tiled), when
  /// above 1: along each row (the vectorised 2-d variant, its row starts all aligned).
  int vector = 1;
  /// Contiguous with vectors: the size is not a multiple of `vector`, so the kernel carries a
  /// scalar loop over the last elements; without it NVRTC compiles ~10% less (docs/jit.md).
  bool tail = false;
  index_t size = 0;
  shape_t shape;                   ///< strided: collapsed iteration shape, outermost first
  std::vector<strides_t> strides;  ///< strided: per operand (output first), collapsed
  /// 2-d only: inputs (bit i = input i) read through a shared-memory tile, because they are
  /// transposed relative to the output; nonzero selects the tiled variant.
  std::uint32_t staged = 0;
  std::size_t shared_bytes = 0;  ///< the staged inputs' tiles together

  [[nodiscard]] bool tiled() const { return staged != 0; }
  [[nodiscard]] bool row_vectors() const { return !contiguous && !tiled() && shape.size() == 2 && vector > 1; }

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
