// The device pool's algorithm against a simulated upstream and simulated streams: runs without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/memory/device_pool_resource.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "memory/block_pool.hpp"
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
constexpr std::size_t PiB = std::size_t{1} << 50;

nd::pool_options small_options(std::size_t unit = MiB) {
  nd::pool_options o;
  o.min_chunk_bytes = unit;
  o.chunk_granularity = unit;
  o.max_chunk_bytes = 1024 * unit;
  return o;
}

struct sim_pool {
  std::shared_ptr<simulated_upstream> upstream;
  std::shared_ptr<simulated_ordering> ordering;
  std::unique_ptr<nd::detail::block_pool> pool;

  explicit sim_pool(nd::pool_options options = small_options(), std::size_t capacity = 64 * GiB)
      : upstream(std::make_shared<simulated_upstream>(capacity)),
        ordering(std::make_shared<simulated_ordering>()),
        pool(std::make_unique<nd::detail::block_pool>(0, options, upstream, ordering)) {}

  nd::detail::block_pool* operator->() { return pool.get(); }
  void expect_valid() const { EXPECT_EQ(pool->validate(), ""); }
};

char* as_bytes(void* p) {
  return static_cast<char*>(p);
}

}  // namespace

TEST(DevicePool, ZeroSizeAllocationIsNullAndTouchesNothing) {
  sim_pool sim;
  const auto s = fake_stream(1);
  EXPECT_EQ(sim->allocate(0, s), nullptr);
  const nd::memory_stats st = sim->stats();
  EXPECT_EQ(st.allocation_count, 0U);
  EXPECT_EQ(st.reserved_bytes, 0U);
  EXPECT_TRUE(sim.upstream->requests().empty());
}

TEST(DevicePool, NullOrZeroByteFreeIsANoOp) {
  sim_pool sim;
  const auto s = fake_stream(1);
  EXPECT_NO_THROW(sim->deallocate(nullptr, 0, s));
  EXPECT_NO_THROW(sim->deallocate(nullptr, 4096, s));
  void* zero = sim->allocate(0, s);
  EXPECT_NO_THROW(sim->deallocate(zero, 0, s));
  EXPECT_EQ(sim->stats().deallocation_count, 0U);
  sim.expect_valid();
}

TEST(DevicePool, DoubleFreeIsDetectedWithAClearMessage) {
  sim_pool sim;
  const auto s = fake_stream(1);
  void* p = sim->allocate(1000, s);
  sim->deallocate(p, 1000, s);
  const nd::memory_stats before = sim->stats();
  try {
    sim->deallocate(p, 1000, s);
    FAIL() << "a double free went unnoticed";
  } catch (const nd::error& e) {
    EXPECT_NE(std::string(e.what()).find("double free"), std::string::npos) << e.what();
  }
  const nd::memory_stats after = sim->stats();
  EXPECT_EQ(after.used_bytes, before.used_bytes);
  EXPECT_EQ(after.deallocation_count, before.deallocation_count);
  sim.expect_valid();
}

TEST(DevicePool, BadFreesThrowAndChangeNothing) {
  sim_pool sim;
  const auto s = fake_stream(1);
  void* p = sim->allocate(4096, s);
  try {
    sim->deallocate(as_bytes(p) + 256, 4096, s);
    FAIL();
  } catch (const nd::error& e) {
    EXPECT_NE(std::string(e.what()).find("inside the live allocation"), std::string::npos) << e.what();
  }
  try {
    sim->deallocate(p, 100, s);
    FAIL();
  } catch (const nd::error& e) {
    EXPECT_NE(std::string(e.what()).find("made with 4096 bytes"), std::string::npos) << e.what();
  }
  int local = 0;
  try {
    sim->deallocate(&local, 4, s);
    FAIL();
  } catch (const nd::error& e) {
    EXPECT_NE(std::string(e.what()).find("not allocated by this pool"), std::string::npos) << e.what();
  }
  EXPECT_EQ(sim->stats().live_allocations, 1U);
  sim->deallocate(p, 4096, s);  // still a valid allocation
  EXPECT_EQ(sim->stats().live_allocations, 0U);
  sim.expect_valid();
}

