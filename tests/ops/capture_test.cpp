// CUDA graphs end to end on the GPU: elementwise ops and assignment captured and replayed bit for
// bit, a pinned H2D -> compute -> D2H pipeline, every refused operation, modes, graph-owned memory
// over 10,000 replays, and arrays kept alive by a graph.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <ndcuda/ndcuda.hpp>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

bool bit_identical(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

/// Page-locked host memory from cudaHostAlloc, freed at scope exit.
template <class T>
struct pinned_buffer {
  T* ptr = nullptr;
  std::size_t n = 0;
  explicit pinned_buffer(std::size_t count) : n(count) {
    NDCUDA_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&ptr), n * sizeof(T), cudaHostAllocDefault));
  }
  ~pinned_buffer() { (void)cudaFreeHost(ptr); }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
};

std::size_t graph_memory_used(int device) {
  unsigned long long value = 0;
  NDCUDA_CUDA_CHECK(cudaDeviceGetGraphMemAttribute(device, cudaGraphMemAttrUsedMemCurrent, &value));
  return static_cast<std::size_t>(value);
}

std::size_t graph_memory_reserved(int device) {
  unsigned long long value = 0;
  NDCUDA_CUDA_CHECK(cudaDeviceGetGraphMemAttribute(device, cudaGraphMemAttrReservedMemCurrent, &value));
  return static_cast<std::size_t>(value);
}

constexpr nd::index_t n = 1 << 16;

}  // namespace

TEST(Capture, ElementwiseAndAssignmentReplay1000TimesBitIdenticalToEager) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  auto a = nd::asarray<float>(nd::testing::uniform_values<float>(n, -4.0, 4.0), {n}, s);
  auto b = nd::asarray<float>(nd::testing::uniform_values<float>(n, -4.0, 4.0), {n}, s);
  auto c = nd::asarray<float>(nd::testing::uniform_values<float>(n, 0.5, 2.0), {n}, s);
  // Eager results on the same inputs.
  const std::vector<float> eager1 = nd::eval(a * b + nd::sin(c) * 0.5f).to_host();
  const std::vector<float> eager2 = nd::eval(nd::exp(a * 0.25f) - c).to_host();

  auto out1 = nd::empty<float>({n}, s);
  auto out2 = nd::empty<float>({n}, s);
  auto copied = nd::empty<float>({n}, s);
  auto filled = nd::empty<float>({n}, s);
  nd::graph g = nd::capture(s, [&] {
    out1(nd::ellipsis) = a * b + nd::sin(c) * 0.5f;
    nd::ndarray<float> t = a * 0.25f;  // graph memory, freed inside the graph
    out2(nd::ellipsis) = nd::exp(t) - c;
    copied(nd::ellipsis) = out1;   // assignment between arrays
    filled(nd::ellipsis) = 1.75f;  // scalar assignment
  });
  ASSERT_TRUE(g);
  EXPECT_GE(g.node_count(), 4U);
  g.upload(s);
  for (int i = 0; i < 1000; ++i) {
    g.launch(s);
  }
  EXPECT_TRUE(bit_identical(out1.to_host(), eager1));
  EXPECT_TRUE(bit_identical(out2.to_host(), eager2));
  EXPECT_TRUE(bit_identical(copied.to_host(), eager1));
  for (float x : filled.to_host()) {
    ASSERT_EQ(x, 1.75f);
  }

  // New input values between replays: the graph reads the arrays' current contents.
  a(nd::ellipsis) = nd::asarray<float>(nd::testing::uniform_values<float>(n, -4.0, 4.0), {n}, s);
  const std::vector<float> eager3 = nd::eval(a * b + nd::sin(c) * 0.5f).to_host();
  ASSERT_FALSE(bit_identical(eager3, eager1)) << "fresh random input should change the result";
  g.launch(s);
  EXPECT_TRUE(bit_identical(out1.to_host(), eager3));
}

