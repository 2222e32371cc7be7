// The transfer engine on the GPU: pinned detection over whole ranges, direct copies that add no
// pinned bytes, the staged pipeline, keep-alive of dropped sources, staging reclaimed, capture.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/memory/default_resource.hpp>
#include <ndcuda/memory/device_pool_resource.hpp>
#include <ndcuda/memory/host_memory.hpp>
#include <ndcuda/memory/managed_resource.hpp>
#include <ndcuda/memory/transfer.hpp>
#include <thread>
#include <vector>

#include "memory/lane_copy.hpp"
#include "support/cuda_buffers.hpp"
#include "support/gpu.hpp"

namespace nd = ndcuda;
using nd::testing::device_buffer;
using nd::testing::first_difference;
using nd::testing::host_alloc_buffer;
using nd::testing::pageable_buffer;
using nd::testing::read_back;
using nd::testing::registration;

namespace {

constexpr std::size_t KiB = std::size_t{1} << 10;
constexpr std::size_t MiB = std::size_t{1} << 20;

/// The default pinned pool's footprint: what "the pinned pool does not grow by one byte" compares.
struct pinned_footprint {
  std::size_t reserved;
  std::uint64_t upstream_allocations;
  std::uint64_t allocation_count;
  static pinned_footprint now() {
    const nd::memory_stats st = nd::default_pinned_pool()->stats();
    return {st.reserved_bytes, st.upstream_allocations, st.allocation_count};
  }
  bool operator==(const pinned_footprint&) const = default;
};

/// Copies `bytes` from `src` to a fresh device buffer with the default engine, checks the data
/// with a plain cudaMemcpy back, and returns the path taken.
nd::transfer_path round_trip_to_device(const char* src, std::size_t bytes, const nd::stream& s) {
  device_buffer device(bytes);
  const nd::transfer_path path = nd::copy_to_device(device.ptr, src, bytes, s);
  const auto back = read_back(device.ptr, bytes, s);
  EXPECT_EQ(first_difference(back.data(), src, bytes), bytes) << "path " << nd::to_string(path);
  return path;
}

}  // namespace

TEST(PinnedDetection, ClassifiesEveryKindOfMemoryOverTheWholeRange) {
  NDCUDA_REQUIRE_GPU();
  host_alloc_buffer pinned(4 * MiB);
  pageable_buffer pageable(4 * MiB);
  pageable_buffer partly(4 * MiB);
  registration middle(partly.ptr + MiB, 2 * MiB);
  device_buffer device(MiB);
  EXPECT_EQ(nd::classify_host_memory(pinned.ptr, pinned.bytes, 0), nd::host_memory_kind::pinned);
  EXPECT_EQ(nd::classify_host_memory(pinned.ptr + 123, MiB, 0), nd::host_memory_kind::pinned);
  EXPECT_EQ(nd::classify_host_memory(pageable.ptr, pageable.bytes, 0), nd::host_memory_kind::pageable);
  EXPECT_EQ(nd::classify_host_memory(partly.ptr + MiB, 2 * MiB, 0), nd::host_memory_kind::pinned);
  EXPECT_EQ(nd::classify_host_memory(partly.ptr + MiB + 4000, 100 * KiB, 0), nd::host_memory_kind::pinned)
      << "an interior pointer of registered memory";
  EXPECT_EQ(nd::classify_host_memory(partly.ptr + MiB / 2, MiB, 0), nd::host_memory_kind::pageable)
      << "starts before the registration";
  EXPECT_EQ(nd::classify_host_memory(partly.ptr + 2 * MiB, 2 * MiB, 0), nd::host_memory_kind::pageable)
      << "runs past the registration";
  EXPECT_EQ(nd::classify_host_memory(device.ptr, MiB, 0), nd::host_memory_kind::device);
  EXPECT_TRUE(nd::is_pinned(pinned.ptr, pinned.bytes, 0));
  EXPECT_FALSE(nd::is_pinned(pinned.ptr, pinned.bytes + 1, 0)) << "one byte past a cudaHostAlloc block";
  // Whatever lies past a device block (more device memory, or memory the driver does not know),
  // the range is not pinned: is_pinned answers false where classify_host_memory may refuse.
  bool answer = true;
  EXPECT_NO_THROW(answer = nd::is_pinned(device.ptr, device.bytes + 1, 0));
  EXPECT_FALSE(answer) << "one byte past a cudaMalloc block";
}

