// The in-memory cache under concurrency: one compile per key however many threads ask, distinct
// keys compiling in parallel, no lock held while compiling, and failures not cached.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <latch>
#include <ndcuda/core/error.hpp>
#include <thread>

#include "jit/program_cache.hpp"
#include "jit_support.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;

TEST(JitSingleFlight, SixtyFourThreadsAskingForOneNewKernelCauseOneNvrtcCompile) {
  jd::program_cache cache(jd::nvrtc_compile, nullptr);
  const auto key = nd::testing::small_key("single-flight");
  constexpr int threads = 64;
  std::latch start(threads);
  std::vector<std::shared_ptr<const jd::program>> got(threads);
  const std::uint64_t compiles_before = jd::nvrtc_compile_count();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      start.arrive_and_wait();
      got[static_cast<std::size_t>(t)] = cache.get(key);
    });
  }
  for (auto& th : pool) th.join();
  EXPECT_EQ(jd::nvrtc_compile_count() - compiles_before, 1U);
  for (const auto& p : got) {
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p, got.front()) << "every thread must get the same program";
  }
  EXPECT_FALSE(got.front()->compiled().image.empty());
  EXPECT_EQ(cache.counters().compiles, 1U);
  EXPECT_EQ(cache.counters().memory_hits, static_cast<std::uint64_t>(threads - 1));
}

TEST(JitSingleFlight, DistinctKernelsCompileInParallel) {
  std::atomic<int> running{0};
  std::atomic<int> most{0};
  auto slow = [&](const jd::kernel_key& key) {
    const int now = ++running;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    --running;
    return nd::testing::counting_compiler{}(key);
  };
  jd::program_cache cache(slow, nullptr);
  constexpr int kernels = 4;
  std::latch start(kernels);
  const auto began = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < kernels; ++t) {
    pool.emplace_back([&, t] {
      start.arrive_and_wait();
      (void)cache.get(nd::testing::small_key("parallel-" + std::to_string(t)));
    });
  }
  for (auto& th : pool) th.join();
  const auto took = std::chrono::steady_clock::now() - began;
  EXPECT_EQ(most.load(), kernels) << "the compiles of distinct keys must overlap";
  EXPECT_LT(took, std::chrono::milliseconds(300 * kernels - 100));
}

TEST(JitSingleFlight, TheCacheLockIsNotHeldWhileCompiling) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> entered;
  const auto blocked_key = nd::testing::small_key("blocked");
  auto compiler = [&](const jd::kernel_key& key) {
    if (key == blocked_key) {
      entered.set_value();
      released.wait();
    }
    return nd::testing::counting_compiler{}(key);
  };
  jd::program_cache cache(compiler, nullptr);
  const auto ready_key = nd::testing::small_key("ready");
  const auto ready = cache.get(ready_key);
  auto blocked = std::async(std::launch::async, [&] { return cache.get(blocked_key); });
  entered.get_future().wait();
  // While that compile is stuck, the cache serves other keys and compiles new ones.
  EXPECT_EQ(cache.get(ready_key), ready);
  EXPECT_NE(cache.get(nd::testing::small_key("another")), nullptr);
  release.set_value();
  EXPECT_NE(blocked.get(), nullptr);
}

TEST(JitSingleFlight, AFailedCompileReachesEveryWaiterAndIsNotCached) {
  jd::program_cache cache(jd::nvrtc_compile, nullptr);
  const auto key = jd::make_key("extern \"C\" __global__ void broken(float* x) { x[0] = not_declared; }", "broken.cu",
                                {"broken"}, {}, {90, false});
  constexpr int threads = 8;
  std::latch start(threads);
  std::atomic<int> errors{0};
  const std::uint64_t compiles_before = jd::nvrtc_compile_count();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      start.arrive_and_wait();
      try {
        (void)cache.get(key);
      } catch (const nd::compile_error& e) {
        if (std::string(e.log()).find("not_declared") != std::string::npos) ++errors;
      }
    });
  }
  for (auto& th : pool) th.join();
  EXPECT_EQ(errors.load(), threads);
  EXPECT_EQ(jd::nvrtc_compile_count() - compiles_before, 1U) << "waiters share the one failed compile";
  EXPECT_EQ(cache.size(), 0U) << "a failure is not cached";
  EXPECT_THROW((void)cache.get(key), nd::compile_error);
  EXPECT_EQ(jd::nvrtc_compile_count() - compiles_before, 2U) << "the next request compiles again";
}

TEST(JitSingleFlight, ReplacingAStaleProgramRecompilesOnceAndSkipsTheDisk) {
  nd::testing::temp_dir dir;
  nd::testing::counting_compiler compiler;
  jd::disk_cache_config config;
  config.directory = dir.path();
  auto disk = std::make_shared<jd::disk_cache>(config);
  const auto key = nd::testing::small_key("stale");
  {
    jd::program_cache writer(compiler, disk);
    (void)writer.get(key);
  }
  jd::program_cache cache(compiler, disk);
  const auto from_disk = cache.get(key);
  ASSERT_TRUE(from_disk->from_disk());
  EXPECT_EQ(*compiler.calls, 1);
  const auto fresh = cache.replace_stale(key, from_disk.get());
  EXPECT_FALSE(fresh->from_disk());
  EXPECT_EQ(*compiler.calls, 2);
  // Asking again, or replacing the same stale program again, finds the replacement.
  EXPECT_EQ(cache.get(key), fresh);
  EXPECT_EQ(cache.replace_stale(key, from_disk.get()), fresh);
  EXPECT_EQ(*compiler.calls, 2);
}
