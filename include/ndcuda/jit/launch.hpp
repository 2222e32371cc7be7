/// @file
/// Launch geometry for JIT kernels and the non-template entry point every kernel launches through.
/// Builds on device/stream.hpp; the kernel behind the opaque handle lives in the compiled library.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/stream.hpp>
#include <string>
#include <vector>

namespace ndcuda {

/// Grid, block and dynamic shared memory of one launch, as in kernel<<<grid, block, shared>>>.
struct launch_config {
  dim3 grid{1, 1, 1};            ///< blocks in the grid
  dim3 block{1, 1, 1};           ///< threads in a block
  std::size_t shared_bytes = 0;  ///< dynamic shared memory per block, in bytes
};

namespace jit::detail {

/// One kernel source (one or more kernels in it, by name expression) with its per-device
/// compiled and loaded state. Defined in src/jit; users hold it through raw_kernel.
struct NDCUDA_INTERNAL kernel_state;

[[nodiscard]] std::shared_ptr<kernel_state> make_kernel_state(std::string source, std::string name,
                                                              std::vector<std::string> options);

/// Launches on `s`'s device: compiles (or loads from the caches) on first use there. `args[i]`
/// points at argument i, `sizes[i]` is its size, checked against the kernel's parameters.
void launch(const kernel_state& kernel, const launch_config& config, const stream& s, void* const* args,
            const std::size_t* sizes, std::size_t count);

/// A 1-d configuration for `work_items` threads of a grid-stride kernel: the occupancy helper's
/// block size, and no more blocks than fill the device a few times over.
[[nodiscard]] launch_config occupancy_config(const kernel_state& kernel, const stream& s, std::size_t work_items,
                                             std::size_t shared_bytes);

/// Compiles (or finds in the disk cache) the kernel for `cc` without any device: to check a
/// source early, or to fill the cache ahead of time on a machine without a GPU.
void compile_for(const kernel_state& kernel, compute_capability cc);

[[nodiscard]] const std::string& kernel_name(const kernel_state& kernel);
[[nodiscard]] const std::string& kernel_source(const kernel_state& kernel);

}  // namespace jit::detail
}  // namespace ndcuda

#pragma GCC visibility pop
