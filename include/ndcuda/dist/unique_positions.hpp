/// @file
/// The positions half of dist::unique (return_index, return_inverse; dist/sets.hpp): a stable
/// sample sort of the elements of a distributed array together with their global positions, and
/// the way back from the sorted order to the element's own shard. The positions number the
/// elements as the ravelled shards laid end to end in rank order, which is C order when the array
/// is 1-d or sharded along axis 0. The sort is dist/sorting.hpp's sample sort (each rank sorts its
/// shard stably, splitters from samples, one all-to-all of keys and one of positions, a stable
/// merge of the received runs) keeping the keys as well as the positions; the way back is
/// dist::take's all-to-all of requests: each rank groups its sorted elements by the rank that holds
/// them, one all-to-all of (position, answer) pairs reaches the owners, and each owner sorts what
/// it received by position (a local sort of its own share), which lays the answers out. Builds on
/// dist/{sorting,exchange}.hpp and ops/{counting,indexing_functions}.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <ndcuda/dist/exchange.hpp>
#include <ndcuda/dist/sorting.hpp>
#include <ndcuda/ops/counting.hpp>
#include <ndcuda/ops/indexing_functions.hpp>
#include <vector>

namespace ndcuda::dist::detail {

/// Where each rank's elements start when the ravelled shards of `x` (not replicated) are laid end
/// to end in rank order: p + 1 numbers, the last the size of x.
template <array_element T>
std::vector<index_t> piece_starts(const distributed_array<T>& x) {
  std::vector<index_t> starts{0};
  for (int q = 0; q < x.comm().size(); ++q) {
    starts.push_back(starts.back() + box_size(x.box(q)));
  }
  return starts;
}

/// The sample sort of the elements of `x` (any sharding but replicated; `starts` from
/// piece_starts) with their positions: per local rank a sorted run of keys, the original elements,
/// and their positions; equal keys (argsort's keys: NaNs equal, -0.0 equal to +0.0) in position
/// order, so the first of a run of equal keys is the first occurrence.
template <array_element T>
sorted_runs<T> sort_with_positions(const distributed_array<T>& x, const std::vector<index_t>& starts) {
  const communicator& comm = x.comm();
  const int p = comm.size();
  // 1. Each rank sorts its elements stably, with their positions, and picks its samples.
  std::vector<ndarray<T>> keys;
  std::vector<ndarray<std::int64_t>> where;
  std::vector<ndarray<T>> samples;
  std::vector<index_t> sample_counts;
  for (int q = 0; q < p; ++q) {
    sample_counts.push_back(starts[static_cast<std::size_t>(q) + 1] > starts[static_cast<std::size_t>(q)] ? sort_samples
                                                                                                          : 0);
  }
  for (int l = 0; l < comm.local_size(); ++l) {
    const stream& s = comm.stream(l);
    ndcuda::detail::order_after(s, x.local_shard(l).stream());
    const ndarray<T> mine = x.local_shard(l).on_stream(s).ravel();
    const ndarray<std::int64_t> order = ndcuda::argsort(mine, 0, s);
    keys.push_back(take(mine, order, index_t{0}, take_mode::wrap));
    where.push_back(order + static_cast<std::int64_t>(starts[static_cast<std::size_t>(comm.rank(l))]));
    samples.push_back(pick_samples(keys.back(), s));
  }
  // 2-3. Every rank takes the same p - 1 splitters from all samples and splits its keys by them.
  const std::vector<ndarray<T>> all_samples = gather_everywhere(samples, sample_counts, comm);
  std::vector<ndarray<std::int64_t>> bounds;
  for (int l = 0; l < comm.local_size(); ++l) {
    const auto lu = static_cast<std::size_t>(l);
    const stream& s = comm.stream(l);
    const ndarray<T> sorted_samples = ndcuda::sort(all_samples[lu], 0, s);
    const index_t m = sorted_samples.size();
    std::vector<std::int64_t> picks;
    for (int q = 1; q < p && m > 0; ++q) {
      picks.push_back(static_cast<std::int64_t>(q * m / p));
    }
    ndarray<std::int64_t> b = zeros<std::int64_t>({p + 1}, s);
    b(p).assign(static_cast<std::int64_t>(keys[lu].size()));
    if (!picks.empty()) {
      const ndarray<T> splitters =
          take(sorted_samples, asarray<std::int64_t>(picks, {index_t(picks.size())}, s), index_t{0}, take_mode::wrap);
      b(slice(1, p)).assign(ndcuda::searchsorted(keys[lu], splitters, side::right, s));
    }
    bounds.push_back(b);
  }
  const std::vector<std::int64_t> table =
      gather_everywhere(bounds, std::vector<index_t>(static_cast<std::size_t>(p), p + 1), comm).front().to_host();
  const auto range_of = [&](int from, int to) {
    const auto row = static_cast<std::size_t>(from) * static_cast<std::size_t>(p + 1);
    return block_range{table[row + static_cast<std::size_t>(to)], table[row + static_cast<std::size_t>(to) + 1]};
  };
  // 4. The all-to-alls, then each rank merges its runs. The merge carries each key's place in the
  //    received buffer (runs in sender order, senders' positions increasing), which breaks ties
  //    between equal keys in position order; keys and positions are then taken in merged order,
  //    so the keys stay the original elements (the merge rewrites its keys as sort keys).
  std::vector<ndarray<T>> runs = all_to_all(keys, range_of, comm);
  std::vector<ndarray<std::int64_t>> run_positions = all_to_all(where, range_of, comm);
  std::vector<index_t> run_sizes(static_cast<std::size_t>(p), 0);
  for (int j = 0; j < p; ++j) {
    for (int q = 0; q < p; ++q) {
      run_sizes[static_cast<std::size_t>(j)] += range_of(q, j).size();
    }
  }
  for (int l = 0; l < comm.local_size(); ++l) {
    const auto lu = static_cast<std::size_t>(l);
    const stream& s = comm.stream(l);
    std::vector<index_t> run_bounds{0};
    for (int q = 0; q < p; ++q) {
      run_bounds.push_back(run_bounds.back() + range_of(q, comm.rank(l)).size());
    }
    const index_t n = runs[lu].size();
    if (p == 1 || n == 0) {
      continue;  // one run: sorted already
    }
    ndarray<std::int64_t> order = arange<std::int64_t>(0.0, static_cast<double>(n), 1.0, s);
    ndarray<T> sort_keys = runs[lu].copy();
    merge_runs(sort_keys, &order, std::move(run_bounds), s);
    runs[lu] = take(runs[lu], order, index_t{0}, take_mode::wrap);
    run_positions[lu] = take(run_positions[lu], order, index_t{0}, take_mode::wrap);
  }
  return {std::move(runs), std::move(run_positions), std::move(run_sizes)};
}

/// Each local rank's elements grouped by the rank whose shard holds their position (`starts` from
/// piece_starts): the order that groups them and how many go to each rank (p counts).
struct home_groups {
  std::vector<ndarray<std::int64_t>> order;   ///< per local rank: the elements, grouped by owner
  std::vector<ndarray<std::int64_t>> counts;  ///< per local rank: p counts, one per owner
};

inline home_groups group_by_home(const std::vector<ndarray<std::int64_t>>& positions,
                                 const std::vector<index_t>& starts, const communicator& comm) {
  const int p = comm.size();
  const std::vector<std::int64_t> firsts(starts.begin(), starts.begin() + p);
  home_groups g;
  for (int l = 0; l < comm.local_size(); ++l) {
    const stream& s = comm.stream(l);
    // The owner is the last rank whose piece starts at or before the position (empty pieces are
    // skipped that way).
    const ndarray<std::int64_t> owner(ndcuda::searchsorted(asarray<std::int64_t>(firsts, {index_t{p}}, s),
                                                           positions[static_cast<std::size_t>(l)], side::right, s) -
                                      std::int64_t{1});
    g.order.push_back(p <= 256 ? ndcuda::argsort(owner.astype<std::uint8_t>(), 0, s)
                               : ndcuda::argsort(owner.astype<std::int32_t>(), 0, s));
    g.counts.push_back(ndcuda::bincount(owner, ndcuda::size(p)));
  }
  return g;
}

/// Sends `answers[l][i]`, the answer for the element at `positions[l][i]`, to the rank whose shard
/// of `x` holds that position, and returns the answers laid out as x: of x's shape and sharding.
/// `groups` from group_by_home; how many each rank sends each rank is table[from * width + column
/// + to] (the counts as every process received them). One all-to-all of positions and one of answers.
template <array_element R, array_element T>
distributed_array<R> send_home(const distributed_array<T>& x, const std::vector<index_t>& starts,
                               const std::vector<ndarray<std::int64_t>>& positions,
                               const std::vector<ndarray<R>>& answers, const home_groups& groups,
                               const std::vector<std::int64_t>& table, index_t width, index_t column) {
  const communicator& comm = x.comm();
  const auto count = [&](int from, int to) {
    return static_cast<index_t>(table[static_cast<std::size_t>(from * width + column + to)]);
  };
  const auto plan = [&](int from, int to) {  // from's elements are grouped by owner
    index_t begin = 0;
    for (int q = 0; q < to; ++q) {
      begin += count(from, q);
    }
    return block_range{begin, begin + count(from, to)};
  };
  std::vector<ndarray<std::int64_t>> sent_positions;
  std::vector<ndarray<R>> sent_answers;
  for (int l = 0; l < comm.local_size(); ++l) {
    const auto lu = static_cast<std::size_t>(l);
    sent_positions.push_back(take(positions[lu], groups.order[lu], index_t{0}, take_mode::wrap));
    sent_answers.push_back(take(answers[lu], groups.order[lu], index_t{0}, take_mode::wrap));
  }
  const std::vector<ndarray<std::int64_t>> got_positions = all_to_all(sent_positions, plan, comm);
  const std::vector<ndarray<R>> got_answers = all_to_all(sent_answers, plan, comm);
  std::vector<ndarray<R>> shards;
  for (int l = 0; l < comm.local_size(); ++l) {
    const auto lu = static_cast<std::size_t>(l);
    const stream& s = comm.stream(l);
    const auto me = static_cast<std::size_t>(comm.rank(l));
    // The answers arrive in sender order; the positions they carry are a permutation of this
    // rank's, so sorting by them (4-byte keys while they fit) puts every answer in its place.
    const ndarray<std::int64_t> at(got_positions[lu] - static_cast<std::int64_t>(starts[me]));
    const ndarray<std::int64_t> order = starts[me + 1] - starts[me] <= index_t{0xffffffff}
                                            ? ndcuda::argsort(at.astype<std::uint32_t>(), 0, s)
                                            : ndcuda::argsort(at, 0, s);
    shards.push_back(take(got_answers[lu], order, index_t{0}, take_mode::wrap).reshape(x.local_shard(l).shape()));
  }
  return distributed_array<R>(comm, x.shape(), x.spec(), std::move(shards));
}

}  // namespace ndcuda::dist::detail

#pragma GCC visibility pop
