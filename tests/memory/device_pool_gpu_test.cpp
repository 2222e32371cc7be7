// The device pool over real cudaMalloc and CUDA events: data integrity, ordering, limits, capture.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <atomic>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/memory/device_pool_resource.hpp>
#include <string>
#include <thread>
#include <vector>

#include "support/cuda_buffers.hpp"
#include "support/gpu.hpp"

namespace nd = ndcuda;
using nd::testing::read_back;

namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;

bool all_bytes_are(const std::vector<unsigned char>& v, unsigned char value) {
  for (unsigned char b : v) {
    if (b != value) {
      return false;
    }
  }
  return true;
}

}  // namespace

TEST(DevicePoolGpu, AllocationsHoldTheirDataAndAreAligned) {
  NDCUDA_REQUIRE_GPU();
  nd::device_pool_resource pool(0);
  nd::stream s(0);
  std::vector<std::pair<void*, std::size_t>> blocks;
  for (std::size_t n : {std::size_t{1}, std::size_t{255}, std::size_t{4096}, 3 * MiB + 17, 40 * MiB}) {
    void* p = pool.allocate(n, s);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % nd::allocation_alignment, 0U);
    cudaPointerAttributes attributes{};
    ASSERT_EQ(cudaPointerGetAttributes(&attributes, p), cudaSuccess);
    EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
    EXPECT_EQ(attributes.device, 0);
    blocks.emplace_back(p, n);
  }
  // Distinct byte values per block: overlapping blocks would show as mixed values.
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    ASSERT_EQ(cudaMemsetAsync(blocks[i].first, static_cast<int>(i + 1), blocks[i].second, s.handle()), cudaSuccess);
  }
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    EXPECT_TRUE(all_bytes_are(read_back(blocks[i].first, blocks[i].second, s), static_cast<unsigned char>(i + 1)));
  }
  for (auto [p, n] : blocks) {
    pool.deallocate(p, n, s);
  }
  const nd::memory_stats st = pool.stats();
  EXPECT_EQ(st.used_bytes, 0U);
  EXPECT_EQ(st.cached_bytes, st.reserved_bytes);
  s.synchronize();
  EXPECT_EQ(pool.free_all_blocks(), st.reserved_bytes);
  EXPECT_EQ(pool.stats().reserved_bytes, 0U);
}

TEST(DevicePoolGpu, ZeroSizeNullFreeAndDoubleFree) {
  NDCUDA_REQUIRE_GPU();
  nd::device_pool_resource pool(0);
  nd::stream s(0);
  EXPECT_EQ(pool.allocate(0, s), nullptr);
  EXPECT_NO_THROW(pool.deallocate(nullptr, 0, s));
  void* p = pool.allocate(1000, s);
  pool.deallocate(p, 1000, s);
  try {
    pool.deallocate(p, 1000, s);
    FAIL() << "a double free went unnoticed";
  } catch (const nd::error& e) {
    EXPECT_NE(std::string(e.what()).find("double free"), std::string::npos) << e.what();
  }
}

TEST(DevicePoolGpu, OnePebibyteThrowsOutOfMemoryWithTheDevice) {
  NDCUDA_REQUIRE_GPU();
  nd::device_pool_resource pool(0);
  nd::stream s(0);
  void* keep = pool.allocate(12 * MiB, s);
  try {
    (void)pool.allocate(std::size_t{1} << 50, s);
    FAIL() << "1 PiB was allocated";
  } catch (const nd::out_of_memory& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("out of memory on device 0: allocate(1125899906842624 bytes = 1 PiB)"), std::string::npos)
        << what;
    EXPECT_NE(what.find("used 12 MiB"), std::string::npos) << what;
    EXPECT_NE(what.find("cudaMalloc on device 0 (" + nd::device(0).name() + ")"), std::string::npos) << what;
    EXPECT_NE(what.find(" free of "), std::string::npos) << what;
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the failed cudaMalloc left a sticky error";
  pool.deallocate(keep, 12 * MiB, s);
}

