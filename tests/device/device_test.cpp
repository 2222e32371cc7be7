// device properties against cudaGetDeviceProperties, device_guard, and laziness (no context
// is created by enumerating or inspecting a device).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/enumeration.hpp>

#include "support/contexts.hpp"
#include "support/gpu.hpp"

namespace nd = ndcuda;

TEST(Device, OutOfRangeOrdinalIsAClearError) {
  // Runs with and without a GPU: either the driver is missing or the ordinal does not exist.
  try {
    nd::device d(1000);
    FAIL() << "expected device_error";
  } catch (const nd::device_error& e) {
    const std::string what = e.what();
    const bool explains =
        what.find("does not exist") != std::string::npos || what.rfind("no CUDA device available: ", 0) == 0;
    EXPECT_TRUE(explains) << what;
  }
}

TEST(Device, PropertiesMatchTheRuntime) {
  NDCUDA_REQUIRE_GPU();
  for (const nd::device& d : nd::devices()) {
    cudaDeviceProp prop{};
    ASSERT_EQ(cudaGetDeviceProperties(&prop, d.index()), cudaSuccess);
    EXPECT_EQ(d.name(), prop.name);
    EXPECT_EQ(d.capability().major, prop.major);
    EXPECT_EQ(d.capability().minor, prop.minor);
    EXPECT_EQ(d.capability().value(), prop.major * 10 + prop.minor);
    EXPECT_EQ(d.multiprocessor_count(), prop.multiProcessorCount);
    EXPECT_EQ(d.total_memory(), prop.totalGlobalMem);
    EXPECT_EQ(d.attribute(cudaDevAttrWarpSize), prop.warpSize);
    EXPECT_EQ(d.uuid().size(), 40U) << d.uuid();
    EXPECT_EQ(d.uuid().rfind("GPU-", 0), 0U);
    char expected[3];
    std::snprintf(expected, sizeof expected, "%02x", static_cast<unsigned char>(prop.uuid.bytes[0]));
    EXPECT_EQ(d.uuid().substr(4, 2), expected);
    const nd::memory_info memory = d.memory();
    EXPECT_GT(memory.free, 0U);
    EXPECT_LE(memory.free, memory.total);
    EXPECT_EQ(memory.total, prop.totalGlobalMem);
    {
      nd::device_guard guard(d);
      std::size_t cuda_free = 0;
      std::size_t cuda_total = 0;
      ASSERT_EQ(cudaMemGetInfo(&cuda_free, &cuda_total), cudaSuccess);
      EXPECT_EQ(cuda_total, memory.total);
      // Other tests may allocate on this GPU meanwhile; the figures must agree to within that.
      const double gib = 1024.0 * 1024.0 * 1024.0;
      // (ctest runs test processes side by side: a quarter of the card covers what they hold.)
      EXPECT_NEAR(static_cast<double>(memory.free) / gib, static_cast<double>(cuda_free) / gib,
                  static_cast<double>(cuda_total) / gib / 4);
    }
  }
  EXPECT_EQ(static_cast<int>(nd::devices().size()), nd::device_count());
}

TEST(Device, InspectingCreatesNoContext) {
  NDCUDA_REQUIRE_GPU();
  const int count = nd::device_count();
  for (int i = 0; i < count; ++i) {
    nd::device d(i);
    (void)d.name();
    (void)d.capability();
    (void)d.uuid();
    (void)d.total_memory();
    if (nd::device_enumeration_source() == nd::enumeration_source::nvml) {
      (void)d.memory();  // through NVML: still no context
    }
  }
  for (int i = 0; i < count; ++i) {
    EXPECT_FALSE(nd::testing::primary_context_active(i)) << "device " << i << " got a context from a mere query";
  }
}

TEST(Device, GuardSwitchesAndRestoresWithoutTouchingOtherDevices) {
  NDCUDA_REQUIRE_GPU();
  const int last = nd::device_count() - 1;
  {
    nd::device_guard guard(last);
    EXPECT_EQ(nd::current_device().index(), last);
    void* p = nullptr;
    ASSERT_EQ(cudaMalloc(&p, 1 << 20), cudaSuccess);  // lands on `last`
    cudaPointerAttributes attributes{};
    ASSERT_EQ(cudaPointerGetAttributes(&attributes, p), cudaSuccess);
    EXPECT_EQ(attributes.device, last);
    ASSERT_EQ(cudaFree(p), cudaSuccess);
  }
  EXPECT_TRUE(nd::testing::primary_context_active(last));
  for (int i = 0; i < last; ++i) {
    EXPECT_FALSE(nd::testing::primary_context_active(i)) << "device_guard(" << last << ") touched device " << i;
  }
}

TEST(Device, GuardNestsAndRestoresThePreviousDeviceMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  nd::device_guard outer(1);
  EXPECT_EQ(nd::current_device().index(), 1);
  {
    nd::device_guard inner(0);
    EXPECT_EQ(nd::current_device().index(), 0);
  }
  EXPECT_EQ(nd::current_device().index(), 1);
}
