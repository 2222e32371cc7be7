// managed_resource with prefetch and advise. Small allocations only: large managed allocations can
// stall the GPU machine.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/memory/managed_resource.hpp>
#include <vector>

#include "support/cuda_buffers.hpp"
#include "support/gpu.hpp"

namespace nd = ndcuda;

namespace {
constexpr std::size_t small = std::size_t{1} << 20;  // never more than a few MiB of managed memory
}

TEST(Managed, PrefetchToTheDeviceAndBackKeepsTheData) {
  NDCUDA_REQUIRE_GPU();
  nd::managed_resource managed(0);
  EXPECT_EQ(managed.kind(), nd::memory_kind::managed);
  nd::stream s(0);
  auto* p = static_cast<unsigned char*>(managed.allocate(small, s));
  std::vector<unsigned char> expected(small);
  nd::testing::fill_random(expected.data(), small);
  std::memcpy(p, expected.data(), small);  // written by the host
  nd::prefetch(p, small, 0, s);
  // Work on the device: copy the second half over the first, on the stream.
  ASSERT_EQ(cudaMemcpyAsync(p, p + small / 2, small / 2, cudaMemcpyDefault, s.handle()), cudaSuccess);
  std::memcpy(expected.data(), expected.data() + small / 2, small / 2);
  nd::prefetch(p, small, nd::host_device, s);
  s.synchronize();
  EXPECT_EQ(nd::testing::first_difference(p, expected.data(), small), small);
  managed.deallocate(p, small, s);
  const nd::memory_stats st = managed.stats();
  EXPECT_EQ(st.used_bytes, 0U);
  EXPECT_EQ(st.peak_used_bytes, small);
  EXPECT_EQ(st.allocation_count, 1U);
}

TEST(Managed, AdviceIsAccepted) {
  NDCUDA_REQUIRE_GPU();
  nd::managed_resource managed(0);
  nd::stream s(0);
  void* p = managed.allocate(small, s);
  EXPECT_NO_THROW(nd::advise(p, small, nd::memory_advice::read_mostly, 0));
  EXPECT_NO_THROW(nd::advise(p, small, nd::memory_advice::unset_read_mostly, 0));
  EXPECT_NO_THROW(nd::advise(p, small, nd::memory_advice::preferred_location, 0));
  EXPECT_NO_THROW(nd::advise(p, small, nd::memory_advice::preferred_location, nd::host_device));
  EXPECT_NO_THROW(nd::advise(p, small, nd::memory_advice::accessed_by, 0));
  EXPECT_NO_THROW(nd::advise(p, small, nd::memory_advice::unset_accessed_by, 0));
  EXPECT_NO_THROW(nd::advise(p, small, nd::memory_advice::unset_preferred_location, 0));
  managed.deallocate(p, small, s);
}

TEST(Managed, RefusesCaptureAndBadFrees) {
  NDCUDA_REQUIRE_GPU();
  nd::managed_resource managed(0);
  nd::stream s(0);
  void* p = managed.allocate(4096, s);
  EXPECT_THROW(managed.deallocate(p, 10, s), nd::error);
  int local = 0;
  EXPECT_THROW(managed.deallocate(&local, 4, s), nd::error);
  ASSERT_EQ(cudaStreamBeginCapture(s.handle(), cudaStreamCaptureModeGlobal), cudaSuccess);
  EXPECT_THROW((void)managed.allocate(4096, s), nd::capture_error);
  EXPECT_THROW(managed.deallocate(p, 4096, s), nd::capture_error);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s.handle(), &graph), cudaSuccess);
  (void)cudaGraphDestroy(graph);
  managed.deallocate(p, 4096, s);
  EXPECT_EQ(managed.allocate(0, s), nullptr);
}
