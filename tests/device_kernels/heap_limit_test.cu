// The device malloc heap in practice: NULLs with CUDA's 8 MiB default, success once the limit
// is raised before first use, and a clear error when raised too late. Each ctest test runs in
// its own process, which these tests rely on: the heap size is fixed per process and device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <ndcuda/core/error.hpp>
#include <ndcuda/device/limits.hpp>

#include "support/gpu.hpp"

namespace nd = ndcuda;

namespace {

constexpr int threads = 4096;
constexpr std::size_t chunk = 16 << 10;  // 4096 x 16 KiB = 64 MiB requested in all

// Each thread keeps its block (no free here), so the requests add up and an 8 MiB heap must fail.
__global__ void allocate_and_fill(unsigned char** blocks, unsigned long long* failures, unsigned long long* checksum) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= threads) return;
  auto* block = static_cast<unsigned char*>(malloc(chunk));
  blocks[i] = block;
  if (block == nullptr) {
    atomicAdd(failures, 1ULL);
    return;
  }
  unsigned long long sum = 0;
  for (std::size_t j = 0; j < chunk; j += 512) {
    block[j] = static_cast<unsigned char>(i + j);
    sum += block[j];
  }
  atomicAdd(checksum, sum);
}

__global__ void release(unsigned char** blocks) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < threads && blocks[i] != nullptr) free(blocks[i]);
}

struct heap_result {
  unsigned long long failures = 0;
  unsigned long long checksum = 0;
};

heap_result run_heap_kernel() {
  unsigned char** blocks = nullptr;
  unsigned long long* counters = nullptr;
  NDCUDA_CUDA_CHECK(cudaMalloc(&blocks, threads * sizeof(unsigned char*)));
  NDCUDA_CUDA_CHECK(cudaMalloc(&counters, 2 * sizeof(unsigned long long)));
  NDCUDA_CUDA_CHECK(cudaMemset(counters, 0, 2 * sizeof(unsigned long long)));
  allocate_and_fill<<<threads / 256, 256>>>(blocks, counters, counters + 1);
  NDCUDA_CUDA_CHECK(cudaGetLastError());
  release<<<threads / 256, 256>>>(blocks);
  NDCUDA_CUDA_CHECK(cudaGetLastError());
  heap_result result;
  NDCUDA_CUDA_CHECK(cudaMemcpy(&result, counters, sizeof result, cudaMemcpyDeviceToHost));
  NDCUDA_CUDA_CHECK(cudaFree(blocks));
  NDCUDA_CUDA_CHECK(cudaFree(counters));
  return result;
}

// What the kernel's checksum must be when `succeeded` threads filled their blocks, computed on the host.
unsigned long long expected_checksum() {
  unsigned long long sum = 0;
  for (int i = 0; i < threads; ++i) {
    for (std::size_t j = 0; j < chunk; j += 512) sum += static_cast<unsigned char>(i + j);
  }
  return sum;
}

}  // namespace

TEST(HeapLimit, DefaultHeapReportsFailedAllocationsInsteadOfCrashing) {
  NDCUDA_REQUIRE_GPU();
  ASSERT_LE(nd::get_limit(nd::limit::malloc_heap_size), std::size_t{8} << 20) << "expected CUDA's 8 MiB default";
  const heap_result result = run_heap_kernel();
  EXPECT_GT(result.failures, 0U) << "64 MiB of requests fit an 8 MiB heap?";
  EXPECT_LT(result.failures, static_cast<unsigned long long>(threads)) << "some requests should fit";
}

TEST(HeapLimit, RaisedBeforeFirstUseEveryAllocationSucceeds) {
  NDCUDA_REQUIRE_GPU();
  nd::set_limit(nd::limit::malloc_heap_size, std::size_t{256} << 20);
  const heap_result result = run_heap_kernel();
  EXPECT_EQ(result.failures, 0U);
  EXPECT_EQ(result.checksum, expected_checksum());
}

TEST(HeapLimit, RaisedAfterAMallocKernelThrowsAClearError) {
  NDCUDA_REQUIRE_GPU();
  (void)run_heap_kernel();
  try {
    nd::set_limit(nd::limit::malloc_heap_size, std::size_t{256} << 20);
    FAIL() << "expected device_error; CUDA heap now " << nd::get_limit(nd::limit::malloc_heap_size);
  } catch (const nd::device_error& e) {
    EXPECT_NE(std::string(e.what()).find("before the first such kernel"), std::string::npos) << e.what();
  }
}
