/// @file
/// The sharding spec of a distributed array (replicated, blocks along one axis, or a 2-D or larger
/// grid of blocks) and the host arithmetic of shard boxes and overlaps. Builds on core/shape.hpp
/// only: no GPU, no NCCL.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/core/shape.hpp>
#include <string>
#include <vector>

namespace ndcuda::dist {

/// How a global array is laid over the ranks of a communicator.
///
/// - replicated(): every rank holds the whole array.
/// - block(axis): the array is cut along `axis` into one contiguous block per rank, in rank order;
///   an extent n over p ranks gives the first n % p ranks n / p + 1 elements and the others n / p.
/// - block(axes, grid): the ranks form a grid of shape `grid` (row-major: rank r of a g0 x g1 grid
///   sits at (r / g1, r % g1), as in MPI's Cartesian communicators and JAX's meshes), and grid
///   dimension i cuts array axis axes[i] into grid[i] blocks, cut as above. block({0, 1}, {2, 2})
///   gives each of 4 ranks one quarter of a matrix; the product of `grid` must be the rank count.
///
/// `axes` has one entry per dimension of the rank grid: none for replicated, one for a 1-D block.
struct sharding {
  std::vector<int> axes;  ///< the array axes cut by the rank grid, one per grid dimension
  std::vector<int> grid;  ///< ranks along each grid dimension; empty means all ranks along axes[0]

  /// Every rank holds the whole array.
  [[nodiscard]] static sharding replicated() { return {}; }
  /// Contiguous blocks along `axis`, one per rank, in rank order.
  [[nodiscard]] static sharding block(int axis) { return {{axis}, {}}; }
  /// A grid of blocks: grid dimension i cuts axis axes[i] into grid[i] blocks (see above).
  [[nodiscard]] static sharding block(std::vector<int> axes, std::vector<int> grid) {
    return {std::move(axes), std::move(grid)};
  }

  /// Whether every rank holds the whole array.
  [[nodiscard]] bool is_replicated() const noexcept { return axes.empty(); }
  /// Whether more than one axis is cut (a 2-D or larger grid of blocks).
  [[nodiscard]] bool is_grid() const noexcept { return axes.size() > 1; }
  /// The sharded axis of a 1-D block grid (the first cut axis of a larger grid); -1 when replicated.
  [[nodiscard]] int axis() const noexcept { return axes.empty() ? -1 : axes.front(); }

  friend bool operator==(const sharding&, const sharding&) = default;
};

/// "replicated", "block(axis=1)" or "block(axes=(0,1), grid=(2,2))", for messages.
[[nodiscard]] std::string describe(const sharding& s);

/// `s` with its axes normalised for an array of `ndim` dimensions; throws shape_error for an axis
/// out of range, an axis cut twice, or a grid whose shape does not match its axes.
[[nodiscard]] sharding normalize(const sharding& s, int ndim);
/// normalize(s, ndim), checked against `ranks` (the grid's product must be the rank count), with
/// a 1-D grid written as block(axis): the form distributed_array keeps and compares.
[[nodiscard]] sharding normalize(const sharding& s, int ndim, int ranks);

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

/// A rank's part of an array: one range per axis (the whole extent on axes that are not cut).
using block_box = std::vector<block_range>;

/// The grid shape of `s` over `ranks` ranks: {ranks} for a 1-D block, empty when replicated.
/// Throws shape_error when the grid's product is not `ranks`.
[[nodiscard]] std::vector<int> grid_of(const sharding& s, int ranks);
/// Rank `rank`'s position in the grid of `s` (row-major), one coordinate per grid dimension.
[[nodiscard]] std::vector<int> grid_position(const sharding& s, int ranks, int rank);
/// The box of a `global` array that rank `rank` holds when it is sharded as `s` over `ranks` ranks.
[[nodiscard]] block_box shard_box(const shape_t& global, const sharding& s, int ranks, int rank);
/// The overlap of two boxes (an empty range on some axis when they do not meet).
[[nodiscard]] block_box intersect(const block_box& a, const block_box& b);
/// `inner` in coordinates that start at `outer`'s first corner (inner must lie inside outer).
[[nodiscard]] block_box relative_to(const block_box& inner, const block_box& outer);
/// The number of elements of a box.
[[nodiscard]] index_t box_size(const block_box& b) noexcept;

/// The shape rank `rank` holds of a `global` array sharded as `s` (normalised) over `ranks` ranks.
[[nodiscard]] shape_t shard_shape(const shape_t& global, const sharding& s, int ranks, int rank);

/// The sharding of the result when axes `reduced` (normalised, sorted) of an array sharded as `s`
/// are reduced: replicated when a sharded axis is among them, else the same cut on the axes' new
/// positions (unchanged with keepdims).
[[nodiscard]] sharding reduced_sharding(const sharding& s, const std::vector<int>& reduced, bool keepdims);

}  // namespace ndcuda::dist

#pragma GCC visibility pop
