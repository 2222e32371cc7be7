/// @file
/// Data-dependent indexing of distributed arrays: dist::extract (boolean masks, np.extract),
/// dist::take (np.take with global indices) and dist::bincount. Each keeps global order and the
/// single-GPU results bit for bit:
/// - extract: each rank extracts from its shard, the counts are exchanged (a prefix sum gives
///   every rank's place in the result) and one all-to-all moves the pieces into ordinary blocks;
/// - take: each rank sorts its requests by the rank that holds them, one all-to-all sends the
///   requests and a second returns the values, which land in request order;
/// - bincount: each rank counts its shard into all bins, one all-reduce adds the counts.
/// The sizes are known only on the device, so these wait for their streams, as on one GPU.
/// Builds on dist/{exchange,reductions}.hpp and ops/{indexing_functions,counting,sorting}.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <limits>
#include <ndcuda/dist/exchange.hpp>
#include <ndcuda/dist/reductions.hpp>
#include <ndcuda/ops/counting.hpp>
#include <ndcuda/ops/indexing_functions.hpp>
#include <ndcuda/ops/sorting.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ndcuda::dist {
namespace detail {

/// `counts` (one per local rank, `width` numbers each) of every rank on every process, in rank
/// order: width numbers per rank. One NCCL group; waits for the result.
inline std::vector<std::int64_t> exchange_counts(const std::vector<ndarray<std::int64_t>>& counts, index_t width,
                                                 const communicator& comm) {
  const auto all = gather_everywhere(counts, std::vector<index_t>(static_cast<std::size_t>(comm.size()), width), comm);
  return all.front().to_host();
}

template <array_element T, array_element U>
void check_same_layout(const distributed_array<T>& a, const distributed_array<U>& b, const char* what,
                       const char* a_name, const char* b_name) {
  if (!(a.comm() == b.comm())) {
    throw shape_error(std::string("dist::") + what + ": " + a_name + " and " + b_name +
                      " live on different communicators; distribute both over one");
  }
  if (a.shape() != b.shape() || !(a.spec() == b.spec())) {
    throw shape_error(std::string("dist::") + what + ": " + a_name + " has shape " + format_shape(a.shape()) +
                      " sharded " + describe(a.spec()) + " and " + b_name + " has shape " + format_shape(b.shape()) +
                      " sharded " + describe(b.spec()) +
                      "; they must match element for element: reshard one to the "
                      "other's spec");
  }
}

/// The smallest and largest element of `x` over all ranks as int64, the same on every process (one
/// all-reduce; waits for it), or nothing when x is empty. The checks built on it therefore throw on
/// every rank alike instead of leaving the others waiting in the next collective.
template <array_element I>
std::optional<std::pair<std::int64_t, std::int64_t>> global_extremes(const distributed_array<I>& x) {
  const communicator& comm = x.comm();
  constexpr std::int64_t none = std::numeric_limits<std::int64_t>::min();  // neutral for max
  std::vector<ndarray<std::int64_t>> extremes;  // per local rank: {~min, max}; ~ reverses the order
  for (int l = 0; l < comm.local_size(); ++l) {
    const ndarray<I>& shard = x.local_shard(l);
    std::vector<std::int64_t> mine{none, none};
    if (shard.size() > 0) {
      mine = {~static_cast<std::int64_t>(ndcuda::min(shard).item()),
              static_cast<std::int64_t>(ndcuda::max(shard).item())};
    }
    extremes.push_back(asarray<std::int64_t>(mine, {2}, comm.stream(l)));
  }
  if (!x.is_replicated()) {
    combine<reduction::max>(extremes, comm);
  }
  const std::vector<std::int64_t> both = extremes.front().to_host();
  if (both[1] == none && both[0] == none) {
    return std::nullopt;
  }
  return std::pair{~both[0], both[1]};
}

/// The flat global positions each local rank's `indices` name in an array of n elements, on the
/// communicator's streams: negative indices count from the end. An index outside [-n, n) is an
/// index_error (NumPy's mode="raise") on every rank alike, since the check reads global extremes.
inline std::vector<ndarray<std::int64_t>> global_positions(const distributed_array<std::int64_t>& indices, index_t n,
                                                           const char* what) {
  if (const auto range = global_extremes(indices); range && (range->first < -n || range->second >= n)) {
    throw index_error(std::string("dist::") + what + ": index " +
                      std::to_string(range->first < -n ? range->first : range->second) +
                      " is out of bounds for a distributed array of size " + std::to_string(n) +
                      "; indices must lie in [-" + std::to_string(n) + ", " + std::to_string(n) + ")");
  }
  const communicator& comm = indices.comm();
  std::vector<ndarray<std::int64_t>> positions;
  for (int l = 0; l < comm.local_size(); ++l) {
    const stream& s = comm.stream(l);
    ndcuda::detail::order_after(s, indices.local_shard(l).stream());
    const ndarray<std::int64_t> flat = indices.local_shard(l).on_stream(s).ravel();
    positions.push_back(ndarray<std::int64_t>(where(flat < 0, flat + static_cast<std::int64_t>(n), flat)));
  }
  return positions;
}

}  // namespace detail

