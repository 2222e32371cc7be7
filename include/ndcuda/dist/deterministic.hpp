/// @file
/// dist::sum(x, nd::deterministic) and dist::mean(x, nd::deterministic): the same bits on 1, 2, 3
/// or 4 GPUs, with any (uneven) blocks, and the same as nd::sum(x, nd::deterministic) of the whole
/// array on one GPU. The fixed blocks of ops/deterministic.hpp are cut by the global C order, not
/// by the shards: a block that spans a shard boundary is assembled on the rank holding its start
/// (its other pieces arrive by NCCL send/recv), every rank sums the blocks it owns, the block sums
/// travel to every rank (one exchange of ceil(n / 2^14) doubles) and each rank adds them in the
/// same fixed tree. Builds on dist/{distributed_array,expression,deterministic_plan}.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/dist/deterministic_plan.hpp>
#include <ndcuda/dist/distributed_array.hpp>
#include <ndcuda/dist/expression.hpp>
#include <ndcuda/dist/reductions.hpp>
#include <ndcuda/ops/deterministic.hpp>
#include <vector>

namespace ndcuda::dist {
namespace detail {

/// The flat C-order elements each rank holds of an array sharded along axis 0.
inline std::vector<fragment> flat_ranges(const shape_t& shape, int ranks) {
  const index_t extent = shape.empty() ? 1 : shape.front();
  const index_t row = extent == 0 ? 0 : shape_size(shape) / extent;
  std::vector<fragment> ranges;
  for (int q = 0; q < ranks; ++q) {
    const block_range r = block_of(extent, ranks, q);
    ranges.push_back({r.begin * row, r.end * row, q});
  }
  return ranges;
}

template <array_element T>
distributed_array<T> deterministic_reduce(const distributed_array<T>& x, bool mean) {
  static_assert(ndcuda::detail::deterministic_summable<T>,
                "dist::sum(x, nd::deterministic) sums float32 and float64; integer sums are exact with plain "
                "dist::sum");
  const communicator& comm = x.comm();
  std::vector<ndarray<T>> results;
  if (x.is_replicated()) {  // every rank holds everything: the one-GPU sum, on each
    for (const auto& shard : x.local_shards()) {
      results.push_back(ndcuda::detail::deterministic_reduce(shard, mean));
    }
    return distributed_array<T>(comm, {}, sharding::replicated(), std::move(results));
  }
  if (x.spec() != sharding::block(0) && x.ndim() > 1) {
    return deterministic_reduce(x.reshard(0), mean);  // the blocks follow the global C order
  }
  constexpr index_t block = ndcuda::detail::deterministic_block;
  const index_t n = x.size();
  const index_t total_blocks = ndcuda::detail::deterministic_blocks(n);
  const std::vector<fragment> ranges = flat_ranges(x.shape(), comm.size());
  std::vector<deterministic_share> shares;
  std::vector<ndarray<T>> assembled;  // a buffer per local rank for the block it assembles
  std::vector<ndarray<double>> sums;  // every block's sum, on every local rank
  std::vector<communicator::message> pieces;
  for (int l = 0; l < comm.local_size(); ++l) {
    const stream& s = comm.stream(l);
    const ndarray<T>& shard = x.local_shard(l);
    ndcuda::detail::order_after(s, shard.stream());
    const int rank = comm.rank(l);
    shares.push_back(share_of(n, ranges, rank, block));
    const deterministic_share& share = shares.back();
    sums.push_back(empty<double>({total_blocks}, s));
    assembled.push_back(empty<T>({share.assembled ? share.assembled->end - share.assembled->begin : 0}, s));
    const index_t mine = ranges[static_cast<std::size_t>(rank)].begin;
    if (share.assembled) {
      const index_t own = ranges[static_cast<std::size_t>(rank)].end - share.assembled->begin;
      copy_peer(assembled.back().data(), shard.device(), shard.data() + (share.assembled->begin - mine), shard.device(),
                static_cast<std::size_t>(own) * sizeof(T), s);
      for (const fragment& f : share.incoming) {
        pieces.push_back({l, f.rank, false, assembled.back().data() + (f.begin - share.assembled->begin),
                          static_cast<std::size_t>(f.end - f.begin) * sizeof(T)});
      }
    }
    if (share.outgoing) {
      pieces.push_back({l, share.outgoing->rank, true, shard.data(),
                        static_cast<std::size_t>(share.outgoing->end - share.outgoing->begin) * sizeof(T)});
    }
  }
  if (!pieces.empty()) {
    comm.exchange(pieces);
  }
  std::vector<communicator::message> block_sums;
  for (int l = 0; l < comm.local_size(); ++l) {
    const auto lu = static_cast<std::size_t>(l);
    const deterministic_share& share = shares[lu];
    const stream& s = comm.stream(l);
    const int rank = comm.rank(l);
    double* all = sums[lu].data();
    if (share.in_place > 0) {
      const index_t skip = share.first_block * block - ranges[static_cast<std::size_t>(rank)].begin;
      ndcuda::detail::deterministic_block_sums(dtype_of<T>, x.local_shard(l).data() + skip, share.in_place,
                                               all + share.first_block, s);
    }
    if (share.assembled) {
      ndcuda::detail::deterministic_block_sums(dtype_of<T>, assembled[lu].data(), assembled[lu].size(),
                                               all + share.first_block + share.blocks - 1, s);
    }
    for (int q = 0; q < comm.size(); ++q) {
      if (q == rank) {
        continue;
      }
      const deterministic_share theirs = share_of(n, ranges, q, block);
      if (share.blocks > 0) {
        block_sums.push_back(
            {l, q, true, all + share.first_block, static_cast<std::size_t>(share.blocks) * sizeof(double)});
      }
      if (theirs.blocks > 0) {
        block_sums.push_back(
            {l, q, false, all + theirs.first_block, static_cast<std::size_t>(theirs.blocks) * sizeof(double)});
      }
    }
  }
  if (!block_sums.empty()) {
    comm.exchange(block_sums);
  }
  for (int l = 0; l < comm.local_size(); ++l) {
    const stream& s = comm.stream(l);
    ndarray<T> out = empty<T>({}, s);
    ndcuda::detail::deterministic_total(sums[static_cast<std::size_t>(l)].data(), total_blocks,
                                        mean ? static_cast<double>(n) : 1.0, dtype_of<T>, out.data(), s);
    results.push_back(std::move(out));
    ndcuda::detail::order_after(x.local_shard(l).stream(), s);  // the shard outlives every read of it
  }
  return distributed_array<T>(comm, {}, sharding::replicated(), std::move(results));
}

}  // namespace detail

/// The sum of every element in the fixed order of nd::deterministic: a 0-d replicated array with
/// the same bits on any number of GPUs and any sharding, equal to nd::sum(x, nd::deterministic)
/// of the gathered array. Arrays sharded along another axis than 0 are resharded first (an
/// all-to-all); expressions are evaluated first.
template <distributed_array_operand X>
[[nodiscard]] auto sum(const X& x, deterministic_t /*unused*/) {
  return detail::deterministic_reduce(detail::as_distributed(x), false);
}

/// The mean in the fixed order of nd::deterministic (the fixed-order sum in double divided by the
/// count, rounded once): the same bits on any number of GPUs, as nd::mean(x, nd::deterministic).
template <distributed_array_operand X>
[[nodiscard]] auto mean(const X& x, deterministic_t /*unused*/) {
  return detail::deterministic_reduce(detail::as_distributed(x), true);
}

}  // namespace ndcuda::dist

#pragma GCC visibility pop
