// The array layer's generated kernels (fill, sequences, astype in and out of every dtype) compile
// with NVRTC for current architectures. Needs no GPU, only NVRTC.
#include <gtest/gtest.h>

#include <ndcuda/array/detail/kernels.hpp>

namespace nd = ndcuda;

TEST(ArrayKernels, CompileWithNvrtcWithoutDevice) {
  EXPECT_NO_THROW(nd::detail::compile_array_kernels(nd::compute_capability{8, 0}));
  EXPECT_NO_THROW(nd::detail::compile_array_kernels(nd::compute_capability{9, 0}, nd::dtype::complex64));
}
