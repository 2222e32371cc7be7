// leaf_ref: an array operand as the type-erased launch paths see it (elementwise, reductions,
// scans, sorts), and leaf_of, its one conversion from ndarray. Builds on array/ndarray.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <memory>
#include <ndcuda/array/ndarray.hpp>
#include <ndcuda/array/view_math.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/device/stream.hpp>
#include <span>

namespace ndcuda::detail {

/// One array operand of a launch. `owner` (the array's buffer owner, may be null) is what a graph
/// being captured holds so that the memory outlives it. Borrows everything: it lives no longer
/// than the array (or leaf) it was made from.
struct leaf_ref {
  const void* data = nullptr;
  const view_layout* layout = nullptr;
  dtype type = dtype::float32;
  const stream* s = nullptr;
  int device = 0;
  const std::shared_ptr<const void>* owner = nullptr;
  /// Set for a computed input (a random draw, random/): the CUDA type of its kernel parameter;
  /// `data` then points at that parameter's bytes on the host, `layout` is C-contiguous over the
  /// draw's shape (so the engine's offsets are the flat indices) and `type` the drawn dtype.
  const char* source = nullptr;
};

/// Bytes of a computed input's parameter block (leaf_ref::source): as jit's source_param_bytes.
inline constexpr std::size_t source_param_size = 24;

/// The operand `a` (its memory, layout, dtype, stream, device and owner).
template <class E>
[[nodiscard]] leaf_ref leaf_of(const ndarray<E>& a) {
  return leaf_ref{a.data(), &a.layout(), dtype_of<E>, &a.stream(), a.device(), &a.owner_ref()};
}

/// Makes the graph being captured on `s` (if any, opened by nd::capture) hold the buffers of
/// `leaves`: the one call every launch path over leaf_refs makes (the engine's, and the routines'
/// that launch their own kernels or CUB calls on leaf_refs).
void retain_for_capture(const stream& s, std::span<const leaf_ref> leaves);

}  // namespace ndcuda::detail

#pragma GCC visibility pop
