// The device pool's algorithm against a simulated upstream: sizes, errors, limits, growth, split and
// merge. Runs without a GPU.
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

#include "support/gpu.hpp"
#include "support/sim_pool.hpp"

namespace nd = ndcuda;
using nd::testing::fake_stream;
using nd::testing::GiB;
using nd::testing::KiB;
using nd::testing::MiB;
using nd::testing::PiB;
using nd::testing::sim_pool;
using nd::testing::simulated_ordering;
using nd::testing::simulated_upstream;
using nd::testing::small_options;

namespace {

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
