/// @file
/// Which fixed blocks of a deterministic sum (ops/deterministic.hpp) each rank sums, and which
/// pieces of a block cut by a shard boundary travel to the rank that owns the block: host-side
/// arithmetic only, tested without a GPU. Builds on core/shape.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/core/shape.hpp>
#include <optional>
#include <vector>

namespace ndcuda::dist::detail {

/// Global C-order elements [begin, end), sent to or received from group rank `rank`.
struct fragment {
  index_t begin = 0;  ///< the first global element
  index_t end = 0;    ///< one past the last
  int rank = 0;       ///< the rank at the other end
  friend bool operator==(const fragment&, const fragment&) = default;
};

/// One rank's share of a deterministic sum over `n` elements cut into contiguous flat ranges.
/// A rank owns the blocks that start inside its range; a block that runs past its range's end is
/// assembled in a buffer from its own tail and the heads of the following ranks.
struct deterministic_share {
  index_t first_block = 0;  ///< the first block this rank owns
  index_t blocks = 0;       ///< how many it owns (all consecutive)
  /// Elements from the first owned block's start that lie on this rank and form whole blocks (or
  /// run to the global end): summed in place.
  index_t in_place = 0;
  /// The owned block that runs past this rank's range, when there is one: its global range.
  std::optional<fragment> assembled;
  /// The pieces of `assembled` held by later ranks, in order.
  std::vector<fragment> incoming;
  /// This rank's head when it belongs to a block owned by an earlier rank.
  std::optional<fragment> outgoing;
};

/// The share of `rank` when rank q holds flat elements `ranges[q]` (contiguous, in rank order,
/// covering [0, n)), with blocks of `block` elements.
[[nodiscard]] deterministic_share share_of(index_t n, const std::vector<fragment>& ranges, int rank, index_t block);

}  // namespace ndcuda::dist::detail

#pragma GCC visibility pop
