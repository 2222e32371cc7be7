/// @file
/// The sharding spec of a distributed array (replicated, or blocks along one axis) and the host
/// arithmetic of shard extents and overlaps. Builds on core/shape.hpp only: no GPU, no NCCL.
#pragma once

#include <ndcuda/core/shape.hpp>
#include <string>
#include <vector>

namespace ndcuda::dist {

/// How a global array is laid over the ranks of a communicator.
///
/// - replicated(): every rank holds the whole array.
/// - block(axis): the array is cut along `axis` into one contiguous block per rank, in rank order;
///   an extent n over p ranks gives the first n % p ranks n / p + 1 elements and the others n / p.
///
/// `axes` has one entry per dimension of the rank grid: none for replicated, one for block. A 2-D
/// block grid (rows over one set of ranks, columns over another) will be a second entry and a
/// `grid` shape; today a spec with more than one axis is refused.
struct sharding {
  std::vector<int> axes;  ///< the array axes cut by the rank grid, one per grid dimension
  std::vector<int> grid;  ///< ranks along each grid dimension; empty means all ranks along axes[0]

  /// Every rank holds the whole array.
  [[nodiscard]] static sharding replicated() { return {}; }
  /// Contiguous blocks along `axis`, one per rank, in rank order.
  [[nodiscard]] static sharding block(int axis) { return {{axis}, {}}; }

  /// Whether every rank holds the whole array.
  [[nodiscard]] bool is_replicated() const noexcept { return axes.empty(); }
  /// The sharded axis of a 1-D block grid; -1 when replicated.
  [[nodiscard]] int axis() const noexcept { return axes.empty() ? -1 : axes.front(); }

  friend bool operator==(const sharding&, const sharding&) = default;
};

/// "replicated" or "block(axis=1)", for messages.
[[nodiscard]] std::string describe(const sharding& s);

/// `s` with its axis normalised for an array of `ndim` dimensions; throws shape_error for an axis
/// out of range or a grid of more than one dimension (not supported yet).
[[nodiscard]] sharding normalize(const sharding& s, int ndim);

/// The half-open range [begin, end) of block `rank` when `extent` is cut over `ranks` blocks.
struct block_range {
  index_t begin = 0;  ///< the first index of the block
  index_t end = 0;    ///< one past its last index
  /// The extent of the block.
  [[nodiscard]] index_t size() const noexcept { return end - begin; }
  friend bool operator==(const block_range&, const block_range&) = default;
};
/// Block `rank` of `extent` cut into `ranks` near-equal blocks (the first ones one longer).
[[nodiscard]] block_range block_of(index_t extent, int ranks, int rank);

/// The overlap of two ranges (empty, begin == end, when they do not meet).
[[nodiscard]] block_range intersect(const block_range& a, const block_range& b) noexcept;

/// The shape rank `rank` holds of a `global` array sharded as `s` (normalised) over `ranks` ranks.
[[nodiscard]] shape_t shard_shape(const shape_t& global, const sharding& s, int ranks, int rank);

/// The sharding of the result when axes `reduced` (normalised, sorted) of an array sharded as `s`
/// are reduced: replicated when the sharded axis is among them, else the same cut on the axis's
/// new position (unchanged with keepdims).
[[nodiscard]] sharding reduced_sharding(const sharding& s, const std::vector<int>& reduced, bool keepdims);

}  // namespace ndcuda::dist
