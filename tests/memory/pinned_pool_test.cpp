// The pinned pool's size classes and event-guarded reuse, against a simulated upstream: no GPU needed.
#include <gtest/gtest.h>

#include <atomic>
#include <ndcuda/core/error.hpp>
#include <ndcuda/memory/pinned_pool_resource.hpp>
#include <random>
#include <thread>
#include <vector>

#include "support/gpu.hpp"
#include "support/simulated_memory.hpp"

namespace nd = ndcuda;
using nd::testing::fake_stream;
using nd::testing::simulated_ordering;
using nd::testing::simulated_upstream;

namespace {

constexpr std::size_t KiB = std::size_t{1} << 10;
constexpr std::size_t MiB = std::size_t{1} << 20;
constexpr std::size_t GiB = std::size_t{1} << 30;

struct sim_pinned {
  std::shared_ptr<simulated_upstream> upstream;
  std::shared_ptr<simulated_ordering> ordering;
  std::unique_ptr<nd::pinned_pool_resource> pool;

  explicit sim_pinned(nd::pinned_pool_options options = {}, std::size_t capacity = 16 * GiB)
      : upstream(std::make_shared<simulated_upstream>(capacity)),
        ordering(std::make_shared<simulated_ordering>()),
        pool(std::make_unique<nd::pinned_pool_resource>(options, upstream, ordering)) {}

  nd::pinned_pool_resource* operator->() { return pool.get(); }
};

}  // namespace

TEST(PinnedPool, SizeClassesWasteAtMostAQuarter) {
  sim_pinned sim;
  EXPECT_EQ(sim->size_class(1), 4 * KiB);
  EXPECT_EQ(sim->size_class(4 * KiB), 4 * KiB);
  EXPECT_EQ(sim->size_class(4 * KiB + 1), 5 * KiB);
  EXPECT_EQ(sim->size_class(MiB), MiB);
  EXPECT_EQ(sim->size_class(MiB + 1), MiB + 256 * KiB);
  EXPECT_EQ(sim->size_class(3 * MiB), 3 * MiB);
  EXPECT_EQ(sim->size_class(GiB + 1), GiB + 256 * MiB);
  std::mt19937_64& rng = nd::testing::rng();
  for (int i = 0; i < 10000; ++i) {
    const std::size_t n = 1 + rng() % (std::size_t{1} << (1 + rng() % 40));
    const std::size_t c = sim->size_class(n);
    ASSERT_GE(c, n);
    ASSERT_LE(c, std::max<std::size_t>(4 * KiB, n + n / 4 + 1)) << n;
    ASSERT_EQ(c % 256, 0U);
  }
}

TEST(PinnedPool, KindAndDevice) {
  sim_pinned sim;
  EXPECT_EQ(sim->kind(), nd::memory_kind::pinned_host);
  EXPECT_EQ(sim->device(), nd::host_device);
}

TEST(PinnedPool, ZeroSizeAndNullFree) {
  sim_pinned sim;
  const auto s = fake_stream(1);
  EXPECT_EQ(sim->allocate(0, s), nullptr);
  EXPECT_NO_THROW(sim->deallocate(nullptr, 0, s));
  EXPECT_NO_THROW(sim->deallocate(nullptr, 100, s));
  EXPECT_EQ(sim->stats().allocation_count, 0U);
  EXPECT_TRUE(sim.upstream->requests().empty());
}

TEST(PinnedPool, ABlockIsReusedOnlyAfterItsLastUseCompleted) {
  sim_pinned sim;
  const auto a = fake_stream(1);
  const auto b = fake_stream(2);
  void* p = sim->allocate(MiB, a);
  sim.ordering->enqueue(a);  // a DMA reads p
  sim->deallocate(p, MiB, a);
  // Not even the same stream may have it: the host could write into it at once.
  void* q = sim->allocate(MiB, a);
  EXPECT_NE(q, p);
  EXPECT_EQ(sim->pending_bytes(), MiB);
  sim.ordering->finish(a);
  EXPECT_EQ(sim->pending_bytes(), 0U);
  void* r = sim->allocate(MiB, b);  // any stream, once the copy is done
  EXPECT_EQ(r, p);
  EXPECT_TRUE(sim.ordering->waits().empty());
  sim->deallocate(q, MiB, a);
  sim->deallocate(r, MiB, b);
  sim.ordering->finish(a);
  sim.ordering->finish(b);
  EXPECT_EQ(sim->free_all_blocks(), 2 * MiB);
  EXPECT_EQ(sim.ordering->live_tokens(), 0U);
}

