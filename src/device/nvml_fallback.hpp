// Internal: the few NVML declarations ndcuda needs, for toolkits without <nvml.h> (NVML's C ABI is
// stable). device/nvml.hpp uses these only when CMake found no nvml.h; tests/device/
// nvml_declarations_test.cpp checks them against the header wherever it is found.
#pragma once

namespace ndcuda::detail::nvml::fallback {

using return_t = int;                    // nvmlReturn_t
using device_t = struct opaque_device*;  // nvmlDevice_t

struct memory_t {  // nvmlMemory_t
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct process_info_t {  // nvmlProcessInfo_t (v2), as nvmlDeviceGetComputeRunningProcesses_v3 fills it
  unsigned int pid;
  unsigned long long usedGpuMemory;  // NOLINT(readability-identifier-naming): NVML's field name
  unsigned int gpuInstanceId;        // NOLINT(readability-identifier-naming)
  unsigned int computeInstanceId;    // NOLINT(readability-identifier-naming)
};

inline constexpr return_t success = 0;                  // NVML_SUCCESS
inline constexpr return_t error_not_supported = 3;      // NVML_ERROR_NOT_SUPPORTED
inline constexpr return_t error_not_found = 6;          // NVML_ERROR_NOT_FOUND
inline constexpr return_t error_insufficient_size = 7;  // NVML_ERROR_INSUFFICIENT_SIZE
inline constexpr unsigned int device_mig_enable = 1;    // NVML_DEVICE_MIG_ENABLE
inline constexpr unsigned int uuid_buffer_size = 96;    // NVML_DEVICE_UUID_V2_BUFFER_SIZE
inline constexpr unsigned int name_buffer_size = 96;    // NVML_DEVICE_NAME_V2_BUFFER_SIZE

}  // namespace ndcuda::detail::nvml::fallback
