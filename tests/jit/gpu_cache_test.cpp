// The caches on a GPU: a disk entry the device cannot use is ignored and replaced, a warm disk
// cache serves a kernel without compiling, and both module loading modes work.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <ndcuda/ndcuda.hpp>

#include "gpu_support.hpp"
#include "jit/cache_entry.hpp"
#include "jit/kernel_state.hpp"
#include "jit/program_cache.hpp"
#include "jit_support.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;

namespace {

const char* fill_source =
    "extern \"C\" __global__ void fill(int* p, int v, int n) {"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = v; }";

// Launches `kernel` to fill 1000 ints with `value` on device 0 and checks them.
void fill_and_check(const nd::raw_kernel& kernel, int value) {
  nd::testing::device_buffer<int> buffer(0, 1000);
  nd::stream s(0);
  kernel(dim3(4), dim3(256), 0, s, buffer.data(), value, 1000);
  s.synchronize();
  for (int v : buffer.download()) ASSERT_EQ(v, value);
}

// An architecture whose CUBIN this device cannot run: CUBINs run only within their major version.
int foreign_arch(int device_arch) {
  return device_arch / 10 == 7 ? 80 : 75;
}

// Launches a raw and an elementwise kernel on device 0 and checks both.
void launch_both() {
  nd::raw_kernel fill(fill_source, "fill");
  fill_and_check(fill, 42);
  nd::elementwise_kernel<float(float)> twice("out = 2 * x", "twice");
  const std::vector<float> host = nd::testing::uniform_values<float>(5000, -3.0, 3.0);
  nd::testing::device_buffer<float> in(0, host);
  nd::testing::device_buffer<float> out(0, host.size());
  nd::stream s(0);
  twice(static_cast<nd::index_t>(host.size()), out.data(), in.data(), s);
  twice({out.data(), {50, 50}, {1, 50}}, {in.data(), {50, 50}}, s);  // a strided variant too
  s.synchronize();
  const auto got = out.download();
  for (std::size_t r = 0; r < 50; ++r) {
    for (std::size_t c = 0; c < 50; ++c) ASSERT_EQ(got[c * 50 + r], 2 * host[r * 50 + c]);
  }
  for (std::size_t i = 2500; i < host.size(); ++i) ASSERT_EQ(got[i], 2 * host[i]);
}

}  // namespace

TEST(JitCacheGpu, AnEntryBuiltForAnotherArchitectureIsIgnoredAndReplaced) {
  NDCUDA_REQUIRE_GPU();
  nd::testing::captured_warnings warnings;
  const int arch = nd::device(0).capability().value();
  nd::raw_kernel fill(fill_source, "fill");
  const jd::kernel_state state(fill.source(), fill.name(), {});
  const jd::kernel_key key = state.key_for(jd::select_target(arch));
  const auto disk = jd::global_program_cache().disk();
  ASSERT_TRUE(disk != nullptr && disk->enabled());
  // An entry that passes every check (right key, valid checksum) but holds a CUBIN for an
  // architecture this device cannot run, as a cache shared between machines could.
  disk->store(key, jd::nvrtc_compile(state.key_for({foreign_arch(arch), false})));
  const auto before = nd::jit::status();

  fill_and_check(fill, 7);  // the driver refuses the image; ndcuda recompiles and goes on

  const auto after = nd::jit::status();
  EXPECT_EQ(after.disk_hits - before.disk_hits, 1U);
  EXPECT_EQ(after.compiles - before.compiles, 1U);
  ASSERT_EQ(warnings.count(), 1U);
  EXPECT_NE(warnings.messages()[0].find("refused"), std::string::npos) << warnings.messages()[0];
  // The entry was rewritten with an image this device loads.
  jd::program_cache fresh(jd::nvrtc_compile, disk);
  const auto program = fresh.get(key);
  EXPECT_TRUE(program->from_disk());
  EXPECT_NO_THROW((void)program->kernel(0, 0));
}

TEST(JitCacheGpu, AnotherArchitecturesEntryCopiedInPlaceIsAMiss) {
  NDCUDA_REQUIRE_GPU();
  nd::testing::captured_warnings warnings;
  const int arch = nd::device(0).capability().value();
  nd::raw_kernel fill(fill_source, "fill");
  const jd::kernel_state state(fill.source(), fill.name(), {});
  const auto disk = jd::global_program_cache().disk();
  const jd::kernel_key foreign = state.key_for({foreign_arch(arch), false});
  disk->store(foreign, jd::nvrtc_compile(foreign));
  std::filesystem::copy_file(disk->entry_path(foreign), disk->entry_path(state.key_for(jd::select_target(arch))));
  fill_and_check(fill, 9);
  EXPECT_EQ(nd::jit::status().disk_invalid, 1U);
  EXPECT_EQ(warnings.count(), 1U);
}

TEST(JitCacheGpu, AWarmDiskCacheServesANewKernelObjectWithoutCompiling) {
  NDCUDA_REQUIRE_GPU();
  fill_and_check(nd::raw_kernel(fill_source, "fill"), 1);
  nd::jit::clear_memory_cache();  // as a new process would start
  const auto before = nd::jit::status();
  fill_and_check(nd::raw_kernel(fill_source, "fill"), 2);
  const auto after = nd::jit::status();
  EXPECT_EQ(after.compiles, before.compiles);
  EXPECT_EQ(after.disk_hits - before.disk_hits, 1U);
}

TEST(JitLoadingGpu, LazyModuleLoading) {
  ::setenv("CUDA_MODULE_LOADING", "LAZY", 1);  // before anything initialises CUDA in this process
  NDCUDA_REQUIRE_GPU();
  EXPECT_EQ(nd::testing::loading_mode(), CU_MODULE_LAZY_LOADING);
  launch_both();
}

TEST(JitLoadingGpu, EagerModuleLoading) {
  ::setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  NDCUDA_REQUIRE_GPU();
  EXPECT_EQ(nd::testing::loading_mode(), CU_MODULE_EAGER_LOADING);
  launch_both();
}
