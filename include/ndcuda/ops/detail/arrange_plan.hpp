// The host half of joining, splitting and rearranging: result shapes, view layouts, pad/roll/tile/
// repeat index maps and NumPy's error texts. Builds on array/view_math.hpp; no device needed.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <array>
#include <cstdint>
#include <ndcuda/array/view_math.hpp>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/core/shape.hpp>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace ndcuda {

/// np.pad's pad modes (reflect and symmetric with NumPy's default reflect_type='even').
enum class pad_mode { constant, edge, reflect, symmetric, wrap };

/// NumPy's pad_width forms, broadcast to (ndim, 2): an int, {before, after} for every axis, or
/// {{before, after}, ...} (one pair for all axes, or one per axis).
class pad_width {
 public:
  pad_width(index_t both) : pairs_{{both, both}}, shape_{1, 1} {}  // NOLINT: implicit, as np.pad(a, 2)
  pad_width(std::initializer_list<index_t> before_after);          // {before, after}
  pad_width(std::initializer_list<std::pair<index_t, index_t>> per_axis)
      : pairs_(per_axis), shape_{static_cast<index_t>(per_axis.size()), 2} {}
  explicit pad_width(std::vector<std::pair<index_t, index_t>> per_axis)
      : pairs_(std::move(per_axis)), shape_{static_cast<index_t>(pairs_.size()), 2} {}

  /// (before, after) per axis of an `ndim`-d array; shape_error with NumPy's texts.
  [[nodiscard]] std::vector<std::pair<index_t, index_t>> resolve(int ndim) const;

 private:
  std::vector<std::pair<index_t, index_t>> pairs_;
  shape_t shape_;  // the NumPy shape the user's form had: (1, 1), (1, 2), (k, 2)
};

/// np.pad's constant_values, broadcast like pad_width: a scalar, {before, after}, or per-axis pairs.
class pad_values {
 public:
  pad_values(double both) : pairs_{{both, both}}, shape_{1, 1} {}  // NOLINT: implicit, as constant_values=3
  pad_values(std::initializer_list<double> before_after);
  pad_values(std::initializer_list<std::pair<double, double>> per_axis)
      : pairs_(per_axis), shape_{static_cast<index_t>(per_axis.size()), 2} {}

  [[nodiscard]] std::vector<std::pair<double, double>> resolve(int ndim) const;

 private:
  std::vector<std::pair<double, double>> pairs_;
  shape_t shape_;
};

}  // namespace ndcuda

