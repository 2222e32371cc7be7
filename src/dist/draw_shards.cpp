// Where each rank's part of a random draw lies in the global draw (its window, first flat index
// and global strides), and the draw's offset cell copied to a rank on another device.
// Builds on dist/draw_operand.hpp and the peer copy of dist/movement.hpp.
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/dist/draw_operand.hpp>
#include <ndcuda/memory/detail/buffer.hpp>

namespace ndcuda::dist::detail {

leaf_window window_of(const shape_t& leaf, const shape_t& result, const sharding& spec, int ranks, int rank) {
  if (spec.is_replicated()) {
    return {};
  }
  const int axis = spec.axis() - static_cast<int>(result.size()) + static_cast<int>(leaf.size());
  if (axis < 0 || leaf[static_cast<std::size_t>(axis)] == 1) {
    return {};  // the leaf broadcasts along the sharded axis: every rank reads all of it
  }
  const index_t extent = result[static_cast<std::size_t>(spec.axis())];
  if (leaf[static_cast<std::size_t>(axis)] != extent) {
    throw shape_error("distributed draw: an operand of shape " + format_shape(leaf) +
                      " does not broadcast to the result's shape " + format_shape(result));
  }
  return {axis, block_of(extent, ranks, rank)};
}

draw_window window_of_draw(const shape_t& shape, const leaf_window& w) {
  draw_window out;
  out.layout = contiguous_layout(shape);
  if (w.axis < 0) {
    return out;
  }
  // The strides stay those of the global draw: the engines' offsets are then global flat indices
  // (less the shift), and a window along axis 0 is itself C-contiguous (the dense, vectorised path).
  const auto a = static_cast<std::size_t>(w.axis);
  out.shift = static_cast<std::uint64_t>(w.range.begin * out.layout.strides[a]);
  out.layout.shape[a] = w.range.size();
  return out;
}

random::detail::reservation reservation_on(const random::detail::reservation& r, const stream& s) {
  if (r.device == s.device()) {
    return r;
  }
  void* cell = nullptr;
  auto owner = ndcuda::detail::allocate_buffer(sizeof(std::uint64_t), s, &cell);
  ndcuda::detail::order_after(s, r.s);  // after the one-thread kernel that wrote the draw's offset
  copy_peer(cell, s.device(), r.param.offset, r.device, sizeof(std::uint64_t), s);
  // The draw's own cell is released on its stream: only after this copy has read it.
  ndcuda::detail::order_after(r.s, s);
  random::detail::reservation out = r;
  out.param.offset = static_cast<const std::uint64_t*>(cell);
  out.owner = std::move(owner);
  out.s = s;
  out.device = s.device();
  return out;
}

}  // namespace ndcuda::dist::detail
