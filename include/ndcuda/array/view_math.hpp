/// @file
/// View arithmetic on (shape, strides, offset): NumPy's basic indexing, reshape without copy,
/// transpose, squeeze, expand_dims. Builds on core/shape.hpp; pure host functions, no device needed.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ndcuda/core/shape.hpp>
#include <optional>
#include <span>
#include <variant>
#include <vector>

namespace ndcuda {

/// Python's slice(start, stop, step): nullopt (or nd::none) is an omitted bound; negative bounds
/// count from the end; bounds are clamped as Python does. step 0 is a shape_error.
struct slice {
  std::optional<index_t> start;  ///< The first index; nullopt: the start in the step's direction.
  std::optional<index_t> stop;   ///< One past the last index; nullopt: the end in the step's direction.
  index_t step = 1;              ///< The distance between indices; negative walks backwards, 0 is refused.

  constexpr slice() = default;
  /// NumPy's start:stop:step; nd::none for an omitted bound.
  constexpr slice(std::optional<index_t> start_, std::optional<index_t> stop_, index_t step_ = 1)
      : start(start_), stop(stop_), step(step_) {}
};

/// An omitted slice bound: nd::slice(nd::none, nd::none, -1) is NumPy's ::-1.
inline constexpr std::nullopt_t none = std::nullopt;

/// The type of nd::all (NumPy's `:`), which is also callable as NumPy's all() reduction.
struct all_t {
  /// nd::all(x, ...) is NumPy's all() reduction, defined in ops/reductions.hpp (a higher layer).
  template <class X, class... A>
  auto operator()(const X& x, const A&... a) const;
  /// nd::all(x, {axes...}, ...): the all() reduction over the given axes (ops/reductions.hpp).
  template <class X, class... A>
  auto operator()(const X& x, std::initializer_list<int> axes, const A&... a) const;
};
struct newaxis_t {};
struct ellipsis_t {};
/// NumPy's `:` (a whole axis), `np.newaxis` (a new axis of extent 1) and `...`.
inline constexpr all_t all{};
/// NumPy's np.newaxis: inserts an axis of extent 1.
inline constexpr newaxis_t newaxis{};
/// NumPy's `...`: as many `:` as the other indices leave axes.
inline constexpr ellipsis_t ellipsis{};

/// One entry of a basic index: an integer (removes its axis), a slice, all, newaxis or ellipsis.
using index_item = std::variant<index_t, slice, all_t, newaxis_t, ellipsis_t>;

/// Where a view's elements are, relative to its buffer's base pointer, in elements.
struct view_layout {
  shape_t shape;       ///< The extent of each axis.
  strides_t strides;   ///< The step of each axis, in elements.
  index_t offset = 0;  ///< Where the first element is, in elements from the base pointer.
  friend bool operator==(const view_layout&, const view_layout&) = default;
};

/// The layout of a C-contiguous array of `shape` at offset 0.
[[nodiscard]] view_layout contiguous_layout(shape_t shape);

/// NumPy's basic indexing a[i, 1:5:2, :, None, ...] applied to `v`. Errors (shape_error) carry
/// NumPy's IndexError texts ("index 5 is out of bounds for axis 0 with size 5").
[[nodiscard]] view_layout apply_index(const view_layout& v, std::span<const index_item> index);

/// The extents of `requested` with a -1 replaced by what makes the sizes match. Throws shape_error
/// with NumPy's texts ("cannot reshape array of size 6 into shape (4,)").
[[nodiscard]] shape_t resolve_reshape(index_t size, std::span<const index_t> requested);

/// Strides that let `v` be seen as `new_shape` without copying (NumPy's _attempt_nocopy_reshape,
/// C order), or nullopt when the data must be copied. `new_shape` is already resolved.
[[nodiscard]] std::optional<strides_t> reshape_strides(const view_layout& v, std::span<const index_t> new_shape);

/// Axes permuted: result axis i is `v`'s axis axes[i] (negative axes allowed). Empty `axes`
/// reverses them. Throws shape_error with NumPy's texts on a wrong count or a repeat.
[[nodiscard]] view_layout transpose_layout(const view_layout& v, std::span<const index_t> axes = {});

/// Axes a and b exchanged.
[[nodiscard]] view_layout swapaxes_layout(const view_layout& v, index_t a, index_t b);

/// Every extent-1 axis removed (no `axes`), or just the given ones, which must have extent 1.
[[nodiscard]] view_layout squeeze_layout(const view_layout& v, std::span<const index_t> axes = {});

/// A new extent-1 axis at each position of `axes`, numbered in the result (as np.expand_dims).
[[nodiscard]] view_layout expand_dims_layout(const view_layout& v, std::span<const index_t> axes);

/// `v` seen as `target` by NumPy's broadcasting (zero strides on new or stretched axes).
[[nodiscard]] view_layout broadcast_layout(const view_layout& v, std::span<const index_t> target);

/// Whether writing `out` (its first element at byte address `out_data`, `out_itemsize` bytes
/// each) may change what reading `in` returns in an elementwise pass that broadcasts `in` to
/// out's shape. False when their byte ranges are disjoint, or when `in` sees every element at
/// exactly the position that writes it (same address, itemsize and strides): then each thread
/// reads its element before writing it. True otherwise (conservative: interleaved strided views
/// that never share an element still count), so the caller evaluates into a temporary.
[[nodiscard]] bool needs_temporary(std::uintptr_t out_data, std::size_t out_itemsize,
                                   std::span<const index_t> out_shape, std::span<const index_t> out_strides,
                                   std::uintptr_t in_data, std::size_t in_itemsize, std::span<const index_t> in_shape,
                                   std::span<const index_t> in_strides);

}  // namespace ndcuda

#pragma GCC visibility pop
