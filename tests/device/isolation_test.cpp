// Device isolation: a program that works only on the last GPU leaves every other GPU without a
// context, asked through the driver. Needs two GPUs; ctest runs it in a fresh process.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <ndcuda/ndcuda.hpp>
#include <vector>

#include "support/contexts.hpp"
#include "support/gpu.hpp"

namespace nd = ndcuda;

TEST(Isolation, WorkingOnTheLastDeviceLeavesTheOthersUntouchedMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  const int target = nd::device_count() - 1;
  nd::device d(target);
  ASSERT_FALSE(d.name().empty());
  (void)d.memory();
  nd::set_limit(target, nd::limit::stack_size, 4096);
  // ndcuda objects and calls need no guard: each works on its own device.
  nd::stream s(target);
  nd::event start(target, true);
  nd::event stop(target, true);
  std::vector<std::uint64_t> host(1 << 20);
  for (auto& v : host) {
    v = nd::testing::rng()();
  }
  std::vector<std::uint64_t> back(host.size(), 0);
  const std::size_t bytes = host.size() * sizeof(std::uint64_t);
  {
    nd::device_guard guard(d);  // raw runtime calls below rely on the current device
    void* buffer = nullptr;
    ASSERT_EQ(cudaMallocAsync(&buffer, bytes, s.handle()), cudaSuccess);
    start.record(s);
    ASSERT_EQ(cudaMemcpyAsync(buffer, host.data(), bytes, cudaMemcpyHostToDevice, s.handle()), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(back.data(), buffer, bytes, cudaMemcpyDeviceToHost, s.handle()), cudaSuccess);
    stop.record(s);
    ASSERT_EQ(cudaFreeAsync(buffer, s.handle()), cudaSuccess);
  }
  nd::default_stream(target).wait(stop);
  nd::default_stream(target).synchronize();
  (void)s.query();
  EXPECT_FALSE(s.is_capturing());
  s.synchronize();
  stop.synchronize();
  EXPECT_TRUE(stop.query());
  EXPECT_EQ(back, host);
  EXPECT_GE(nd::elapsed_ms(start, stop), 0.0F);
  {
    nd::stream temporary(target);  // destroyed outside any guard
  }
  EXPECT_TRUE(nd::testing::primary_context_active(target));
  for (int i = 0; i < target; ++i) {
    EXPECT_FALSE(nd::testing::primary_context_active(i))
        << "working on device " << target << " created a context on " << i;
  }
}
