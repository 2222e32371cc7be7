/// @file
/// The distinct values of a distributed array and how often each occurs: dist::unique,
/// dist::unique_values and dist::unique_counts, equal to one GPU's nd::unique & co. The sample sort
/// (dist/sorting.hpp) leaves the sorted array as uneven runs, one per rank; each rank marks where
/// the runs of equal values start and end in its part, looking at its neighbours' edge elements for
/// the first and last, extracts the distinct values, the start positions and the end positions, and
/// one exchange moves them into the ordinary blocks. So the keys cross the interconnect once, as in
/// a sort, and only the distinct values a second time. Builds on dist/{sorting,indexing}.hpp.
#pragma once

#include <cstdint>
#include <ndcuda/dist/indexing.hpp>
#include <ndcuda/dist/sorting.hpp>
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

/// The distinct values of x with their counts: see the file comment.
template <array_element T>
unique_counts_result<T> unique_across_ranks(const distributed_array<T>& x, bool equal_nan, bool with_counts) {
  const communicator& comm = x.comm();
  if (x.is_replicated()) {  // every rank holds everything: each finds the values itself
    std::vector<ndarray<T>> values;
    std::vector<ndarray<std::int64_t>> counts;
    for (int l = 0; l < comm.local_size(); ++l) {
      auto r = ndcuda::unique(x.local_shard(l), unique_options{false, false, with_counts, equal_nan});
      values.push_back(r.values);
      counts.push_back(with_counts ? r.counts : empty<std::int64_t>({r.values.size()}, comm.stream(l)));
    }
    const index_t m = values.front().size();
    return {distributed_array<T>(comm, {m}, sharding::replicated(), std::move(values)),
            distributed_array<std::int64_t>(comm, {m}, sharding::replicated(), std::move(counts))};
  }
  const int p = comm.size();
  const sorted_runs<T> sorted = sort_into_runs(elements_of(x), false);
  // Every rank's first and last element on every process (two placeholders from an empty run).
  std::vector<ndarray<T>> edges;
  for (int l = 0; l < comm.local_size(); ++l) {
    const ndarray<T>& run = sorted.keys[static_cast<std::size_t>(l)];
    const stream& s = comm.stream(l);
    ndarray<T> mine = zeros<T>({2}, s);
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
  std::vector<ndarray<T>> values;
  std::vector<ndarray<std::int64_t>> starts;
  std::vector<ndarray<std::int64_t>> ends;
  std::vector<ndarray<std::int64_t>> counts;
  index_t offset = 0;
  std::vector<index_t> offsets;
  for (int q = 0; q < p; ++q) {
    offsets.push_back(offset);
    offset += sorted.sizes[static_cast<std::size_t>(q)];
  }
  for (int l = 0; l < comm.local_size(); ++l) {
    const auto lu = static_cast<std::size_t>(l);
    const int me = comm.rank(l);
    const stream& s = comm.stream(l);
    const ndarray<T>& run = sorted.keys[lu];
    const index_t n = run.size();
    // starts_here[i]: a run of equal values starts at i; ends_here[i]: one ends at i.
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
    values.push_back(ndcuda::extract(starts_here, run));
    index_t ending = 0;
    if (with_counts) {
      const auto begin = static_cast<double>(offsets[static_cast<std::size_t>(me)]);
      const ndarray<std::int64_t> position =
          ndcuda::arange<std::int64_t>(begin, begin + static_cast<double>(n), 1.0, s);
      starts.push_back(ndcuda::extract(starts_here, position));
      ends.push_back(ndcuda::extract(ends_here, position));
      ending = ends.back().size();
    }
    const std::vector<std::int64_t> sizes{static_cast<std::int64_t>(values.back().size()), ending};
    counts.push_back(asarray<std::int64_t>(sizes, {2}, s));
  }
  // A rank's distinct values start in its run; the last of them may end in a later run, so the
  // starts and the ends are moved into the ordinary blocks separately and subtracted there.
  const std::vector<std::int64_t> table = exchange_counts(counts, 2, comm);  // [2 q]: starts, [2 q + 1]: ends
  std::vector<index_t> start_sizes;
  std::vector<index_t> end_sizes;
  index_t m = 0;
  for (int q = 0; q < p; ++q) {
    start_sizes.push_back(table[2 * static_cast<std::size_t>(q)]);
    end_sizes.push_back(table[2 * static_cast<std::size_t>(q) + 1]);
    m += start_sizes.back();
  }
  std::vector<ndarray<T>> value_blocks = to_blocks(values, start_sizes, comm);
  std::vector<ndarray<std::int64_t>> count_blocks;
  if (with_counts) {
    const std::vector<ndarray<std::int64_t>> start_blocks = to_blocks(starts, start_sizes, comm);
    const std::vector<ndarray<std::int64_t>> end_blocks = to_blocks(ends, end_sizes, comm);
    for (std::size_t l = 0; l < start_blocks.size(); ++l) {
      count_blocks.push_back(ndarray<std::int64_t>(end_blocks[l] - start_blocks[l] + std::int64_t{1}));
    }
  } else {
    for (int l = 0; l < comm.local_size(); ++l) {
      count_blocks.push_back(empty<std::int64_t>({block_of(m, p, comm.rank(l)).size()}, comm.stream(l)));
    }
  }
  return {distributed_array<T>(comm, {m}, sharding::block(0), std::move(value_blocks)),
          distributed_array<std::int64_t>(comm, {m}, sharding::block(0), std::move(count_blocks))};
}

}  // namespace detail

/// np.unique(x) of a distributed array (flattened; NaNs one value, NumPy's default): the sorted
/// distinct values, sharded in the ordinary blocks (replicated when x is), equal to one GPU's
/// nd::unique. The number of values is known only on the device, so this waits for it.
template <array_element T>
[[nodiscard]] distributed_array<T> unique(const distributed_array<T>& x) {
  return detail::unique_across_ranks(x, true, false).values;
}

/// np.unique(x, return_counts=..., equal_nan=...) of a distributed array: the values and, when
/// asked, their counts (else `counts` holds unspecified numbers). return_index and return_inverse
/// are not distributed: a value_error says so.
template <array_element T>
[[nodiscard]] unique_counts_result<T> unique(const distributed_array<T>& x, const unique_options& o) {
  if (o.return_index || o.return_inverse) {
    throw value_error(
        "dist::unique: return_index and return_inverse are not available for distributed arrays (only the values "
        "and return_counts are); gather() the array and call nd::unique for them");
  }
  return detail::unique_across_ranks(x, o.equal_nan, o.return_counts);
}

/// The Array API's unique_counts of a distributed array: values and counts, NaNs distinct (as
/// nd::unique_counts).
template <array_element T>
[[nodiscard]] unique_counts_result<T> unique_counts(const distributed_array<T>& x) {
  return detail::unique_across_ranks(x, false, true);
}

/// The Array API's unique_values of a distributed array: the sorted distinct values, NaNs distinct
/// (as nd::unique_values).
template <array_element T>
[[nodiscard]] distributed_array<T> unique_values(const distributed_array<T>& x) {
  return detail::unique_across_ranks(x, false, false).values;
}

}  // namespace ndcuda::dist
