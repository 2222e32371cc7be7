// Test helper: whether a device's primary context exists, asked through the driver.
// Builds on src/device/driver_api.hpp; asking creates nothing, which isolation tests rely on.
#pragma once

#include "device/driver_api.hpp"

namespace ndcuda::testing {

inline bool primary_context_active(int index) {
  CUdevice handle{};
  NDCUDA_DRIVER_CHECK(detail::driver().device_get(&handle, index));
  unsigned flags = 0;
  int active = 0;
  NDCUDA_DRIVER_CHECK(detail::driver().primary_ctx_get_state(handle, &flags, &active));
  return active != 0;
}

}  // namespace ndcuda::testing