TEST(PinnedDetection, AdjacentRegistrationsTogetherArePinned) {
  NDCUDA_REQUIRE_GPU();
  pageable_buffer buffer(4 * MiB);
  registration first(buffer.ptr, 2 * MiB);
  registration second(buffer.ptr + 2 * MiB, 2 * MiB);
  EXPECT_EQ(nd::classify_host_memory(buffer.ptr + MiB, 2 * MiB, 0), nd::host_memory_kind::pinned);
  nd::stream s(0);
  nd::testing::fill_random(buffer.ptr, buffer.bytes);
  const auto before = pinned_footprint::now();
  EXPECT_EQ(round_trip_to_device(buffer.ptr + MiB, 2 * MiB, s), nd::transfer_path::direct);
  EXPECT_EQ(pinned_footprint::now(), before);
}

TEST(PinnedDetection, ManagedMemoryIsCopiedDirectly) {
  NDCUDA_REQUIRE_GPU();
  nd::managed_resource managed(0);
  nd::stream s(0);
  auto* p = static_cast<char*>(managed.allocate(MiB, s));
  nd::testing::fill_random(p, MiB);
  EXPECT_EQ(nd::classify_host_memory(p, MiB, 0), nd::host_memory_kind::managed);
  EXPECT_EQ(round_trip_to_device(p, MiB, s), nd::transfer_path::direct);
  managed.deallocate(p, MiB, s);
}

TEST(Transfer, FromHostAllocIsDirectAndAddsNoPinnedBytes) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  host_alloc_buffer src(24 * MiB + 3);
  nd::testing::fill_random(src.ptr, src.bytes);
  const auto before = pinned_footprint::now();
  EXPECT_EQ(round_trip_to_device(src.ptr, src.bytes, s), nd::transfer_path::direct);
  EXPECT_EQ(pinned_footprint::now(), before);
}

TEST(Transfer, FromHostRegisteredMemoryIsDirectAndAddsNoPinnedBytes) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  pageable_buffer src(24 * MiB);
  registration pinned(src.ptr, src.bytes);
  nd::testing::fill_random(src.ptr, src.bytes);
  const auto before = pinned_footprint::now();
  EXPECT_EQ(round_trip_to_device(src.ptr, src.bytes, s), nd::transfer_path::direct);
  EXPECT_EQ(pinned_footprint::now(), before);
}

TEST(Transfer, FromAnInteriorPointerOfRegisteredMemoryIsDirect) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  pageable_buffer src(24 * MiB);
  registration pinned(src.ptr, src.bytes);
  nd::testing::fill_random(src.ptr, src.bytes);
  const auto before = pinned_footprint::now();
  EXPECT_EQ(round_trip_to_device(src.ptr + 5 * MiB + 77, 16 * MiB, s), nd::transfer_path::direct);
  EXPECT_EQ(pinned_footprint::now(), before);
}

TEST(Transfer, FromAPartlyRegisteredRangeIsStaged) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  pageable_buffer src(32 * MiB);
  registration pinned(src.ptr + 8 * MiB, 8 * MiB);  // [8, 16) MiB of [0, 32)
  nd::testing::fill_random(src.ptr, src.bytes);
  const auto before = pinned_footprint::now();
  EXPECT_EQ(round_trip_to_device(src.ptr + 4 * MiB, 16 * MiB, s), nd::transfer_path::staged);
  EXPECT_GT(pinned_footprint::now().allocation_count, before.allocation_count) << "staging was used";
}

