// Device isolation of the JIT: compiling, loading and launching only on device 1 leaves device 0
// without a context, in lazy and in eager module loading. Needs two GPUs.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <ndcuda/ndcuda.hpp>
#include <optional>

#include "gpu_support.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

CUcontext current_context() {
  CUcontext context = nullptr;
  NDCUDA_DRIVER_CHECK(nd::detail::driver().ctx_get_current(&context));
  return context;
}

// Buffers and the stream are made, synchronised and destroyed under a guard for device 1 (plain
// runtime calls with no current context would pick device 0). The JIT calls themselves run with
// no context current at all, as from a thread that never chose a device.
void work_only_on_device_one() {
  constexpr int device = 1;
  const std::vector<float> host = nd::testing::uniform_values<float>(4096, -1.0, 1.0);
  nd::testing::device_buffer<float> in(device, host);
  nd::testing::device_buffer<float> out(device, host.size());
  std::optional<nd::stream> s;
  {
    nd::device_guard guard(device);
    s.emplace(device);
  }
  const auto synchronize = [&] {
    nd::device_guard guard(device);
    s->synchronize();
  };
  ASSERT_EQ(current_context(), nullptr);

  nd::raw_kernel negate(
      "extern \"C\" __global__ void negate(float* o, const float* i, int n) {"
      "  int k = blockIdx.x * blockDim.x + threadIdx.x; if (k < n) o[k] = -i[k]; }",
      "negate");
  const auto config = negate.occupancy_config(host.size(), *s);
  negate(config.grid, config.block, 0, *s, out.data(), static_cast<const float*>(in.data()), 4096);
  EXPECT_EQ(current_context(), nullptr) << "a launch must leave the thread's context as it found it";
  synchronize();
  auto got = out.download();
  for (std::size_t i = 0; i < host.size(); ++i) ASSERT_EQ(got[i], -host[i]);

  nd::elementwise_kernel<float(float, float)> kernel("out = x * 3.5f + y * y", "scaled_sum");
  kernel(static_cast<nd::index_t>(host.size()), out.data(), in.data(), in.data(), *s);
  kernel({out.data(), {64, 64}, {1, 64}}, {in.data(), {64, 64}}, {in.data(), {64}}, *s);
  EXPECT_EQ(current_context(), nullptr);
  synchronize();
  got = out.download();
  for (std::size_t r = 0; r < 64; ++r) {
    for (std::size_t c = 0; c < 64; ++c) {
      const double x = host[r * 64 + c];
      const double y = host[c];
      ASSERT_NEAR(got[c * 64 + r], x * 3.5 + y * y, 1e-5);
    }
  }
  nd::device_guard guard(device);
  s.reset();
}

void expect_device_zero_untouched() {
  EXPECT_TRUE(nd::testing::primary_context_active(1));
  EXPECT_FALSE(nd::testing::primary_context_active(0)) << "JIT work on device 1 created a context on device 0";
}

}  // namespace

TEST(JitIsolation, OnlyDeviceOneMultiGpu) {
  ::setenv("CUDA_MODULE_LOADING", "LAZY", 1);
  NDCUDA_REQUIRE_GPUS(2);
  work_only_on_device_one();
  expect_device_zero_untouched();
}

TEST(JitIsolation, OnlyDeviceOneEagerLoadingMultiGpu) {
  ::setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  NDCUDA_REQUIRE_GPUS(2);
  work_only_on_device_one();
  expect_device_zero_untouched();
}
