// The block arithmetic of dist::sum(x, nd::deterministic), without a GPU: for many sizes and
// rank counts (uneven, empty ranks, blocks spanning several ranks), every block is owned by the
// rank holding its start, every element is summed exactly once in its block, and what each rank
// sends is exactly what the owner expects to receive.
#include <gtest/gtest.h>

#include <map>
#include <ndcuda/dist/deterministic_plan.hpp>
#include <ndcuda/dist/sharding.hpp>
#include <random>
#include <vector>

namespace nd = ndcuda;
namespace dd = ndcuda::dist::detail;

namespace {

std::vector<dd::fragment> ranges_of(nd::index_t rows, nd::index_t row, int ranks) {
  std::vector<dd::fragment> ranges;
  for (int q = 0; q < ranks; ++q) {
    const auto r = nd::dist::block_of(rows, ranks, q);
    ranges.push_back({r.begin * row, r.end * row, q});
  }
  return ranges;
}

void check(nd::index_t rows, nd::index_t row, int ranks, nd::index_t block) {
  const nd::index_t n = rows * row;
  const auto ranges = ranges_of(rows, row, ranks);
  const std::string what = std::to_string(rows) + " x " + std::to_string(row) + " over " + std::to_string(ranks) +
                           " ranks, blocks of " + std::to_string(block);
  std::vector<int> covered(static_cast<std::size_t>(n), 0);
  std::vector<int> block_owner(static_cast<std::size_t>((n + block - 1) / block), -1);
  std::map<std::pair<int, nd::index_t>, dd::fragment> sent;  // (owner, begin) -> fragment with the sender
  std::vector<dd::deterministic_share> shares;
  for (int q = 0; q < ranks; ++q) {
    shares.push_back(dd::share_of(n, ranges, q, block));
    if (shares.back().outgoing) {
      const auto f = *shares.back().outgoing;
      sent[{f.rank, f.begin}] = {f.begin, f.end, q};
    }
  }
  for (int q = 0; q < ranks; ++q) {
    const auto& s = shares[static_cast<std::size_t>(q)];
    const auto& mine = ranges[static_cast<std::size_t>(q)];
    for (nd::index_t k = s.first_block; k < s.first_block + s.blocks; ++k) {
      ASSERT_EQ(block_owner[static_cast<std::size_t>(k)], -1) << what << ": block " << k << " owned twice";
      block_owner[static_cast<std::size_t>(k)] = q;
      ASSERT_TRUE(mine.begin <= k * block && k * block < mine.end) << what << ": block " << k << " starts elsewhere";
    }
    ASSERT_TRUE(s.in_place % block == 0 || s.first_block * block + s.in_place == n) << what;
    for (nd::index_t i = s.first_block * block; i < s.first_block * block + s.in_place; ++i) {
      ASSERT_LT(i, mine.end) << what;
      ++covered[static_cast<std::size_t>(i)];
    }
    if (s.assembled) {
      ASSERT_EQ(s.assembled->begin, (s.first_block + s.blocks - 1) * block) << what;
      ASSERT_GT(s.assembled->end, mine.end) << what;
      nd::index_t next = mine.end;
      for (nd::index_t i = s.assembled->begin; i < mine.end; ++i) {
        ++covered[static_cast<std::size_t>(i)];
      }
      for (const auto& f : s.incoming) {
        ASSERT_EQ(f.begin, next) << what << ": a gap in the assembled block";
        const auto it = sent.find({q, f.begin});
        ASSERT_NE(it, sent.end()) << what << ": rank " << f.rank << " sends nothing to " << q;
        ASSERT_EQ(it->second, f) << what;
        sent.erase(it);
        for (nd::index_t i = f.begin; i < f.end; ++i) {
          ++covered[static_cast<std::size_t>(i)];
        }
        next = f.end;
      }
      ASSERT_EQ(next, s.assembled->end) << what;
    }
  }
  EXPECT_TRUE(sent.empty()) << what << ": a fragment nobody receives";
  for (std::size_t k = 0; k < block_owner.size(); ++k) {
    ASSERT_NE(block_owner[k], -1) << what << ": block " << k << " has no owner";
  }
  for (std::size_t i = 0; i < covered.size(); ++i) {
    ASSERT_EQ(covered[i], 1) << what << ": element " << i;
  }
}

}  // namespace

TEST(DeterministicPlan, EveryElementOnceInItsBlockAndEveryFragmentReceived) {
  for (int ranks = 1; ranks <= 5; ++ranks) {
    for (nd::index_t rows : {0, 1, 3, 7, 64, 1000, 4099}) {
      for (nd::index_t row : {1, 5, 16}) {
        for (nd::index_t block : {1, 4, 64, 1024}) {
          check(rows, row, ranks, block);
        }
      }
    }
  }
  std::mt19937 gen(20261129);
  for (int trial = 0; trial < 200; ++trial) {
    const int ranks = 1 + static_cast<int>(gen() % 8);
    check(static_cast<nd::index_t>(gen() % 5000), 1 + static_cast<nd::index_t>(gen() % 9), ranks,
          nd::index_t{1} << (gen() % 11));
  }
}

TEST(DeterministicPlan, ABlockOverManySmallShardsGathersOnItsFirstRank) {
  // 10 elements over 4 ranks (3, 3, 2, 2) in blocks of 8: rank 0 owns block 0 and assembles it
  // from its 3 and the heads of ranks 1 and 2; rank 2 owns block 1 ([8, 10)) whole.
  std::vector<dd::fragment> ranges{{0, 3, 0}, {3, 6, 1}, {6, 8, 2}, {8, 10, 3}};
  const auto first = dd::share_of(10, ranges, 0, 8);
  ASSERT_TRUE(first.assembled.has_value());
  EXPECT_EQ(first.assembled->end, 8);
  ASSERT_EQ(first.incoming.size(), 2U);
  EXPECT_EQ(first.incoming[1], (dd::fragment{6, 8, 2}));
  const auto second = dd::share_of(10, ranges, 1, 8);
  EXPECT_EQ(second.blocks, 0);
  EXPECT_EQ(second.outgoing, (dd::fragment{3, 6, 0}));
  const auto last = dd::share_of(10, ranges, 3, 8);
  EXPECT_EQ(last.blocks, 1);
  EXPECT_EQ(last.in_place, 2);
  EXPECT_FALSE(last.outgoing.has_value());
}
