// The host half of NumPy's advanced indexing: from the source layout and the index (basic items,
// integer arrays and masks by their shapes) to the result shape and the gather's description.
// Builds on array/view_math.hpp; pure host code, tested against NumPy in CI (no device needed).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <ndcuda/array/view_math.hpp>
#include <ndcuda/core/detail/internal.hpp>
#include <span>
#include <string>
#include <vector>

namespace ndcuda::detail {

/// One entry of an index as the planner sees it: a basic item, or an index array by its shape.
struct index_entry {
  enum class kind : std::uint8_t { basic, integer_array, bool_array };
  kind k = kind::basic;
  index_item item = index_t{0};  // kind::basic
  shape_t shape;                 // an array's shape
  index_t count = 0;             // bool_array: how many elements are true (the length of nonzero's arrays)
};

/// One integer array of the gather: an integer-array entry, or one of nonzero's arrays of a mask.
struct advanced_source {
  int entry = 0;       // the index entry it comes from
  int part = 0;        // a mask's axis (which of nonzero's arrays); 0 for an integer array
  int axis = 0;        // the source axis it indexes
  index_t extent = 0;  // that axis's size (negative indices add it once)
  index_t stride = 0;  // that axis's stride in the source, in elements
  bool mask = false;   // one of a mask's nonzero arrays (always in range)
};

/// How to gather: element `r` of the result (coordinates c over `shape`) reads the source at
///   offset + sum_d c[d] * strides[d] + sum_k wrap(array_k[c restricted to the advanced dims]) * stride_k
/// where array_k broadcasts to `advanced_shape`, which occupies result dims [advanced_first,
/// advanced_first + advanced_shape.size()).
struct index_plan {
  shape_t shape;
  index_t offset = 0;
  strides_t strides;
  int advanced_first = 0;
  shape_t advanced_shape;
  std::vector<advanced_source> arrays;
  bool advanced = false;  // any array in the index (else a basic view: strides/offset say it all)
};

/// NumPy's rules (mapping.c): masks over k axes count as k advanced dimensions (nonzero's
/// arrays); integers join the advanced indices when there is any array; the advanced dimensions
/// replace the first advanced index when all advanced indices are adjacent, else they go first.
/// Throws index_error with NumPy's texts (too many indices, mask shape mismatch, broadcast
/// failure, an integer out of bounds, two ellipses).
[[nodiscard]] index_plan plan_index(const view_layout& source, std::span<const index_entry> index);

/// A shape as NumPy spells it in indexing messages: (3,1), (2,), () (format_shape adds spaces).
[[nodiscard]] std::string index_shape_text(std::span<const index_t> shape);

/// The strides (in elements) of an index array of `layout` broadcast to the plan's advanced shape
/// and placed among the result's dims: zero on every other dim. Throws index_error when it does not
/// broadcast (cannot happen for arrays the plan was made from).
NDCUDA_INTERNAL [[nodiscard]] strides_t index_array_strides(const index_plan& plan, const view_layout& layout);

}  // namespace ndcuda::detail

#pragma GCC visibility pop
