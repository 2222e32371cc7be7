// Random draws as operands of distributed expressions: a draw over the GLOBAL shape becomes, on
// each rank, the same draw read at the rank's global flat indices. Builds on random/detail/draw.hpp
// (random_leaf) and dist/distributed_array.hpp (slab, sharding, copy_across).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/dist/distributed_array.hpp>
#include <ndcuda/expr/evaluate.hpp>
#include <ndcuda/expr/expression.hpp>
#include <ndcuda/random/detail/draw.hpp>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace ndcuda::dist::detail {

/// Whether an ndcuda expression type reads a random draw somewhere in its tree.
template <class T>
inline constexpr bool contains_draw = false;
template <int E, int W, dtype D>
inline constexpr bool contains_draw<ndcuda::detail::random_leaf<E, W, D>> = true;
template <class Op, class... A>
inline constexpr bool contains_draw<expr<Op, A...>> = (contains_draw<A> || ...);

/// An ndcuda expression holding a random draw (`g.normal<float>(shape)`, `0.1f * g.random<float>
/// (shape)`): a global value that every rank reads the part of its block from, computed where it
/// is used. Plain arrays and other expressions are not distributed operands: distribute() them.
template <class T>
concept draw_operand = ndcuda::detail::is_expr<std::remove_cvref_t<T>> && contains_draw<std::remove_cvref_t<T>>;

/// The part of a leaf that one rank's block of the result reads: `box` (in the leaf's own
/// coordinates), or the whole leaf when `whole` (the result is replicated, or the leaf broadcasts
/// along every sharded axis).
struct leaf_window {
  bool whole = true;
  block_box box;
  friend bool operator==(const leaf_window&, const leaf_window&) = default;
};

/// The window of a leaf of shape `leaf` (right-aligned with `result`, NumPy's broadcasting) for
/// group rank `rank` of `ranks` when the result is cut as `spec` (normalised for the result).
[[nodiscard]] leaf_window window_of(const shape_t& leaf, const shape_t& result, const sharding& spec, int ranks,
                                    int rank);

/// Where a draw's window starts and how the engines index it: `shift` is the global flat index of
/// its first element, `layout` has the window's shape and the strides of the C-contiguous GLOBAL
/// draw, so that every offset the engines compute is the element's global flat index.
struct draw_window {
  std::uint64_t shift = 0;
  view_layout layout;
};
/// The window `w` of a draw of global shape `shape`.
[[nodiscard]] draw_window window_of_draw(const shape_t& shape, const leaf_window& w);

/// The draw `r` readable on `s`'s device: `r` itself on the draw's own device; elsewhere a copy of
/// its 8-byte offset cell, copied peer to peer on `s` after the reservation (so graph replays and
/// the generator's next draw stay right). The generator's own state never leaves its device.
[[nodiscard]] random::detail::reservation reservation_on(const random::detail::reservation& r, const stream& s);

/// What sharding a draw expression for one rank needs: the result's global shape and cut, the
/// rank, its stream, and the offset cells already copied to its device (one copy per draw).
struct shard_context {
  const shape_t* result = nullptr;
  sharding spec;
  int ranks = 1;
  int rank = 0;
  const stream* s = nullptr;
  std::vector<std::pair<const std::uint64_t*, random::detail::reservation>> copied{};
};

template <int E, int W, dtype D>
ndcuda::detail::random_leaf<E, W, D> shard_node(const ndcuda::detail::random_leaf<E, W, D>& x, shard_context& c) {
  ndcuda::detail::random_leaf<E, W, D> out = x;
  const draw_window w = window_of_draw(x.layout.shape, window_of(x.layout.shape, *c.result, c.spec, c.ranks, c.rank));
  out.layout = w.layout;
  out.draw.param.shift = x.draw.param.shift + w.shift;
  if (x.draw.device != c.s->device()) {
    const std::uint64_t* cell = x.draw.param.offset;
    auto it = std::find_if(c.copied.begin(), c.copied.end(), [&](const auto& e) { return e.first == cell; });
    if (it == c.copied.end()) {
      c.copied.emplace_back(cell, reservation_on(x.draw, *c.s));
      it = std::prev(c.copied.end());
    }
    const std::uint64_t shift = out.draw.param.shift;
    out.draw = it->second;
    out.draw.param.shift = shift;
  }
  return out;
}

