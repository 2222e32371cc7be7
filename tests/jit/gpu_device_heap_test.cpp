// The device malloc heap with an NVRTC raw_kernel (no nvcc): NULLs reported back with CUDA's
// 8 MiB default, every allocation served once the limit is raised before first use, and a clear
// error when it is raised after the kernel was loaded. Each ctest test runs in its own process,
// which these tests rely on: the heap size is fixed per process and device once a malloc kernel
// is loaded.
#include <gtest/gtest.h>

#include <cstdint>
#include <ndcuda/ndcuda.hpp>
#include <string>

#include "support/gpu.hpp"

namespace nd = ndcuda;

namespace {

constexpr unsigned threads = 4096;
constexpr unsigned long long chunk = 16 << 10;  // 4096 x 16 KiB = 64 MiB requested in all

// Every thread keeps its block until all have asked (a second kernel frees them), so the requests
// add up and an 8 MiB heap must fail some of them.
constexpr const char* heap_source = R"(
extern "C" __global__ void heap_fill(unsigned char** blocks, unsigned long long* failures,
                                     unsigned long long* checksum, unsigned n, unsigned long long chunk) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned char* block = static_cast<unsigned char*>(malloc(chunk));
  blocks[i] = block;
  if (block == nullptr) {
    atomicAdd(failures, 1ull);
    return;
  }
  unsigned long long sum = 0;
  for (unsigned long long j = 0; j < chunk; j += 512) {
    block[j] = static_cast<unsigned char>(i + j);
    sum += block[j];
  }
  atomicAdd(checksum, sum);
}
extern "C" __global__ void heap_release(unsigned char** blocks, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && blocks[i] != nullptr) free(blocks[i]);
}
)";

struct heap_result {
  std::uint64_t failures = 0;
  std::uint64_t checksum = 0;
};

heap_result run_heap_kernel(int device) {
  nd::stream s(device);
  const nd::raw_kernel fill(heap_source, "heap_fill");
  const nd::raw_kernel release(heap_source, "heap_release");
  auto blocks = nd::zeros<std::uint64_t>({threads}, s);  // device pointers
  auto counters = nd::zeros<std::uint64_t>({2}, s);
  auto** block_ptrs = reinterpret_cast<unsigned char**>(blocks.data());
  auto* counter_ptr = reinterpret_cast<unsigned long long*>(counters.data());
  fill(dim3(threads / 256), dim3(256), 0, s, block_ptrs, counter_ptr, counter_ptr + 1, threads, chunk);
  release(dim3(threads / 256), dim3(256), 0, s, block_ptrs, threads);
  const std::vector<std::uint64_t> host = counters.to_host();
  return {host[0], host[1]};
}

std::uint64_t expected_checksum() {
  std::uint64_t sum = 0;
  for (unsigned i = 0; i < threads; ++i) {
    for (unsigned long long j = 0; j < chunk; j += 512) {
      sum += static_cast<unsigned char>(i + j);
    }
  }
  return sum;
}

}  // namespace

TEST(DeviceHeap, DefaultHeapReportsFailedAllocationsBackToTheHost) {
  NDCUDA_REQUIRE_GPU();
  ASSERT_LE(nd::get_limit(0, nd::limit::malloc_heap_size), std::size_t{8} << 20) << "expected CUDA's 8 MiB default";
  const heap_result result = run_heap_kernel(0);
  EXPECT_GT(result.failures, 0U) << "64 MiB of requests fit an 8 MiB heap?";
  EXPECT_LT(result.failures, threads) << "some requests should fit in 8 MiB";
}

TEST(DeviceHeap, RaisedBeforeFirstUseEveryAllocationSucceeds) {
  NDCUDA_REQUIRE_GPU();
  nd::set_limit(0, nd::limit::malloc_heap_size, std::size_t{256} << 20);
  EXPECT_GE(nd::get_limit(0, nd::limit::malloc_heap_size), std::size_t{256} << 20);
  const heap_result result = run_heap_kernel(0);
  EXPECT_EQ(result.failures, 0U);
  EXPECT_EQ(result.checksum, expected_checksum()) << "the blocks were not all written";
}

TEST(DeviceHeap, RaisingAfterAMallocKernelWasLoadedThrowsAClearError) {
  NDCUDA_REQUIRE_GPU();
  (void)run_heap_kernel(0);
  try {
    nd::set_limit(0, nd::limit::malloc_heap_size, std::size_t{256} << 20);
    FAIL() << "raising the heap after a malloc kernel was loaded did not throw";
  } catch (const nd::device_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("already been loaded"), std::string::npos) << what;
    EXPECT_NE(what.find("before the first such kernel"), std::string::npos) << what;
  }
}

TEST(DeviceHeap, MultiGpuLimitsArePerDevice) {
  NDCUDA_REQUIRE_GPUS(2);
  (void)run_heap_kernel(0);  // fixes device 0's heap only
  EXPECT_THROW(nd::set_limit(0, nd::limit::malloc_heap_size, std::size_t{256} << 20), nd::device_error);
  nd::set_limit(1, nd::limit::malloc_heap_size, std::size_t{256} << 20);
  const heap_result result = run_heap_kernel(1);
  EXPECT_EQ(result.failures, 0U);
  EXPECT_EQ(result.checksum, expected_checksum());
}
