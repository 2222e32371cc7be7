// Internal: how a reduction runs. Dimensions split into kept and reduced ones, reordered and
// collapsed, and the kernel strategy chosen (a group of threads per output row, or a thread per
// output column), 32- or 64-bit. Pure host logic; the axes are ops/'s (src/expr/reduction_axes.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <ndcuda/core/shape.hpp>
#include <span>
#include <string>
#include <vector>

namespace ndcuda::jit::detail {

/// Largest extent or offset that 32-bit indexing handles, with room for one grid stride on top.
inline constexpr index_t reduce_index32_limit = index_t{1} << 30;
/// Threads of a block-per-row group and of the column kernel.
inline constexpr int reduce_block = 256;
/// Rows up to this long take a warp each instead of a block.
inline constexpr index_t reduce_warp_row_limit = 1024;
/// The column strategy needs at least this many adjacent outputs along its innermost dimension
/// (fewer would leave most of each warp idle).
inline constexpr index_t reduce_min_columns = 32;
/// Reduced extents up to which a reduction with many outputs takes a thread per output.
inline constexpr index_t reduce_short_row_limit = 16;

enum class reduce_strategy : std::uint8_t {
  rows,     ///< a warp or block per output, threads along the reduced elements
  columns,  ///< a thread per output, consecutive threads on consecutive outputs (coalesced)
};

struct reduction_plan {
  reduce_strategy strategy = reduce_strategy::rows;
  bool index64 = false;
  /// Rows: elements per aligned vector load along each row (1: scalar loads).
  int vector = 1;
  /// Rows: threads per output row (32: a warp, reduce_block: a block).
  int group = reduce_block;
  /// Rows with vectors: the reduced length is not a multiple of `vector`, so the kernel carries a
  /// loop for each row's last elements; without it NVRTC compiles ~7% less (docs/jit.md).
  bool tail = false;
  index_t outputs = 0;  ///< result elements
  index_t reduced = 0;  ///< elements folded into each
  /// Kept dimensions, collapsed, outermost first (at least one); strides per operand, the
  /// output's first then each input's.
  shape_t out_shape;
  std::vector<strides_t> out_strides;
  /// Reduced dimensions, collapsed, outermost first (at least one); strides per input.
  shape_t red_shape;
  std::vector<strides_t> red_strides;

  [[nodiscard]] int out_ndim() const { return static_cast<int>(out_shape.size()); }
  [[nodiscard]] int red_ndim() const { return static_cast<int>(red_shape.size()); }
  /// "r2x1_b256_v4_i32": what identifies the compiled variant.
  [[nodiscard]] std::string variant_name() const;
};

/// Plans a reduction over `shape` (the inputs' broadcast shape). `out_strides` are the result's
/// strides in elements over every dimension of `shape` (0 for reduced ones); `in_strides` each
/// input's, broadcast to `shape`; `addresses` and `itemsizes` the inputs' (vector alignment).
/// `keep_order`: the reduced dimensions stay in logical C order (argmin/argmax report positions).
[[nodiscard]] reduction_plan plan_reduction(std::span<const index_t> shape, const std::vector<bool>& reduced,
                                            std::span<const index_t> out_strides, std::span<const strides_t> in_strides,
                                            std::span<const std::uintptr_t> addresses,
                                            std::span<const std::size_t> itemsizes, bool keep_order);

}  // namespace ndcuda::jit::detail
