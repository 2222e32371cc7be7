// Internal: the tier-0 interpreter's CUBINs, one per architecture of NDCUDA_TIER0_ARCHITECTURES,
// compiled at build time by NVRTC (src/jit/tier0/build_images.cpp) and linked into the library.
#pragma once

#include <cstddef>
#include <span>

namespace ndcuda::jit::detail {

struct tier0_image {
  int arch;  ///< 90 for sm_90
  const unsigned char* data;
  std::size_t size;
};

/// Every image the library carries, by rising architecture (the generated tier0_images.cpp).
[[nodiscard]] std::span<const tier0_image> tier0_images();

}  // namespace ndcuda::jit::detail
