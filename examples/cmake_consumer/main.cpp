// Compiled by a plain C++ compiler against the installed ndcuda. Works with or without a GPU.
#include <iostream>
#include <ndcuda/fft.hpp>
#include <ndcuda/linalg.hpp>
#include <ndcuda/ndcuda.hpp>
#include <vector>

namespace nd = ndcuda;

int main() {
  std::cout << "cmake_consumer: ndcuda " << NDCUDA_VERSION_STRING << "\n";
  // NumPy 2 promotion is a compile-time table: int32 + float32 gives float64.
  static_assert(nd::promote_types(nd::dtype::int32, nd::dtype::float32) == nd::dtype::float64);
  std::cout << "int32 + float32 -> " << nd::promote_types(nd::dtype::int32, nd::dtype::float32) << "\n";
  const int count = nd::device_count();
  if (count == 0) {
    std::cout << "no CUDA device available: " << nd::device_unavailable_reason() << "\n";
    return 0;
  }
  for (const nd::device& d : nd::devices()) {
    std::cout << d << "\n";
  }
  // The sort and scan ops are compiled with nvcc inside the library; linking them needs no nvcc.
  const auto x = nd::asarray(std::vector<float>{3, 1, 2});
  std::cout << "sort: " << nd::sort(x) << ", cumsum: " << nd::cumsum(x) << "\n";
  // ndcuda::linalg: cuBLAS, cuSOLVER and cuFFT, linked through the installed package's
  // find_dependency(CUDAToolkit), still with a plain C++ compiler.
  const auto m = nd::asarray<double>({4, 1, 2, 3}, {2, 2});
  std::cout << "m @ m: " << nd::matmul(m, m) << ", det: " << nd::linalg::det(m)
            << ", |fft|[0]: " << nd::abs(nd::fft::fft(x)) << "\n";
  return 0;
}
