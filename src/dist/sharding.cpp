// Host arithmetic of sharding specs: block extents, overlaps, the sharding of reductions.
#include <algorithm>
#include <ndcuda/core/error.hpp>
#include <ndcuda/dist/sharding.hpp>

namespace ndcuda::dist {

std::string describe(const sharding& s) {
  if (s.is_replicated()) {
    return "replicated";
  }
  std::string out = "block(axis=";
  for (std::size_t i = 0; i < s.axes.size(); ++i) {
    out += (i > 0 ? "," : "") + std::to_string(s.axes[i]);
  }
  return out + ")";
}

sharding normalize(const sharding& s, int ndim) {
  if (s.axes.size() > 1 || s.grid.size() > 1) {
    throw shape_error("sharding " + describe(s) +
                      ": only 1-D block grids (one sharded axis) and replicated arrays are supported; shard along "
                      "one axis");
  }
  if (s.is_replicated()) {
    return s;
  }
  if (ndim == 0) {
    throw shape_error("sharding " + describe(s) + ": a 0-d array has no axis to shard; use sharding::replicated()");
  }
  return sharding::block(normalize_axis(s.axes.front(), ndim));
}

block_range block_of(index_t extent, int ranks, int rank) {
  if (ranks <= 0 || rank < 0 || rank >= ranks) {
    throw shape_error("block_of: rank " + std::to_string(rank) + " is not in [0, " + std::to_string(ranks) + ")");
  }
  const index_t base = extent / ranks;
  const index_t extra = extent % ranks;
  const index_t begin = rank * base + std::min<index_t>(rank, extra);
  return {begin, begin + base + (rank < extra ? 1 : 0)};
}

block_range intersect(const block_range& a, const block_range& b) noexcept {
  const index_t begin = std::max(a.begin, b.begin);
  const index_t end = std::min(a.end, b.end);
  return begin < end ? block_range{begin, end} : block_range{begin, begin};
}

shape_t shard_shape(const shape_t& global, const sharding& s, int ranks, int rank) {
  shape_t out = global;
  if (!s.is_replicated()) {
    const auto axis = static_cast<std::size_t>(s.axis());
    out[axis] = block_of(global[axis], ranks, rank).size();
  }
  return out;
}

sharding reduced_sharding(const sharding& s, const std::vector<int>& reduced, bool keepdims) {
  if (s.is_replicated()) {
    return s;
  }
  const int axis = s.axis();
  if (std::find(reduced.begin(), reduced.end(), axis) != reduced.end()) {
    return sharding::replicated();
  }
  if (keepdims) {
    return s;
  }
  const auto before = std::count_if(reduced.begin(), reduced.end(), [&](int r) { return r < axis; });
  return sharding::block(axis - static_cast<int>(before));
}

}  // namespace ndcuda::dist
