// Internal: NVML, opened with dlopen at run time, for what can be learned without a CUDA context.
// Its types come from the toolkit's <nvml.h> when CMake found one (NDCUDA_HAVE_NVML_H), else from
// device/nvml_fallback.hpp; either way nothing links against libnvidia-ml.
#pragma once

#if NDCUDA_HAVE_NVML_H
#include <nvml.h>
#else
#include "device/nvml_fallback.hpp"
#endif

#include <memory>
#include <ndcuda/device/visible_devices.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ndcuda::detail::nvml {

#if NDCUDA_HAVE_NVML_H
using return_t = nvmlReturn_t;
using device_t = nvmlDevice_t;
using memory_t = nvmlMemory_t;
using process_info_t = nvmlProcessInfo_t;
inline constexpr return_t success = NVML_SUCCESS;
inline constexpr return_t error_not_supported = NVML_ERROR_NOT_SUPPORTED;
inline constexpr return_t error_not_found = NVML_ERROR_NOT_FOUND;
inline constexpr return_t error_insufficient_size = NVML_ERROR_INSUFFICIENT_SIZE;
inline constexpr unsigned int device_mig_enable = NVML_DEVICE_MIG_ENABLE;
inline constexpr unsigned int uuid_buffer_size = NVML_DEVICE_UUID_V2_BUFFER_SIZE;
inline constexpr unsigned int name_buffer_size = NVML_DEVICE_NAME_V2_BUFFER_SIZE;
#else
using fallback::device_mig_enable;
using fallback::device_t;
using fallback::error_insufficient_size;
using fallback::error_not_found;
using fallback::error_not_supported;
using fallback::memory_t;
using fallback::name_buffer_size;
using fallback::process_info_t;
using fallback::return_t;
using fallback::success;
using fallback::uuid_buffer_size;
#endif

/// The entry points. The ones marked optional are null when this NVML predates them.
struct api {
  return_t (*init_v2)() = nullptr;
  return_t (*shutdown)() = nullptr;
  const char* (*error_string)(return_t) = nullptr;
  return_t (*device_get_count_v2)(unsigned int* count) = nullptr;
  return_t (*device_get_handle_by_index_v2)(unsigned int index, device_t* device) = nullptr;
  return_t (*device_get_handle_by_uuid)(const char* uuid, device_t* device) = nullptr;
  return_t (*device_get_uuid)(device_t device, char* uuid, unsigned int length) = nullptr;
  return_t (*device_get_name)(device_t device, char* name, unsigned int length) = nullptr;
  return_t (*device_get_memory_info)(device_t device, memory_t* memory) = nullptr;
  return_t (*device_get_compute_running_processes_v3)(device_t device, unsigned int* count,
                                                      process_info_t* infos) = nullptr;                      // optional
  return_t (*device_get_mig_mode)(device_t device, unsigned int* current, unsigned int* pending) = nullptr;  // optional
  return_t (*device_get_max_mig_device_count)(device_t device, unsigned int* count) = nullptr;               // optional
  return_t (*device_get_mig_device_handle_by_index)(device_t device, unsigned int index,
                                                    device_t* mig_device) = nullptr;  // optional

  /// "'Not Found' (6)" for messages.
  [[nodiscard]] std::string describe(return_t code) const;
};

/// One NVML library, opened and nvmlInit-ed. The destructor shuts NVML down and closes the
/// library; the process-wide instance behind get() is never destroyed.
class library {
 public:
  library() = default;
  library(const library&) = delete;
  library& operator=(const library&) = delete;
  ~library();

  /// Opens `name` (a file name for the dynamic loader or a path), resolves the entry points and
  /// calls nvmlInit_v2. Never throws: a failure leaves ok() false and says why in reason().
  [[nodiscard]] static std::unique_ptr<library> load(const std::string& name);

  [[nodiscard]] bool ok() const noexcept { return initialized_; }
  [[nodiscard]] const api& functions() const noexcept { return api_; }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// Why ok() is false, e.g. "NVML (libnvidia-ml.so.1) not found (...)"; empty when ok().
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

 private:
  api api_;
  std::string name_;
  std::string reason_;
  void* handle_ = nullptr;
  bool initialized_ = false;
};

/// The library get() opens: $NDCUDA_NVML_LIBRARY when set and non-empty, else "libnvidia-ml.so.1".
[[nodiscard]] std::string configured_library_name();

/// The process-wide NVML, loaded on first use (thread-safe) and initialised for the rest of the
/// process; nullptr when the library is missing or nvmlInit fails.
[[nodiscard]] const api* get() noexcept;

/// Why get() returns nullptr; empty when it does not.
[[nodiscard]] std::string unavailable_reason();

/// Free and total memory of the GPU with this UUID ("GPU-..."), without a CUDA context; nullopt
/// when NVML does not know the UUID or cannot tell (the caller then asks CUDA).
[[nodiscard]] std::optional<memory_t> memory_by_uuid(const api& nvml, const std::string& uuid) noexcept;

/// Every GPU NVML sees, with its MIG devices. Throws device_error naming the failed call.
[[nodiscard]] std::vector<physical_device> list_physical_devices(const api& nvml);

/// list_physical_devices(*get()); throws device_error with unavailable_reason() without NVML.
[[nodiscard]] std::vector<physical_device> list_physical_devices();

}  // namespace ndcuda::detail::nvml