TEST(Capture, ReductionsReplay1000TimesBitIdenticalToEager) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  constexpr nd::index_t rows = 384;
  constexpr nd::index_t cols = 1000;
  auto m = nd::asarray<float>(nd::testing::uniform_values<float>(rows * cols, -4.0, 4.0), {rows, cols}, s);
  // Rows, columns split over blocks (partials + second pass), a full two-pass reduction, an
  // index reduction and Welford: every reduction path, each with its temporaries in the graph.
  const std::vector<float> eager_rows = nd::sum(m * m, 1).to_host();
  const std::vector<float> eager_cols = nd::sum(m, 0).to_host();
  const std::vector<float> eager_mean = nd::mean(m).to_host();
  const std::vector<std::int64_t> eager_argmax = nd::argmax(m).to_host();
  const std::vector<float> eager_var = nd::var(m, 0, nd::ddof(1)).to_host();

  auto by_rows = nd::empty<float>({rows}, s);
  auto by_cols = nd::empty<float>({cols}, s);
  auto mean = nd::empty<float>(nd::shape_t{}, s);
  auto where_max = nd::empty<std::int64_t>(nd::shape_t{}, s);
  auto variance = nd::empty<float>({cols}, s);
  nd::graph g = nd::capture(s, [&] {
    by_rows(nd::ellipsis) = nd::sum(m * m, 1);
    by_cols(nd::ellipsis) = nd::sum(m, 0);
    mean(nd::ellipsis) = nd::mean(m);
    where_max(nd::ellipsis) = nd::argmax(m);
    variance(nd::ellipsis) = nd::var(m, 0, nd::ddof(1));
  });
  for (int i = 0; i < 1000; ++i) {
    g.launch(s);
  }
  EXPECT_TRUE(bit_identical(by_rows.to_host(), eager_rows));
  EXPECT_TRUE(bit_identical(by_cols.to_host(), eager_cols));
  EXPECT_TRUE(bit_identical(mean.to_host(), eager_mean));
  EXPECT_EQ(where_max.to_host(), eager_argmax);
  EXPECT_TRUE(bit_identical(variance.to_host(), eager_var));

  // A new maximum between replays moves argmax: the graph reads the current contents.
  auto corner = m(rows - 1, cols - 1);
  corner(nd::ellipsis) = 1e30f;
  g.launch(s);
  EXPECT_EQ(where_max.item(), rows * cols - 1);
}

TEST(Capture, KernelCompiledAndLoadedDuringAGlobalModeCaptureKeepsTheCaptureValid) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  const std::vector<float> x = nd::testing::uniform_values<float>(n, -4.0, 4.0);
  auto a = nd::asarray<float>(x, {n}, s);
  auto out = nd::empty<double>({n}, s);
  auto offset = nd::empty<double>({n}, s);
  // A constant spelled into the source, fresh per run, so that neither the memory nor the disk
  // cache can hold the kernel: NVRTC compiles it, and the module loads, inside the capture, in
  // CUDA's strictest mode.
  const int unique = std::uniform_int_distribution<int>(1, 1 << 30)(nd::testing::rng());
  const nd::elementwise_kernel<double(float)> shift("out = double(x) + " + std::to_string(unique) + ".0",
                                                    "capture_shift");
  const std::uint64_t compiles_before = nd::jit::status().compiles;
  nd::graph g = nd::capture(
      s,
      [&] {
        out(nd::ellipsis) = nd::cos(a) * 3.0 + nd::abs(a);
        shift(n, offset.data(), a.data(), s);
      },
      nd::capture_mode::global);
  EXPECT_GE(nd::jit::status().compiles, compiles_before + 1) << "the kernel was not compiled during the capture";
  g.launch(s);
  const std::vector<double> got = out.to_host();
  const std::vector<double> shifted = offset.to_host();
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double ref = std::cos(static_cast<double>(x[i])) * 3.0 + std::abs(static_cast<double>(x[i]));
    ASSERT_NEAR(got[i], ref, 1e-5 * (1.0 + std::abs(ref))) << "at " << i;
    ASSERT_EQ(shifted[i], static_cast<double>(x[i]) + unique) << "at " << i;
  }
}

