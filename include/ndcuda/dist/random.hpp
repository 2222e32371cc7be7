/// @file
/// Random draws into distributed arrays: each rank computes its block of a draw over the GLOBAL
/// shape at the block's global flat indices, so the result equals the single-GPU draw bit for bit
/// on any number of GPUs. Builds on dist/expression.hpp and random/generator.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/dist/distributed_array.hpp>
#include <ndcuda/dist/draw_operand.hpp>
#include <ndcuda/dist/expression.hpp>
#include <ndcuda/random/generator.hpp>
#include <vector>

namespace ndcuda::dist {

/// A random draw (`g.normal<float>({n, m})`, or an expression over one) spread over `comm` as
/// `spec`: each rank computes only its block, where its block lies in the global draw, with no
/// data moved. The values equal the single-GPU `nd::ndarray<float> a = g.normal<float>({n, m});`
/// bit for bit, and the generator advanced exactly as for it when the draw was made. Array
/// parameters of the draw are read by every rank (the part its block needs, peer-copied when they
/// live on another GPU). Multi-process: every process makes the same draws in the same order.
template <detail::draw_operand X>
[[nodiscard]] auto distribute(const X& draw, const communicator& comm, const sharding& spec) {
  using T = typename X::value_type;
  const shape_t shape = detail::draw_shape_of(draw);
  const sharding s = normalize(spec, static_cast<int>(shape.size()), comm.size());
  std::vector<ndarray<T>> shards;
  for (int l = 0; l < comm.local_size(); ++l) {
    const stream& st = comm.stream(l);
    ndarray<T> shard = empty<T>(shard_shape(shape, s, comm.size(), comm.rank(l)), st);
    shard.assign(detail::shard_draw(draw, shape, s, comm.size(), comm.rank(l), st));
    detail::release_after(draw, st);
    shards.push_back(std::move(shard));
  }
  return distributed_array<T>(comm, shape, s, std::move(shards));
}
/// A draw block-sharded along `axis`.
template <detail::draw_operand X>
[[nodiscard]] auto distribute(const X& draw, const communicator& comm, int axis = 0) {
  return distribute(draw, comm, sharding::block(axis));
}

/// `out.assign(draw)`: writes the draw into `out`'s shards, each at its global flat indices.
/// Throws shape_error when the draw's shape is not `out`'s (draw with `size = out.shape()`).
template <array_element T, detail::draw_operand X>
void assign_from_draw(const distributed_array<T>& out, const X& draw) {
  const shape_t shape = detail::draw_shape_of(draw);
  if (shape != out.shape()) {
    throw shape_error("distributed assign: the random draw has shape " + format_shape(shape) +
                      " but the distributed array has shape " + format_shape(out.shape()) +
                      "; draw with size = the array's shape(), as g.normal<float>(d.shape())");
  }
  const communicator& comm = out.comm();
  for (int l = 0; l < comm.local_size(); ++l) {
    out.local_shard(l).assign(detail::shard_draw(draw, shape, out.spec(), comm.size(), comm.rank(l), comm.stream(l)));
    detail::release_after(draw, comm.stream(l));
  }
}

}  // namespace ndcuda::dist

#pragma GCC visibility pop
