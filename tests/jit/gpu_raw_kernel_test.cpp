// raw_kernel on a GPU: results against a host reference on fresh random input, argument checks,
// and the reduction template driven from a raw kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <ndcuda/ndcuda.hpp>

#include "gpu_support.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

const char* saxpy_source = R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned long long n) {
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n; i += 1ull * gridDim.x * blockDim.x) {
    y[i] = a * x[i] + y[i];
  }
}
)";

nd::raw_kernel scale_kernel() {
  return {
      "template <class T> __global__ void scale(T* p, T a, int n) {"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] *= a; }",
      "scale<double>"};
}

// Row sums of a matrix through ndcuda/reduction.cuh, one block per row.
nd::raw_kernel row_sum_kernel() {
  return {R"(
#include "ndcuda/reduction.cuh"
struct sum_reducer {
  double identity() const { return 0.0; }
  double map(const float& v) const { return v; }
  double combine(const double& a, const double& b) const { return a + b; }
  double finalize(const double& a, int) const { return a; }
};
extern "C" __global__ void row_sum(double* out, const float* in, ndcuda::strided_indexer<1, 2, int> outer,
                                   ndcuda::strided_indexer<1, 1, int> inner) {
  ndcuda::reduce_strided<256, 1, 1, int>(sum_reducer(), outer, inner, out, in);
}
)",
          "row_sum"};
}

}  // namespace

TEST(JitRawKernel, TheGpuTestsKernelsCompile) {
  // Runs everywhere: the sources below must at least compile where no GPU can run them.
  for (const nd::raw_kernel& kernel : {nd::raw_kernel(saxpy_source, "saxpy"), scale_kernel(), row_sum_kernel()}) {
    EXPECT_NO_THROW(kernel.compile({9, 0})) << kernel.name();
  }
}

TEST(JitRawKernelGpu, SaxpyMatchesAHostReference) {
  NDCUDA_REQUIRE_GPU();
  nd::raw_kernel saxpy(saxpy_source, "saxpy");
  const std::size_t n = (1U << 20) + 3;
  const auto x = nd::testing::uniform_values<float>(n, -1.0, 1.0);
  const auto y = nd::testing::uniform_values<float>(n, -1.0, 1.0);
  nd::testing::device_buffer<float> dx(0, x);
  nd::testing::device_buffer<float> dy(0, y);
  nd::stream s(0);
  const float a = 2.5F;
  const nd::launch_config config = saxpy.occupancy_config(n, s);
  EXPECT_GE(config.block.x, 32U);
  saxpy(config.grid, config.block, 0, s, a, static_cast<const float*>(dx.data()), dy.data(),
        static_cast<unsigned long long>(n));
  // A second launch with a hand-picked geometry on the same stream, through the cached kernel.
  saxpy(dim3(7), dim3(128), 0, s, -1.0F, static_cast<const float*>(dx.data()), dy.data(),
        static_cast<unsigned long long>(n));
  s.synchronize();
  const auto got = dy.download();
  for (std::size_t i = 0; i < n; ++i) {
    const double expected = (static_cast<double>(a) - 1.0) * x[i] + y[i];
    ASSERT_NEAR(got[i], expected, 1e-5 * (1.0 + std::abs(expected))) << "at " << i;
  }
}

TEST(JitRawKernelGpu, ArgumentsOfTheWrongSizeOrCountAreRefusedBeforeLaunching) {
  NDCUDA_REQUIRE_GPU();
  int driver_version = 0;
  ASSERT_EQ(cudaDriverGetVersion(&driver_version), cudaSuccess);
  if (driver_version < 12040) {
    GTEST_SKIP() << "the driver cannot describe kernel parameters (cuFuncGetParamInfo needs 12.4)";
  }
  nd::raw_kernel saxpy(saxpy_source, "saxpy");
  nd::testing::device_buffer<float> buffer(0, 16);
  nd::stream s(0);
  const int n = 16;  // an int where the kernel takes unsigned long long
  try {
    saxpy(dim3(1), dim3(32), 0, s, 1.0F, static_cast<const float*>(buffer.data()), buffer.data(), n);
    FAIL() << "expected an error";
  } catch (const nd::error& e) {
    EXPECT_NE(std::string(e.what()).find("argument 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(saxpy(dim3(1), dim3(32), 0, s, 1.0, static_cast<const float*>(buffer.data()), buffer.data(),
                     static_cast<unsigned long long>(n)),
               nd::error)
      << "a double for a float parameter";
  EXPECT_THROW(saxpy(dim3(1), dim3(32), 0, s, 1.0F), nd::error) << "too few arguments";
  EXPECT_THROW(saxpy(dim3(1), dim3(4096), 0, s, 1.0F, static_cast<const float*>(buffer.data()), buffer.data(),
                     static_cast<unsigned long long>(n)),
               nd::error)
      << "a block larger than the kernel allows";
  s.synchronize();
}

TEST(JitRawKernelGpu, TemplateKernelsLaunchThroughTheirNameExpression) {
  NDCUDA_REQUIRE_GPU();
  const auto scale = scale_kernel();
  const std::vector<double> host = nd::testing::uniform_values<double>(1000, -5.0, 5.0);
  nd::testing::device_buffer<double> d(0, host);
  nd::stream s(0);
  scale(dim3(4), dim3(256), 0, s, d.data(), 3.0, 1000);
  s.synchronize();
  const auto got = d.download();
  for (std::size_t i = 0; i < host.size(); ++i) ASSERT_EQ(got[i], host[i] * 3.0) << i;
}

TEST(JitRawKernelGpu, TheReductionTemplateSumsEveryRow) {
  NDCUDA_REQUIRE_GPU();
  const auto row_sum = row_sum_kernel();
  constexpr int rows = 300;
  constexpr int cols = 1000;
  const auto host = nd::testing::uniform_values<float>(static_cast<std::size_t>(rows) * cols, -1.0, 1.0);
  nd::testing::device_buffer<float> in(0, host);
  nd::testing::device_buffer<double> out(0, rows);
  // Host mirrors of the indexers: size, shape[1], strides[NARGS][1], all int.
  struct outer_indexer {
    int size, shape, out_stride, in_stride;
  } outer{rows, rows, 1, cols};
  struct inner_indexer {
    int size, shape, stride;
  } inner{cols, cols, 1};
  nd::stream s(0);
  row_sum(dim3(120), dim3(256), 0, s, out.data(), static_cast<const float*>(in.data()), outer, inner);
  s.synchronize();
  const auto got = out.download();
  for (int r = 0; r < rows; ++r) {
    double expected = 0;
    for (int c = 0; c < cols; ++c) expected += host[static_cast<std::size_t>(r) * cols + static_cast<std::size_t>(c)];
    ASSERT_NEAR(got[static_cast<std::size_t>(r)], expected, 1e-9 * cols) << "row " << r;
  }
}