TEST(DevicePool, OnePebibyteThrowsOutOfMemoryNamingRequestPoolAndDevice) {
  sim_pool sim(small_options(), 1 * GiB);
  const auto s = fake_stream(1);
  void* keep = sim->allocate(12 * MiB, s);
  void* cached = sim->allocate(3 * MiB, s);
  sim->deallocate(cached, 3 * MiB, s);
  const nd::memory_stats before = sim->stats();
  try {
    (void)sim->allocate(PiB, s);
    FAIL() << "1 PiB was allocated";
  } catch (const nd::out_of_memory& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("out of memory on device 0"), std::string::npos) << what;
    EXPECT_NE(what.find("allocate(1125899906842624 bytes = 1 PiB)"), std::string::npos) << what;
    EXPECT_NE(what.find("used 12 MiB"), std::string::npos) << what;
    EXPECT_NE(what.find("cached"), std::string::npos) << what;
    EXPECT_NE(what.find("limit none"), std::string::npos) << what;
    EXPECT_NE(what.find("simulated upstream"), std::string::npos) << what;
    EXPECT_NE(what.find("retried once"), std::string::npos) << what;
  }
  // Cached chunks were released before giving up; what is in use stays.
  const nd::memory_stats after = sim->stats();
  EXPECT_EQ(after.used_bytes, before.used_bytes);
  EXPECT_EQ(after.live_allocations, 1U);
  EXPECT_LE(after.reserved_bytes, before.reserved_bytes);
  sim.expect_valid();
  sim->deallocate(keep, 12 * MiB, s);
  void* again = sim->allocate(MiB, s);  // the pool still works
  EXPECT_NE(again, nullptr);
  sim->deallocate(again, MiB, s);
}

TEST(DevicePool, AbsurdSizesAreOutOfMemoryNotOverflow) {
  sim_pool sim;
  const auto s = fake_stream(1);
  EXPECT_THROW((void)sim->allocate(~std::size_t{0}, s), nd::out_of_memory);
  EXPECT_THROW((void)sim->allocate(~std::size_t{0} - 300, s), nd::out_of_memory);
  EXPECT_EQ(sim->stats().reserved_bytes, 0U);
  sim.expect_valid();
}

TEST(DevicePool, LimitSequenceFiveAndOneUnderSixThenFailThenRaise) {
  auto options = small_options();
  options.limit = 6 * MiB;
  sim_pool sim(options);
  const auto s = fake_stream(1);
  void* a = sim->allocate(5 * MiB, s);
  void* b = sim->allocate(1 * MiB, s);
  EXPECT_EQ(sim->stats().reserved_bytes, 6 * MiB);
  try {
    (void)sim->allocate(1 * MiB, s);
    FAIL() << "the limit was exceeded";
  } catch (const nd::out_of_memory& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("limit 6 MiB"), std::string::npos) << what;
    EXPECT_NE(what.find("does not fit under the pool's limit"), std::string::npos) << what;
    EXPECT_NE(what.find("set_limit"), std::string::npos) << what;
  }
  EXPECT_EQ(sim->stats().reserved_bytes, 6 * MiB);
  sim->set_limit(7 * MiB);
  void* c = sim->allocate(1 * MiB, s);
  EXPECT_NE(c, nullptr);
  EXPECT_EQ(sim->stats().reserved_bytes, 7 * MiB);
  EXPECT_EQ(sim->limit(), 7 * MiB);
  for (auto [p, n] : {std::pair{a, 5 * MiB}, std::pair{b, 1 * MiB}, std::pair{c, 1 * MiB}}) {
    sim->deallocate(p, n, s);
  }
  sim.expect_valid();
}

TEST(DevicePool, LimitReservationIsRolledBackWhenUpstreamFails) {
  auto options = small_options();
  options.limit = 4 * MiB;
  sim_pool sim(options);
  const auto s = fake_stream(1);
  sim.upstream->fail_next(1);  // the first attempt fails; the retry after releasing succeeds
  void* a = sim->allocate(2 * MiB, s);
  // Had the failed attempt kept its 2 MiB reservation, this would not fit under the limit.
  void* b = sim->allocate(2 * MiB, s);
  EXPECT_EQ(sim->stats().reserved_bytes, 4 * MiB);
  sim->deallocate(a, 2 * MiB, s);
  sim->deallocate(b, 2 * MiB, s);
  sim.expect_valid();
}