namespace ndcuda::detail {

// ---- joining and splitting ---------------------------------------------------------------------

/// The shape of np.concatenate of arrays of `shapes` along `axis` (normalised into `*axis_out`).
/// shape_error with NumPy's texts: no arrays, 0-d arrays, different ndim, mismatched extents.
NDCUDA_INTERNAL [[nodiscard]] shape_t concatenate_shape(std::span<const shape_t> shapes, index_t axis, int* axis_out);

/// np.stack's check: every shape equal ("all input arrays must have the same shape"), at least one.
void check_stack_shapes(std::span<const shape_t> shapes);

/// [start, stop) of each piece of np.array_split(n elements, sections); `equal` is np.split's
/// rule (an unequal division throws "array split does not result in an equal division").
[[nodiscard]] std::vector<std::pair<index_t, index_t>> split_sections(index_t n, index_t sections, bool equal);
/// [start, stop) of each piece of np.split at `indices` (Python slice clamping: indices out of
/// order or beyond n give empty pieces, negative ones count from the end).
[[nodiscard]] std::vector<std::pair<index_t, index_t>> split_indices(index_t n, std::span<const index_t> indices);

// ---- views ----------------------------------------------------------------------------------------

/// `v` reversed along `axes` (all axes when empty): negative strides, no copy.
[[nodiscard]] view_layout flip_layout(const view_layout& v, std::span<const index_t> axes = {});
/// np.rot90(m, k, axes) as a view; shape_error with NumPy's texts ("Axes must be different.").
[[nodiscard]] view_layout rot90_layout(const view_layout& v, index_t k, index_t axis0, index_t axis1);
/// np.moveaxis(a, source, destination) as a view.
[[nodiscard]] view_layout moveaxis_layout(const view_layout& v, std::span<const index_t> source,
                                          std::span<const index_t> destination);
/// np.diagonal(a, offset, axis1, axis2) as a view (the diagonal is the last axis).
[[nodiscard]] view_layout diagonal_layout(const view_layout& v, index_t offset, index_t axis1, index_t axis2);
/// np.atleast_1d/2d/3d (n = 1, 2, 3): NumPy's placement of the new axes, a view.
[[nodiscard]] view_layout atleast_layout(const view_layout& v, int n);

// ---- pad, roll, tile, repeat: one gather kernel with a per-axis index map ----------------------

/// How output coordinate o along one axis finds its input coordinate (see remap_source).
enum class remap_mode : std::int64_t {
  identity = 0,   // o
  constant = 1,   // o - before, else the axis' constant value outside [0, n)
  edge = 2,       // clamp(o - before, 0, n - 1)
  reflect = 3,    // o - before reflected about the edges, period 2(n - 1)
  symmetric = 4,  // o - before reflected with the edges repeated, period 2n
  wrap = 5,       // (o - before) mod n (roll, tile, pad 'wrap')
  divide = 6,     // o / before (repeat by a scalar count)
  table = 7,      // table[o] (repeat by one count per element)
};

struct remap_axis {
  index_t out_extent = 0;
  index_t in_extent = 0;
  remap_mode mode = remap_mode::identity;
  index_t before = 0;  // pad width before / roll shift / repeat count, by mode
};

/// The input coordinate of output coordinate `o` along `axis`, or -1 where a constant goes. The
/// device kernel (src/ops/rearranging.cpp) computes the same; tested against NumPy on the CPU.
[[nodiscard]] index_t remap_source(index_t o, const remap_axis& axis, const index_t* table = nullptr);

/// The per-axis maps of np.pad(shape, widths, mode); shape_error for an empty axis padded by a
/// mode other than constant (NumPy: "can't extend empty axis 0 using modes other than ...").
[[nodiscard]] std::vector<remap_axis> pad_plan(std::span<const index_t> shape,
                                               std::span<const std::pair<index_t, index_t>> widths, pad_mode mode);

/// The net shift of each axis of np.roll(shape, shifts, axes) (shifts and axes broadcast together,
/// shifts on a repeated axis add up); `axes` empty: all axes of a 1-d array (the caller flattens).
[[nodiscard]] std::vector<remap_axis> roll_plan(std::span<const index_t> shape, std::span<const index_t> shifts,
                                                std::span<const index_t> axes);

/// np.tile: the input's shape with leading 1s (when reps is longer) and the per-axis maps.
struct tile_plan_t {
  shape_t in_shape;
  std::vector<remap_axis> axes;
};
[[nodiscard]] tile_plan_t tile_plan(std::span<const index_t> shape, std::span<const index_t> reps);

/// np.repeat along `axis` (normalised) by one count: the per-axis maps.
[[nodiscard]] std::vector<remap_axis> repeat_plan(std::span<const index_t> shape, int axis, index_t count);
/// np.repeat's count checks for one count per element: size (NumPy's broadcast text) and sign.
void check_repeat_counts(index_t extent, std::span<const index_t> counts);
/// The size half of check_repeat_counts, for counts still in device memory.
void check_repeat_count_size(index_t extent, index_t count_size);
/// The running sums of np.repeat's per-element counts (their last is the total): shape_error when
/// they overflow int64.
[[nodiscard]] std::vector<std::int64_t> repeat_ends(std::span<const index_t> counts);
/// shape_error unless the counts' approximate total (a sum in double) is below 2**62, so that their
/// exact int64 running sums cannot wrap.
void check_repeat_total(double approximate_total);

/// The output shape of a remap (each axis' out_extent).
[[nodiscard]] shape_t remap_shape(std::span<const remap_axis> axes);

}  // namespace ndcuda::detail

#pragma GCC visibility pop