TEST(Capture, RelaxedModeCapturesAndItsGraphWritesADotFile) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  const std::vector<float> x = nd::testing::uniform_values<float>(n, -4.0, 4.0);
  auto a = nd::asarray<float>(x, {n}, s);
  auto out = nd::empty<float>({n}, s);
  auto total = nd::empty<float>(nd::shape_t{}, s);
  nd::graph g = nd::capture(
      s,
      [&] {
        out(nd::ellipsis) = a * a;
        total(nd::ellipsis) = nd::sum(a * 0.5f);
      },
      nd::capture_mode::relaxed);
  EXPECT_GE(g.node_count(), 2U);
  const std::string path = ::testing::TempDir() + "ndcuda_relaxed_capture.dot";
  g.debug_dot(path);
  std::ifstream dot(path);
  std::stringstream text;
  text << dot.rdbuf();
  EXPECT_NE(text.str().find("digraph"), std::string::npos) << text.str().substr(0, 200);
  EXPECT_NE(text.str().find("KERNEL"), std::string::npos) << "no kernel node in the DOT file";
  std::remove(path.c_str());
  g.launch(s);
  const std::vector<float> got = out.to_host();
  double ref_total = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(got[i], x[i] * x[i]) << "at " << i;
    ref_total += 0.5 * static_cast<double>(x[i]);
  }
  EXPECT_NEAR(total.item(), ref_total, 1e-4 * (1.0 + std::abs(ref_total)) + 1e-3);
}

TEST(Capture, PinnedHostToDeviceComputeDeviceToHostInOneGraph) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  pinned_buffer<float> in(n);
  // The output side comes from ndcuda's pinned pool, allocated before the capture.
  auto pool = nd::default_pinned_pool();
  auto* out = static_cast<float*>(pool->allocate(n * sizeof(float), s));
  auto dev_in = nd::empty<float>({n}, s);
  auto dev_out = nd::empty<float>({n}, s);
  nd::graph g = nd::capture(s, [&] {
    nd::copy_to_device(dev_in.data(), in.ptr, n * sizeof(float), s);
    dev_out(nd::ellipsis) = dev_in * 2.0f + 1.0f;
    dev_out.copy_to_host(out, s);
  });
  for (int replay = 0; replay < 5; ++replay) {
    const std::vector<float> x = nd::testing::uniform_values<float>(n, -4.0, 4.0);
    std::memcpy(in.ptr, x.data(), n * sizeof(float));
    g.launch(s);
    s.synchronize();
    for (std::size_t i = 0; i < x.size(); ++i) {
      // x * 2 is exact in float, so one rounding of the double result is what float gives.
      ASSERT_EQ(out[i], static_cast<float>(static_cast<double>(x[i]) * 2.0 + 1.0))
          << "replay " << replay << " at " << i;
    }
  }
  pool->deallocate(out, n * sizeof(float), s);
}