TEST(DevicePool, GrowthHalvesTheRequestWhenUpstreamIsShort) {
  auto options = small_options();
  options.min_chunk_bytes = 64 * MiB;
  sim_pool sim(options, 20 * MiB);
  const auto s = fake_stream(1);
  void* p = sim->allocate(MiB, s);
  EXPECT_EQ(sim.upstream->requests(), (std::vector<std::size_t>{64 * MiB, 32 * MiB, 16 * MiB}));
  EXPECT_EQ(sim->stats().reserved_bytes, 16 * MiB);
  sim->deallocate(p, MiB, s);
  sim.expect_valid();
}

TEST(DevicePool, GrowthIsGeometricBetweenItsBounds) {
  auto options = small_options();
  options.max_chunk_bytes = 8 * MiB;
  sim_pool sim(options);
  const auto s = fake_stream(1);
  std::vector<void*> held;
  for (int i = 0; i < 24; ++i) {
    held.push_back(sim->allocate(MiB, s));
  }
  // 1, then as large as the pool (1, 2, 4, 8), then capped at 8.
  EXPECT_EQ(sim.upstream->requests(), (std::vector<std::size_t>{MiB, MiB, 2 * MiB, 4 * MiB, 8 * MiB, 8 * MiB}));
  // A request larger than the cap gets a chunk of its own size.
  void* big = sim->allocate(20 * MiB, s);
  EXPECT_EQ(sim.upstream->requests().back(), 20 * MiB);
  sim->deallocate(big, 20 * MiB, s);
  for (void* p : held) {
    sim->deallocate(p, MiB, s);
  }
  sim.expect_valid();
  EXPECT_EQ(sim->stats().cached_bytes, sim->stats().reserved_bytes);
}

TEST(DevicePool, OutOfMemoryReleasesCachedChunksAndRetriesOnce) {
  sim_pool sim(small_options(), 4 * MiB);
  const auto a = fake_stream(1);
  const auto b = fake_stream(2);
  void* p = sim->allocate(MiB, a);
  sim.ordering->enqueue(a);  // work on p still queued on a
  sim->deallocate(p, MiB, a);
  void* q = sim->allocate(4 * MiB, b);  // only fits once a's cached chunk is returned
  EXPECT_NE(q, nullptr);
  EXPECT_EQ(sim.upstream->frees(), (std::vector<std::size_t>{MiB}));
  EXPECT_GE(sim.ordering->syncs(), 1) << "the chunk was released before a's work on it finished";
  EXPECT_FALSE(sim.ordering->busy(a));
  sim->deallocate(q, 4 * MiB, b);
  sim.expect_valid();
  EXPECT_EQ(sim.ordering->live_tokens(), 0U);
}

TEST(DevicePool, SplitAndMergeInBothFreeOrders) {
  constexpr std::size_t u = 64 * KiB;
  for (int order = 0; order < 3; ++order) {
    auto options = small_options(u);
    options.min_chunk_bytes = 4 * u;
    sim_pool sim(options);
    const auto s = fake_stream(1);
    void* a = sim->allocate(u, s);
    void* b = sim->allocate(u, s);
    void* c = sim->allocate(u, s);
    ASSERT_EQ(sim.upstream->requests(), (std::vector<std::size_t>{4 * u})) << "one chunk, split three times";
    EXPECT_EQ(as_bytes(b), as_bytes(a) + u);
    EXPECT_EQ(as_bytes(c), as_bytes(b) + u);
    sim.expect_valid();
    std::vector<void*> free_order = order == 0   ? std::vector<void*>{a, b, c}
                                    : order == 1 ? std::vector<void*>{c, b, a}
                                                 : std::vector<void*>{b, a, c};
    for (void* p : free_order) {
      sim->deallocate(p, u, s);
      sim.expect_valid();
    }
    // Everything merged back into the whole chunk: a 4u request fits without growing.
    void* whole = sim->allocate(4 * u, s);
    EXPECT_EQ(whole, a) << "free order " << order;
    EXPECT_EQ(sim.upstream->requests().size(), 1U);
    sim->deallocate(whole, 4 * u, s);
    EXPECT_EQ(sim->free_all_blocks(), 4 * u);
    EXPECT_EQ(sim.upstream->in_use(), 0U);
    sim.expect_valid();
  }
}

