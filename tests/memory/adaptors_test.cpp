// statistics_adaptor, limiting_adaptor and logging_adaptor over a host-heap resource: no GPU needed.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ndcuda/core/error.hpp>
#include <ndcuda/memory/limiting_adaptor.hpp>
#include <ndcuda/memory/logging_adaptor.hpp>
#include <ndcuda/memory/statistics_adaptor.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/gpu.hpp"
#include "support/simulated_memory.hpp"

namespace nd = ndcuda;
using nd::testing::fake_stream;

namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;

/// Host memory standing in for a device resource; trusts the caller's sizes, like a raw allocator.
class heap_resource final : public nd::memory_resource {
 public:
  heap_resource() : memory_resource(nd::memory_kind::device, 0) {}
  std::atomic<int> fail_next{0};

 protected:
  void* do_allocate(std::size_t bytes, const nd::stream&) override {
    if (bytes == 0) {
      return nullptr;
    }
    if (fail_next > 0) {
      --fail_next;
      throw nd::out_of_memory("heap_resource: injected failure");
    }
    return std::aligned_alloc(nd::allocation_alignment, (bytes + 255) / 256 * 256);
  }
  void do_deallocate(void* p, std::size_t, const nd::stream&) override { std::free(p); }
};

}  // namespace

TEST(StatisticsAdaptor, CountsCurrentAndPeakBytes) {
  auto heap = std::make_shared<heap_resource>();
  nd::statistics_adaptor stats(heap);
  EXPECT_EQ(stats.kind(), nd::memory_kind::device);
  EXPECT_EQ(stats.device(), 0);
  const auto s = fake_stream(1);
  void* a = stats.allocate(1000, s);
  void* b = stats.allocate(3000, s);
  EXPECT_EQ(stats.stats().used_bytes, 4000U);
  stats.deallocate(a, 1000, s);
  nd::memory_stats st = stats.stats();
  EXPECT_EQ(st.used_bytes, 3000U);
  EXPECT_EQ(st.peak_used_bytes, 4000U);
  EXPECT_EQ(st.allocation_count, 2U);
  EXPECT_EQ(st.deallocation_count, 1U);
  EXPECT_EQ(st.live_allocations, 1U);
  stats.reset_peak();
  EXPECT_EQ(stats.stats().peak_used_bytes, 3000U);
  EXPECT_EQ(stats.allocate(0, s), nullptr);
  EXPECT_EQ(stats.stats().allocation_count, 2U) << "zero-byte allocations are not allocations";
  stats.deallocate(nullptr, 0, s);
  EXPECT_EQ(stats.stats().deallocation_count, 1U);
  stats.deallocate(b, 3000, s);
  EXPECT_EQ(stats.stats().used_bytes, 0U);
}

TEST(StatisticsAdaptor, NeverUnderflowsWhenCallersPassWrongSizes) {
  nd::statistics_adaptor stats(std::make_shared<heap_resource>());
  const auto s = fake_stream(1);
  void* a = stats.allocate(100, s);
  stats.deallocate(a, 1 << 30, s);  // a lying caller
  const nd::memory_stats st = stats.stats();
  EXPECT_EQ(st.used_bytes, 0U);
  EXPECT_EQ(st.live_allocations, 0U);
}

TEST(StatisticsAdaptor, IsConsistentUnderFourThreads) {
  nd::statistics_adaptor stats(std::make_shared<heap_resource>());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&stats, t] {
      const auto s = fake_stream(t + 1);
      for (int i = 0; i < 5000; ++i) {
        const std::size_t n = 1 + static_cast<std::size_t>((i * 7919 + t) % 100000);
        void* p = stats.allocate(n, s);
        stats.deallocate(p, n, s);
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  const nd::memory_stats st = stats.stats();
  EXPECT_EQ(st.used_bytes, 0U);
  EXPECT_EQ(st.allocation_count, 20000U);
  EXPECT_EQ(st.deallocation_count, 20000U);
  EXPECT_GT(st.peak_used_bytes, 0U);
}

TEST(LimitingAdaptor, FiveAndOneUnderSixThenFailThenRaise) {
  nd::limiting_adaptor limited(std::make_shared<heap_resource>(), 6 * MiB);
  const auto s = fake_stream(1);
  void* a = limited.allocate(5 * MiB, s);
  void* b = limited.allocate(1 * MiB, s);
  EXPECT_EQ(limited.used(), 6 * MiB);
  try {
    (void)limited.allocate(1 * MiB, s);
    FAIL() << "the limit was exceeded";
  } catch (const nd::out_of_memory& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("allocate(1048576 bytes = 1 MiB)"), std::string::npos) << what;
    EXPECT_NE(what.find("limit of 6 MiB"), std::string::npos) << what;
    EXPECT_NE(what.find("device 0"), std::string::npos) << what;
  }
  limited.set_limit(7 * MiB);
  void* c = limited.allocate(1 * MiB, s);
  EXPECT_EQ(limited.used(), 7 * MiB);
  limited.deallocate(a, 5 * MiB, s);
  limited.deallocate(b, 1 * MiB, s);
  limited.deallocate(c, 1 * MiB, s);
  EXPECT_EQ(limited.used(), 0U);
  EXPECT_THROW((void)limited.allocate(~std::size_t{0}, s), nd::out_of_memory);
}

