// Memory isolation: pools, the pinned pool and the transfer engine used only on the last GPU leave
// every other GPU without a context. Needs two GPUs; ctest runs it in a fresh process.
#include <gtest/gtest.h>

#include <ndcuda/ndcuda.hpp>
#include <vector>

#include "support/contexts.hpp"
#include "support/cuda_buffers.hpp"
#include "support/gpu.hpp"

namespace nd = ndcuda;

TEST(MemoryIsolation, WorkingOnTheLastDeviceLeavesTheOthersUntouchedMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  const int target = nd::device_count() - 1;
  constexpr std::size_t bytes = std::size_t{24} << 20;
  nd::stream s(target);
  auto pool = nd::default_resource(target);
  void* device = pool->allocate(bytes, s);
  nd::async_pool_resource async_pool(target);
  void* async_block = async_pool.allocate(bytes, s);
  nd::testing::pageable_buffer source(bytes);
  nd::testing::pageable_buffer back(bytes);
  nd::testing::fill_random(source.ptr, bytes);
  EXPECT_EQ(nd::copy_to_device(device, source.ptr, bytes, s), nd::transfer_path::staged);
  auto pinned = nd::default_pinned_pool();
  void* staging = pinned->allocate(bytes, s);
  std::memcpy(staging, source.ptr, bytes);
  EXPECT_EQ(nd::copy_to_device(async_block, staging, bytes, s), nd::transfer_path::direct);
  EXPECT_EQ(nd::copy_to_host(back.ptr, async_block, bytes, s), nd::transfer_path::staged);
  EXPECT_EQ(nd::testing::first_difference(back.ptr, source.ptr, bytes), bytes);
  pinned->deallocate(staging, bytes, s);
  async_pool.deallocate(async_block, bytes, s);
  pool->deallocate(device, bytes, s);
  {
    // stream::synchronize is a runtime call: without a current context the runtime would pick
    // device 0. The memory layer guards its own calls; the test guards its own.
    nd::device_guard guard(target);
    s.synchronize();
  }
  EXPECT_TRUE(nd::testing::primary_context_active(target));
  for (int i = 0; i < target; ++i) {
    EXPECT_FALSE(nd::testing::primary_context_active(i))
        << "memory work on device " << target << " created a context on " << i;
  }
}