TEST(DevicePool, SmallRemaindersAreNotSplitOff) {
  auto options = small_options();
  options.min_split_bytes = 4096;
  sim_pool sim(options);
  const auto s = fake_stream(1);
  void* p = sim->allocate(MiB - 1024, s);  // remainder 1 KiB < 4 KiB: the whole MiB is handed out
  EXPECT_EQ(sim->stats().used_bytes, MiB);
  EXPECT_EQ(sim->stats().cached_bytes, 0U);
  sim->deallocate(p, MiB - 1024, s);
  sim.expect_valid();
}

TEST(DevicePool, BestFitPicksTheSmallestBlockThatFits) {
  constexpr std::size_t u = 64 * KiB;
  auto options = small_options(u);
  options.min_chunk_bytes = 16 * u;
  sim_pool sim(options);
  const auto s = fake_stream(1);
  // Carve 5u | x | 2u | x | 3u | x out of one chunk, then free the 5u, 2u and 3u blocks.
  void* five = sim->allocate(5 * u, s);
  void* x1 = sim->allocate(u, s);
  void* two = sim->allocate(2 * u, s);
  void* x2 = sim->allocate(u, s);
  void* three = sim->allocate(3 * u, s);
  void* x3 = sim->allocate(4 * u, s);  // uses the rest of the chunk
  EXPECT_EQ(sim.upstream->requests().size(), 1U);
  sim->deallocate(five, 5 * u, s);
  sim->deallocate(two, 2 * u, s);
  sim->deallocate(three, 3 * u, s);
  EXPECT_EQ(sim->allocate(2 * u, s), two);
  EXPECT_EQ(sim->allocate(3 * u - 256, s), three);
  EXPECT_EQ(sim->allocate(4 * u, s), five);  // the only one left that fits; split, 1u stays cached
  EXPECT_EQ(sim->stats().cached_bytes, u);   // 3u - 256 took the whole 3u block: 256 B is below min_split_bytes
  sim.expect_valid();
  (void)x1;
  (void)x2;
  (void)x3;
}

TEST(DevicePool, NoCrossStreamReuseWithoutOrdering) {
  auto options = small_options();
  options.limit = 2 * MiB;
  sim_pool sim(options);
  const auto a = fake_stream(1);
  const auto b = fake_stream(2);
  void* p = sim->allocate(MiB, a);
  sim.ordering->enqueue(a);  // a kernel on a still uses p
  sim->deallocate(p, MiB, a);

  // While a is busy and the pool can grow, b gets fresh memory, not p.
  void* q = sim->allocate(MiB, b);
  EXPECT_NE(q, p);
  EXPECT_TRUE(sim.ordering->waits().empty());

  // At the limit, b may take p only after waiting on an event recorded on a.
  void* r = sim->allocate(MiB, b);
  EXPECT_EQ(r, p);
  const auto waits = sim.ordering->waits();
  ASSERT_EQ(waits.size(), 1U);
  EXPECT_EQ(waits[0].first, b.handle());
  EXPECT_EQ(waits[0].second, a.handle());

  sim->deallocate(q, MiB, b);
  sim->deallocate(r, MiB, b);
  EXPECT_EQ(sim.ordering->live_tokens(), 0U);
  EXPECT_EQ(sim.ordering->misuse(), 0);
  sim.expect_valid();
}

TEST(DevicePool, AnIdleStreamsBlocksAreReusedWithoutAWait) {
  sim_pool sim;
  const auto a = fake_stream(1);
  const auto b = fake_stream(2);
  void* p = sim->allocate(MiB, a);
  sim.ordering->enqueue(a);
  sim->deallocate(p, MiB, a);
  sim.ordering->finish(a);  // a's work is done
  void* q = sim->allocate(MiB, b);
  EXPECT_EQ(q, p);
  EXPECT_TRUE(sim.ordering->waits().empty());
  EXPECT_EQ(sim.upstream->requests().size(), 1U);
  sim->deallocate(q, MiB, b);
  sim.expect_valid();
}