TEST(LimitingAdaptor, ReservationIsRolledBackWhenUpstreamThrows) {
  auto heap = std::make_shared<heap_resource>();
  nd::limiting_adaptor limited(heap, 2 * MiB);
  const auto s = fake_stream(1);
  heap->fail_next = 1;
  EXPECT_THROW((void)limited.allocate(2 * MiB, s), nd::out_of_memory);
  EXPECT_EQ(limited.used(), 0U);
  void* p = limited.allocate(2 * MiB, s);  // the failed attempt left no reservation behind
  limited.deallocate(p, 2 * MiB, s);
}

TEST(LimitingAdaptor, ConcurrentCallersNeverOvershoot) {
  auto stats = std::make_shared<nd::statistics_adaptor>(std::make_shared<heap_resource>());
  nd::limiting_adaptor limited(stats, 10 * 4096);
  std::vector<std::thread> threads;
  std::atomic<int> refused{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      const auto s = fake_stream(1);
      for (int i = 0; i < 2000; ++i) {
        try {
          void* p = limited.allocate(4096, s);
          EXPECT_LE(stats->stats().used_bytes, 10U * 4096U);
          limited.deallocate(p, 4096, s);
        } catch (const nd::out_of_memory&) {
          ++refused;
        }
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  EXPECT_LE(stats->stats().peak_used_bytes, 10U * 4096U);
  EXPECT_EQ(limited.used(), 0U);
}

TEST(LoggingAdaptor, CallbackSeesEveryCallWithSizeStreamAndTime) {
  std::vector<nd::allocation_record> records;
  nd::logging_adaptor logged(std::make_shared<heap_resource>(),
                             [&](const nd::allocation_record& r) { records.push_back(r); });
  const auto s = fake_stream(7);
  const auto before = std::chrono::system_clock::now();
  void* p = logged.allocate(4096, s);
  logged.deallocate(p, 4096, s);
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records[0].what, nd::allocation_record::action::allocate);
  EXPECT_EQ(records[0].pointer, p);
  EXPECT_EQ(records[0].bytes, 4096U);
  EXPECT_EQ(records[0].stream, s.handle());
  EXPECT_EQ(records[0].device, 0);
  EXPECT_EQ(records[0].thread, std::this_thread::get_id());
  EXPECT_GE(records[0].time, before);
  EXPECT_EQ(records[1].what, nd::allocation_record::action::deallocate);
  EXPECT_LE(records[0].time, records[1].time);
  EXPECT_STREQ(nd::to_string(records[1].what), "deallocate");
}

TEST(LoggingAdaptor, FailuresAreLoggedThenRethrown) {
  auto heap = std::make_shared<heap_resource>();
  std::vector<nd::allocation_record> records;
  nd::logging_adaptor logged(heap, [&](const nd::allocation_record& r) { records.push_back(r); });
  heap->fail_next = 1;
  EXPECT_THROW((void)logged.allocate(100, fake_stream(1)), nd::out_of_memory);
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].what, nd::allocation_record::action::allocate_failed);
  EXPECT_EQ(records[0].pointer, nullptr);
  EXPECT_NE(records[0].error.find("injected failure"), std::string::npos);
}

