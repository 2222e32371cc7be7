// Host planning shared by the scan and sort ops: an operand seen with one axis innermost, and the
// contiguous copy CUB needs when the operand is not laid out that way already.
#pragma once

#include <memory>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/expr/leaf_ref.hpp>
#include <optional>

namespace ndcuda::detail {

/// Shape and strides with one axis moved to the end (the others keep their order).
struct axis_last {
  shape_t shape;
  strides_t strides;
};

/// `shape`/`strides` with `axis` moved last; no axis: unchanged (C order of the whole array).
[[nodiscard]] axis_last move_axis_last(std::span<const index_t> shape, std::span<const index_t> strides,
                                       std::optional<int> axis);

/// Elements in the C order of a moved layout: the operand's own memory when it already is laid out
/// so, else a copy made on the stream (which `owner` keeps alive, and which may be overwritten).
struct dense_elements {
  const void* data = nullptr;
  std::shared_ptr<const void> owner;
  [[nodiscard]] void* writable() const { return owner ? const_cast<void*>(data) : nullptr; }
};

/// The elements of `x` (dtype `as` after conversion) in the C order of `moved`, on `s`.
[[nodiscard]] dense_elements dense_copy(const leaf_ref& x, const axis_last& moved, dtype as, const stream& s);

/// A new buffer of `bytes` bytes on `s`.
[[nodiscard]] dense_elements scratch(std::size_t bytes, const stream& s);

/// Refuses a stream of another device than the array's (CUDA would fail, or worse, use the wrong
/// device's memory); `what` names the operation.
void check_same_device(const leaf_ref& x, const stream& s, const char* what);

}  // namespace ndcuda::detail