template <class E>
ndcuda::detail::array_leaf<E> shard_node(const ndcuda::detail::array_leaf<E>& x, shard_context& c) {
  // An array parameter of a draw (NumPy's normal(mu, sigma, size)): the part this rank reads, on
  // its device (a peer copy when the parameter lives elsewhere).
  const leaf_window w = window_of(x.array.shape(), *c.result, c.spec, c.ranks, c.rank);
  ndarray<E> part = w.whole ? x.array : view_of(x.array, w.box);
  if (part.device() == c.s->device()) {
    return {std::move(part)};
  }
  const ndarray<E> local = empty<E>(part.shape(), *c.s);
  copy_across(local, part.is_contiguous() ? part : part.copy());
  ndcuda::detail::order_after(part.stream(), *c.s);  // the parameter is released after the copy read it
  return {local};
}

template <dtype D>
ndcuda::detail::scalar_leaf<D> shard_node(const ndcuda::detail::scalar_leaf<D>& x, shard_context&) {
  return x;
}

template <class L>
L shard_node(const L&, shard_context&) {
  static_assert(sizeof(L) == 0,
                "a distributed draw expression may hold draws, arrays, scalars and their operations only");
}

template <class Op, class... A>
expr<Op, A...> shard_node(const expr<Op, A...>& x, shard_context& c) {
  // Left to right, as the fused kernel reads its leaves (braced initialisation orders the calls).
  return std::apply([&](const auto&... a) { return expr<Op, A...>{std::tuple<A...>{shard_node(a, c)...}}; }, x.args);
}

/// The global shape of a draw expression: its leaves' broadcast shape.
template <class X>
shape_t draw_shape_of(const X& x) {
  ndcuda::detail::leaves_of<X> leaves;
  ndcuda::detail::collect(x, leaves);
  shape_t s = leaves.arrays[0].layout->shape;
  for (std::size_t i = 1; i < leaves.arrays.size(); ++i) {  // bounded by the array's size: no -Warray-bounds
    s = broadcast_shapes(s, leaves.arrays[i].layout->shape);
  }
  return s;
}

/// Makes the streams of the draw's array parameters wait for `s`, where a rank's kernel read them:
/// an array parameter releases its memory on its own stream, and a reuse of that memory there must
/// not overtake the rank's kernel (a one-GPU rank runs on the communicator's stream). The draws
/// themselves (their offset cells) are ordered so by every launch (release_sources_after); the
/// full GPU suite once saw such a reuse overwrite an offset before the kernel read it.
template <class X>
void release_after(const X& draw, const stream& s) {
  ndcuda::detail::leaves_of<X> leaves;
  ndcuda::detail::collect(draw, leaves);
  for (const ndcuda::detail::leaf_ref& l : leaves.arrays) {
    if (l.source == nullptr && !(*l.s == s)) {
      ndcuda::detail::order_after(*l.s, s);
    }
  }
}

/// The expression group rank `rank` of `ranks` evaluates for its block of a result of global shape
/// `result` cut as `spec` (normalised), on stream `s`: the same draw, read at the block's global
/// flat indices. Needs no communicator, so one GPU can evaluate every rank's part.
template <class X>
requires draw_operand<X>
[[nodiscard]] X shard_draw(const X& x, const shape_t& result, const sharding& spec, int ranks, int rank,
                           const stream& s) {
  shard_context c{&result, spec, ranks, rank, &s};
  return shard_node(x, c);
}

}  // namespace ndcuda::dist::detail

#pragma GCC visibility pop