TEST(Transfer, FromPinnedPoolMemoryIsDirectAndAddsNoPinnedBytes) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  auto pool = nd::default_pinned_pool();
  auto* src = static_cast<char*>(pool->allocate(10 * MiB, s));
  nd::testing::fill_random(src, 10 * MiB);
  const auto before = pinned_footprint::now();
  EXPECT_EQ(round_trip_to_device(src + 100, 10 * MiB - 100, s), nd::transfer_path::direct);
  EXPECT_EQ(pinned_footprint::now(), before);
  pool->deallocate(src, 10 * MiB, s);
}

TEST(Transfer, PageableCopiesOfAwkwardSizesBothWays) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  for (std::size_t bytes :
       {std::size_t{1}, 64 * KiB, 64 * KiB + 1, 3 * MiB + 5, 8 * MiB, 8 * MiB * 3 + 12345, 100 * MiB + 7}) {
    pageable_buffer src(bytes);
    pageable_buffer dst(bytes);
    nd::testing::fill_random(src.ptr, bytes);
    std::memset(dst.ptr, 0, bytes);
    device_buffer device(bytes);
    const nd::transfer_path up = nd::copy_to_device(device.ptr, src.ptr, bytes, s);
    const nd::transfer_path down = nd::copy_to_host(dst.ptr, device.ptr, bytes, s);
    const nd::transfer_path expected =
        bytes <= nd::transfer_options{}.small_copy_bytes ? nd::transfer_path::driver_staged : nd::transfer_path::staged;
    EXPECT_EQ(up, expected) << bytes;
    EXPECT_EQ(down, expected) << bytes;
    // copy_to_host into pageable memory returns with the data in place: no synchronize here.
    EXPECT_EQ(first_difference(dst.ptr, src.ptr, bytes), bytes) << bytes << " bytes";
  }
}

TEST(Transfer, ToPinnedHostMemoryIsDirect) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  constexpr std::size_t bytes = 20 * MiB;
  pageable_buffer src(bytes);
  nd::testing::fill_random(src.ptr, bytes);
  device_buffer device(bytes);
  ASSERT_EQ(cudaMemcpyAsync(device.ptr, src.ptr, bytes, cudaMemcpyHostToDevice, s.handle()), cudaSuccess);
  host_alloc_buffer dst(bytes);
  const auto before = pinned_footprint::now();
  EXPECT_EQ(nd::copy_to_host(dst.ptr, device.ptr, bytes, s), nd::transfer_path::direct);
  s.synchronize();  // a direct copy is asynchronous
  EXPECT_EQ(first_difference(dst.ptr, src.ptr, bytes), bytes);
  EXPECT_EQ(pinned_footprint::now(), before);
}

