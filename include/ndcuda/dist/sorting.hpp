/// @file
/// Sorting a 1-d distributed array across ranks: dist::sort, dist::argsort (global positions),
/// dist::topk and dist::searchsorted. sort and argsort are a sample sort: each rank sorts its
/// shard, the ranks agree on p - 1 splitters from a fixed number of samples of each shard, one
/// NCCL all-to-all sends every rank the keys between its splitters, each rank merges the p sorted
/// runs it received, and a last exchange moves the (uneven) sorted runs into the ordinary blocks,
/// so the result is sharded like any distributed array. topk never sorts the whole array: each
/// rank selects its own k and every rank selects the k of the p k candidates. Sorting along an
/// axis that is not the sharded one needs no communication. Builds on dist/{distributed_array,
/// reductions}.hpp and ops/{sorting,selection}.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <algorithm>
#include <cstdint>
#include <ndcuda/dist/distributed_array.hpp>
#include <ndcuda/dist/exchange.hpp>
#include <ndcuda/dist/reductions.hpp>
#include <ndcuda/ops/detail/device_algorithms.hpp>
#include <ndcuda/ops/indexing_functions.hpp>
#include <ndcuda/ops/selection.hpp>
#include <ndcuda/ops/sorting.hpp>
#include <string>
#include <vector>