/// np.extract(cond, x): x's elements where cond is true, in global C order, as a 1-d array sharded
/// in the ordinary blocks (replicated when x is). cond must have x's shape and sharding; arrays
/// sharded along an axis other than 0 are resharded along 0 first, since C order runs along it.
template <array_element T>
[[nodiscard]] distributed_array<T> extract(const distributed_array<bool>& cond, const distributed_array<T>& x) {
  detail::check_same_layout(x, cond, "extract", "x", "cond");
  if (!x.is_replicated() && x.spec() != sharding::block(0)) {
    return extract(cond.reshard(0), x.reshard(0));
  }
  const communicator& comm = x.comm();
  std::vector<ndarray<T>> pieces;
  std::vector<ndarray<std::int64_t>> counts;
  for (int l = 0; l < comm.local_size(); ++l) {
    const stream& s = comm.stream(l);
    ndcuda::detail::order_after(s, x.local_shard(l).stream());
    ndcuda::detail::order_after(s, cond.local_shard(l).stream());
    pieces.push_back(ndcuda::extract(cond.local_shard(l).on_stream(s), x.local_shard(l).on_stream(s)));
    counts.push_back(full<std::int64_t>({1}, static_cast<std::int64_t>(pieces.back().size()), s));
  }
  if (x.is_replicated()) {
    const index_t n = pieces.front().size();
    return distributed_array<T>(comm, {n}, sharding::replicated(), std::move(pieces));
  }
  const std::vector<std::int64_t> sizes = detail::exchange_counts(counts, 1, comm);
  index_t total = 0;
  for (const std::int64_t size : sizes) {
    total += size;
  }
  return distributed_array<T>(comm, {total}, sharding::block(0),
                              detail::to_blocks(pieces, std::vector<index_t>(sizes.begin(), sizes.end()), comm));
}

