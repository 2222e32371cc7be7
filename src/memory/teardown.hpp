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

}  // namespace ndcuda::detail
