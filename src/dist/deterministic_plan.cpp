// The block arithmetic of deterministic sums over ranks (include/ndcuda/dist/deterministic_plan.hpp).
#include <algorithm>
#include <ndcuda/dist/deterministic_plan.hpp>

namespace ndcuda::dist::detail {
namespace {

index_t round_up(index_t v, index_t block) {
  return (v + block - 1) / block * block;
}

/// The rank holding global element `pos` (ranges are in order and cover [0, n)).
int owner_of(const std::vector<fragment>& ranges, index_t pos) {
  for (std::size_t q = 0; q < ranges.size(); ++q) {
    if (ranges[q].begin <= pos && pos < ranges[q].end) {
      return static_cast<int>(q);
    }
  }
  return -1;  // unreachable for ranges that cover [0, n)
}

}  // namespace

deterministic_share share_of(index_t n, const std::vector<fragment>& ranges, int rank, index_t block) {
  deterministic_share share;
  const index_t begin = ranges[static_cast<std::size_t>(rank)].begin;
  const index_t end = ranges[static_cast<std::size_t>(rank)].end;
  if (begin == end) {
    return share;
  }
  if (begin % block != 0) {
    const index_t start = begin / block * block;
    share.outgoing = fragment{begin, std::min(end, round_up(begin, block)), owner_of(ranges, start)};
  }
  share.first_block = round_up(begin, block) / block;
  share.blocks = std::max<index_t>(0, round_up(end, block) / block - share.first_block);
  if (share.blocks == 0) {
    return share;
  }
  const index_t last = share.first_block + share.blocks - 1;
  const index_t last_end = std::min((last + 1) * block, n);
  if (last_end <= end) {
    share.in_place = end - share.first_block * block;
    return share;
  }
  share.in_place = (last - share.first_block) * block;
  share.assembled = fragment{last * block, last_end, rank};
  for (std::size_t q = static_cast<std::size_t>(rank) + 1; q < ranges.size() && ranges[q].begin < last_end; ++q) {
    if (ranges[q].begin < ranges[q].end) {
      share.incoming.push_back({ranges[q].begin, std::min(ranges[q].end, last_end), static_cast<int>(q)});
    }
  }
  return share;
}

}  // namespace ndcuda::dist::detail
