/// @file
/// How many CUDA devices this process can use, learned without creating a CUDA context.
/// Builds on NVML (loaded at run time) and visible_devices.hpp, with the CUDA driver as fallback.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <string>

namespace ndcuda {

/// The number of CUDA devices this process sees. Never throws and never creates a CUDA context.
///
/// With NVML (libnvidia-ml.so.1, or $NDCUDA_NVML_LIBRARY) the GPUs are listed once per process
/// and CUDA_VISIBLE_DEVICES, read again on every call, is applied to them as the driver would
/// (see apply_cuda_visible_devices); the CUDA runtime is not called at all. The driver reads
/// CUDA_VISIBLE_DEVICES once, when CUDA initialises: changing the variable after that changes
/// this count but not what CUDA sees.
///
/// Without NVML, the CUDA driver counts (cuInit + cuDeviceGetCount, which create no context
/// either, and apply CUDA_VISIBLE_DEVICES themselves). With neither, 0.
[[nodiscard]] int device_count() noexcept;

/// Why device_count() is 0, as one line to follow "no CUDA device available: ", e.g.
/// `CUDA_VISIBLE_DEVICES="" hides all 2 GPUs`. Empty when devices are visible.
[[nodiscard]] std::string device_unavailable_reason();

/// Throws device_error unless at least `count` devices are visible: "no CUDA device available:
/// <reason>" when there is none, else a message naming how many were needed and how many are visible.
void require_devices(int count = 1);

/// Where device_count() got its answer.
enum class enumeration_source {
  nvml,         ///< NVML's GPU list with CUDA_VISIBLE_DEVICES applied by ndcuda.
  driver,       ///< The CUDA driver (NVML missing or failing).
  unavailable,  ///< Neither could be used; the count is 0.
};

/// How the count is obtained now, for tests and diagnostics.
[[nodiscard]] enumeration_source device_enumeration_source() noexcept;

}  // namespace ndcuda

#pragma GCC visibility pop
