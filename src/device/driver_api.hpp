// Internal: the CUDA driver API, resolved at run time through cudart's entry-point query.
// Not linking libcuda.so.1 lets every ndcuda program start on a machine with no driver.
#pragma once

#include <cuda.h>

#include <ndcuda/core/error.hpp>
#include <string>

namespace ndcuda::detail {

// Every driver entry point ndcuda uses: X(member, symbol requested from the driver, prototype).
// Adding one is one line here; driver_api.cpp resolves them all at ABI version 12.0.
#define NDCUDA_DRIVER_ENTRY_POINTS(X)                                                \
  X(init, cuInit, ::cuInit)                                                          \
  X(device_get_count, cuDeviceGetCount, ::cuDeviceGetCount)                          \
  X(device_get, cuDeviceGet, ::cuDeviceGet)                                          \
  X(device_get_name, cuDeviceGetName, ::cuDeviceGetName)                             \
  X(device_get_attribute, cuDeviceGetAttribute, ::cuDeviceGetAttribute)              \
  X(device_get_uuid, cuDeviceGetUuid, ::cuDeviceGetUuid_v2)                          \
  X(device_total_mem, cuDeviceTotalMem, ::cuDeviceTotalMem_v2)                       \
  X(primary_ctx_get_state, cuDevicePrimaryCtxGetState, ::cuDevicePrimaryCtxGetState) \
  X(ctx_get_current, cuCtxGetCurrent, ::cuCtxGetCurrent)                             \
  X(ctx_set_current, cuCtxSetCurrent, ::cuCtxSetCurrent)                             \
  X(get_error_name, cuGetErrorName, ::cuGetErrorName)                                \
  X(get_error_string, cuGetErrorString, ::cuGetErrorString)                          \
  X(pointer_get_attribute, cuPointerGetAttribute, ::cuPointerGetAttribute)           \
  X(mem_get_address_range, cuMemGetAddressRange, ::cuMemGetAddressRange_v2)          \
  X(stream_is_capturing, cuStreamIsCapturing, ::cuStreamIsCapturing)                 \
  X(library_load_data, cuLibraryLoadData, ::cuLibraryLoadData)                       \
  X(library_unload, cuLibraryUnload, ::cuLibraryUnload)                              \
  X(library_get_kernel, cuLibraryGetKernel, ::cuLibraryGetKernel)                    \
  X(kernel_get_function, cuKernelGetFunction, ::cuKernelGetFunction)                 \
  X(kernel_get_attribute, cuKernelGetAttribute, ::cuKernelGetAttribute)              \
  X(module_load_data, cuModuleLoadData, ::cuModuleLoadData)                          \
  X(module_unload, cuModuleUnload, ::cuModuleUnload)                                 \
  X(module_get_function, cuModuleGetFunction, ::cuModuleGetFunction)                 \
  X(func_get_attribute, cuFuncGetAttribute, ::cuFuncGetAttribute)                    \
  X(launch_kernel, cuLaunchKernel, ::cuLaunchKernel)                                 \
  X(launch_kernel_ex, cuLaunchKernelEx, ::cuLaunchKernelEx)                          \
  X(module_get_loading_mode, cuModuleGetLoadingMode, ::cuModuleGetLoadingMode)       \
  X(memset_d8_async, cuMemsetD8Async, ::cuMemsetD8Async)                             \
  X(memset_d16_async, cuMemsetD16Async, ::cuMemsetD16Async)                          \
  X(memset_d32_async, cuMemsetD32Async, ::cuMemsetD32Async)                          \
  X(occupancy_max_potential_block_size, cuOccupancyMaxPotentialBlockSize, ::cuOccupancyMaxPotentialBlockSize)

struct driver_api {
// NOLINTNEXTLINE(bugprone-macro-parentheses): `prototype` names a function, `member` a field
#define NDCUDA_DRIVER_MEMBER(member, symbol, prototype) decltype(&prototype) member = nullptr;
  NDCUDA_DRIVER_ENTRY_POINTS(NDCUDA_DRIVER_MEMBER)
#undef NDCUDA_DRIVER_MEMBER
};

/// The driver entry points, resolved once and cuInit(0)-ed. Throws device_error naming the cause
/// (no driver installed, driver older than the toolkit, ...) when the driver is unusable.
const driver_api& driver();

/// Like driver(), but returns nullptr and fills `why` instead of throwing. `init_result` receives
/// cuInit's result (CUDA_ERROR_NO_DEVICE when nothing is visible), or CUDA_ERROR_NOT_INITIALIZED
/// when the driver itself could not be loaded.
const driver_api* try_driver(std::string* why, CUresult* init_result = nullptr) noexcept;

[[noreturn]] void throw_driver_error(CUresult code, const char* call, const source_location& where);

inline void check_driver(CUresult code, const char* call, const source_location& where = source_location::current()) {
  if (code != CUDA_SUCCESS) [[unlikely]] {
    throw_driver_error(code, call, where);
  }
}

}  // namespace ndcuda::detail

/// Checks a driver API call made through ndcuda::detail::driver().
#define NDCUDA_DRIVER_CHECK(...) ::ndcuda::detail::check_driver((__VA_ARGS__), #__VA_ARGS__)
