// A one-file program built by tests/install/pkg_config_consumer.cmake with nothing but
// g++ $(pkg-config --cflags --libs ndcuda): no CMake, no nvcc. Uses the installed headers (DLPack's
// included, when the install has it) and the library; exits 2 with one line when no GPU is present.
#include <cstdio>
#include <ndcuda/ndcuda.hpp>
#include <vector>
#ifdef NDCUDA_HAS_DLPACK
#include <ndcuda/interop/dlpack_array.hpp>
#endif

namespace nd = ndcuda;

int main() {
  std::printf("pkg_config_consumer: ndcuda %s\n", NDCUDA_VERSION_STRING);
  static_assert(nd::promote_types(nd::dtype::int32, nd::dtype::float32) == nd::dtype::float64);
  if (nd::device_count() == 0) {
    std::printf("no CUDA device available: %s\n", nd::device_unavailable_reason().c_str());
    return 2;
  }
  const auto x = nd::asarray(std::vector<float>{3, 1, 2});
  const double total = nd::sum(nd::sort(x) * 2.0F).item();
#ifdef NDCUDA_HAS_DLPACK
  // A round trip through a DLPack capsule keeps the buffer: no copy.
  const auto back = nd::from_dlpack<float>(nd::to_dlpack(x));
  if (back.data() != x.data()) {
    std::printf("DLPack round trip copied the buffer\n");
    return 1;
  }
#endif
  std::printf("sum(sort(x) * 2) = %g\n", total);
  return total == 12.0 ? 0 : 1;
}
