// The pinned pool over real cudaHostAlloc and CUDA events.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/memory/pinned_pool_resource.hpp>
#include <string>
#include <thread>
#include <vector>

#include "support/cuda_buffers.hpp"
#include "support/gpu.hpp"

namespace nd = ndcuda;

namespace {
constexpr std::size_t MiB = std::size_t{1} << 20;
}

TEST(PinnedPoolGpu, BlocksArePageLockedAndHostWritable) {
  NDCUDA_REQUIRE_GPU();
  nd::pinned_pool_resource pool;
  nd::stream s(0);
  auto* p = static_cast<char*>(pool.allocate(3 * MiB + 1, s));
  cudaPointerAttributes attributes{};
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, p), cudaSuccess);
  EXPECT_EQ(attributes.type, cudaMemoryTypeHost);
  std::memset(p, 0x11, 3 * MiB + 1);
  EXPECT_TRUE(pool.contains(p, 3 * MiB + 1));
  EXPECT_EQ(pool.allocate(0, s), nullptr);
  pool.deallocate(nullptr, 0, s);
  pool.deallocate(p, 3 * MiB + 1, s);
  EXPECT_THROW(pool.deallocate(p, 3 * MiB + 1, s), nd::error) << "double free";
}

TEST(PinnedPoolGpu, ReuseWaitsForTheCopyThatUsedTheBlock) {
  NDCUDA_REQUIRE_GPU();
  nd::pinned_pool_resource pool;
  nd::stream s(0);
  nd::testing::device_buffer slow(1024 * MiB);
  nd::testing::device_buffer device(8 * MiB);
  auto* p = static_cast<char*>(pool.allocate(8 * MiB, s));
  std::memset(p, 0x22, 8 * MiB);
  ASSERT_EQ(cudaMemsetAsync(slow.ptr, 0, slow.bytes, s.handle()), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(device.ptr, p, 8 * MiB, cudaMemcpyHostToDevice, s.handle()), cudaSuccess);
  pool.deallocate(p, 8 * MiB, s);
  void* q = pool.allocate(8 * MiB, s);
  if (q == p) {
    EXPECT_TRUE(s.query()) << "handed out while its copy was still queued";
  }
  s.synchronize();
  EXPECT_EQ(pool.pending_bytes(), 0U);
  void* r = pool.allocate(8 * MiB, s);
  EXPECT_TRUE(r == p || q == p) << "a completed block is reused";
  const auto back = nd::testing::read_back(device.ptr, 8 * MiB, s);
  EXPECT_EQ(back, std::vector<unsigned char>(8 * MiB, 0x22));
  pool.deallocate(q, 8 * MiB, s);
  pool.deallocate(r, 8 * MiB, s);
  s.synchronize();
  const nd::memory_stats st = pool.stats();
  EXPECT_EQ(pool.free_all_blocks(), st.reserved_bytes);
  EXPECT_EQ(pool.stats().reserved_bytes, 0U);
}

TEST(PinnedPoolGpu, LimitAndOutOfMemory) {
  NDCUDA_REQUIRE_GPU();
  nd::pinned_pool_options options;
  options.limit = 6 * MiB;
  nd::pinned_pool_resource pool(options);
  nd::stream s(0);
  void* a = pool.allocate(5 * MiB, s);
  void* b = pool.allocate(MiB, s);
  EXPECT_THROW((void)pool.allocate(MiB, s), nd::out_of_memory);
  pool.set_limit(7 * MiB);
  void* c = pool.allocate(MiB, s);
  for (auto [p, n] : {std::pair{a, 5 * MiB}, std::pair{b, MiB}, std::pair{c, MiB}}) {
    pool.deallocate(p, n, s);
  }
  pool.set_limit(std::nullopt);
  try {
    (void)pool.allocate(std::size_t{1} << 50, s);
    FAIL() << "1 PiB was pinned";
  } catch (const nd::out_of_memory& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("allocate(1125899906842624 bytes = 1 PiB)"), std::string::npos) << what;
    EXPECT_NE(what.find("cudaHostAlloc"), std::string::npos) << what;
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(PinnedPoolGpu, FourThreadsChurn) {
  NDCUDA_REQUIRE_GPU();
  nd::pinned_pool_resource pool;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pool, t] {
      nd::stream s(0);
      for (int i = 0; i < 300; ++i) {
        const std::size_t n = 4096 + static_cast<std::size_t>((i * 131 + t) % 64) * 16384;
        auto* p = static_cast<char*>(pool.allocate(n, s));
        p[0] = static_cast<char>(i);
        p[n - 1] = static_cast<char>(t);
        pool.deallocate(p, n, s);
      }
      s.synchronize();
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  const nd::memory_stats st = pool.stats();
  EXPECT_EQ(st.used_bytes, 0U);
  EXPECT_EQ(st.allocation_count, 1200U);
  EXPECT_EQ(st.deallocation_count, 1200U);
  EXPECT_EQ(pool.free_all_blocks(), st.reserved_bytes);
}
