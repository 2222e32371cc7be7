// Internal: tier 0's CUBINs, one per program and architecture of NDCUDA_TIER0_ARCHITECTURES,
// compiled at build time by NVRTC (src/jit/tier0/build_images.cpp) and linked into the library.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace ndcuda::jit::detail {

struct tier0_image {
  int arch;  ///< 90 for sm_90
  const unsigned char* data;
  std::size_t size;
};

/// The images of the fused-expression interpreter (kernels/tier0_interpreter.cu) and of the
/// reduction folds (kernels/tier0_reduction.cu), by rising architecture (the generated
/// tier0_images.cpp).
[[nodiscard]] std::span<const tier0_image> tier0_images();
[[nodiscard]] std::span<const tier0_image> tier0_reduction_images();

/// The image in `images` that runs on a device of `device_arch` (90 for sm_90): the newest of the
/// same major architecture and no newer; nullptr when none does.
[[nodiscard]] const tier0_image* tier0_image_for(std::span<const tier0_image> images, int device_arch);

class program;

/// The program of tier0_image_for(images, device_arch); nullptr when there is none. Made once per image
/// (its kernels named `kernels`, by index) and kept for the life of the process.
[[nodiscard]] const program* tier0_program_for(std::span<const tier0_image> images, const char* file,
                                               const std::vector<std::string>& kernels, int device_arch);

}  // namespace ndcuda::jit::detail
