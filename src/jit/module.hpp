// Internal: a program's image loaded on one device (cuModuleLoadData into that device's primary
// context: nothing reaches any other device), its kernels' handles, and the launcher.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <ndcuda/core/error.hpp>
#include <string>
#include <utility>
#include <vector>

#include "device/driver_api.hpp"

namespace ndcuda::jit::detail {

/// Everything a launch needs, resolved once per kernel and device.
struct loaded_kernel {
  const ndcuda::detail::driver_api* driver = nullptr;
  CUfunction function = nullptr;
  CUcontext context = nullptr;  ///< the primary context of `device`
  int device = -1;
  int block_size = 0;     ///< occupancy's best block size without dynamic shared memory
  int min_grid_size = 0;  ///< blocks that fill the device at that block size
  int max_threads_per_block = 0;
  /// Compiled for sm_90 or newer (so dependent_launch_prologue() holds the griddepcontrol
  /// instructions) and PDL not turned off: kernels that wait first may launch with PDL.
  bool dependent_launch = false;
  bool params_known = false;  ///< cuFuncGetParamInfo answered (driver >= 12.4)
  std::vector<std::size_t> param_sizes;
  void* nvtx_name = nullptr;
  std::string name;  ///< for messages and NVTX
};

struct device_module {
  CUmodule module = nullptr;
  CUcontext context = nullptr;
  std::vector<std::unique_ptr<loaded_kernel>> kernels;  // by name index, resolved on first use
};

/// The driver refused the image itself (built for another architecture, corrupt, PTX too new):
/// for an image read from disk, the cue to recompile.
class image_rejected : public cuda_error {
 public:
  using cuda_error::cuda_error;
};

/// True when the CUBIN or PTX calls device malloc/free (new/delete compile to them): loading it
/// fixes the device's malloc heap size.
[[nodiscard]] bool image_uses_device_heap(std::string_view image, bool ptx);

/// Checks the arguments' count and sizes against the kernel's parameters where the driver can
/// say, and throws error naming the first mismatch: a wrong-size argument would otherwise be
/// read as garbage by the kernel.
void check_arguments(const loaded_kernel& kernel, const std::size_t* sizes, std::size_t count);

/// {min_grid_size, block_size} from the occupancy helper for `shared_bytes` of dynamic shared
/// memory per block (the values cached at load time when it is 0).
[[nodiscard]] std::pair<int, int> occupancy(const loaded_kernel& kernel, std::size_t shared_bytes);

/// cuLaunchKernel in the kernel's context (switching to it and back only when another one is
/// current), inside an NVTX range named after the kernel, or `range` when given (a registered
/// name: tier 0 names the kernel it stands in for). Debug builds then check the last error.
/// `waits_first`: the kernel opens with dependent_launch_prologue() (generated kernels only);
/// where kernel.dependent_launch allows, it is then launched through cuLaunchKernelEx with
/// programmatic stream serialization, so it can be scheduled while the kernel before it finishes.
void launch(const loaded_kernel& kernel, dim3 grid, dim3 block, std::size_t shared_bytes, CUstream stream, void** args,
            bool waits_first, void* range = nullptr);

/// False when NDCUDA_DISABLE_PDL is set to anything but "0" (read once): every kernel is then
/// launched with plain cuLaunchKernel, for debugging and A/B measurements.
[[nodiscard]] bool dependent_launch_enabled() noexcept;

}  // namespace ndcuda::jit::detail