TEST(Capture, EachRefusedOperationThrowsBeforeCudaAndTheCaptureStaysUsable) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  const std::vector<float> x = nd::testing::uniform_values<float>(n, -4.0, 4.0);
  auto a = nd::asarray<float>(x, {n}, s);
  auto out = nd::empty<float>({n}, s);
  std::vector<float> pageable(n);
  auto expect_refused = [](const auto& fn, const char* names, const char* fix) {
    try {
      fn();
      ADD_FAILURE() << names << " was not refused during capture";
    } catch (const nd::capture_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(names), std::string::npos) << what;
      EXPECT_NE(what.find(fix), std::string::npos) << what;
    }
  };
  nd::stream other(0);
  auto elsewhere = nd::zeros<float>({n}, other);
  other.synchronize();
  nd::graph g;
  {
    nd::capture_scope scope(s);
    expect_refused([&] { (void)a.to_host(); }, "to_host()", "after the capture");
    expect_refused([&] { (void)a(0).item(); }, "item()", "after the capture");
    expect_refused(
        [&] {
          std::ostringstream os;
          os << a;
        },
        "printing an array", "after the capture");
    expect_refused([&] { s.synchronize(); }, "synchronize", "after the capture ends");
    expect_refused([&] { nd::copy_to_device(out.data(), pageable.data(), n * sizeof(float), s); }, "pageable",
                   "pinned");
    expect_refused([&] { nd::copy_to_host(pageable.data(), a.data(), n * sizeof(float), s); }, "pageable", "pinned");
    expect_refused([&] { (void)nd::default_resource(0)->allocate(1 << 20, s); }, "device_pool_resource", "async");
    expect_refused([&] { (void)nd::default_pinned_pool()->allocate(1 << 20, s); }, "pinned_pool_resource",
                   "before the capture");
    expect_refused([&] { out(nd::ellipsis) = a + elsewhere; }, "not capturing", "on the capture stream");
    out(nd::ellipsis) = a * 3.0f;  // still recording
    g = scope.end();
  }
  g.launch(s);
  const std::vector<float> got = out.to_host();
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(got[i], static_cast<float>(static_cast<double>(x[i]) * 3.0));
  }

  // An exception out of nd::capture abandons the capture; the stream captures again at once.
  EXPECT_THROW((void)nd::capture(s, [&] { (void)a.to_host(); }), nd::capture_error);
  EXPECT_FALSE(s.is_capturing());
  nd::graph again = nd::capture(s, [&] { out(nd::ellipsis) = a - 1.0f; });
  again.launch(s);
  EXPECT_EQ(out.to_host()[7], static_cast<float>(static_cast<double>(x[7]) - 1.0));
}

TEST(Capture, NestedCaptureOnOneStreamIsRefused) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  auto out = nd::zeros<float>({n}, s);
  nd::capture_scope outer(s);
  try {
    nd::capture_scope inner(s);
    ADD_FAILURE() << "a nested capture was accepted";
  } catch (const nd::capture_error& e) {
    EXPECT_NE(std::string(e.what()).find("already capturing"), std::string::npos) << e.what();
  }
  out(nd::ellipsis) = 2.0f;
  nd::graph g = outer.end();
  g.launch(s);
  EXPECT_EQ(out.to_host()[0], 2.0f);
}

TEST(Capture, NothingCapturedIsReportedWithTheLikelyCause) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  auto on_default = nd::zeros<float>({n});  // the default stream, not s
  try {
    (void)nd::capture(s, [&] { on_default(nd::ellipsis) = 1.0f; });
    ADD_FAILURE() << "an empty capture gave a graph";
  } catch (const nd::capture_error& e) {
    EXPECT_NE(std::string(e.what()).find("nothing was captured"), std::string::npos) << e.what();
  }
}

TEST(Capture, ThreadLocalModeLetsAnotherThreadAllocateAndSynchronize) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  const std::vector<float> x = nd::testing::uniform_values<float>(n, -4.0, 4.0);
  auto a = nd::asarray<float>(x, {n}, s);
  auto out = nd::empty<float>({n}, s);
  std::mutex m;
  std::condition_variable cv;
  int phase = 0;
  double other_sum = 0;
  std::thread other([&] {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return phase == 1; });
    // cudaMalloc (a new 256 MiB chunk for the pool), eager compute and a host wait, all while
    // the main thread's capture is open.
    nd::stream t(0);
    auto big = nd::ones<float>({64 << 20}, t);
    other_sum = static_cast<double>(nd::eval(big * 2.0f)(12345).item());
    phase = 2;
    cv.notify_all();
  });
  nd::graph g;
  {
    nd::capture_scope scope(s, nd::capture_mode::thread_local_);
    out(nd::ellipsis) = a + 1.0f;
    {
      std::unique_lock lock(m);
      phase = 1;
      cv.notify_all();
      cv.wait(lock, [&] { return phase == 2; });
    }
    out(nd::ellipsis) = out * 2.0f;
    g = scope.end();
  }
  other.join();
  EXPECT_EQ(other_sum, 2.0);
  g.launch(s);
  const std::vector<float> got = out.to_host();
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(got[i], static_cast<float>(static_cast<float>(x[i] + 1.0f) * 2.0f));
  }
}