TEST(DevicePoolGpu, LimitSequence) {
  NDCUDA_REQUIRE_GPU();
  constexpr std::size_t u = 2 * MiB;
  nd::pool_options options;
  options.min_chunk_bytes = u;
  options.chunk_granularity = u;
  options.limit = 6 * u;
  nd::device_pool_resource pool(0, options);
  nd::stream s(0);
  void* a = pool.allocate(5 * u, s);
  void* b = pool.allocate(u, s);
  EXPECT_THROW((void)pool.allocate(u, s), nd::out_of_memory);
  pool.set_limit(7 * u);
  void* c = pool.allocate(u, s);
  EXPECT_EQ(pool.stats().reserved_bytes, 7 * u);
  for (auto [p, n] : {std::pair{a, 5 * u}, std::pair{b, u}, std::pair{c, u}}) {
    pool.deallocate(p, n, s);
  }
}

TEST(DevicePoolGpu, ABlockFreedOnOneStreamIsReusedOnAnotherOnlyInOrder) {
  NDCUDA_REQUIRE_GPU();
  constexpr std::size_t n = 256 * MiB;  // long enough that an unordered reuse would race visibly
  nd::pool_options options;
  options.limit = n;  // no growth: the second stream must take the first one's block
  options.min_chunk_bytes = n;
  nd::device_pool_resource pool(0, options);
  nd::stream a(0);
  nd::stream b(0);
  for (int round = 0; round < 5; ++round) {
    void* p = pool.allocate(n, a);
    for (int i = 0; i < 8; ++i) {  // a long tail of writes on a
      ASSERT_EQ(cudaMemsetAsync(p, 1, n, a.handle()), cudaSuccess);
    }
    pool.deallocate(p, n, a);
    void* q = pool.allocate(n, b);
    ASSERT_EQ(q, p);
    ASSERT_EQ(cudaMemsetAsync(q, 2, n, b.handle()), cudaSuccess);
    b.synchronize();
    // Had b not waited for a, some of a's writes would land after b's.
    EXPECT_TRUE(all_bytes_are(read_back(q, n, b), 2)) << "round " << round;
    pool.deallocate(q, n, b);
  }
}

TEST(DevicePoolGpu, FourThreadsChurnWithDataChecks) {
  NDCUDA_REQUIRE_GPU();
  nd::device_pool_resource pool(0);
  std::atomic<int> corrupted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      nd::stream s(0);
      std::mt19937_64 rng(static_cast<std::uint64_t>(t) * 7919 + 1);
      std::vector<std::pair<void*, std::size_t>> mine;
      for (int i = 0; i < 400; ++i) {
        if (mine.size() < 16 && (mine.empty() || rng() % 2 == 0)) {
          const std::size_t n = 1 + rng() % (4 * MiB);
          void* p = pool.allocate(n, s);
          NDCUDA_CUDA_CHECK(cudaMemsetAsync(p, t + 1, n, s.handle()));
          mine.emplace_back(p, n);
        } else {
          const std::size_t k = rng() % mine.size();
          auto [p, n] = mine[k];
          if (!all_bytes_are(read_back(p, n, s), static_cast<unsigned char>(t + 1))) {
            ++corrupted;
          }
          pool.deallocate(p, n, s);
          mine[k] = mine.back();
          mine.pop_back();
        }
      }
      for (auto [p, n] : mine) {
        pool.deallocate(p, n, s);
      }
      s.synchronize();
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  EXPECT_EQ(corrupted, 0);
  const nd::memory_stats st = pool.stats();
  EXPECT_EQ(st.used_bytes, 0U);
  EXPECT_EQ(st.live_allocations, 0U);
  EXPECT_EQ(st.allocation_count, st.deallocation_count);
  EXPECT_EQ(pool.free_all_blocks(), st.reserved_bytes);
  EXPECT_EQ(pool.stats().reserved_bytes, 0U);
}

