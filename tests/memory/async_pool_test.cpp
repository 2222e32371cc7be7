// async_pool_resource over cudaMallocFromPoolAsync: data, threshold, stats, errors, graph capture.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <limits>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/memory/async_pool_resource.hpp>
#include <string>
#include <thread>
#include <vector>

#include "support/cuda_buffers.hpp"
#include "support/gpu.hpp"

namespace nd = ndcuda;
using nd::testing::read_back;

namespace {
constexpr std::size_t MiB = std::size_t{1} << 20;
}

TEST(AsyncPool, AllocationsHoldTheirData) {
  NDCUDA_REQUIRE_GPU();
  nd::async_pool_resource pool(0);
  nd::stream s(0);
  EXPECT_EQ(pool.kind(), nd::memory_kind::device);
  EXPECT_EQ(pool.device(), 0);
  std::vector<unsigned char> host(3 * MiB + 5);
  nd::testing::fill_random(host.data(), host.size());
  void* p = pool.allocate(host.size(), s);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % nd::allocation_alignment, 0U);
  ASSERT_EQ(cudaMemcpyAsync(p, host.data(), host.size(), cudaMemcpyHostToDevice, s.handle()), cudaSuccess);
  EXPECT_EQ(read_back(p, host.size(), s), host);
  pool.deallocate(p, host.size(), s);
}

TEST(AsyncPool, ReleaseThresholdIsConfigurable) {
  NDCUDA_REQUIRE_GPU();
  nd::async_pool_resource keep_all(0);
  EXPECT_EQ(keep_all.release_threshold(), std::numeric_limits<std::size_t>::max());
  nd::async_pool_options options;
  options.release_threshold = 64 * MiB;
  nd::async_pool_resource pool(0, options);
  EXPECT_EQ(pool.release_threshold(), 64 * MiB);
  pool.set_release_threshold(0);
  EXPECT_EQ(pool.release_threshold(), 0U);
}

TEST(AsyncPool, StatisticsAndFreeAllBlocks) {
  NDCUDA_REQUIRE_GPU();
  nd::async_pool_resource pool(0);
  nd::stream s(0);
  void* a = pool.allocate(8 * MiB, s);
  void* b = pool.allocate(MiB, s);
  nd::memory_stats st = pool.stats();
  EXPECT_EQ(st.used_bytes, 9 * MiB);
  EXPECT_EQ(st.live_allocations, 2U);
  EXPECT_GE(st.reserved_bytes, 9 * MiB);
  pool.deallocate(a, 8 * MiB, s);
  pool.deallocate(b, MiB, s);
  s.synchronize();
  st = pool.stats();
  EXPECT_EQ(st.used_bytes, 0U);
  EXPECT_EQ(st.peak_used_bytes, 9 * MiB);
  EXPECT_EQ(st.allocation_count, 2U);
  EXPECT_EQ(st.deallocation_count, 2U);
  EXPECT_GT(st.reserved_bytes, 0U) << "the default threshold keeps memory cached";
  EXPECT_GT(pool.free_all_blocks(), 0U);
  EXPECT_EQ(pool.stats().reserved_bytes, 0U);
}

TEST(AsyncPool, ZeroSizeNullAndBadFrees) {
  NDCUDA_REQUIRE_GPU();
  nd::async_pool_resource pool(0);
  nd::stream s(0);
  EXPECT_EQ(pool.allocate(0, s), nullptr);
  EXPECT_NO_THROW(pool.deallocate(nullptr, 0, s));
  void* p = pool.allocate(4096, s);
  EXPECT_THROW(pool.deallocate(p, 100, s), nd::error);
  pool.deallocate(p, 4096, s);
  EXPECT_THROW(pool.deallocate(p, 4096, s), nd::error) << "double free";
  EXPECT_EQ(pool.stats().live_allocations, 0U);
}

TEST(AsyncPool, OnePebibyteThrowsOutOfMemory) {
  NDCUDA_REQUIRE_GPU();
  nd::async_pool_resource pool(0);
  nd::stream s(0);
  try {
    (void)pool.allocate(std::size_t{1} << 50, s);
    FAIL();
  } catch (const nd::out_of_memory& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("out of memory on device 0: allocate(1125899906842624 bytes = 1 PiB)"), std::string::npos)
        << what;
    EXPECT_NE(what.find("release threshold"), std::string::npos) << what;
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  void* p = pool.allocate(MiB, s);  // still works
  pool.deallocate(p, MiB, s);
}

TEST(AsyncPool, AllocatesInsideGraphCapture) {
  NDCUDA_REQUIRE_GPU();
  nd::async_pool_resource pool(0);
  nd::stream s(0);
  void* result = pool.allocate(MiB, s);
  ASSERT_EQ(cudaStreamBeginCapture(s.handle(), cudaStreamCaptureModeGlobal), cudaSuccess);
  void* scratch = pool.allocate(MiB, s);  // a graph memory node
  ASSERT_EQ(cudaMemsetAsync(scratch, 9, MiB, s.handle()), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(result, scratch, MiB, cudaMemcpyDeviceToDevice, s.handle()), cudaSuccess);
  pool.deallocate(scratch, MiB, s);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s.handle(), &graph), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(cudaGraphLaunch(exec, s.handle()), cudaSuccess);
  }
  const auto back = read_back(result, MiB, s);
  EXPECT_EQ(back, std::vector<unsigned char>(MiB, 9));
  (void)cudaGraphExecDestroy(exec);
  (void)cudaGraphDestroy(graph);
  pool.deallocate(result, MiB, s);
  EXPECT_EQ(pool.stats().live_allocations, 0U);
}

TEST(AsyncPool, FourThreadsChurn) {
  NDCUDA_REQUIRE_GPU();
  nd::async_pool_resource pool(0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pool] {
      nd::stream s(0);
      for (int i = 0; i < 1000; ++i) {
        const std::size_t n = 256 + static_cast<std::size_t>(i % 97) * 4096;
        void* p = pool.allocate(n, s);
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
  EXPECT_EQ(st.allocation_count, 4000U);
  EXPECT_EQ(st.deallocation_count, 4000U);
}

TEST(AsyncPool, CanUseTheDevicesDefaultPool) {
  NDCUDA_REQUIRE_GPU();
  nd::async_pool_options options;
  options.use_default_pool = true;
  nd::async_pool_resource pool(0, options);
  cudaMemPool_t expected = nullptr;
  ASSERT_EQ(cudaDeviceGetDefaultMemPool(&expected, 0), cudaSuccess);
  EXPECT_EQ(pool.handle(), expected);
}