TEST(Transfer, DroppingTheSourceRightAfterAnAsyncCopyIsSafe) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  constexpr std::size_t bytes = 64 * MiB;
  std::vector<unsigned char> expected(bytes);
  nd::testing::fill_random(expected.data(), bytes);
  device_buffer device(bytes);
  device_buffer slow(1024 * MiB);
  auto pool = nd::default_pinned_pool();
  auto device_pool = nd::default_resource(0);

  // 1. A cudaHostAlloc source owned by a shared_ptr: the engine keeps it until the copy is done.
  {
    ASSERT_EQ(cudaMemsetAsync(slow.ptr, 0, slow.bytes, s.handle()), cudaSuccess);  // queue ahead of the copy
    void* raw = nullptr;
    ASSERT_EQ(cudaHostAlloc(&raw, bytes, cudaHostAllocPortable), cudaSuccess);
    std::memcpy(raw, expected.data(), bytes);
    std::shared_ptr<const void> src(raw, [](const void* p) {
      std::memset(const_cast<void*>(p), 0xEE, 16);  // a freed source would show as garbage...
      (void)cudaFreeHost(const_cast<void*>(p));
    });
    EXPECT_EQ(nd::copy_to_device(device.ptr, std::move(src), bytes, s), nd::transfer_path::direct);
    // ...and churning the pools must not touch it either.
    for (int i = 0; i < 50; ++i) {
      void* d = device_pool->allocate(MiB * static_cast<std::size_t>(i + 1), s);
      device_pool->deallocate(d, MiB * static_cast<std::size_t>(i + 1), s);
      void* h = pool->allocate(bytes, s);
      std::memset(h, 0x55, 4096);
      pool->deallocate(h, bytes, s);
    }
    EXPECT_EQ(first_difference(read_back(device.ptr, bytes, s).data(), expected.data(), bytes), bytes);
    EXPECT_EQ(nd::default_transfer_engine().collect(), 0U) << "the source was released once the copy completed";
  }

  // 2. A pinned-pool source returned to the pool right after the copy: the pool does not hand it
  // out again (and nobody writes into it) until the copy has completed.
  {
    ASSERT_EQ(cudaMemsetAsync(slow.ptr, 0, slow.bytes, s.handle()), cudaSuccess);
    auto* src = static_cast<char*>(pool->allocate(bytes, s));
    std::memcpy(src, expected.data(), bytes);
    EXPECT_EQ(nd::copy_to_device(device.ptr, src, bytes, s), nd::transfer_path::direct);
    pool->deallocate(src, bytes, s);
    for (int i = 0; i < 20; ++i) {
      auto* h = static_cast<char*>(pool->allocate(bytes, s));
      if (h == src) {
        EXPECT_TRUE(s.query()) << "the in-flight block was handed out again";
      }
      std::memset(h, 0x55, bytes);
      pool->deallocate(h, bytes, s);
    }
    EXPECT_EQ(first_difference(read_back(device.ptr, bytes, s).data(), expected.data(), bytes), bytes);
  }
}

// Host-only: the lanes' regions tile [0, bytes) exactly, each starting on a 2 MiB boundary. The
// sizes include bytes = lanes * k pages + r with 0 < r < lanes, whose last r bytes a share rounded
// down once lost (a float32 array of 2^24 + 3 elements read over 16 lanes came back with three
// zeros at its end).
TEST(LaneRegions, CoverEveryByteExactlyOnce) {
  constexpr std::size_t page = 2 * MiB;
  for (std::size_t lanes = 1; lanes <= 17; ++lanes) {
    std::vector<std::size_t> sizes{1, page - 1, page, page + 1, 64 * MiB + 4, 64 * MiB + 12, 33 * MiB + 4099};
    for (std::size_t k : {std::size_t{1}, std::size_t{3}, std::size_t{32}}) {
      for (std::size_t r = 0; r <= lanes; ++r) {
        sizes.push_back(lanes * k * page + r);
      }
    }
    for (std::size_t bytes : sizes) {
      std::size_t next = 0;
      for (std::size_t lane = 0; lane < lanes; ++lane) {
        const nd::detail::lane_region r = nd::detail::region_of_lane(bytes, lanes, lane);
        ASSERT_LE(r.begin, r.end) << bytes << " bytes, lane " << lane << " of " << lanes;
        if (r.begin == r.end) {
          continue;
        }
        ASSERT_EQ(r.begin, next) << bytes << " bytes, lane " << lane << " of " << lanes;
        ASSERT_EQ(r.begin % page, 0U) << bytes << " bytes, lane " << lane << " of " << lanes;
        next = r.end;
      }
      ASSERT_EQ(next, bytes) << "the regions of " << lanes << " lanes end before the last of " << bytes << " bytes";
    }
  }
}

