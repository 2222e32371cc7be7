/// @file
/// np.add.at for distributed arrays: dist::add_at(a, indices, values) adds every value at its
/// global index of a 1-d distributed a, repeated indices included, as nd::add_at does on one GPU.
/// How the values reach their elements depends on who holds what:
/// - a and the indices replicated: every rank adds everything itself (no communication);
/// - a sharded, the indices replicated: each rank adds the values that fall in its block;
/// - a replicated, the indices sharded: each rank accumulates its values into a zero array of a's
///   size, one all-reduce adds those, and every rank adds the sum to its copy;
/// - both sharded: each rank accumulates into a zero array of a's size, then a reduce-scatter (one
///   all-to-all of block-sized slices, summed by their owner) gives each rank its block's sum.
/// The accumulation needs a's size in scratch memory on every rank, as bincount's counts do.
/// Builds on dist/{indexing,reductions}.hpp and ops/accumulate_at.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <ndcuda/dist/creation.hpp>
#include <ndcuda/dist/indexing.hpp>
#include <ndcuda/ops/accumulate_at.hpp>
#include <string>
#include <type_traits>
#include <vector>

namespace ndcuda::dist {
namespace detail {

/// Each local rank's partial sums of a's whole extent, reduced over the ranks into what every
/// local rank adds to its shard of `a`: the whole sum for a replicated a, its block's for a sharded
/// one.
template <array_element E>
std::vector<ndarray<E>> reduce_for_shards(std::vector<ndarray<E>> partials, const distributed_array<E>& a) {
  if (a.is_replicated()) {
    combine<reduction::sum>(partials, a.comm());
    return partials;
  }
  return reduce_scatter_rows(partials, a.comm());
}

}  // namespace detail

/// np.add.at(a, indices, values) of a 1-d distributed a: a[indices] += values with every repeated
/// index applied. indices are global int64 (negative ones count from the end; out of range is an
/// index_error on every rank) and values has their shape and sharding. Sums of floats come from
/// several ranks, so their rounding may differ from one GPU's in the last bits (one GPU's atomics
/// do not fix an order either); integers are exact.
template <array_element E, array_element V>
void add_at(const distributed_array<E>& a, const distributed_array<std::int64_t>& indices,
            const distributed_array<V>& values) {
  static_assert(!std::is_same_v<E, bool>, "dist::add_at adds numbers; a bool array has no sum that stays bool");
  const communicator& comm = a.comm();
  if (!(comm == indices.comm())) {
    throw shape_error("dist::add_at: a and indices live on different communicators; distribute both over one");
  }
  detail::check_same_layout(indices, values, "add_at", "indices", "values");
  if (a.ndim() != 1) {
    throw shape_error("dist::add_at: a has shape " + format_shape(a.shape()) +
                      "; dist::add_at adds into a 1-d array (reshape a copy to 1-d, or index its flat positions)");
  }
  const index_t n = a.size();
  const std::vector<ndarray<std::int64_t>> positions = detail::global_positions(indices, n, "add_at");
  std::vector<ndarray<E>> partials;
  for (int l = 0; l < comm.local_size(); ++l) {
    const stream& s = comm.stream(l);
    ndcuda::detail::order_after(s, a.local_shard(l).stream());
    ndcuda::detail::order_after(s, values.local_shard(l).stream());
    const ndarray<std::int64_t>& global = positions[static_cast<std::size_t>(l)];
    const ndarray<V> v = values.local_shard(l).on_stream(s).ravel();
    const ndarray<E> target = a.local_shard(l).on_stream(s);
    if (indices.is_replicated()) {  // every rank sees every update: it applies those in its block
      if (a.is_replicated()) {
        ndcuda::add_at(target, global, v);
      } else {
        const block_range mine = a.range(comm.rank(l));
        const ndarray<bool> inside((global >= static_cast<std::int64_t>(mine.begin)) &
                                   (global < static_cast<std::int64_t>(mine.end)));
        ndcuda::add_at(target,
                       ndarray<std::int64_t>(ndcuda::extract(inside, global) - static_cast<std::int64_t>(mine.begin)),
                       ndcuda::extract(inside, v));
      }
      continue;
    }
    partials.push_back(zeros<E>({n}, s));
    ndcuda::add_at(partials.back(), global, v);
  }
  if (!partials.empty()) {
    const std::vector<ndarray<E>> sums = detail::reduce_for_shards(std::move(partials), a);
    for (int l = 0; l < comm.local_size(); ++l) {
      const ndarray<E> target = a.local_shard(l).on_stream(comm.stream(l));
      target.assign(target + sums[static_cast<std::size_t>(l)]);
    }
  }
  for (int l = 0; l < comm.local_size(); ++l) {  // later work on a's own streams sees the sums
    ndcuda::detail::order_after(a.local_shard(l).stream(), comm.stream(l));
  }
}

/// np.add.at(a, indices, value) with one value for every index.
template <array_element E, class V>
requires std::is_arithmetic_v<V>
void add_at(const distributed_array<E>& a, const distributed_array<std::int64_t>& indices, V value) {
  add_at(a, indices, full<E>(indices.shape(), static_cast<E>(value), indices.comm(), indices.spec()));
}

}  // namespace ndcuda::dist

#pragma GCC visibility pop
