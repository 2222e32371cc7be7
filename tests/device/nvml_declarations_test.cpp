// src/device/nvml_fallback.hpp, the NVML declarations builds without <nvml.h> use, against the
// header itself wherever CMake found one (NDCUDA_HAVE_NVML_H): the same sizes and field offsets,
// the same constants. A fallback that drifted from NVML's ABI would read garbage at run time.
#include <gtest/gtest.h>

#include <cstddef>

#include "device/nvml_fallback.hpp"

#if NDCUDA_HAVE_NVML_H
#include <nvml.h>

namespace fallback = ndcuda::detail::nvml::fallback;

static_assert(sizeof(fallback::return_t) == sizeof(nvmlReturn_t));
static_assert(sizeof(fallback::device_t) == sizeof(nvmlDevice_t));
static_assert(sizeof(fallback::memory_t) == sizeof(nvmlMemory_t));
static_assert(offsetof(fallback::memory_t, total) == offsetof(nvmlMemory_t, total));
static_assert(offsetof(fallback::memory_t, free) == offsetof(nvmlMemory_t, free));
static_assert(offsetof(fallback::memory_t, used) == offsetof(nvmlMemory_t, used));
static_assert(sizeof(fallback::process_info_t) == sizeof(nvmlProcessInfo_t));
static_assert(offsetof(fallback::process_info_t, pid) == offsetof(nvmlProcessInfo_t, pid));
static_assert(offsetof(fallback::process_info_t, usedGpuMemory) == offsetof(nvmlProcessInfo_t, usedGpuMemory));
static_assert(offsetof(fallback::process_info_t, gpuInstanceId) == offsetof(nvmlProcessInfo_t, gpuInstanceId));
static_assert(offsetof(fallback::process_info_t, computeInstanceId) == offsetof(nvmlProcessInfo_t, computeInstanceId));

TEST(NvmlDeclarations, TheFallbackMatchesTheToolkitsHeader) {
  EXPECT_EQ(fallback::success, NVML_SUCCESS);
  EXPECT_EQ(fallback::error_not_supported, NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(fallback::error_not_found, NVML_ERROR_NOT_FOUND);
  EXPECT_EQ(fallback::error_insufficient_size, NVML_ERROR_INSUFFICIENT_SIZE);
  EXPECT_EQ(fallback::device_mig_enable, static_cast<unsigned int>(NVML_DEVICE_MIG_ENABLE));
  EXPECT_EQ(fallback::uuid_buffer_size, static_cast<unsigned int>(NVML_DEVICE_UUID_V2_BUFFER_SIZE));
  EXPECT_EQ(fallback::name_buffer_size, static_cast<unsigned int>(NVML_DEVICE_NAME_V2_BUFFER_SIZE));
}
#else
TEST(NvmlDeclarations, TheFallbackMatchesTheToolkitsHeader) {
  GTEST_SKIP() << "NDCUDA_SKIP: CMake found no nvml.h to check the fallback declarations against "
                  "(install cuda-nvml-dev, or pip install nvidia-nvml-dev-cu12, and configure again)";
}
#endif