// Issue 37, item 7: thread A captures `out = a * 2 + 1` 1000 times, in each capture mode in turn,
// each time after dropping a buffer on its stream (so the pool holds free blocks of A's stream),
// while thread B allocates, drops 64 MiB and calls free_all_blocks() on another stream without
// pause. Before the fix the pool recorded an event on A's stream just after A began capturing, and
// one capture in 200 was invalidated (907 in B, 901 in A).
TEST(Capture, ThousandCapturesStayValidWhileAnotherThreadReleasesThePool) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  const std::vector<float> x = nd::testing::uniform_values<float>(n, -4.0, 4.0);
  const auto a = nd::asarray<float>(x, {n}, s);
  auto out = nd::empty<float>({n}, s);
  auto pool = std::dynamic_pointer_cast<nd::device_pool_resource>(nd::default_resource(0));
  ASSERT_TRUE(pool) << "the default resource of device 0 is not the built-in device pool";
  std::atomic<bool> done{false};
  std::atomic<int> releases{0};
  std::string other_error;
  std::thread other([&] {
    try {
      nd::stream t(0);
      while (!done.load()) {
        { const auto big = nd::empty<std::uint8_t>({64 << 20}, t); }
        (void)pool->free_all_blocks();
        releases.fetch_add(1);
      }
      t.synchronize();
    } catch (const std::exception& e) {
      other_error = e.what();
    }
  });
  const nd::capture_mode modes[] = {nd::capture_mode::thread_local_, nd::capture_mode::relaxed,
                                    nd::capture_mode::global};
  int failures = 0;
  std::string first_failure;
  for (int i = 0; i < 1000; ++i) {
    {
      const auto scratch = nd::empty<float>({n}, s);  // a free block of s for the other thread to find
    }
    try {
      nd::graph g = nd::capture(
          s, [&] { out(nd::ellipsis) = a * 2.0F + 1.0F; }, modes[i % 3]);
      g.launch(s);
    } catch (const nd::error& e) {
      if (failures++ == 0) {
        first_failure = "capture " + std::to_string(i) + " (" + nd::to_string(modes[i % 3]) + "): " + e.what();
      }
    }
  }
  done.store(true);
  other.join();
  EXPECT_EQ(failures, 0) << first_failure;
  EXPECT_EQ(other_error, "");
  EXPECT_GT(releases.load(), 0);
  const std::vector<float> got = out.to_host();
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(got[i], x[i] * 2.0F + 1.0F) << i;
  }
}

TEST(Capture, AnInvalidatedCaptureThrowsCaptureErrorAndTheStreamCapturesAgain) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  auto out = nd::zeros<float>({n}, s);
  {
    nd::capture_scope scope(s, nd::capture_mode::global);
    out(nd::ellipsis) = 3.0f;
    // An unsafe call on another thread while a global-mode capture is open invalidates it.
    std::thread([] {
      void* p = nullptr;
      if (cudaMalloc(&p, 1 << 20) == cudaSuccess) {
        (void)cudaFree(p);
      }
      (void)cudaGetLastError();
    }).join();
    try {
      (void)scope.end();
      ADD_FAILURE() << "CUDA did not invalidate the capture; the test's premise failed";
    } catch (const nd::capture_error& e) {
      EXPECT_NE(std::string(e.what()).find("invalidated"), std::string::npos) << e.what();
    }
  }
  EXPECT_FALSE(s.is_capturing());
  nd::graph g = nd::capture(s, [&] { out(nd::ellipsis) = 4.0f; });
  g.launch(s);
  EXPECT_EQ(out.to_host()[n - 1], 4.0f);
}