TEST(DevicePoolGpu, FreeAllBlocksReturnsMemoryToTheDriver) {
  NDCUDA_REQUIRE_GPU();
  nd::device_pool_resource pool(0);
  nd::stream s(0);
  nd::device_guard guard(0);
  void* p = pool.allocate(512 * MiB, s);
  ASSERT_EQ(cudaMemsetAsync(p, 0, 512 * MiB, s.handle()), cudaSuccess);
  pool.deallocate(p, 512 * MiB, s);
  cudaPointerAttributes attributes{};
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, p), cudaSuccess);
  EXPECT_EQ(attributes.type, cudaMemoryTypeDevice) << "cached, not yet returned";
  EXPECT_GE(pool.free_all_blocks(), 512 * MiB);
  // Free memory of the whole device is no evidence (other tests run at once): ask CUDA whether
  // the address is still an allocation.
  attributes = cudaPointerAttributes{};
  const cudaError_t rc = cudaPointerGetAttributes(&attributes, p);
  (void)cudaGetLastError();
  EXPECT_TRUE(rc != cudaSuccess || attributes.type == cudaMemoryTypeUnregistered) << "the chunk is still allocated";
  const nd::memory_stats st = pool.stats();
  EXPECT_EQ(st.reserved_bytes, 0U);
  EXPECT_EQ(st.upstream_frees, st.upstream_allocations);
}

TEST(DevicePoolGpu, SplitAndMergeOnRealMemory) {
  NDCUDA_REQUIRE_GPU();
  constexpr std::size_t u = 256 * 1024;
  nd::pool_options options;
  options.min_chunk_bytes = 4 * u;
  options.chunk_granularity = u;
  nd::device_pool_resource pool(0, options);
  nd::stream s(0);
  auto* a = static_cast<char*>(pool.allocate(u, s));
  auto* b = static_cast<char*>(pool.allocate(u, s));
  auto* c = static_cast<char*>(pool.allocate(u, s));
  EXPECT_EQ(b, a + u);
  EXPECT_EQ(c, b + u);
  EXPECT_EQ(pool.stats().upstream_allocations, 1U);
  pool.deallocate(b, u, s);
  pool.deallocate(c, u, s);
  pool.deallocate(a, u, s);
  void* whole = pool.allocate(4 * u, s);
  EXPECT_EQ(whole, a) << "the three blocks and the remainder merged back into the chunk";
  ASSERT_EQ(cudaMemsetAsync(whole, 3, 4 * u, s.handle()), cudaSuccess);
  EXPECT_TRUE(all_bytes_are(read_back(whole, 4 * u, s), 3));
  pool.deallocate(whole, 4 * u, s);
  EXPECT_EQ(pool.stats().upstream_allocations, 1U);
}

TEST(DevicePoolGpu, AllocatingDuringCaptureIsRefusedAndTheCaptureSurvives) {
  NDCUDA_REQUIRE_GPU();
  nd::device_pool_resource pool(0);
  nd::stream s(0);
  void* before = pool.allocate(MiB, s);
  ASSERT_EQ(cudaStreamBeginCapture(s.handle(), cudaStreamCaptureModeGlobal), cudaSuccess);
  EXPECT_THROW((void)pool.allocate(MiB, s), nd::capture_error);
  EXPECT_THROW(pool.deallocate(before, MiB, s), nd::capture_error);
  ASSERT_EQ(cudaMemsetAsync(before, 7, MiB, s.handle()), cudaSuccess);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s.handle(), &graph), cudaSuccess) << "the refusal invalidated the capture";
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, s.handle()), cudaSuccess);
  EXPECT_TRUE(all_bytes_are(read_back(before, MiB, s), 7));
  (void)cudaGraphExecDestroy(exec);
  (void)cudaGraphDestroy(graph);
  pool.deallocate(before, MiB, s);
}

TEST(DevicePoolGpu, AllocatesOnItsOwnDeviceMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  const int last = nd::device_count() - 1;
  nd::device_pool_resource pool(last);
  nd::stream s(last);
  void* p = pool.allocate(MiB, s);
  cudaPointerAttributes attributes{};
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, p), cudaSuccess);
  EXPECT_EQ(attributes.device, last);
  pool.deallocate(p, MiB, s);
}

TEST(DevicePoolGpu, ConstructingForAMissingDeviceIsADeviceError) {
  NDCUDA_REQUIRE_GPU();
  EXPECT_THROW(nd::device_pool_resource(nd::device_count()), nd::device_error);
}
