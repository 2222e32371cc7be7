// set_limit/get_limit on the current device and on a given one; limits are per device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/limits.hpp>

#include "support/gpu.hpp"

namespace nd = ndcuda;

TEST(Limits, NamesAreStable) {
  EXPECT_STREQ(nd::to_string(nd::limit::malloc_heap_size), "malloc_heap_size");
  EXPECT_STREQ(nd::to_string(nd::limit::stack_size), "stack_size");
  EXPECT_STREQ(nd::to_string(nd::limit::printf_fifo_size), "printf_fifo_size");
}

TEST(Limits, SetAndGetMatchTheRuntime) {
  NDCUDA_REQUIRE_GPU();
  auto& rng = nd::testing::rng();
  const std::size_t stack = 2048 + 16 * (rng() % 64);
  const std::size_t fifo = (std::size_t{2} + rng() % 6) << 20;
  const std::size_t heap = (std::size_t{16} + rng() % 48) << 20;
  nd::set_limit(nd::limit::stack_size, stack);
  nd::set_limit(nd::limit::printf_fifo_size, fifo);
  nd::set_limit(0, nd::limit::malloc_heap_size, heap);
  std::size_t value = 0;
  ASSERT_EQ(cudaDeviceGetLimit(&value, cudaLimitStackSize), cudaSuccess);
  EXPECT_GE(value, stack);  // CUDA rounds the stack up to its granularity
  EXPECT_EQ(nd::get_limit(nd::limit::stack_size), value);
  ASSERT_EQ(cudaDeviceGetLimit(&value, cudaLimitPrintfFifoSize), cudaSuccess);
  EXPECT_GE(value, fifo);
  EXPECT_EQ(nd::get_limit(0, nd::limit::printf_fifo_size), value);
  ASSERT_EQ(cudaDeviceGetLimit(&value, cudaLimitMallocHeapSize), cudaSuccess);
  EXPECT_GE(value, heap);
  EXPECT_EQ(nd::get_limit(nd::limit::malloc_heap_size), value);
}

TEST(Limits, HeapFixedByALoadedKernelIsAClearErrorBeforeCudaIsAsked) {
  NDCUDA_REQUIRE_GPU();
  nd::detail::note_device_heap_in_use(0);
  try {
    nd::set_limit(0, nd::limit::malloc_heap_size, std::size_t{64} << 20);
    FAIL() << "expected device_error";
  } catch (const nd::device_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("already been loaded"), std::string::npos) << what;
    EXPECT_NE(what.find("before the first such kernel"), std::string::npos) << what;
  }
  // Other limits stay settable.
  EXPECT_NO_THROW(nd::set_limit(0, nd::limit::stack_size, 4096));
}

TEST(Limits, AreSetPerDeviceMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  const std::size_t before = nd::get_limit(0, nd::limit::printf_fifo_size);
  nd::set_limit(1, nd::limit::printf_fifo_size, before + (std::size_t{4} << 20));
  EXPECT_GE(nd::get_limit(1, nd::limit::printf_fifo_size), before + (std::size_t{4} << 20));
  EXPECT_EQ(nd::get_limit(0, nd::limit::printf_fifo_size), before);
}