TEST(PinnedPool, FreeAllBlocksReturnsCompletedBlocksAndKeepsPendingOnes) {
  sim_pinned sim;
  const auto a = fake_stream(1);
  const auto b = fake_stream(2);
  void* p = sim->allocate(2 * MiB, a);
  void* q = sim->allocate(3 * MiB, b);
  sim.ordering->enqueue(a);
  sim.ordering->enqueue(b);
  sim->deallocate(p, 2 * MiB, a);
  sim->deallocate(q, 3 * MiB, b);
  sim.ordering->finish(a);  // p's copy is done, q's is not
  EXPECT_EQ(sim->free_all_blocks(), 2 * MiB);
  nd::memory_stats st = sim->stats();
  EXPECT_EQ(st.reserved_bytes, 3 * MiB);
  EXPECT_EQ(st.cached_bytes, 3 * MiB);
  EXPECT_EQ(sim->pending_bytes(), 3 * MiB);
  sim.ordering->finish(b);
  EXPECT_EQ(sim->free_all_blocks(), 3 * MiB);
  st = sim->stats();
  EXPECT_EQ(st.reserved_bytes, 0U);
  EXPECT_EQ(st.cached_bytes, 0U);
  EXPECT_EQ(st.upstream_frees, 2U);
  EXPECT_EQ(sim.upstream->in_use(), 0U);
}

TEST(PinnedPool, LimitIsHonouredAndPendingBlocksDoNotCount) {
  nd::pinned_pool_options options;
  options.limit = 8 * KiB;
  sim_pinned sim(options);
  const auto s = fake_stream(1);
  void* a = sim->allocate(4 * KiB, s);
  void* b = sim->allocate(4 * KiB, s);
  try {
    (void)sim->allocate(4 * KiB, s);
    FAIL() << "the limit was exceeded";
  } catch (const nd::out_of_memory& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("out of pinned host memory"), std::string::npos) << what;
    EXPECT_NE(what.find("limit 8 KiB"), std::string::npos) << what;
    EXPECT_NE(what.find("simulated upstream"), std::string::npos) << what;
  }
  sim.ordering->enqueue(s);
  sim->deallocate(a, 4 * KiB, s);
  EXPECT_THROW((void)sim->allocate(4 * KiB, s), nd::out_of_memory) << "a pending block was handed out";
  sim.ordering->finish(s);
  void* c = sim->allocate(4 * KiB, s);
  EXPECT_EQ(c, a);
  sim->set_limit(16 * KiB);
  EXPECT_EQ(sim->limit(), 16 * KiB);
  void* d = sim->allocate(4 * KiB, s);
  EXPECT_NE(d, nullptr);
  for (void* p : {b, c, d}) {
    sim->deallocate(p, 4 * KiB, s);
  }
}

TEST(PinnedPool, OutOfMemoryReleasesCompletedBlocksAndRetriesOnce) {
  sim_pinned sim({}, 8 * KiB);
  const auto s = fake_stream(1);
  void* small = sim->allocate(4 * KiB, s);
  sim->deallocate(small, 4 * KiB, s);
  sim.ordering->finish(s);
  void* big = sim->allocate(8 * KiB, s);  // fits only once the cached 4 KiB block is unpinned
  EXPECT_NE(big, nullptr);
  EXPECT_EQ(sim.upstream->frees(), (std::vector<std::size_t>{4 * KiB}));
  sim->deallocate(big, 8 * KiB, s);
  EXPECT_THROW((void)sim->allocate(std::size_t{1} << 50, s), nd::out_of_memory);
  EXPECT_THROW((void)sim->allocate(~std::size_t{0}, s), nd::out_of_memory);
}

TEST(PinnedPool, UpstreamFailureRollsBackTheLimitReservation) {
  nd::pinned_pool_options options;
  options.limit = 8 * KiB;
  sim_pinned sim(options);
  const auto s = fake_stream(1);
  sim.upstream->fail_next(2);  // both the first try and the retry fail
  EXPECT_THROW((void)sim->allocate(4 * KiB, s), nd::out_of_memory);
  void* a = sim->allocate(4 * KiB, s);
  void* b = sim->allocate(4 * KiB, s);  // would not fit had a failed try kept its reservation
  EXPECT_EQ(sim->stats().reserved_bytes, 8 * KiB);
  sim->deallocate(a, 4 * KiB, s);
  sim->deallocate(b, 4 * KiB, s);
}

TEST(PinnedPool, BadFreesThrowClearly) {
  sim_pinned sim;
  const auto s = fake_stream(1);
  void* p = sim->allocate(100, s);
  EXPECT_THROW(sim->deallocate(p, 99, s), nd::error);
  try {
    sim->deallocate(static_cast<char*>(p) + 64, 100, s);
    FAIL();
  } catch (const nd::error& e) {
    EXPECT_NE(std::string(e.what()).find("inside the block"), std::string::npos) << e.what();
  }
  int local = 0;
  EXPECT_THROW(sim->deallocate(&local, 4, s), nd::error);
  sim->deallocate(p, 100, s);
  try {
    sim->deallocate(p, 100, s);
    FAIL();
  } catch (const nd::error& e) {
    EXPECT_NE(std::string(e.what()).find("double free"), std::string::npos) << e.what();
  }
  EXPECT_EQ(sim->stats().live_allocations, 0U);
  EXPECT_EQ(sim->stats().deallocation_count, 1U);
}