namespace ndcuda::dist {
namespace detail {

/// Samples each non-empty shard gives for the splitters: enough that the blocks come out within a
/// few percent of even for data without long runs of equal keys.
inline constexpr index_t sort_samples = 256;

/// Sorts `keys`, sorted runs laid end to end (run r is [bounds[r], bounds[r + 1])), by merging the
/// runs pairwise, log2(runs) rounds of cub::DeviceMerge, which costs a fraction of sorting again.
/// With `positions` (unique, increasing from run to run among equal keys) the merge orders by
/// argsort's keys, then by position, so it is stable, and only the positions mean anything after.
/// Complex keys have no single key format; they are sorted again (stably) instead.
template <array_element T>
void merge_runs(ndarray<T>& keys, ndarray<std::int64_t>* positions, std::vector<index_t> bounds, const stream& s) {
  namespace nd = ndcuda::detail;
  if constexpr (is_complex(dtype_of<T>)) {
    if (positions != nullptr) {
      const ndarray<std::int64_t> order = ndcuda::argsort(keys, 0, s);
      *positions = take(*positions, order, index_t{0}, take_mode::wrap);
    } else {
      keys = ndcuda::sort(keys, 0, s);
    }
  } else {
    const nd::key_format f = nd::key_format_for(dtype_of<T>, positions != nullptr, "dist::sort");
    const index_t n = keys.size();
    if (bounds.size() <= 2 || n == 0) {
      return;  // one run: sorted already
    }
    if (f.mode != nd::key_mode::identity) {
      nd::encode_keys(f, keys.data(), keys.data(), nullptr, n, n, s);
    }
    ndarray<T> merged = empty<T>({n}, s);
    ndarray<std::int64_t> merged_positions =
        positions != nullptr ? empty<std::int64_t>({n}, s) : ndarray<std::int64_t>{};
    while (bounds.size() > 2) {
      std::vector<index_t> next{0};
      for (std::size_t r = 0; r + 1 < bounds.size(); r += 2) {
        const index_t begin = bounds[r];
        const index_t middle = bounds[r + 1];
        const index_t end = r + 2 < bounds.size() ? bounds[r + 2] : middle;
        if (positions != nullptr) {
          std::int64_t* const from = positions->data();
          nd::merge_pairs(f.bytes, keys.data() + begin, from + begin, middle - begin, keys.data() + middle,
                          from + middle, end - middle, merged.data() + begin, merged_positions.data() + begin, s);
        } else {
          nd::merge_keys(f.bytes, keys.data() + begin, middle - begin, keys.data() + middle, end - middle,
                         merged.data() + begin, s);
        }
        next.push_back(end);
      }
      std::swap(keys, merged);
      if (positions != nullptr) {
        std::swap(*positions, merged_positions);
      }
      bounds = std::move(next);
    }
    if (f.mode != nd::key_mode::identity && positions == nullptr) {
      nd::decode_keys(f, keys.data(), keys.data(), n, s);
    }
  }
}

/// The sorted array as the sample sort leaves it before rebalancing: per local rank a sorted run
/// (the runs laid end to end in rank order are the sorted array), the global positions that sort
/// x when asked, and every rank's run size (the same on every process).
template <class T>
struct sorted_runs {
  std::vector<ndarray<T>> keys;                  ///< per local rank; empty when only positions were asked
  std::vector<ndarray<std::int64_t>> positions;  ///< per local rank, when asked
  std::vector<index_t> sizes;                    ///< per group rank
};

/// Steps 1-4 of the sample sort of a 1-d block-sharded array (see the file comment). With
/// `positions`, the global positions that sort x (stable: equal keys keep their order, as
/// np.argsort(kind="stable")).
/// sort_samples evenly spaced keys of a sorted run (none of an empty one), on `s`: a rank's
/// contribution to the splitters of a sample sort.
template <array_element T>
ndarray<T> pick_samples(const ndarray<T>& sorted, const stream& s) {
  const index_t len = sorted.size();
  std::vector<std::int64_t> picks;
  for (index_t i = 0; len > 0 && i < sort_samples; ++i) {
    picks.push_back(static_cast<std::int64_t>((2 * i + 1) * len / (2 * sort_samples)));
  }
  return picks.empty()
             ? empty<T>({0}, s)
             : take(sorted, asarray<std::int64_t>(picks, {index_t(picks.size())}, s), index_t{0}, take_mode::wrap);
}

template <array_element T>
sorted_runs<T> sort_into_runs(const distributed_array<T>& x, bool positions) {
  const communicator& comm = x.comm();
  const int p = comm.size();
  // 1. Each rank sorts its shard (stably, with its global positions when asked).
  std::vector<ndarray<T>> keys;
  std::vector<ndarray<std::int64_t>> where;
  std::vector<ndarray<T>> samples;
  std::vector<index_t> sample_counts(static_cast<std::size_t>(p));
  for (int q = 0; q < p; ++q) {
    sample_counts[static_cast<std::size_t>(q)] = x.range(q).size() > 0 ? sort_samples : 0;
  }
  for (int l = 0; l < comm.local_size(); ++l) {
    const stream& s = comm.stream(l);
    const ndarray<T>& shard = x.local_shard(l);
    ndcuda::detail::order_after(s, shard.stream());
    const ndarray<T> mine = shard.on_stream(s);
    if (positions) {
      const ndarray<std::int64_t> order = ndcuda::argsort(mine, 0, s);
      keys.push_back(take(mine, order, index_t{0}, take_mode::wrap));
      where.push_back(order + static_cast<std::int64_t>(x.range(comm.rank(l)).begin));
    } else {
      keys.push_back(ndcuda::sort(mine, 0, s));
    }
    samples.push_back(pick_samples(keys.back(), s));
  }
  // 2. Every rank sorts all samples and takes the same p - 1 splitters.
  const std::vector<ndarray<T>> all_samples = gather_everywhere(samples, sample_counts, comm);
  // 3. Where each rank's sorted keys split: bounds[q] = how many keys go to ranks before q.
  std::vector<std::int64_t> bounds_host(static_cast<std::size_t>(comm.local_size() * (p + 1)));
  std::vector<ndarray<std::int64_t>> bounds;
  for (int l = 0; l < comm.local_size(); ++l) {
    const stream& s = comm.stream(l);
    const ndarray<T> sorted_samples = ndcuda::sort(all_samples[static_cast<std::size_t>(l)], 0, s);
    const index_t m = sorted_samples.size();
    std::vector<std::int64_t> picks;
    for (int q = 1; q < p && m > 0; ++q) {
      picks.push_back(static_cast<std::int64_t>(q * m / p));
    }
    ndarray<std::int64_t> b = zeros<std::int64_t>({p + 1}, s);
    b(p).assign(static_cast<std::int64_t>(keys[static_cast<std::size_t>(l)].size()));
    if (!picks.empty()) {
      const ndarray<T> splitters =
          take(sorted_samples, asarray<std::int64_t>(picks, {index_t(picks.size())}, s), index_t{0}, take_mode::wrap);
      b(slice(1, p)).assign(ndcuda::searchsorted(keys[static_cast<std::size_t>(l)], splitters, side::right, s));
    }
    bounds.push_back(b);
  }
  // Every rank's bounds on every process: the sizes of every message of the all-to-all.
  const std::vector<ndarray<std::int64_t>> all_bounds =
      gather_everywhere(bounds, std::vector<index_t>(static_cast<std::size_t>(p), p + 1), comm);
  const std::vector<std::int64_t> table = all_bounds.front().to_host();  // p rows of p + 1
  const auto range_of = [&](int from, int to) {
    const auto row = static_cast<std::size_t>(from) * static_cast<std::size_t>(p + 1);
    return block_range{table[row + static_cast<std::size_t>(to)], table[row + static_cast<std::size_t>(to) + 1]};
  };
  // 4. The all-to-all, then each rank sorts what it holds: runs in sender order, stably, so equal
  //    keys stay in global-position order.
  std::vector<ndarray<T>> runs = all_to_all(keys, range_of, comm);
  std::vector<ndarray<std::int64_t>> run_positions;
  if (positions) {
    run_positions = all_to_all(where, range_of, comm);
  }
  for (int l = 0; l < comm.local_size(); ++l) {
    const auto lu = static_cast<std::size_t>(l);
    std::vector<index_t> run_bounds{0};
    for (int q = 0; q < p; ++q) {
      run_bounds.push_back(run_bounds.back() + range_of(q, comm.rank(l)).size());
    }
    merge_runs(runs[lu], positions ? &run_positions[lu] : nullptr, std::move(run_bounds), comm.stream(l));
  }
  std::vector<index_t> run_sizes(static_cast<std::size_t>(p), 0);
  for (int j = 0; j < p; ++j) {
    for (int q = 0; q < p; ++q) {
      run_sizes[static_cast<std::size_t>(j)] += range_of(q, j).size();
    }
  }
  if (positions) {  // argsort wants the positions alone
    runs.clear();
  }
  return {std::move(runs), std::move(run_positions), std::move(run_sizes)};
}

/// The sample sort of a 1-d block-sharded array: per local rank its block of the sorted array in
/// the ordinary blocks (step 5: one exchange rebalances the runs), or with `positions` its block of
/// the global positions that sort x.
template <array_element T>
std::pair<std::vector<ndarray<T>>, std::vector<ndarray<std::int64_t>>> sample_sort(const distributed_array<T>& x,
                                                                                   bool positions) {
  sorted_runs<T> r = sort_into_runs(x, positions);
  if (positions) {
    return {{}, to_blocks(r.positions, r.sizes, x.comm())};
  }
  return {to_blocks(r.keys, r.sizes, x.comm()), {}};
}

template <array_element T>
void check_sortable_1d(const distributed_array<T>& x, const char* what) {
  if (x.ndim() != 1) {
    throw shape_error(std::string("dist::") + what + ": x has shape " + format_shape(x.shape()) + " sharded " +
                      describe(x.spec()) + "; across ranks it " + what +
                      "s 1-d arrays (along an axis that is not the sharded one it works shard by shard: pass "
                      "that axis)");
  }
}

}  // namespace detail

/// np.sort(x, axis) of a distributed array. Along the sharded axis of a 1-d array: a sample sort
/// across ranks (see the file comment); the result is sharded in the ordinary blocks. Along
/// another axis, or of a replicated array: each rank sorts its shard, no communication.
template <array_element T>
[[nodiscard]] distributed_array<T> sort(const distributed_array<T>& x, index_t axis = -1) {
  const int ax = normalize_axis(axis, x.ndim());
  const communicator& comm = x.comm();
  if (std::find(x.spec().axes.begin(), x.spec().axes.end(), ax) == x.spec().axes.end()) {
    std::vector<ndarray<T>> shards;
    for (int l = 0; l < comm.local_size(); ++l) {
      shards.push_back(ndcuda::sort(x.local_shard(l), ax, comm.stream(l)));
    }
    return distributed_array<T>(comm, x.shape(), x.spec(), std::move(shards));
  }
  detail::check_sortable_1d(x, "sort");
  return distributed_array<T>(comm, x.shape(), x.spec(), detail::sample_sort(x, false).first);
}

/// np.argsort(x, kind="stable") of a 1-d block-sharded distributed array: the global int64
/// positions that sort x, sharded like x; equal keys keep their order.
template <array_element T>
[[nodiscard]] distributed_array<std::int64_t> argsort(const distributed_array<T>& x) {
  detail::check_sortable_1d(x, "argsort");
  if (x.is_replicated()) {
    std::vector<ndarray<std::int64_t>> shards;
    for (int l = 0; l < x.comm().local_size(); ++l) {
      shards.push_back(ndcuda::argsort(x.local_shard(l), 0, x.comm().stream(l)));
    }
    return distributed_array<std::int64_t>(x.comm(), x.shape(), x.spec(), std::move(shards));
  }
  return distributed_array<std::int64_t>(x.comm(), x.shape(), x.spec(), detail::sample_sort(x, true).second);
}

/// What dist::topk returns: replicated 1-d arrays of the k selected values (sorted) and their
/// global positions.
template <class T>
struct topk_result {
  distributed_array<T> values;              ///< the selected elements, largest (or smallest) first
  distributed_array<std::int64_t> indices;  ///< their global positions
};

/// The k largest (largest = false: smallest) elements of a 1-d distributed array and their global
/// positions, replicated on every rank. Each rank selects its own k (nd::topk, no full sort), and
/// every rank selects the k of the p k candidates it receives. Ties: any of the tied elements.
template <array_element T>
[[nodiscard]] topk_result<T> topk(const distributed_array<T>& x, index_t k, bool largest = true) {
  detail::check_sortable_1d(x, "topk");
  const communicator& comm = x.comm();
  if (k < 0 || k > x.size()) {
    throw value_error("dist::topk: k=" + std::to_string(k) + " is out of range for " + std::to_string(x.size()) +
                      " elements; k must be between 0 and the size");
  }
  const int p = x.is_replicated() ? 1 : comm.size();
  std::vector<index_t> counts(static_cast<std::size_t>(comm.size()), 0);
  for (int q = 0; q < p; ++q) {
    counts[static_cast<std::size_t>(q)] = std::min(k, x.range(q).size());
  }
  std::vector<ndarray<T>> values;
  std::vector<ndarray<std::int64_t>> positions;
  for (int l = 0; l < comm.local_size(); ++l) {
    const stream& s = comm.stream(l);
    const int rank = x.is_replicated() ? 0 : comm.rank(l);
    const index_t mine = x.is_replicated() && comm.rank(l) != 0 ? 0 : counts[static_cast<std::size_t>(rank)];
    auto r = ndcuda::topk(x.local_shard(l), mine, 0, largest, s);
    values.push_back(r.values);
    positions.push_back(r.indices + static_cast<std::int64_t>(x.is_replicated() ? 0 : x.range(rank).begin));
  }
  const auto all_values = detail::gather_everywhere(values, counts, comm);
  const auto all_positions = detail::gather_everywhere(positions, counts, comm);
  std::vector<ndarray<T>> best;
  std::vector<ndarray<std::int64_t>> best_positions;
  for (int l = 0; l < comm.local_size(); ++l) {
    const auto lu = static_cast<std::size_t>(l);
    auto r = ndcuda::topk(all_values[lu], k, 0, largest, comm.stream(l));
    best.push_back(r.values);
    best_positions.push_back(take(all_positions[lu], r.indices, index_t{0}, take_mode::wrap));
  }
  const sharding rep = sharding::replicated();
  return {distributed_array<T>(comm, {k}, rep, std::move(best)),
          distributed_array<std::int64_t>(comm, {k}, rep, std::move(best_positions))};
}

/// np.searchsorted(sorted, values, side) with `sorted` a 1-d distributed array sorted as a whole
/// (dist::sort's result) and `values` replicated: replicated int64 positions of values' shape. A
/// global position is the sum over ranks of the position in each rank's block (the blocks are
/// consecutive), so each rank searches its block and one all-reduce adds them.
template <array_element T, array_element V>
[[nodiscard]] distributed_array<std::int64_t> searchsorted(const distributed_array<T>& sorted,
                                                           const distributed_array<V>& values,
                                                           side which = side::left) {
  detail::check_sortable_1d(sorted, "searchsorted");
  if (!values.is_replicated()) {
    throw shape_error("dist::searchsorted: values are sharded " + describe(values.spec()) +
                      "; every rank searches for every value, so replicate() them first");
  }
  if (!(sorted.comm() == values.comm())) {
    throw shape_error("dist::searchsorted: sorted and values live on different communicators");
  }
  const communicator& comm = sorted.comm();
  std::vector<ndarray<std::int64_t>> positions;
  for (int l = 0; l < comm.local_size(); ++l) {
    positions.push_back(ndcuda::searchsorted(sorted.local_shard(l), values.local_shard(l), which, comm.stream(l)));
  }
  if (!sorted.is_replicated()) {
    detail::combine<detail::reduction::sum>(positions, comm);
  }
  return distributed_array<std::int64_t>(comm, values.shape(), sharding::replicated(), std::move(positions));
}

}  // namespace ndcuda::dist

#pragma GCC visibility pop