TEST(LoggingAdaptor, AThrowingCallbackLosesTheRecordNotTheAllocation) {
  nd::logging_adaptor logged(std::make_shared<heap_resource>(),
                             [](const nd::allocation_record&) { throw std::runtime_error("sink full"); });
  const auto s = fake_stream(1);
  void* p = nullptr;
  EXPECT_NO_THROW(p = logged.allocate(64, s));
  EXPECT_NE(p, nullptr);
  logged.deallocate(p, 64, s);
  EXPECT_EQ(logged.dropped_records(), 2U);
}

TEST(LoggingAdaptor, WritesACsvFile) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("ndcuda_log_" + std::to_string(nd::testing::rng()()) + ".csv");
  {
    nd::logging_adaptor logged(std::make_shared<heap_resource>(), path.string());
    const auto s = fake_stream(3);
    void* a = logged.allocate(1000, s);
    void* b = logged.allocate(2000, s);
    logged.deallocate(a, 1000, s);
    logged.deallocate(b, 2000, s);
  }
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  std::filesystem::remove(path);
  ASSERT_EQ(lines.size(), 5U);
  EXPECT_EQ(lines[0], "time_ns,thread,action,pointer,bytes,stream,device,error");
  EXPECT_NE(lines[1].find(",allocate,0x"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find(",1000,"), std::string::npos) << lines[1];
  EXPECT_NE(lines[4].find(",deallocate,"), std::string::npos) << lines[4];
  EXPECT_NE(lines[4].find(",2000,"), std::string::npos) << lines[4];
  std::istringstream first(lines[1]);
  long long ns = 0;
  first >> ns;
  EXPECT_GT(ns, 1'600'000'000'000'000'000LL) << "time_ns is since the Unix epoch";
}

TEST(LoggingAdaptor, AnUnwritablePathIsAClearError) {
  try {
    nd::logging_adaptor logged(std::make_shared<heap_resource>(), "/nonexistent-dir/ndcuda.csv");
    FAIL();
  } catch (const nd::error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/ndcuda.csv"), std::string::npos) << e.what();
  }
}

TEST(Adaptors, RefuseANullUpstream) {
  EXPECT_THROW(nd::statistics_adaptor(nullptr), nd::error);
  EXPECT_THROW(nd::limiting_adaptor(nullptr, 1), nd::error);
  EXPECT_THROW(nd::logging_adaptor(nullptr, [](const nd::allocation_record&) {}), nd::error);
  EXPECT_THROW(nd::logging_adaptor(std::make_shared<heap_resource>(), nd::logging_adaptor::callback{}), nd::error);
}

TEST(Adaptors, Stack) {
  // limiting over statistics over logging over the heap: each sees what passes through.
  std::atomic<int> logged{0};
  auto log = std::make_shared<nd::logging_adaptor>(std::make_shared<heap_resource>(),
                                                   [&](const nd::allocation_record&) { ++logged; });
  auto stats = std::make_shared<nd::statistics_adaptor>(log);
  nd::limiting_adaptor top(stats, MiB);
  const auto s = fake_stream(1);
  void* p = top.allocate(1000, s);
  EXPECT_THROW((void)top.allocate(MiB, s), nd::out_of_memory);
  top.deallocate(p, 1000, s);
  EXPECT_EQ(logged, 2);
  EXPECT_EQ(stats->stats().allocation_count, 1U);
  EXPECT_TRUE(stats->is_equal(*stats));
}

TEST(MemoryResource, RejectsMisalignedMemoryFromACustomResource) {
  class misaligned final : public nd::memory_resource {
   public:
    misaligned() : memory_resource(nd::memory_kind::device, 0) {}
    int freed = 0;

   protected:
    void* do_allocate(std::size_t, const nd::stream&) override { return buffer + 8; }
    void do_deallocate(void*, std::size_t, const nd::stream&) override { ++freed; }

   private:
    alignas(256) char buffer[512]{};
  } r;
  try {
    (void)r.allocate(16, fake_stream(1));
    FAIL();
  } catch (const nd::error& e) {
    EXPECT_NE(std::string(e.what()).find("not aligned to 256 bytes"), std::string::npos) << e.what();
  }
  EXPECT_EQ(r.freed, 1) << "the misaligned memory was given back";
  EXPECT_STREQ(nd::to_string(nd::memory_kind::pinned_host), "pinned_host");
}