/// np.take(x, indices) of a 1-d distributed x: x[indices] with global indices (negative ones count
/// from the end; out of range is an index_error, as NumPy's mode="raise"). The result has the
/// indices' shape and sharding: replicated indices give a replicated result. A replicated x
/// answers locally; a sharded x answers through two all-to-alls (requests, then values).
template <array_element T>
[[nodiscard]] distributed_array<T> take(const distributed_array<T>& x, const distributed_array<std::int64_t>& indices) {
  const communicator& comm = x.comm();
  if (!(comm == indices.comm())) {
    throw shape_error("dist::take: x and indices live on different communicators; distribute both over one");
  }
  if (x.ndim() != 1) {
    throw shape_error("dist::take: x has shape " + format_shape(x.shape()) +
                      "; dist::take reads a 1-d array (ravel "
                      "or reshard a copy to 1-d first)");
  }
  const index_t n = x.size();
  const int p = comm.size();
  const std::vector<ndarray<std::int64_t>> requests = detail::global_positions(indices, n, "take");
  std::vector<ndarray<T>> results;
  if (x.is_replicated()) {
    for (int l = 0; l < comm.local_size(); ++l) {
      const auto lu = static_cast<std::size_t>(l);
      results.push_back(ndcuda::take(x.local_shard(l), requests[lu], index_t{0}, take_mode::wrap)
                            .reshape(indices.local_shard(l).shape()));
    }
    return distributed_array<T>(comm, indices.shape(), indices.spec(), std::move(results));
  }
  // Each rank orders its requests by owner (the blocks are consecutive, so owner = the last block
  // that starts at or before the index) and counts them per owner.
  std::vector<std::int64_t> starts;
  for (int q = 0; q < p; ++q) {
    starts.push_back(static_cast<std::int64_t>(x.range(q).begin));
  }
  std::vector<ndarray<std::int64_t>> orders;
  std::vector<ndarray<std::int64_t>> sorted_requests;
  std::vector<ndarray<std::int64_t>> counts;
  for (int l = 0; l < comm.local_size(); ++l) {
    const auto lu = static_cast<std::size_t>(l);
    const stream& s = comm.stream(l);
    const ndarray<std::int64_t> owner(
        ndcuda::searchsorted(asarray<std::int64_t>(starts, {index_t{p}}, s), requests[lu], side::right, s) -
        std::int64_t{1});
    // Radix passes go by key width: one byte of owner is one pass where int64 would be eight.
    orders.push_back(p <= 256 ? ndcuda::argsort(owner.astype<std::uint8_t>(), 0, s)
                              : ndcuda::argsort(owner.astype<std::int32_t>(), 0, s));
    sorted_requests.push_back(ndcuda::take(requests[lu], orders.back(), index_t{0}, take_mode::wrap));
    counts.push_back(ndcuda::bincount(owner, ndcuda::size(p)));
  }
  const std::vector<std::int64_t> table = detail::exchange_counts(counts, p, comm);  // [from * p + to]
  const auto count = [&](int from, int to) {
    return static_cast<index_t>(
        table[static_cast<std::size_t>(from) * static_cast<std::size_t>(p) + static_cast<std::size_t>(to)]);
  };
  const auto request_plan = [&](int from, int to) {  // from's sorted requests are grouped by owner
    index_t begin = 0;
    for (int q = 0; q < to; ++q) {
      begin += count(from, q);
    }
    return block_range{begin, begin + count(from, to)};
  };
  const auto reply_plan = [&](int from, int to) {  // from received its requests in sender order
    index_t begin = 0;
    for (int q = 0; q < to; ++q) {
      begin += count(q, from);
    }
    return block_range{begin, begin + count(to, from)};
  };
  const std::vector<ndarray<std::int64_t>> received = detail::all_to_all(sorted_requests, request_plan, comm);
  std::vector<ndarray<T>> replies;
  for (int l = 0; l < comm.local_size(); ++l) {
    const stream& s = comm.stream(l);
    const auto offset = static_cast<std::int64_t>(x.range(comm.rank(l)).begin);
    ndcuda::detail::order_after(s, x.local_shard(l).stream());
    replies.push_back(ndcuda::take(x.local_shard(l).on_stream(s), received[static_cast<std::size_t>(l)] - offset,
                                   index_t{0}, take_mode::wrap));
  }
  const std::vector<ndarray<T>> answers = detail::all_to_all(replies, reply_plan, comm);
  for (int l = 0; l < comm.local_size(); ++l) {
    const auto lu = static_cast<std::size_t>(l);
    ndarray<T> result = empty<T>({requests[lu].size()}, comm.stream(l));
    ndcuda::detail::scatter_permutation(result, orders[lu], answers[lu]);  // back into request order
    results.push_back(result.reshape(indices.local_shard(l).shape()));
  }
  return distributed_array<T>(comm, indices.shape(), indices.spec(), std::move(results));
}

