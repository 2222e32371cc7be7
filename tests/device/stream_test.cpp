// stream: non-blocking, refcounted, ordered with events, capture-aware; default streams.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/event.hpp>
#include <ndcuda/device/stream.hpp>
#include <vector>

#include "support/gpu.hpp"

namespace nd = ndcuda;

namespace {

std::vector<std::uint32_t> random_words(std::size_t n) {
  std::vector<std::uint32_t> words(n);
  for (auto& w : words) {
    w = static_cast<std::uint32_t>(nd::testing::rng()());
  }
  return words;
}

struct device_buffer {
  void* ptr = nullptr;
  explicit device_buffer(std::size_t bytes) { NDCUDA_CUDA_CHECK(cudaMalloc(&ptr, bytes)); }
  ~device_buffer() { (void)cudaFree(ptr); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
};

}  // namespace

TEST(Stream, WrapRefusesTheLegacyNullStream) {
  // Checked before any CUDA call, so this runs without a GPU.
  EXPECT_THROW((void)nd::stream::wrap(nullptr), nd::error);
  EXPECT_THROW((void)nd::stream::wrap(cudaStreamLegacy), nd::error);
}

TEST(Stream, IsNonBlockingAndShared) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  unsigned flags = 0;
  ASSERT_EQ(cudaStreamGetFlags(s.handle(), &flags), cudaSuccess);
  EXPECT_EQ(flags & cudaStreamNonBlocking, static_cast<unsigned>(cudaStreamNonBlocking));
  EXPECT_TRUE(s.owns_handle());
  nd::stream copy = s;  // NOLINT(performance-unnecessary-copy-initialization): copying is the test
  EXPECT_EQ(copy.handle(), s.handle());
  EXPECT_EQ(copy, s);
  nd::stream other;
  EXPECT_NE(other.handle(), s.handle());
}

TEST(Stream, PriorityIsClampedToTheDeviceRange) {
  NDCUDA_REQUIRE_GPU();
  int least = 0;
  int greatest = 0;
  ASSERT_EQ(cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
  nd::stream urgent(0, -1000);
  int priority = 0;
  ASSERT_EQ(cudaStreamGetPriority(urgent.handle(), &priority), cudaSuccess);
  EXPECT_EQ(priority, greatest);
}

TEST(Stream, DefaultStreamIsOnePerDeviceAndNeverLegacy) {
  NDCUDA_REQUIRE_GPU();
  nd::stream a = nd::default_stream(0);
  nd::stream b = nd::default_stream(0);
  EXPECT_EQ(a.handle(), b.handle());
  EXPECT_NE(a.handle(), nullptr);
  EXPECT_NE(a.handle(), cudaStreamLegacy);
  EXPECT_EQ(a.device(), 0);
  unsigned flags = 0;
  ASSERT_EQ(cudaStreamGetFlags(a.handle(), &flags), cudaSuccess);
  EXPECT_EQ(flags & cudaStreamNonBlocking, static_cast<unsigned>(cudaStreamNonBlocking));
}

TEST(Stream, WrapIsNonOwningAndFindsTheDevice) {
  NDCUDA_REQUIRE_GPU();
  cudaStream_t raw = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking), cudaSuccess);
  {
    nd::stream wrapped = nd::stream::wrap(raw);
    EXPECT_FALSE(wrapped.owns_handle());
    EXPECT_EQ(wrapped.device(), 0);
    wrapped.synchronize();
  }
  EXPECT_EQ(cudaStreamQuery(raw), cudaSuccess) << "wrap() must not destroy a stream it does not own";
  ASSERT_EQ(cudaStreamDestroy(raw), cudaSuccess);
}

TEST(Stream, EventOrdersWorkAcrossStreams) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = std::size_t{16} << 20;  // 64 MiB: long enough that ordering matters
  const auto input = random_words(n);
  const std::size_t bytes = n * sizeof(std::uint32_t);
  device_buffer a(bytes);
  device_buffer b(bytes);
  std::vector<std::uint32_t> output(n, 0);
  ASSERT_EQ(cudaHostRegister(const_cast<std::uint32_t*>(input.data()), bytes, cudaHostRegisterDefault), cudaSuccess);
  ASSERT_EQ(cudaHostRegister(output.data(), bytes, cudaHostRegisterDefault), cudaSuccess);

  nd::stream producer;
  nd::stream consumer;
  nd::event ready(0, false);
  ASSERT_EQ(cudaMemcpyAsync(a.ptr, input.data(), bytes, cudaMemcpyHostToDevice, producer.handle()), cudaSuccess);
  ready.record(producer);
  consumer.wait(ready);
  ASSERT_EQ(cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice, consumer.handle()), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(output.data(), b.ptr, bytes, cudaMemcpyDeviceToHost, consumer.handle()), cudaSuccess);
  consumer.synchronize();
  EXPECT_TRUE(consumer.query());
  EXPECT_TRUE(ready.query());
  EXPECT_EQ(output, input);
  ASSERT_EQ(cudaHostUnregister(const_cast<std::uint32_t*>(input.data())), cudaSuccess);
  ASSERT_EQ(cudaHostUnregister(output.data()), cudaSuccess);
}

TEST(Stream, SynchronizeDuringCaptureThrowsAndLeavesTheCaptureValid) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  device_buffer buffer(1024);
  ASSERT_EQ(cudaStreamBeginCapture(s.handle(), cudaStreamCaptureModeThreadLocal), cudaSuccess);
  EXPECT_TRUE(s.is_capturing());
  ASSERT_EQ(cudaMemsetAsync(buffer.ptr, 7, 1024, s.handle()), cudaSuccess);
  try {
    s.synchronize();
    ADD_FAILURE() << "expected capture_error";
  } catch (const nd::capture_error& e) {
    EXPECT_NE(std::string(e.what()).find("capturing"), std::string::npos) << e.what();
  }
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s.handle(), &graph), cudaSuccess) << "the capture was invalidated";
  ASSERT_NE(graph, nullptr);
  std::size_t nodes = 0;
  ASSERT_EQ(cudaGraphGetNodes(graph, nullptr, &nodes), cudaSuccess);
  EXPECT_EQ(nodes, 1U);
  ASSERT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  EXPECT_FALSE(s.is_capturing());
}

TEST(Stream, StreamsOnEachDeviceMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  nd::stream s1(1);
  EXPECT_EQ(s1.device(), 1);
  EXPECT_EQ(nd::default_stream(1).device(), 1);
  EXPECT_NE(nd::default_stream(1).handle(), nd::default_stream(0).handle());
  nd::event e0(0, false);
  EXPECT_THROW(e0.record(s1), nd::device_error);
}