TEST(Capture, GraphOwnedMemoryDoesNotGrowOver10000Replays) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  const std::vector<float> x = nd::testing::uniform_values<float>(n, -4.0, 4.0);
  auto a = nd::asarray<float>(x, {n}, s);
  auto out = nd::empty<float>({n}, s);
  nd::ndarray<float> kept = nd::empty<float>({1}, s);  // rebound to an array made inside the capture
  nd::graph g = nd::capture(s, [&] {
    nd::ndarray<float> t1 = a * 2.0f;  // freed inside the graph
    nd::ndarray<float> t2 = t1 + 1.0f;
    out(nd::ellipsis) = t2 - a;
    kept = a + 0.5f;  // outlives the capture: freed by the next launch
  });
  g.launch(s);
  s.synchronize();
  const std::size_t used = graph_memory_used(0);
  const std::size_t reserved = graph_memory_reserved(0);
  // This process's own pools, not cudaMemGetInfo: other test processes share the GPU.
  const auto capture_pool = std::dynamic_pointer_cast<nd::async_pool_resource>(nd::capture_resource(0));
  ASSERT_NE(capture_pool, nullptr) << "the capture resource is expected to be an async pool";
  const std::size_t pool_before = capture_pool->stats().reserved_bytes;
  EXPECT_GT(used, 0U) << "the capture made no graph allocations";
  for (int i = 0; i < 10000; ++i) {
    g.launch(s);
    if (i % 1000 == 999) {
      s.synchronize();
    }
  }
  s.synchronize();
  EXPECT_EQ(graph_memory_used(0), used);
  EXPECT_EQ(graph_memory_reserved(0), reserved);
  EXPECT_LE(capture_pool->stats().reserved_bytes, pool_before) << "the capture pool grew over the replays";
  const std::vector<float> got = out.to_host();
  const std::vector<float> got_kept = kept.to_host();
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(got[i], static_cast<float>(static_cast<float>(x[i] * 2.0f + 1.0f) - x[i]));
    ASSERT_EQ(got_kept[i], x[i] + 0.5f);
  }
}

TEST(Capture, ArraysUsedByALiveGraphAreKeptAliveAfterTheirHandlesAreDropped) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  auto& pool = dynamic_cast<nd::device_pool_resource&>(*nd::default_resource(0));
  const std::vector<float> x = nd::testing::uniform_values<float>(n, -4.0, 4.0);
  const std::vector<float> y = nd::testing::uniform_values<float>(n, -4.0, 4.0);
  auto out = nd::empty<float>({n}, s);
  nd::graph g;
  std::size_t used_with_inputs = 0;
  {
    auto a = nd::asarray<float>(x, {n}, s);
    auto b = nd::asarray<float>(y, {n}, s);
    used_with_inputs = pool.stats().used_bytes;
    g = nd::capture(s, [&] { out(nd::ellipsis) = a + b * 2.0f; });  // b * 2 is exact: no FMA ambiguity
  }                                                                 // every user handle of a and b is gone
  EXPECT_EQ(pool.stats().used_bytes, used_with_inputs) << "the inputs went back to the pool under a live graph";
  // Fresh arrays would reuse freed blocks: fill some with garbage, then replay.
  std::vector<nd::ndarray<float>> garbage;
  for (int i = 0; i < 8; ++i) {
    garbage.push_back(nd::full<float>({n}, -12345.0f, s));
  }
  g.launch(s);
  const std::vector<float> got = out.to_host();
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(got[i], static_cast<float>(static_cast<double>(x[i]) + 2.0 * y[i])) << "at " << i;
  }
  // Dropping the graph releases them (on ndcuda's release thread, once CUDA lets go).
  g = nd::graph();
  garbage.clear();
  const std::size_t expected = used_with_inputs - 2 * n * sizeof(float);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (pool.stats().used_bytes > expected && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_LE(pool.stats().used_bytes, expected) << "the graph's buffers were never released";
}