TEST(DevicePool, SameStreamReuseNeedsNoOrdering) {
  sim_pool sim;
  const auto a = fake_stream(1);
  void* p = sim->allocate(MiB, a);
  sim.ordering->enqueue(a);
  sim->deallocate(p, MiB, a);
  EXPECT_EQ(sim->allocate(MiB, a), p);  // stream order already protects it
  EXPECT_EQ(sim.ordering->records(), 0);
  sim->deallocate(p, MiB, a);
}

TEST(DevicePool, CapturingStreamsAreRefusedAndTheirBlocksKept) {
  sim_pool sim;
  const auto a = fake_stream(1);
  const auto b = fake_stream(2);
  void* p = sim->allocate(MiB, a);
  sim.ordering->set_capturing(a, true);
  EXPECT_THROW((void)sim->allocate(MiB, a), nd::capture_error);
  EXPECT_THROW(sim->deallocate(p, MiB, a), nd::capture_error);
  EXPECT_EQ(sim->stats().live_allocations, 1U);  // the refused free changed nothing
  sim.ordering->set_capturing(a, false);
  sim->deallocate(p, MiB, a);
  sim.ordering->set_capturing(a, true);
  // b must not query or record on a while a captures; and a's chunk is not released.
  void* q = sim->allocate(MiB, b);
  EXPECT_NE(q, p);
  EXPECT_EQ(sim->free_all_blocks(), 0U);
  EXPECT_EQ(sim.ordering->misuse(), 0);
  sim.ordering->set_capturing(a, false);
  sim->deallocate(q, MiB, b);
  EXPECT_GT(sim->free_all_blocks(), 0U);
  EXPECT_EQ(sim.upstream->in_use(), 0U);
  sim.expect_valid();
}

TEST(DevicePool, FreeAllBlocksReturnsOnlyWholeChunks) {
  constexpr std::size_t u = 64 * KiB;
  auto options = small_options(u);
  sim_pool sim(options);
  const auto s = fake_stream(1);
  void* a = sim->allocate(u, s);  // chunk 1 (u)
  void* b = sim->allocate(u, s);  // chunk 2 (u)
  void* c = sim->allocate(u, s);  // chunk 3 (2u), split
  sim->deallocate(a, u, s);
  sim->deallocate(c, u, s);
  // chunk 1 is entirely free; chunk 3 is entirely free after merging; chunk 2 is in use.
  EXPECT_EQ(sim->free_all_blocks(), 3 * u);
  EXPECT_EQ(sim->stats().reserved_bytes, u);
  EXPECT_EQ(sim->stats().cached_bytes, 0U);
  EXPECT_EQ(sim->stats().upstream_frees, 2U);
  sim->deallocate(b, u, s);
  EXPECT_EQ(sim->free_all_blocks(), u);
  EXPECT_EQ(sim.upstream->live_chunks(), 0U);
  sim.expect_valid();
}

TEST(DevicePool, StatisticsTrackUsedCachedPeakAndCounts) {
  sim_pool sim;
  const auto s = fake_stream(1);
  void* a = sim->allocate(3 * MiB, s);
  void* b = sim->allocate(1000, s);
  nd::memory_stats st = sim->stats();
  EXPECT_EQ(st.used_bytes, 3 * MiB + 1024);
  EXPECT_EQ(st.used_bytes + st.cached_bytes, st.reserved_bytes);
  EXPECT_EQ(st.allocation_count, 2U);
  EXPECT_EQ(st.live_allocations, 2U);
  sim->deallocate(a, 3 * MiB, s);
  st = sim->stats();
  EXPECT_EQ(st.used_bytes, 1024U);
  EXPECT_EQ(st.peak_used_bytes, 3 * MiB + 1024);
  EXPECT_EQ(st.deallocation_count, 1U);
  sim->reset_peak();
  EXPECT_EQ(sim->stats().peak_used_bytes, 1024U);
  sim->deallocate(b, 1000, s);
  EXPECT_EQ(sim->stats().used_bytes, 0U);
  EXPECT_EQ(nd::to_string(sim->stats()).substr(0, 26), "used 0 B in 0 allocations ");
}

