/// @file
/// The distinct values of a distributed array, and where they are: dist::unique (with NumPy's
/// return_index, return_inverse and return_counts), dist::unique_all, unique_counts,
/// unique_inverse and unique_values, equal to one GPU's nd::unique & co. The sample sort
/// (dist/sorting.hpp) leaves the sorted array as uneven runs, one per rank; each rank marks where
/// the runs of equal values start and end in its part, looking at its neighbours' edge elements for
/// the first and last, extracts the distinct values, the start positions and the end positions, and
/// one exchange moves them into the ordinary blocks. So the keys cross the interconnect once, as in
/// a sort, and only the distinct values a second time. return_index and return_inverse sort the
/// global positions along (dist/unique_positions.hpp): a run's first position is its value's first
/// index, and each element's value number goes back to the element's own shard in one more
/// all-to-all. Builds on dist/{sorting,indexing,unique_positions}.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <ndcuda/dist/indexing.hpp>
#include <ndcuda/dist/sorting.hpp>
#include <ndcuda/dist/unique_positions.hpp>
#include <ndcuda/ops/scans.hpp>
#include <optional>
#include <vector>

namespace ndcuda::dist {

/// What dist::unique_counts returns: the sorted distinct values and how often each occurs, both
/// sharded in the ordinary blocks (replicated when the input is).
template <class T>
struct unique_counts_result {
  distributed_array<T> values;             ///< the sorted distinct values
  distributed_array<std::int64_t> counts;  ///< how often each occurs
};

/// What dist::unique(x, options) and dist::unique_all return, as nd::unique_all_result: the sorted
/// distinct values, the first index of each in the flattened x, each element's position among the
/// values and how often each occurs. values, indices and counts are 1-d in the ordinary blocks,
/// inverse_indices has x's shape and sharding; all are replicated when x is. Fields not asked for
/// hold 0 elements.
template <class T>
struct unique_all_result {
  distributed_array<T> values;                      ///< the sorted distinct values
  distributed_array<std::int64_t> indices;          ///< the first (C-order flat) index of each value in x
  distributed_array<std::int64_t> inverse_indices;  ///< each element's position among the values, like x
  distributed_array<std::int64_t> counts;           ///< how often each value occurs
};

/// What dist::unique_inverse returns: the sorted distinct values (ordinary blocks) and each
/// element's position among them (of x's shape and sharding).
template <class T>
struct unique_inverse_result {
  distributed_array<T> values;                      ///< the sorted distinct values
  distributed_array<std::int64_t> inverse_indices;  ///< each element's position among the values, like x
};

namespace detail {

/// a == b elementwise, NaN equal to NaN when `equal_nan` (np.unique's equal_nan).
template <array_element T>
ndarray<bool> same_values(const ndarray<T>& a, const ndarray<T>& b, bool equal_nan) {
  if constexpr (is_floating(dtype_of<T>) || is_complex(dtype_of<T>)) {
    if (equal_nan) {
      return ndarray<bool>((a == b) | (isnan(a) & isnan(b)));
    }
  }
  return ndarray<bool>(a == b);
}

/// x as a 1-d block-sharded array of the same elements: itself when it is 1-d, else every shard
/// flattened and moved into the ordinary blocks (the order does not matter to unique).
template <array_element T>
distributed_array<T> elements_of(const distributed_array<T>& x) {
  if (x.ndim() == 1) {
    return x;
  }
  const communicator& comm = x.comm();
  std::vector<index_t> sizes;
  for (int q = 0; q < comm.size(); ++q) {
    sizes.push_back(box_size(x.box(q)));
  }
  std::vector<ndarray<T>> flat;
  for (int l = 0; l < comm.local_size(); ++l) {
    flat.push_back(x.local_shard(l).ravel());
  }
  return distributed_array<T>(comm, {x.size()}, sharding::block(0), to_blocks(flat, sizes, comm));
}

/// Where the runs of equal values start and end in each local rank's part of a sorted array.
struct run_marks {
  std::vector<ndarray<bool>> starts;  ///< per local rank: [i] a run of equal values starts at i
  std::vector<ndarray<bool>> ends;    ///< per local rank: [i] a run ends at i
};

/// The marks of the runs of `sorted`: within a rank by comparing neighbours, at its edges with the
/// last element of the nearest non-empty rank before it and the first of the one after (every
/// rank's two edge elements go to every rank: one small all-to-all).
template <array_element T>
run_marks mark_runs(const sorted_runs<T>& sorted, bool equal_nan, const communicator& comm) {
  const int p = comm.size();
  std::vector<ndarray<T>> edges;  // every rank's first and last (two placeholders from an empty run)
  for (int l = 0; l < comm.local_size(); ++l) {
    const ndarray<T>& run = sorted.keys[static_cast<std::size_t>(l)];
    ndarray<T> mine = zeros<T>({2}, comm.stream(l));
    if (run.size() > 0) {
      mine(slice(0, 1)).assign(run(slice(0, 1)));
      mine(slice(1, 2)).assign(run(slice(run.size() - 1, run.size())));
    }
    edges.push_back(mine);
  }
  const std::vector<ndarray<T>> all_edges =
      gather_everywhere(edges, std::vector<index_t>(static_cast<std::size_t>(p), 2), comm);
  const auto neighbour = [&](int rank, int step) -> std::optional<int> {  // the nearest non-empty run
    for (int q = rank + step; q >= 0 && q < p; q += step) {
      if (sorted.sizes[static_cast<std::size_t>(q)] > 0) {
        return q;
      }
    }
    return std::nullopt;
  };
  run_marks marks;
  for (int l = 0; l < comm.local_size(); ++l) {
    const auto lu = static_cast<std::size_t>(l);
    const int me = comm.rank(l);
    const stream& s = comm.stream(l);
    const ndarray<T>& run = sorted.keys[lu];
    const index_t n = run.size();
    ndarray<bool> starts_here = full<bool>({n}, true, s);
    ndarray<bool> ends_here = full<bool>({n}, true, s);
    if (n > 1) {
      const ndarray<bool> differs = ~same_values(run(slice(1, none)), run(slice(none, n - 1)), equal_nan);
      starts_here(slice(1, none)).assign(differs);
      ends_here(slice(none, n - 1)).assign(differs);
    }
    const ndarray<T>& seen = all_edges[lu];
    if (const auto before = neighbour(me, -1); n > 0 && before) {
      const index_t last = 2 * index_t{*before} + 1;
      starts_here(slice(0, 1)).assign(~same_values(run(slice(0, 1)), seen(slice(last, last + 1)), equal_nan));
    }
    if (const auto after = neighbour(me, +1); n > 0 && after) {
      const index_t first = 2 * index_t{*after};
      ends_here(slice(n - 1, n)).assign(~same_values(run(slice(n - 1, n)), seen(slice(first, first + 1)), equal_nan));
    }
    marks.starts.push_back(std::move(starts_here));
    marks.ends.push_back(std::move(ends_here));
  }
  return marks;
}

/// 0 int64 elements per local rank: the fields of unique_all_result that were not asked for.
inline distributed_array<std::int64_t> no_elements(const communicator& comm, const sharding& spec) {
  std::vector<ndarray<std::int64_t>> shards;
  for (int l = 0; l < comm.local_size(); ++l) {
    shards.push_back(empty<std::int64_t>({0}, comm.stream(l)));
  }
  return distributed_array<std::int64_t>(comm, {0}, spec, std::move(shards));
}

/// dist::unique of a replicated x: every rank holds everything, so each runs nd::unique itself.
template <array_element T>
unique_all_result<T> unique_replicated(const distributed_array<T>& x, const unique_options& o) {
  const communicator& comm = x.comm();
  const sharding rep = sharding::replicated();
  std::vector<ndarray<T>> values;
  std::vector<ndarray<std::int64_t>> indices;
  std::vector<ndarray<std::int64_t>> inverse;
  std::vector<ndarray<std::int64_t>> counts;
  for (int l = 0; l < comm.local_size(); ++l) {
    auto r = ndcuda::unique(x.local_shard(l), o);
    values.push_back(r.values);
    indices.push_back(r.indices);
    inverse.push_back(r.inverse_indices);
    counts.push_back(r.counts);
  }
  const index_t m = values.front().size();
  const auto field = [&](bool asked, const shape_t& shape, std::vector<ndarray<std::int64_t>>& shards) {
    return asked ? distributed_array<std::int64_t>(comm, shape, rep, std::move(shards)) : no_elements(comm, rep);
  };
  return {distributed_array<T>(comm, {m}, rep, std::move(values)), field(o.return_index, {m}, indices),
          field(o.return_inverse, x.shape(), inverse), field(o.return_counts, {m}, counts)};
}

/// dist::unique: see the file comment.
template <array_element T>
unique_all_result<T> unique_across_ranks(const distributed_array<T>& x, const unique_options& o) {
  if (x.is_replicated()) {
    return unique_replicated(x, o);
  }
  const communicator& comm = x.comm();
  const int p = comm.size();
  const bool positions = o.return_index || o.return_inverse;
  // The positions number the ravelled shards laid end to end, which is C order when x is 1-d or
  // sharded along axis 0. The first indices need C order, and so does the inverse when NaNs are
  // distinct (they are numbered in C order): then any other x is resharded along axis 0 first,
  // and the inverse goes back to x's sharding at the end.
  constexpr bool has_nans = is_floating(dtype_of<T>) || is_complex(dtype_of<T>);
  const bool c_order = o.return_index || (o.return_inverse && has_nans && !o.equal_nan);
  const distributed_array<T> home = c_order && x.ndim() > 1 && x.spec() != sharding::block(0) ? x.reshard(0) : x;
  const std::vector<index_t> home_starts = positions ? piece_starts(home) : std::vector<index_t>{};
  const sorted_runs<T> sorted =
      positions ? sort_with_positions(home, home_starts) : sort_into_runs(elements_of(x), false);
  const run_marks marks = mark_runs(sorted, o.equal_nan, comm);
  const home_groups groups = o.return_inverse ? group_by_home(sorted.positions, home_starts, comm) : home_groups{};
  std::vector<index_t> offsets;  // where each rank's run starts in the sorted array
  index_t offset = 0;
  for (int q = 0; q < p; ++q) {
    offsets.push_back(offset);
    offset += sorted.sizes[static_cast<std::size_t>(q)];
  }
  std::vector<ndarray<T>> values;
  std::vector<ndarray<std::int64_t>> firsts;
  std::vector<ndarray<std::int64_t>> starts;
  std::vector<ndarray<std::int64_t>> ends;
  std::vector<ndarray<std::int64_t>> counts;  // per rank: values, ends, then (inverse) p owner counts
  const index_t width = o.return_inverse ? 2 + p : 2;
  for (int l = 0; l < comm.local_size(); ++l) {
    const auto lu = static_cast<std::size_t>(l);
    const stream& s = comm.stream(l);
    const ndarray<bool>& starts_here = marks.starts[lu];
    values.push_back(ndcuda::extract(starts_here, sorted.keys[lu]));
    if (o.return_index) {
      firsts.push_back(ndcuda::extract(starts_here, sorted.positions[lu]));
    }
    index_t ending = 0;
    if (o.return_counts) {
      const auto begin = static_cast<double>(offsets[static_cast<std::size_t>(comm.rank(l))]);
      const ndarray<std::int64_t> position =
          ndcuda::arange<std::int64_t>(begin, begin + static_cast<double>(sorted.keys[lu].size()), 1.0, s);
      starts.push_back(ndcuda::extract(starts_here, position));
      ends.push_back(ndcuda::extract(marks.ends[lu], position));
      ending = ends.back().size();
    }
    ndarray<std::int64_t> row = empty<std::int64_t>({width}, s);
    const std::vector<std::int64_t> sizes{static_cast<std::int64_t>(values.back().size()), ending};
    row(slice(0, 2)).assign(asarray<std::int64_t>(sizes, {2}, s));
    if (o.return_inverse) {
      row(slice(2, width)).assign(groups.counts[lu]);
    }
    counts.push_back(row);
  }
  // A rank's distinct values start in its run; the last of them may end in a later run, so the
  // starts and the ends are moved into the ordinary blocks separately and subtracted there.
  const std::vector<std::int64_t> table = exchange_counts(counts, width, comm);
  std::vector<index_t> start_sizes;
  std::vector<index_t> end_sizes;
  std::vector<index_t> before;  // the distinct values that start on earlier ranks
  index_t m = 0;
  for (int q = 0; q < p; ++q) {
    start_sizes.push_back(table[static_cast<std::size_t>(q * width)]);
    end_sizes.push_back(table[static_cast<std::size_t>(q * width + 1)]);
    before.push_back(m);
    m += start_sizes.back();
  }
  const sharding blocks = sharding::block(0);
  const auto in_blocks = [&](std::vector<ndarray<std::int64_t>> shards) {
    return distributed_array<std::int64_t>(comm, {m}, blocks, std::move(shards));
  };
  unique_all_result<T> r{distributed_array<T>(comm, {m}, blocks, to_blocks(values, start_sizes, comm)),
                         no_elements(comm, blocks), no_elements(comm, blocks), no_elements(comm, blocks)};
  if (o.return_index) {
    r.indices = in_blocks(to_blocks(firsts, start_sizes, comm));
  }
  if (o.return_counts) {
    const std::vector<ndarray<std::int64_t>> start_blocks = to_blocks(starts, start_sizes, comm);
    const std::vector<ndarray<std::int64_t>> end_blocks = to_blocks(ends, end_sizes, comm);
    std::vector<ndarray<std::int64_t>> count_blocks;
    for (std::size_t l = 0; l < start_blocks.size(); ++l) {
      count_blocks.push_back(ndarray<std::int64_t>(end_blocks[l] - start_blocks[l] + std::int64_t{1}));
    }
    r.counts = in_blocks(std::move(count_blocks));
  }
  if (o.return_inverse) {
    // An element's value number: the run starts up to and including it, over all ranks, less one.
    std::vector<ndarray<std::int64_t>> numbers;
    for (int l = 0; l < comm.local_size(); ++l) {
      const auto lu = static_cast<std::size_t>(l);
      const ndarray<std::int64_t> seen = ndcuda::cumsum(marks.starts[lu], comm.stream(l));
      numbers.push_back(seen + static_cast<std::int64_t>(before[static_cast<std::size_t>(comm.rank(l))] - 1));
    }
    r.inverse_indices = send_home(home, home_starts, sorted.positions, numbers, groups, table, width, 2);
    if (home.spec() != x.spec()) {
      r.inverse_indices = r.inverse_indices.reshard(x.spec());
    }
  }
  return r;
}

}  // namespace detail

/// np.unique(x) of a distributed array (flattened; NaNs one value, NumPy's default): the sorted
/// distinct values, sharded in the ordinary blocks (replicated when x is), equal to one GPU's
/// nd::unique. The number of values is known only on the device, so this waits for it.
template <array_element T>
[[nodiscard]] distributed_array<T> unique(const distributed_array<T>& x) {
  return detail::unique_across_ranks(x, unique_options{}).values;
}

/// np.unique(x, return_index=..., return_inverse=..., return_counts=..., equal_nan=...) of a
/// distributed array, flattened in C order, equal to one GPU's nd::unique: the values and, when
/// asked, each value's first index, each element's position among the values (of x's shape and
/// sharding) and the counts (see unique_all_result; fields not asked for hold 0 elements).
/// Values and counts ride on the sort of the keys; index or inverse make the sort carry the int64
/// global positions too, and the inverse adds one all-to-all of (position, value number) pairs
/// back to the ranks that hold the elements. For the index (and for the inverse with distinct
/// NaNs) an x of several axes sharded otherwise than block(0) is resharded along axis 0 first,
/// since C order runs along it, and the inverse is resharded back to x's sharding.
template <array_element T>
[[nodiscard]] unique_all_result<T> unique(const distributed_array<T>& x, const unique_options& o) {
  return detail::unique_across_ranks(x, o);
}

/// The Array API's unique_all of a distributed array: values, first indices, inverse and counts,
/// NaNs distinct (as nd::unique_all).
template <array_element T>
[[nodiscard]] unique_all_result<T> unique_all(const distributed_array<T>& x) {
  return detail::unique_across_ranks(x, unique_options{true, true, true, false});
}

/// The Array API's unique_counts of a distributed array: values and counts, NaNs distinct (as
/// nd::unique_counts).
template <array_element T>
[[nodiscard]] unique_counts_result<T> unique_counts(const distributed_array<T>& x) {
  auto r = detail::unique_across_ranks(x, unique_options{false, false, true, false});
  return {std::move(r.values), std::move(r.counts)};
}

/// The Array API's unique_inverse of a distributed array: values and each element's position among
/// them (of x's shape and sharding), NaNs distinct (as nd::unique_inverse).
template <array_element T>
[[nodiscard]] unique_inverse_result<T> unique_inverse(const distributed_array<T>& x) {
  auto r = detail::unique_across_ranks(x, unique_options{false, true, false, false});
  return {std::move(r.values), std::move(r.inverse_indices)};
}

/// The Array API's unique_values of a distributed array: the sorted distinct values, NaNs distinct
/// (as nd::unique_values).
template <array_element T>
[[nodiscard]] distributed_array<T> unique_values(const distributed_array<T>& x) {
  return detail::unique_across_ranks(x, unique_options{false, false, false, false}).values;
}

}  // namespace ndcuda::dist

#pragma GCC visibility pop
