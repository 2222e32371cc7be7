// The compiled half of advanced indexing, type-erased: gathers, scatters, accumulations driven by
// an index_plan, and the CUB compactions behind masks and nonzero. Builds on ops/detail/index_plan.hpp
// and array/erased_array.hpp; ops/indexing.hpp and ops/indexing_functions.hpp sit on top.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <cstdint>
#include <ndcuda/array/erased_array.hpp>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/ops/detail/compaction.hpp>
#include <ndcuda/ops/detail/index_plan.hpp>
#include <ndcuda/ops/take_mode.hpp>
#include <optional>
#include <span>
#include <vector>

namespace ndcuda::detail {

enum class accumulate_op : std::uint8_t { add, subtract, multiply, maximum, minimum };

/// out (C-contiguous, plan.shape, of src's dtype) = src's elements at the plan's positions;
/// arrays[k] (int32 or int64, any strides) is the array of plan.arrays[k]. An index out of range
/// throws index_error with NumPy's text (the stream is waited for); while capturing it is not
/// checked: out-of-range elements read as zero (docs/indexing.md). `wrap` and `clip` (np.take's
/// modes) map every index into range instead, so nothing is checked and nothing waits.
void gather_into(const erased_array& src, const index_plan& plan, std::span<const erased_array> arrays, void* out,
                 const stream& s, take_mode mode = take_mode::raise);
/// dst's elements at the plan's positions = values (C-contiguous, plan.shape, dst's dtype). With
/// `unique` false, repeated positions keep the last value in index order (NumPy's `=`), through a
/// stable sort of the positions; `unique` (nonzero's arrays) skips the sort. Every index is checked
/// before anything is written (NumPy's order): an index out of range throws index_error and dst is
/// unchanged (one wait). While capturing nothing is checked: out-of-range elements are skipped.
void scatter_into(const erased_array& dst, const index_plan& plan, std::span<const erased_array> arrays,
                  const void* values, bool unique, const stream& s);
/// dst[position] = dst[position] op values[i] for every i, repeated positions each applied (np.add.at).
/// Indices are checked first, as in scatter_into.
void accumulate_into(accumulate_op op, const erased_array& dst, const index_plan& plan,
                     std::span<const erased_array> arrays, const void* values, const stream& s);

/// One argument of an advanced index: a basic item, or an integer array (int32/int64, any
/// strides) or a bool mask (any strides) in `array`.
struct index_arg {
  index_entry entry;
  erased_array array;
};

/// An index ready for the kernels: masks replaced by nonzero's arrays (which waits for their
/// counts: capture_error naming nd::size while capturing), the plan made.
struct resolved_index {
  index_plan plan;
  std::vector<erased_array> arrays;  // plan.arrays' arrays
  bool unique = false;               // no integer arrays: no position repeats (no sort to scatter)
};
[[nodiscard]] resolved_index resolve_index(const erased_array& src, std::span<const index_arg> args, const stream& s);

/// nonzero's arrays of a (any dtype, any strides): k = a.ndim() int64 arrays of the count (or of
/// `size`, padded with `fill`), or with `as_rows` one (count, k) array (argwhere).
[[nodiscard]] std::vector<erased_array> nonzero_arrays(const erased_array& a, std::optional<index_t> size,
                                                       std::int64_t fill, bool as_rows, const stream& s,
                                                       const char* what);

/// a(mask) for a mask over a's leading axes: (count or size, rest of a's shape), C-contiguous;
/// rows past the count are `fill` (itemsize bytes) when `size` is given.
[[nodiscard]] erased_array extract_rows(const erased_array& a, const erased_array& mask, std::optional<index_t> size,
                                        const void* fill, const stream& s, const char* what);

/// A C-contiguous copy of `a` as `to` (a itself when it is already that).
NDCUDA_INTERNAL [[nodiscard]] erased_array contiguous_as(const erased_array& a, dtype to, const stream& s);

/// Compiles the gather/scatter/accumulate kernels of a few shapes for `cc` (NVRTC only, for CI).
NDCUDA_INTERNAL void compile_indexing_kernels(compute_capability cc);

}  // namespace ndcuda::detail

#pragma GCC visibility pop
