// set_limit/get_limit on the current device and on a given one; limits are per device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/limits.hpp>
#include <string>
#include <utility>

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

TEST(Limits, ValuesPastTheDeviceAreRefusedNamingTheMaximum) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t fifo_before = nd::get_limit(0, nd::limit::printf_fifo_size);
  const std::size_t stack_before = nd::get_limit(0, nd::limit::stack_size);
  const std::size_t memory = nd::device(0).total_memory();
  EXPECT_EQ(nd::max_limit(0, nd::limit::printf_fifo_size), memory);
  EXPECT_EQ(nd::max_limit(0, nd::limit::malloc_heap_size), memory);
  const std::size_t most_stack = nd::max_limit(0, nd::limit::stack_size);
  EXPECT_LE(most_stack, std::size_t{512} << 10);
  EXPECT_GE(most_stack, std::size_t{64} << 10);
  for (const auto& [which, bytes] :
       {std::pair{nd::limit::printf_fifo_size, std::size_t{1} << 50},
        std::pair{nd::limit::stack_size, std::size_t{1} << 40}, std::pair{nd::limit::stack_size, most_stack + 1},
        std::pair{nd::limit::malloc_heap_size, memory + 1}}) {
    try {
      nd::set_limit(0, which, bytes);
      ADD_FAILURE() << "set_limit(" << nd::to_string(which) << ", " << bytes << ") was accepted";
    } catch (const nd::device_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::to_string(bytes)), std::string::npos) << what;
      EXPECT_NE(what.find("maximum on this device is " + std::to_string(nd::max_limit(0, which))), std::string::npos)
          << what;
    }
  }
  // Nothing changed, and the device still works.
  EXPECT_EQ(nd::get_limit(0, nd::limit::printf_fifo_size), fifo_before);
  EXPECT_EQ(nd::get_limit(0, nd::limit::stack_size), stack_before);
  EXPECT_NO_THROW(nd::set_limit(0, nd::limit::stack_size, stack_before));
}

TEST(Limits, AreSetPerDeviceMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  const std::size_t before = nd::get_limit(0, nd::limit::printf_fifo_size);
  nd::set_limit(1, nd::limit::printf_fifo_size, before + (std::size_t{4} << 20));
  EXPECT_GE(nd::get_limit(1, nd::limit::printf_fifo_size), before + (std::size_t{4} << 20));
  EXPECT_EQ(nd::get_limit(0, nd::limit::printf_fifo_size), before);
}
