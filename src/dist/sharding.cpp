// Host arithmetic of sharding specs: grids, block extents, boxes and their overlaps, the sharding
// of reductions.
#include <algorithm>
#include <functional>
#include <ndcuda/core/error.hpp>
#include <ndcuda/dist/sharding.hpp>
#include <numeric>

namespace ndcuda::dist {
namespace {

std::string join(const std::vector<int>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    out += (i > 0 ? "," : "") + std::to_string(v[i]);
  }
  return out;
}

}  // namespace

std::string describe(const sharding& s) {
  if (s.is_replicated()) {
    return "replicated";
  }
  if (!s.is_grid() && s.grid.empty()) {
    return "block(axis=" + std::to_string(s.axes.front()) + ")";
  }
  return "block(axes=(" + join(s.axes) + "), grid=(" + join(s.grid) + "))";
}

sharding normalize(const sharding& s, int ndim) {
  if (s.is_replicated()) {
    if (!s.grid.empty()) {
      throw shape_error("sharding " + describe(s) + ": a grid without axes; give one array axis per grid dimension");
    }
    return s;
  }
  if (ndim == 0) {
    throw shape_error("sharding " + describe(s) + ": a 0-d array has no axis to shard; use sharding::replicated()");
  }
  if (s.is_grid() && s.grid.size() != s.axes.size()) {
    throw shape_error("sharding " + describe(s) + ": " + std::to_string(s.axes.size()) + " axes need a grid of " +
                      std::to_string(s.axes.size()) + " dimensions, as block({0, 1}, {2, 2})");
  }
  if (!s.is_grid() && s.grid.size() > 1) {
    throw shape_error("sharding " + describe(s) + ": a grid of " + std::to_string(s.grid.size()) +
                      " dimensions cuts one axis each; name " + std::to_string(s.grid.size()) + " axes");
  }
  if (std::any_of(s.grid.begin(), s.grid.end(), [](int g) { return g < 1; })) {
    throw shape_error("sharding " + describe(s) + ": every grid extent must be at least 1");
  }
  sharding out = s;
  for (int& a : out.axes) {
    a = normalize_axis(a, ndim);
  }
  std::vector<int> sorted = out.axes;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    throw shape_error("sharding " + describe(s) + ": an axis is cut by two grid dimensions; name each axis once");
  }
  return out;
}

sharding normalize(const sharding& s, int ndim, int ranks) {
  sharding out = normalize(s, ndim);
  (void)grid_of(out, ranks);  // the grid must hold exactly the ranks
  if (!out.is_grid()) {
    out.grid.clear();
  }
  return out;
}

std::vector<int> grid_of(const sharding& s, int ranks) {
  if (s.is_replicated()) {
    return {};
  }
  if (s.grid.empty()) {
    return {ranks};
  }
  const long long product = std::accumulate(s.grid.begin(), s.grid.end(), 1LL, std::multiplies<>());
  if (product != ranks) {
    throw shape_error("sharding " + describe(s) + ": the grid holds " + std::to_string(product) +
                      " ranks, the communicator has " + std::to_string(ranks) +
                      "; make the grid's extents multiply to the rank count");
  }
  return s.grid;
}

std::vector<int> grid_position(const sharding& s, int ranks, int rank) {
  const std::vector<int> grid = grid_of(s, ranks);
  std::vector<int> at(grid.size());
  for (std::size_t i = grid.size(); i-- > 0;) {
    at[i] = rank % grid[i];
    rank /= grid[i];
  }
  return at;
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

block_box shard_box(const shape_t& global, const sharding& s, int ranks, int rank) {
  block_box box(global.size());
  for (std::size_t d = 0; d < global.size(); ++d) {
    box[d] = {0, global[d]};
  }
  const std::vector<int> grid = grid_of(s, ranks);
  const std::vector<int> at = grid_position(s, ranks, rank);
  for (std::size_t i = 0; i < s.axes.size(); ++i) {
    const auto a = static_cast<std::size_t>(s.axes[i]);
    box[a] = block_of(global[a], grid[i], at[i]);
  }
  return box;
}

block_box intersect(const block_box& a, const block_box& b) {
  block_box out(a.size());
  for (std::size_t d = 0; d < a.size(); ++d) {
    out[d] = intersect(a[d], b[d]);
  }
  return out;
}

block_box relative_to(const block_box& inner, const block_box& outer) {
  block_box out(inner.size());
  for (std::size_t d = 0; d < inner.size(); ++d) {
    out[d] = {inner[d].begin - outer[d].begin, inner[d].end - outer[d].begin};
  }
  return out;
}

index_t box_size(const block_box& b) noexcept {
  index_t n = 1;
  for (const block_range& r : b) {
    n *= r.size();
  }
  return n;
}

shape_t shard_shape(const shape_t& global, const sharding& s, int ranks, int rank) {
  const block_box box = shard_box(global, s, ranks, rank);
  shape_t out(box.size());
  std::transform(box.begin(), box.end(), out.begin(), [](const block_range& r) { return r.size(); });
  return out;
}

sharding reduced_sharding(const sharding& s, const std::vector<int>& reduced, bool keepdims) {
  if (s.is_replicated()) {
    return s;
  }
  sharding out = s;
  for (int& axis : out.axes) {
    if (std::find(reduced.begin(), reduced.end(), axis) != reduced.end()) {
      return sharding::replicated();
    }
    if (!keepdims) {
      axis -= static_cast<int>(std::count_if(reduced.begin(), reduced.end(), [&](int r) { return r < axis; }));
    }
  }
  return out;
}

}  // namespace ndcuda::dist