TEST(DevicePool, StatisticsNeverUnderflowUnderMisuse) {
  sim_pool sim;
  const auto s = fake_stream(1);
  std::mt19937_64& rng = nd::testing::rng();
  std::vector<std::pair<void*, std::size_t>> live;
  std::vector<std::pair<void*, std::size_t>> freed;
  for (int i = 0; i < 2000; ++i) {
    const auto action = rng() % 4;
    if (action == 0 || live.empty()) {
      const std::size_t n = 1 + rng() % (2 * MiB);
      live.emplace_back(sim->allocate(n, s), n);
    } else if (action == 1) {
      const std::size_t k = rng() % live.size();
      sim->deallocate(live[k].first, live[k].second, s);
      freed.push_back(live[k]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
    } else if (action == 2 && !freed.empty()) {
      // A stale pointer: a double free unless the pool has handed the address out again.
      const auto& [p, n] = freed[rng() % freed.size()];
      const bool reissued = std::any_of(live.begin(), live.end(), [&](const auto& l) { return l.first == p; });
      if (!reissued) {
        EXPECT_THROW(sim->deallocate(p, n, s), nd::error);
      }
    } else if (!live.empty()) {
      const auto& [p, n] = live[rng() % live.size()];
      EXPECT_THROW(sim->deallocate(p, n + 256, s), nd::error);  // wrong size
    }
    const nd::memory_stats st = sim->stats();
    ASSERT_LE(st.used_bytes, st.reserved_bytes);
    ASSERT_LE(st.cached_bytes, st.reserved_bytes);
    ASSERT_EQ(st.live_allocations, live.size());
    ASSERT_EQ(st.allocation_count - st.deallocation_count, live.size());
  }
  for (auto& [p, n] : live) {
    sim->deallocate(p, n, s);
  }
  sim.expect_valid();
  EXPECT_EQ(sim->stats().used_bytes, 0U);
}

TEST(DevicePool, ManyStreamsAreForgottenOnceTheirListsEmpty) {
  sim_pool sim;
  for (int i = 0; i < 100; ++i) {
    const auto s = fake_stream(100 + i);
    void* p = sim->allocate(4096, s);
    sim->deallocate(p, 4096, s);
  }
  sim.expect_valid();
  EXPECT_EQ(sim.upstream->requests().size(), 1U) << "idle streams' blocks are reused";
}

TEST(DevicePool, FourThreadsChurnWithoutOverlapOrLeak) {
  auto options = small_options();
  options.limit = 512 * MiB;
  sim_pool sim(options);
  constexpr int threads = 4;
  constexpr int ops = 20000;
  std::vector<nd::stream> streams;
  for (int t = 0; t < threads; ++t) {
    streams.push_back(fake_stream(t + 1));
  }
  std::mutex live_mutex;
  std::map<std::uintptr_t, std::size_t> live_ranges;  // every allocation in use, to detect overlap
  std::atomic<bool> overlap{false};
  std::atomic<std::uint64_t> total{0};
  const std::uint64_t seed = nd::testing::rng()();
  auto worker = [&](int id) {
    std::mt19937_64 rng(seed + static_cast<std::uint64_t>(id));
    std::vector<std::pair<void*, std::size_t>> mine;
    for (int i = 0; i < ops; ++i) {
      const nd::stream& s = streams[static_cast<std::size_t>(id)];
      if (mine.size() < 64 && (mine.empty() || rng() % 2 == 0)) {
        const std::size_t n = 1 + rng() % (rng() % 8 == 0 ? 8 * MiB : 64 * KiB);
        void* p = sim->allocate(n, s);
        const auto at = reinterpret_cast<std::uintptr_t>(p);
        {
          std::lock_guard lock(live_mutex);
          auto next = live_ranges.lower_bound(at);
          if (next != live_ranges.end() && next->first < at + n) overlap = true;
          if (next != live_ranges.begin() && std::prev(next)->first + std::prev(next)->second > at) overlap = true;
          live_ranges.emplace(at, n);
        }
        sim.ordering->enqueue(s);
        mine.emplace_back(p, n);
        ++total;
      } else {
        const std::size_t k = rng() % mine.size();
        auto [p, n] = mine[k];
        mine[k] = mine.back();
        mine.pop_back();
        {
          std::lock_guard lock(live_mutex);
          live_ranges.erase(reinterpret_cast<std::uintptr_t>(p));
        }
        // Free on any stream: the last use may have been queued on another one.
        const nd::stream& on = streams[rng() % streams.size()];
        sim.ordering->enqueue(on);
        sim->deallocate(p, n, on);
      }
      if (rng() % 16 == 0) {
        sim.ordering->finish(streams[rng() % streams.size()]);
      }
    }
    for (auto [p, n] : mine) {
      {
        std::lock_guard lock(live_mutex);
        live_ranges.erase(reinterpret_cast<std::uintptr_t>(p));
      }
      sim->deallocate(p, n, streams[static_cast<std::size_t>(id)]);
    }
  };
  std::vector<std::thread> pool_threads;
  for (int t = 0; t < threads; ++t) {
    pool_threads.emplace_back(worker, t);
  }
  for (auto& t : pool_threads) {
    t.join();
  }
  EXPECT_FALSE(overlap) << "two live allocations overlapped";
  sim.expect_valid();
  nd::memory_stats st = sim->stats();
  EXPECT_EQ(st.used_bytes, 0U);
  EXPECT_EQ(st.live_allocations, 0U);
  EXPECT_EQ(st.allocation_count, total.load());
  EXPECT_EQ(st.deallocation_count, total.load());
  EXPECT_LE(st.peak_reserved_bytes, 512 * MiB);
  for (const auto& s : streams) {
    sim.ordering->finish(s);
  }
  EXPECT_EQ(sim->free_all_blocks(), st.reserved_bytes);
  st = sim->stats();
  EXPECT_EQ(st.reserved_bytes, 0U);
  EXPECT_EQ(st.cached_bytes, 0U);
  EXPECT_EQ(sim.upstream->in_use(), 0U);
  EXPECT_EQ(sim.upstream->bad_frees(), 0);
  EXPECT_EQ(sim.ordering->live_tokens(), 0U);
  EXPECT_EQ(sim.ordering->misuse(), 0);
}

TEST(DevicePool, DestructionReturnsEveryChunk) {
  auto upstream = std::make_shared<simulated_upstream>(GiB);
  {
    nd::detail::block_pool pool(0, small_options(), upstream, std::make_shared<simulated_ordering>());
    const auto s = fake_stream(1);
    (void)pool.allocate(3 * MiB, s);  // still allocated at destruction
    void* p = pool.allocate(MiB, s);
    pool.deallocate(p, MiB, s);
  }
  EXPECT_EQ(upstream->live_chunks(), 0U);
  EXPECT_EQ(upstream->bad_frees(), 0);
}

TEST(DevicePool, ResourceInterfaceOverASimulatedUpstream) {
  auto upstream = std::make_shared<simulated_upstream>(GiB);
  auto ordering = std::make_shared<simulated_ordering>();
  nd::device_pool_resource pool(0, small_options(), upstream, ordering);
  EXPECT_EQ(pool.kind(), nd::memory_kind::device);
  EXPECT_EQ(pool.device(), 0);
  nd::memory_resource& r = pool;
  const auto s = fake_stream(1);
  void* p = r.allocate(12345, s);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % nd::allocation_alignment, 0U);
  EXPECT_EQ(pool.stats().used_bytes, 12544U);  // rounded to 256
  r.deallocate(p, 12345, s);
  EXPECT_TRUE(r.is_equal(pool));
  pool.set_limit(std::nullopt);
  EXPECT_EQ(pool.free_all_blocks(), MiB);
}

TEST(DevicePool, RejectsMissingSeamsAndBadOptions) {
  nd::pool_options bad;
  bad.min_chunk_bytes = 2 * GiB;
  bad.max_chunk_bytes = GiB;
  EXPECT_THROW(
      nd::detail::block_pool(0, bad, std::make_shared<simulated_upstream>(GiB), std::make_shared<simulated_ordering>()),
      nd::error);
  EXPECT_THROW(nd::detail::block_pool(0, {}, nullptr, std::make_shared<simulated_ordering>()), nd::error);
}
