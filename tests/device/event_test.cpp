// event: recording, waiting, timing, and move semantics.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <ndcuda/core/error.hpp>
#include <ndcuda/device/event.hpp>
#include <ndcuda/device/stream.hpp>

#include "support/gpu.hpp"

namespace nd = ndcuda;

TEST(Event, TimesRealWork) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  const std::size_t bytes = std::size_t{512} << 20;
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(cudaMalloc(&a, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, bytes), cudaSuccess);
  nd::event start;
  nd::event middle;
  nd::event end;
  start.record(s);
  ASSERT_EQ(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s.handle()), cudaSuccess);
  middle.record(s);
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s.handle()), cudaSuccess);
  }
  end.record(s);
  end.synchronize();
  EXPECT_TRUE(end.query());
  const float one = nd::elapsed_ms(start, middle);
  const float five = nd::elapsed_ms(start, end);
  // 512 MiB read + written cannot take less than ~0.1 ms on any GPU, and four more copies take longer.
  EXPECT_GT(one, 0.05F);
  EXPECT_GT(five, 2.0F * one);
  ASSERT_EQ(cudaFree(a), cudaSuccess);
  ASSERT_EQ(cudaFree(b), cudaSuccess);
}

TEST(Event, ElapsedNeedsTimingEvents) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  nd::event timed;
  nd::event untimed(0, false);
  timed.record(s);
  untimed.record(s);
  s.synchronize();
  EXPECT_THROW((void)nd::elapsed_ms(timed, untimed), nd::error);
}

TEST(Event, MovesOwnership) {
  NDCUDA_REQUIRE_GPU();
  nd::event a;
  cudaEvent_t handle = a.handle();
  nd::event b(std::move(a));
  EXPECT_EQ(b.handle(), handle);
  nd::event c(0, false);
  c = std::move(b);
  EXPECT_EQ(c.handle(), handle);
  EXPECT_TRUE(c.timing());
  nd::stream s;
  c.record(s);
  c.synchronize();
  EXPECT_TRUE(c.query());
}

TEST(Event, SynchronizeOnACapturedEventThrows) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  nd::event e(0, false);
  ASSERT_EQ(cudaStreamBeginCapture(s.handle(), cudaStreamCaptureModeThreadLocal), cudaSuccess);
  e.record(s);
  EXPECT_THROW(e.synchronize(), nd::capture_error);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s.handle(), &graph), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(graph), cudaSuccess);
}