TEST(Transfer, LaneReadsOfAwkwardSizesAndOffsetsEveryLaneCount) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  for (unsigned lanes : {2U, 3U, 5U, 16U}) {
    auto staging = std::make_shared<nd::pinned_pool_resource>();
    nd::transfer_options options;
    options.host_threads = lanes;
    options.lane_read_bytes = 1 * MiB;  // every read below runs as lanes
    options.lane_chunk_bytes = 256 * KiB;
    nd::transfer_engine engine(staging, options);
    // The last size is lanes whole pages per lane plus fewer than `lanes` bytes.
    for (std::size_t bytes :
         {1 * MiB, 1 * MiB + 3, 7 * MiB + 1, 33 * MiB + 4099, std::size_t{lanes} * 2 * MiB + lanes - 1}) {
      pageable_buffer src(bytes);
      pageable_buffer dst(bytes + 1);
      nd::testing::fill_random(src.ptr, bytes);
      std::memset(dst.ptr, 0, bytes + 1);
      device_buffer device(bytes);
      ASSERT_EQ(cudaMemcpy(device.ptr, src.ptr, bytes, cudaMemcpyHostToDevice), cudaSuccess);
      // A pageable cudaMemcpy may return before its DMA lands, and s does not wait for the legacy stream.
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      // One byte in: no lane boundary falls on a page of the destination.
      EXPECT_EQ(engine.copy_to_host(dst.ptr + 1, device.ptr, bytes, s), nd::transfer_path::staged);
      EXPECT_EQ(first_difference(dst.ptr + 1, src.ptr, bytes), bytes) << lanes << " lanes, " << bytes << " bytes";
      EXPECT_EQ(dst.ptr[0], 0) << "a lane wrote before the destination";
      EXPECT_EQ(staging->stats().used_bytes, 0U) << "the lanes' staging block went back to the pool";
    }
  }
}

