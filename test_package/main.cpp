// Built against the Conan package: promotion is known at compile time, the device count at run
// time (0 without a GPU, which is fine here).
#include <iostream>
#include <ndcuda/ndcuda.hpp>

namespace nd = ndcuda;

int main() {
  static_assert(nd::promote_types(nd::dtype::int32, nd::dtype::float32) == nd::dtype::float64);
  std::cout << "test_package: ndcuda " << NDCUDA_VERSION_STRING << ", " << nd::device_count() << " GPU(s)\n";
  return 0;
}
