// Internal: the CUDA driver API, resolved at run time through cudart's entry-point query.
// Not linking libcuda.so.1 lets every ndcuda program start on a machine with no driver.
#pragma once

#include <cuda.h>

#include <ndcuda/core/error.hpp>
#include <source_location>
#include <string>

namespace ndcuda::detail {

struct driver_api {
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDeviceGetCount) device_get_count = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetName) device_get_name = nullptr;
  decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
  decltype(&::cuDeviceGetUuid_v2) device_get_uuid = nullptr;
  decltype(&::cuDeviceTotalMem_v2) device_total_mem = nullptr;
  decltype(&::cuDevicePrimaryCtxGetState) primary_ctx_get_state = nullptr;
  decltype(&::cuCtxGetCurrent) ctx_get_current = nullptr;
  decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuGetErrorString) get_error_string = nullptr;
};

/// The driver entry points, resolved once and cuInit(0)-ed. Throws device_error naming the cause
/// (no driver installed, driver older than the toolkit, ...) when the driver is unusable.
const driver_api& driver();

/// Like driver(), but returns nullptr and fills `why` instead of throwing.
const driver_api* try_driver(std::string* why) noexcept;

[[noreturn]] void throw_driver_error(CUresult code, const char* call, const std::source_location& where);

inline void check_driver(CUresult code, const char* call,
                         const std::source_location& where = std::source_location::current()) {
  if (code != CUDA_SUCCESS) [[unlikely]] {
    throw_driver_error(code, call, where);
  }
}

}  // namespace ndcuda::detail

/// Checks a driver API call made through ndcuda::detail::driver().
#define NDCUDA_DRIVER_CHECK(...) ::ndcuda::detail::check_driver((__VA_ARGS__), #__VA_ARGS__)