TEST(Transfer, LaneReadsOrderAfterWorkQueuedOnTheStream) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  constexpr std::size_t bytes = 80 * MiB + 12;
  pageable_buffer src(bytes);
  pageable_buffer dst(bytes);
  nd::testing::fill_random(src.ptr, bytes);
  device_buffer filled(bytes);
  ASSERT_EQ(cudaMemcpy(filled.ptr, src.ptr, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // a pageable cudaMemcpy may return before its DMA lands
  device_buffer device(bytes);
  ASSERT_EQ(cudaMemsetAsync(device.ptr, 0, bytes, s.handle()), cudaSuccess);
  // Queued on s behind the memset, maybe not yet run: the lanes' streams must wait for both.
  ASSERT_EQ(cudaMemcpyAsync(device.ptr, filled.ptr, bytes, cudaMemcpyDeviceToDevice, s.handle()), cudaSuccess);
  EXPECT_EQ(nd::copy_to_host(dst.ptr, device.ptr, bytes, s), nd::transfer_path::staged);
  EXPECT_EQ(first_difference(dst.ptr, src.ptr, bytes), bytes);
}

TEST(Transfer, StagingMemoryIsReclaimedByFreeAllBlocks) {
  NDCUDA_REQUIRE_GPU();
  auto staging = std::make_shared<nd::pinned_pool_resource>();
  nd::transfer_engine engine(staging);
  nd::stream s(0);
  constexpr std::size_t bytes = 96 * MiB + 1;
  pageable_buffer src(bytes);
  nd::testing::fill_random(src.ptr, bytes);
  device_buffer device(bytes);
  EXPECT_EQ(engine.copy_to_device(device.ptr, src.ptr, bytes, s), nd::transfer_path::staged);
  nd::memory_stats st = staging->stats();
  EXPECT_EQ(st.used_bytes, 0U) << "staging buffers go back to the pool at once";
  EXPECT_EQ(st.reserved_bytes, nd::transfer_options{}.buffers * nd::transfer_options{}.chunk_bytes);
  EXPECT_EQ(st.cached_bytes, st.reserved_bytes);
  s.synchronize();
  EXPECT_EQ(staging->pending_bytes(), 0U);
  EXPECT_EQ(staging->free_all_blocks(), st.reserved_bytes);
  st = staging->stats();
  EXPECT_EQ(st.reserved_bytes, 0U);
  EXPECT_EQ(st.cached_bytes, 0U);
  EXPECT_EQ(st.upstream_frees, st.upstream_allocations);
  EXPECT_EQ(first_difference(read_back(device.ptr, bytes, s).data(), src.ptr, bytes), bytes);
}

TEST(Transfer, StagingWithAnExhaustedPoolFallsBackToTheDriver) {
  NDCUDA_REQUIRE_GPU();
  nd::pinned_pool_options options;
  options.limit = 0;
  nd::transfer_engine engine(std::make_shared<nd::pinned_pool_resource>(options));
  nd::stream s(0);
  constexpr std::size_t bytes = 20 * MiB;
  pageable_buffer src(bytes);
  nd::testing::fill_random(src.ptr, bytes);
  device_buffer device(bytes);
  EXPECT_EQ(engine.copy_to_device(device.ptr, src.ptr, bytes, s), nd::transfer_path::driver_staged);
  EXPECT_EQ(first_difference(read_back(device.ptr, bytes, s).data(), src.ptr, bytes), bytes);
}

TEST(Transfer, ConcurrentCopiesFromFourThreads) {
  NDCUDA_REQUIRE_GPU();
  std::vector<std::thread> threads;
  threads.reserve(4);
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      nd::stream s(0);
      for (int i = 0; i < 4; ++i) {
        const std::size_t bytes = 17 * MiB + static_cast<std::size_t>(i) * 4099;
        pageable_buffer src(bytes);
        pageable_buffer dst(bytes);
        nd::testing::fill_random(src.ptr, bytes);
        device_buffer device(bytes);
        nd::copy_to_device(device.ptr, src.ptr, bytes, s);
        nd::copy_to_host(dst.ptr, device.ptr, bytes, s);
        if (first_difference(dst.ptr, src.ptr, bytes) != bytes) {
          ++wrong;
        }
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  EXPECT_EQ(wrong, 0);
}

TEST(Transfer, PageableCopiesAreRefusedDuringCaptureAndPinnedOnesCaptured) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  constexpr std::size_t bytes = 4 * MiB;
  pageable_buffer pageable(bytes);
  host_alloc_buffer pinned(bytes);
  nd::testing::fill_random(pinned.ptr, bytes);
  device_buffer device(bytes);
  ASSERT_EQ(cudaStreamBeginCapture(s.handle(), cudaStreamCaptureModeGlobal), cudaSuccess);
  try {
    (void)nd::copy_to_device(device.ptr, pageable.ptr, bytes, s);
    FAIL() << "a pageable copy was captured";
  } catch (const nd::capture_error& e) {
    EXPECT_NE(std::string(e.what()).find("pageable memory cannot be captured"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)nd::copy_to_host(pageable.ptr, device.ptr, bytes, s), nd::capture_error);
  EXPECT_THROW(
      (void)nd::copy_to_device(device.ptr, std::shared_ptr<const void>(pinned.ptr, [](const void*) {}), bytes, s),
      nd::capture_error);
  EXPECT_EQ(nd::copy_to_device(device.ptr, pinned.ptr, bytes, s), nd::transfer_path::direct);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s.handle(), &graph), cudaSuccess) << "the refusals invalidated the capture";
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, s.handle()), cudaSuccess);
  EXPECT_EQ(first_difference(read_back(device.ptr, bytes, s).data(), pinned.ptr, bytes), bytes);
  (void)cudaGraphExecDestroy(exec);
  (void)cudaGraphDestroy(graph);
}

TEST(Transfer, NullPointersAndZeroBytes) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  EXPECT_EQ(nd::copy_to_device(nullptr, nullptr, 0, s), nd::transfer_path::direct);
  EXPECT_THROW((void)nd::copy_to_device(nullptr, nullptr, 10, s), nd::error);
  EXPECT_THROW((void)nd::copy_to_host(nullptr, nullptr, 10, s), nd::error);
}

TEST(Transfer, OptionsAreValidated) {
  // No GPU needed: the engine touches CUDA only when it copies.
  nd::transfer_options options;
  options.buffers = 1;
  EXPECT_THROW(nd::transfer_engine(nullptr, options), nd::error);
  nd::transfer_engine engine;
  EXPECT_GE(engine.options().host_threads, 1U);
  EXPECT_LE(engine.options().host_threads, 16U);
  EXPECT_EQ(engine.staging_pool(), nd::default_pinned_pool());
  EXPECT_STREQ(nd::to_string(nd::transfer_path::staged), "staged");
}
