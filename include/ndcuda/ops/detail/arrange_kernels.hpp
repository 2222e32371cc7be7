// The device half of joining and rearranging, type-erased (src/ops/rearranging.cpp, joining.cpp):
// one gather kernel with a per-axis index map, and concatenation by copies. Builds on
// array/erased_array.hpp and ops/detail/arrange_plan.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <array>
#include <cstddef>
#include <cstdint>
#include <ndcuda/array/erased_array.hpp>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/ops/detail/arrange_plan.hpp>
#include <optional>
#include <span>
#include <vector>

namespace ndcuda::detail {

/// The most axes the gather kernel takes (its parameters hold a fixed array of them).
inline constexpr int remap_max_dims = 32;

/// One gather: out (C-contiguous, of remap_shape(axes)) at coordinates o is in at
/// (remap_source(o_d, axes[d]))_d, or the constant of the last axis whose map is out of range
/// (NumPy's pad fills axis after axis, so the later axis wins at corners).
struct remap_request {
  std::vector<remap_axis> axes;
  std::vector<std::array<unsigned char, 16>> before_values{};  // per axis, an element's bytes; may be empty
  std::vector<std::array<unsigned char, 16>> after_values{};
  const std::int64_t* table = nullptr;  // device memory, for remap_mode::table
  int triangle = 0;                     // 1: keep j - i <= k (tril), 2: keep j - i >= k (triu), else 0
  index_t k = 0;
};

/// Runs `r` from `in` (its layout has one axis per map) into `out` on `s`. shape_error beyond
/// remap_max_dims axes.
void remap_copy(const erased_array& in, void* out, const remap_request& r, const stream& s);

/// np.concatenate of `pieces` along `axis` into a new array of `out_type` on `s`: one
/// cudaMemcpy(2D)Async per contiguous piece of the result's dtype, one strided copy otherwise.
/// No axis (NumPy's axis=None): every piece flattened in C order first (0-d ones too).
[[nodiscard]] erased_array concatenate_erased(std::span<const erased_array> pieces, std::optional<index_t> axis,
                                              dtype out_type, const stream& s);

/// np.repeat's table on the device: table[o] = j for o in [ends[j - 1], ends[j]), where `ends`
/// (n values) are the running sums of the counts.
void repeat_table_device(const std::int64_t* ends, index_t n, std::int64_t* table, const stream& s);

/// Compiles the gather kernels (every element size) for `cc` without a device, for CI.
NDCUDA_INTERNAL void compile_arrange_kernels(compute_capability cc);

}  // namespace ndcuda::detail

#pragma GCC visibility pop
