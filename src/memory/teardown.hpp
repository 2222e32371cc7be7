// Internal: recognising the errors CUDA returns while the process exits, which destructors and
// release paths must tolerate (the driver reclaims everything then anyway).
#pragma once

#include <cuda_runtime_api.h>

namespace ndcuda::detail {

/// True for the codes a CUDA call returns once the runtime or the context is being torn down.
inline bool is_teardown_error(int code) noexcept {
  return code == cudaErrorCudartUnloading || code == cudaErrorContextIsDestroyed ||
         code == cudaErrorDeviceUninitialized;
}

/// True once CUDA's runtime has begun its own teardown at exit. Destructors ask first and then
/// leave everything to the driver: after the teardown even the driver entry points resolved
/// earlier are not safe to call. Costs one cudaGetDevice, which creates no context.
inline bool cuda_is_unloading() noexcept {
  int device = 0;
  const cudaError_t rc = cudaGetDevice(&device);
  if (rc == cudaSuccess) {
    return false;
  }
  (void)cudaGetLastError();
  return is_teardown_error(rc);
}

}  // namespace ndcuda::detail
