// Where each rank's part of a random draw lies in the global draw (its window, first flat index
// and global strides), and the draw's offset cell copied to a rank on another device.
// Builds on dist/draw_operand.hpp and the peer copy of dist/movement.hpp.
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/dist/draw_operand.hpp>
#include <ndcuda/memory/detail/buffer.hpp>

namespace ndcuda::dist::detail {

leaf_window window_of(const shape_t& leaf, const shape_t& result, const sharding& spec, int ranks, int rank) {
  leaf_window w;
  if (spec.is_replicated()) {
    return w;
  }
  const block_box cut = shard_box(result, spec, ranks, rank);
  const int offset = static_cast<int>(result.size()) - static_cast<int>(leaf.size());
  for (const int sharded : spec.axes) {
    const int axis = sharded - offset;
    if (axis < 0 || leaf[static_cast<std::size_t>(axis)] == 1) {
      continue;  // the leaf broadcasts along this sharded axis: every rank reads all of it
    }
    const index_t extent = result[static_cast<std::size_t>(sharded)];
    if (leaf[static_cast<std::size_t>(axis)] != extent) {
      throw shape_error("distributed expression: an operand of shape " + format_shape(leaf) +
                        " does not broadcast to the result's shape " + format_shape(result));
    }
    if (w.whole) {
      w.whole = false;
      w.box.resize(leaf.size());
      for (std::size_t d = 0; d < leaf.size(); ++d) {
        w.box[d] = {0, leaf[d]};
      }
    }
    w.box[static_cast<std::size_t>(axis)] = cut[static_cast<std::size_t>(sharded)];
  }
  return w;
}

draw_window window_of_draw(const shape_t& shape, const leaf_window& w) {
  draw_window out;
  out.layout = contiguous_layout(shape);
  if (w.whole) {
    return out;
  }
  // The strides stay those of the global draw: the engines' offsets are then global flat indices
  // (less the shift), and a window along axis 0 is itself C-contiguous (the dense, vectorised path).
  for (std::size_t a = 0; a < shape.size(); ++a) {
    out.shift += static_cast<std::uint64_t>(w.box[a].begin * out.layout.strides[a]);
    out.layout.shape[a] = w.box[a].size();
  }
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