namespace detail {

/// The number of bins of dist::bincount: max(x) + 1 over all ranks, at least minlength; refuses
/// negative values as NumPy does.
template <array_element I>
index_t bincount_bins(const distributed_array<I>& x, index_t minlength) {
  const auto range = global_extremes(x);
  if (range && range->first < 0) {
    throw value_error("dist::bincount: x holds the negative value " + std::to_string(range->first) +
                      "; bincount counts non-negative integers only (as NumPy)");
  }
  return std::max(range ? static_cast<index_t>(range->second + 1) : index_t{0}, minlength);
}

template <class R>
distributed_array<R> finish_bincount(std::vector<ndarray<R>> partials, bool replicated_input, index_t bins,
                                     const sharding& out, const communicator& comm) {
  if (!out.is_replicated() && !replicated_input) {
    partials = reduce_scatter_rows(partials, comm);  // each rank's bins, summed
  } else if (!replicated_input) {
    combine<reduction::sum>(partials, comm);
  } else if (!out.is_replicated()) {
    for (int l = 0; l < comm.local_size(); ++l) {
      const block_range mine = block_of(bins, comm.size(), comm.rank(l));
      auto& part = partials[static_cast<std::size_t>(l)];
      part = ndarray<R>(part(slice(mine.begin, mine.end))).copy();
    }
  }
  return distributed_array<R>(comm, {bins}, out.is_replicated() ? out : sharding::block(0), std::move(partials));
}

template <array_element I>
void check_bincount_input(const distributed_array<I>& x, const sharding& out) {
  static_assert(std::is_integral_v<I>, "dist::bincount counts integers (or bools)");
  if (x.ndim() != 1) {
    throw shape_error("dist::bincount: x has shape " + format_shape(x.shape()) + "; bincount counts a 1-d array");
  }
  if (!out.is_replicated() && (out.is_grid() || out.axis() != 0)) {
    throw shape_error("dist::bincount: the counts are 1-d; ask for sharding::replicated() or sharding::block(0), not " +
                      describe(out));
  }
}

}  // namespace detail

/// np.bincount(x, minlength) of a 1-d distributed integer array: int64 counts of each value, as
/// one GPU's nd::bincount gives. Each rank counts its shard into every bin and one all-reduce adds
/// the counts; the result is replicated, or sharded in blocks when `out` is sharding::block(0).
template <array_element I>
[[nodiscard]] distributed_array<std::int64_t> bincount(const distributed_array<I>& x, index_t minlength = 0,
                                                       const sharding& out = sharding::replicated()) {
  detail::check_bincount_input(x, out);
  const index_t bins = detail::bincount_bins(x, minlength);
  std::vector<ndarray<std::int64_t>> partials;
  for (int l = 0; l < x.comm().local_size(); ++l) {
    partials.push_back(ndcuda::bincount(x.local_shard(l), ndcuda::size(bins)));
  }
  return detail::finish_bincount(std::move(partials), x.is_replicated(), bins, out, x.comm());
}

/// np.bincount(x, weights, minlength): float64 sums of the weights of each value; weights must have
/// x's shape and sharding. The sums of a bin come from several ranks, so their rounding can differ
/// from one GPU's in the last bits (one GPU's order is not fixed either).
template <array_element I, array_element W>
[[nodiscard]] distributed_array<double> bincount(const distributed_array<I>& x, const distributed_array<W>& weights,
                                                 index_t minlength = 0, const sharding& out = sharding::replicated()) {
  detail::check_bincount_input(x, out);
  detail::check_same_layout(x, weights, "bincount", "x", "weights");
  const index_t bins = detail::bincount_bins(x, minlength);
  std::vector<ndarray<double>> partials;
  for (int l = 0; l < x.comm().local_size(); ++l) {
    ndcuda::detail::order_after(x.local_shard(l).stream(), weights.local_shard(l).stream());
    partials.push_back(ndcuda::bincount(x.local_shard(l), weights.local_shard(l), ndcuda::size(bins)));
  }
  return detail::finish_bincount(std::move(partials), x.is_replicated(), bins, out, x.comm());
}

}  // namespace ndcuda::dist

#pragma GCC visibility pop