TEST(PinnedPool, ContainsChecksTheWholeRange) {
  sim_pinned sim;
  const auto s = fake_stream(1);
  auto* p = static_cast<char*>(sim->allocate(10 * KiB, s));  // class 10 KiB
  EXPECT_TRUE(sim->contains(p, 10 * KiB));
  EXPECT_TRUE(sim->contains(p + 100, 1000));
  EXPECT_FALSE(sim->contains(p + 100, 10 * KiB));  // runs off the end
  EXPECT_FALSE(sim->contains(p - 1, 10));
  int local = 0;
  EXPECT_FALSE(sim->contains(&local, sizeof local));
  sim->deallocate(p, 10 * KiB, s);
}

TEST(PinnedPool, CapturingStreamsAreRefused) {
  sim_pinned sim;
  const auto s = fake_stream(1);
  void* p = sim->allocate(KiB, s);
  sim.ordering->set_capturing(s, true);
  EXPECT_THROW((void)sim->allocate(KiB, s), nd::capture_error);
  EXPECT_THROW(sim->deallocate(p, KiB, s), nd::capture_error);
  EXPECT_EQ(sim.ordering->misuse(), 0);
  sim.ordering->set_capturing(s, false);
  sim->deallocate(p, KiB, s);
}

TEST(PinnedPool, DestructionWaitsForPendingCopiesThenReturnsEverything) {
  auto upstream = std::make_shared<simulated_upstream>(GiB);
  auto ordering = std::make_shared<simulated_ordering>();
  {
    nd::pinned_pool_resource pool({}, upstream, ordering);
    const auto s = fake_stream(1);
    void* p = pool.allocate(MiB, s);
    ordering->enqueue(s);
    pool.deallocate(p, MiB, s);
    (void)pool.allocate(KiB, s);  // still in use at destruction
  }
  EXPECT_GE(ordering->syncs(), 1);
  EXPECT_FALSE(ordering->busy(fake_stream(1)));
  EXPECT_EQ(upstream->live_chunks(), 0U);
  EXPECT_EQ(ordering->live_tokens(), 0U);
}

TEST(PinnedPool, FourThreadsChurnWithCheckedStatsAndNoLeak) {
  sim_pinned sim;
  constexpr int threads = 4;
  std::vector<nd::stream> streams;
  for (int t = 0; t < threads; ++t) {
    streams.push_back(fake_stream(t + 1));
  }
  const std::uint64_t seed = nd::testing::rng()();
  std::atomic<std::uint64_t> total{0};
  auto worker = [&](int id) {
    std::mt19937_64 rng(seed + static_cast<std::uint64_t>(id));
    std::vector<std::pair<void*, std::size_t>> mine;
    const nd::stream& s = streams[static_cast<std::size_t>(id)];
    for (int i = 0; i < 5000; ++i) {
      if (mine.size() < 16 && (mine.empty() || rng() % 2 == 0)) {
        const std::size_t n = 1 + rng() % (256 * KiB);
        mine.emplace_back(sim->allocate(n, s), n);
        ++total;
      } else {
        const std::size_t k = rng() % mine.size();
        sim.ordering->enqueue(s);
        sim->deallocate(mine[k].first, mine[k].second, s);
        mine[k] = mine.back();
        mine.pop_back();
      }
      if (rng() % 8 == 0) {
        sim.ordering->finish(s);
      }
      const nd::memory_stats st = sim->stats();
      ASSERT_LE(st.used_bytes, st.reserved_bytes);
      ASSERT_LE(st.cached_bytes, st.reserved_bytes);
    }
    for (auto [p, n] : mine) {
      sim->deallocate(p, n, s);
    }
  };
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back(worker, t);
  }
  for (auto& w : workers) {
    w.join();
  }
  nd::memory_stats st = sim->stats();
  EXPECT_EQ(st.used_bytes, 0U);
  EXPECT_EQ(st.live_allocations, 0U);
  EXPECT_EQ(st.allocation_count, total.load());
  EXPECT_EQ(st.deallocation_count, total.load());
  EXPECT_EQ(st.cached_bytes, st.reserved_bytes);
  for (const auto& s : streams) {
    sim.ordering->finish(s);
  }
  EXPECT_EQ(sim->free_all_blocks(), st.reserved_bytes);
  EXPECT_EQ(sim->stats().reserved_bytes, 0U);
  EXPECT_EQ(sim.upstream->in_use(), 0U);
  EXPECT_EQ(sim.upstream->bad_frees(), 0);
  EXPECT_EQ(sim.ordering->live_tokens(), 0U);
  EXPECT_EQ(sim.ordering->misuse(), 0);
}
