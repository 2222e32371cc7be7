// Internal: finds the CUDA toolkit headers some kernels include (cuda_fp16.h, CCCL's cuda/, cub/,
// thrust/) at run time, next to the NVRTC library in use or where NDCUDA_CUDA_INCLUDE says.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ndcuda::jit::detail {

/// What a kernel source includes from outside ndcuda's embedded headers.
struct header_needs {
  bool toolkit = false;               ///< cuda_fp16.h, cuda_bf16.h, vector_types.h, ...
  bool cccl = false;                  ///< cuda/..., cub/..., thrust/..., nv/...
  std::string first_toolkit_include;  ///< for messages, e.g. "cuda_fp16.h"
  std::string first_cccl_include;     ///< for messages, e.g. "cub/block/block_reduce.cuh"
};

/// Scans the #include lines of `source`. Embedded ndcuda headers need nothing.
[[nodiscard]] header_needs scan_includes(std::string_view source);

struct toolkit_headers {
  std::string cuda_include;           ///< folder holding cuda_fp16.h, or empty
  std::string cccl_include;           ///< folder holding cuda/std/version (CCCL), or empty
  std::string origin;                 ///< "NDCUDA_CUDA_INCLUDE" or "next to <libnvrtc path>"
  std::vector<std::string> searched;  ///< every folder looked at, for error messages
};

/// Looks every time it is called (a compile is orders of magnitude slower than a few stat calls),
/// so a changed NDCUDA_CUDA_INCLUDE takes effect at once. Set, it is the only place searched.
[[nodiscard]] toolkit_headers find_toolkit_headers();

/// The -I options a kernel with these needs gets. Throws compile_error, naming the folders
/// searched and NDCUDA_CUDA_INCLUDE, when a needed header folder cannot be found.
[[nodiscard]] std::vector<std::string> include_options(const header_needs& needs, std::string_view kernel_name,
                                                       std::string_view source);

/// The file NVRTC was loaded from, e.g. /usr/local/cuda-13.0/lib/libnvrtc.so.13; empty if unknown.
[[nodiscard]] std::string nvrtc_library_path();

}  // namespace ndcuda::jit::detail
