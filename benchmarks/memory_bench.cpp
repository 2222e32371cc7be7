// The memory layer's costs, each beside the raw CUDA call it replaces: allocation (pools vs
// cudaMalloc/cudaMallocAsync) and host<->device copies (transfer engine vs cudaMemcpy), from pinned
// and from pageable memory. Names ending in _baseline are raw CUDA in the same process.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <ndcuda/ndcuda.hpp>
#include <random>
#include <string>
#include <vector>

#include "support/gpu_timing.hpp"

namespace nd = ndcuda;

namespace {

constexpr std::size_t KiB = std::size_t{1} << 10;
constexpr std::size_t MiB = std::size_t{1} << 20;

bool have_gpu(benchmark::State& state) {
  if (nd::device_count() == 0) {
    state.SkipWithError(("no CUDA device available: " + nd::device_unavailable_reason()).c_str());
    return false;
  }
  return true;
}

// ---- allocation -------------------------------------------------------------------------------

template <class Resource>
void alloc_free_loop(benchmark::State& state, Resource& r, const nd::stream& s, std::size_t bytes) {
  r.deallocate(r.allocate(bytes, s), bytes, s);  // warm: the pool holds a chunk
  for (auto _ : state) {
    void* p = r.allocate(bytes, s);
    benchmark::DoNotOptimize(p);
    r.deallocate(p, bytes, s);
  }
  state.SetItemsProcessed(state.iterations());
}

void alloc_free_1MiB_device_pool(benchmark::State& state) {
  if (!have_gpu(state)) return;
  nd::device_pool_resource pool(0);
  nd::stream s(0);
  alloc_free_loop(state, pool, s, MiB);
}

void alloc_free_1MiB_device_pool_without_capture_check(benchmark::State& state) {
  if (!have_gpu(state)) return;
  nd::pool_options options;
  options.refuse_during_capture = false;
  nd::device_pool_resource pool(0, options);
  nd::stream s(0);
  alloc_free_loop(state, pool, s, MiB);
}

void alloc_free_1MiB_default_resource(benchmark::State& state) {
  if (!have_gpu(state)) return;
  auto r = nd::default_resource(0);  // through the registry's shared_ptr and the virtual interface
  nd::stream s(0);
  alloc_free_loop(state, *r, s, MiB);
}

/// The pool's own algorithm with no CUDA at all (fake chunk addresses, no capture check): the floor
/// of alloc_free_1MiB_device_pool, and a figure that runs without a GPU.
void alloc_free_1MiB_device_pool_algorithm_only(benchmark::State& state) {
  struct fake_upstream final : nd::chunk_upstream {
    std::uintptr_t next = std::uintptr_t{1} << 40;
    void* allocate_chunk(std::size_t bytes, const nd::stream&) override {
      const std::uintptr_t at = next;
      next += (bytes + 0xFFFF) / 0x10000 * 0x10000;
      return reinterpret_cast<void*>(at);
    }
    void free_chunk(void*, std::size_t) override {}
    std::string describe() const override { return "fake"; }
  };
  struct no_ordering final : nd::stream_ordering {
    bool capturing(const nd::stream&) override { return false; }
    bool idle(const nd::stream&) override { return true; }
    token record(const nd::stream&) override { return 1; }
    bool completed(token) override { return true; }
    void wait(const nd::stream&, token) override {}
    void synchronize(token) override {}
    void release(token) noexcept override {}
  };
  nd::device_pool_resource pool(0, {}, std::make_shared<fake_upstream>(), std::make_shared<no_ordering>());
  const nd::stream s = nd::stream::wrap(reinterpret_cast<cudaStream_t>(std::uintptr_t{0x1000}), 0);
  alloc_free_loop(state, pool, s, MiB);
}

void alloc_free_1MiB_async_pool(benchmark::State& state) {
  if (!have_gpu(state)) return;
  nd::async_pool_resource pool(0);
  nd::stream s(0);
  alloc_free_loop(state, pool, s, MiB);
  s.synchronize();
}

void alloc_free_1MiB_pinned_pool(benchmark::State& state) {
  if (!have_gpu(state)) return;
  nd::pinned_pool_resource pool;
  nd::stream s(0);
  alloc_free_loop(state, pool, s, MiB);  // each free records an event; reuse waits for it
  s.synchronize();
}

void alloc_free_1MiB_cudaMalloc_baseline(benchmark::State& state) {
  if (!have_gpu(state)) return;
  NDCUDA_CUDA_CHECK(cudaSetDevice(0));
  for (auto _ : state) {
    void* p = nullptr;
    NDCUDA_CUDA_CHECK(cudaMalloc(&p, MiB));
    NDCUDA_CUDA_CHECK(cudaFree(p));
  }
  state.SetItemsProcessed(state.iterations());
}

void alloc_free_1MiB_cudaMallocAsync_baseline(benchmark::State& state) {
  if (!have_gpu(state)) return;
  nd::stream s(0);
  nd::device_guard guard(0);
  for (auto _ : state) {
    void* p = nullptr;
    NDCUDA_CUDA_CHECK(cudaMallocAsync(&p, MiB, s.handle()));
    NDCUDA_CUDA_CHECK(cudaFreeAsync(p, s.handle()));
  }
  s.synchronize();
  state.SetItemsProcessed(state.iterations());
}

// 4 threads, each on its own stream, keeping up to 16 blocks of 256 B..4 MiB alive.
template <class Allocate, class Deallocate>
void churn(benchmark::State& state, Allocate&& allocate, Deallocate&& deallocate) {
  nd::stream s(0);
  std::mt19937_64 rng(static_cast<std::uint64_t>(state.thread_index()) + 1);
  static constexpr std::size_t sizes[] = {256, 4 * KiB, 64 * KiB, 256 * KiB, MiB, 4 * MiB};
  std::vector<std::pair<void*, std::size_t>> live;
  for (auto _ : state) {
    if (live.size() < 16 && (live.empty() || rng() % 2 == 0)) {
      const std::size_t n = sizes[rng() % std::size(sizes)];
      live.emplace_back(allocate(n, s), n);
    } else {
      const std::size_t k = rng() % live.size();
      deallocate(live[k].first, live[k].second, s);
      live[k] = live.back();
      live.pop_back();
    }
  }
  for (auto [p, n] : live) {
    deallocate(p, n, s);
  }
  s.synchronize();
  state.SetItemsProcessed(state.iterations());
}

void churn_4_threads_device_pool(benchmark::State& state) {
  if (!have_gpu(state)) return;
  static nd::device_pool_resource pool(0);  // shared by the 4 threads
  churn(
      state, [](std::size_t n, const nd::stream& s) { return pool.allocate(n, s); },
      [](void* p, std::size_t n, const nd::stream& s) { pool.deallocate(p, n, s); });
}

void churn_4_threads_async_pool(benchmark::State& state) {
  if (!have_gpu(state)) return;
  static nd::async_pool_resource pool(0);
  churn(
      state, [](std::size_t n, const nd::stream& s) { return pool.allocate(n, s); },
      [](void* p, std::size_t n, const nd::stream& s) { pool.deallocate(p, n, s); });
}

void churn_4_threads_cudaMallocAsync_baseline(benchmark::State& state) {
  if (!have_gpu(state)) return;
  nd::device_guard guard(0);
  churn(
      state,
      [](std::size_t n, const nd::stream& s) {
        void* p = nullptr;
        NDCUDA_CUDA_CHECK(cudaMallocAsync(&p, n, s.handle()));
        return p;
      },
      [](void* p, std::size_t, const nd::stream& s) { NDCUDA_CUDA_CHECK(cudaFreeAsync(p, s.handle())); });
}

// ---- transfers --------------------------------------------------------------------------------

/// Buffers shared by the transfer benchmarks, made once per size (pinning 1 GiB takes a while).
struct transfer_buffers {
  void* pinned = nullptr;
  std::unique_ptr<unsigned char[]> pageable;
  void* device = nullptr;

  explicit transfer_buffers(std::size_t bytes) : pageable(new unsigned char[bytes]) {
    nd::device_guard guard(0);
    NDCUDA_CUDA_CHECK(cudaHostAlloc(&pinned, bytes, cudaHostAllocPortable));
    NDCUDA_CUDA_CHECK(cudaMalloc(&device, bytes));
    std::memset(pinned, 1, bytes);
    std::memset(pageable.get(), 2, bytes);  // touched: no first-touch page faults in the timings
  }

  ~transfer_buffers() {
    (void)cudaFreeHost(pinned);
    (void)cudaFree(device);
  }
  transfer_buffers(const transfer_buffers&) = delete;
  transfer_buffers& operator=(const transfer_buffers&) = delete;

  static transfer_buffers& of(std::size_t bytes) {
    static std::map<std::size_t, std::unique_ptr<transfer_buffers>> made;
    auto found = made.find(bytes);
    if (found == made.end()) {  // kept for the whole run: pinning 1 GiB takes a while
      found = made.emplace(bytes, std::make_unique<transfer_buffers>(bytes)).first;
    }
    return *found->second;
  }
};

/// Times `copy` (asynchronous work on `s`) with CUDA events; the host-side cost of issuing it is
/// inside the interval because the start event is recorded before the call.
template <class Copy>
void time_with_events(benchmark::State& state, const nd::stream& s, std::size_t bytes, Copy&& copy) {
  nd::event start(0, true);
  nd::event stop(0, true);
  copy();  // warm up
  s.synchronize();
  for (auto _ : state) {
    start.record(s);
    copy();
    stop.record(s);
    stop.synchronize();
    nd::bench::set_iteration_time(state, static_cast<double>(nd::elapsed_ms(start, stop)) / 1e3);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes));
  nd::bench::guard_bandwidth(state);
}

/// Times `copy` by the wall clock until `s` has finished: pageable copies are partly host work.
template <class Copy>
void time_with_clock(benchmark::State& state, const nd::stream& s, std::size_t bytes, Copy&& copy) {
  copy();  // warm up (and let the staging pool grow)
  s.synchronize();
  for (auto _ : state) {
    const auto begin = std::chrono::steady_clock::now();
    copy();
    s.synchronize();
    const auto end = std::chrono::steady_clock::now();
    nd::bench::set_iteration_time(state, std::chrono::duration<double>(end - begin).count());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes));
  nd::bench::guard_bandwidth(state);
}

void report_pinned_growth(benchmark::State& state, std::size_t before) {
  const std::size_t after = nd::default_pinned_pool()->stats().reserved_bytes;
  state.counters["pinned_bytes_added"] = static_cast<double>(after > before ? after - before : 0);
}

void h2d_pinned_ndcuda(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) * MiB;
  auto& b = transfer_buffers::of(bytes);
  nd::stream s(0);
  const std::size_t before = nd::default_pinned_pool()->stats().reserved_bytes;
  time_with_events(state, s, bytes, [&] { nd::copy_to_device(b.device, b.pinned, bytes, s); });
  report_pinned_growth(state, before);
}

void h2d_pinned_cudaMemcpy_baseline(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) * MiB;
  auto& b = transfer_buffers::of(bytes);
  nd::stream s(0);
  time_with_events(state, s, bytes, [&] {
    NDCUDA_CUDA_CHECK(cudaMemcpyAsync(b.device, b.pinned, bytes, cudaMemcpyHostToDevice, s.handle()));
  });
}

void d2h_pinned_ndcuda(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) * MiB;
  auto& b = transfer_buffers::of(bytes);
  nd::stream s(0);
  const std::size_t before = nd::default_pinned_pool()->stats().reserved_bytes;
  time_with_events(state, s, bytes, [&] { nd::copy_to_host(b.pinned, b.device, bytes, s); });
  report_pinned_growth(state, before);
}

void d2h_pinned_cudaMemcpy_baseline(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) * MiB;
  auto& b = transfer_buffers::of(bytes);
  nd::stream s(0);
  time_with_events(state, s, bytes, [&] {
    NDCUDA_CUDA_CHECK(cudaMemcpyAsync(b.pinned, b.device, bytes, cudaMemcpyDeviceToHost, s.handle()));
  });
}

void h2d_pageable_ndcuda(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) * MiB;
  auto& b = transfer_buffers::of(bytes);
  nd::stream s(0);
  time_with_clock(state, s, bytes, [&] { nd::copy_to_device(b.device, b.pageable.get(), bytes, s); });
  state.counters["host_threads"] = nd::default_transfer_engine().options().host_threads;
}

void h2d_pageable_cudaMemcpy_baseline(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) * MiB;
  auto& b = transfer_buffers::of(bytes);
  nd::stream s(0);
  nd::device_guard guard(0);
  time_with_clock(state, s, bytes,
                  [&] { NDCUDA_CUDA_CHECK(cudaMemcpy(b.device, b.pageable.get(), bytes, cudaMemcpyHostToDevice)); });
}

void d2h_pageable_ndcuda(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) * MiB;
  auto& b = transfer_buffers::of(bytes);
  nd::stream s(0);
  time_with_clock(state, s, bytes, [&] { nd::copy_to_host(b.pageable.get(), b.device, bytes, s); });
  state.counters["host_threads"] = nd::default_transfer_engine().options().host_threads;
}

void d2h_pageable_cudaMemcpy_baseline(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) * MiB;
  auto& b = transfer_buffers::of(bytes);
  nd::stream s(0);
  nd::device_guard guard(0);
  time_with_clock(state, s, bytes,
                  [&] { NDCUDA_CUDA_CHECK(cudaMemcpy(b.pageable.get(), b.device, bytes, cudaMemcpyDeviceToHost)); });
}

/// Reading a 1-d float32 array back into a NEW host buffer, as a program does: the buffer's
/// allocation and first touch are part of the time (its release is not).
template <class Read>
void time_new_buffer_reads(benchmark::State& state, Read&& read) {
  if (!have_gpu(state)) return;
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) * MiB;
  const nd::ndarray<float> a = nd::full<float>({static_cast<nd::index_t>(bytes / sizeof(float))}, 1.5f);
  a.stream().synchronize();
  for (auto _ : state) {
    const auto begin = std::chrono::steady_clock::now();
    auto host = read(a);
    const auto end = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(host.data());
    nd::bench::set_iteration_time(state, std::chrono::duration<double>(end - begin).count());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes));
  nd::bench::guard_bandwidth(state);
}

void to_host_new_std_vector_ndcuda(benchmark::State& state) {
  time_new_buffer_reads(state, [](const nd::ndarray<float>& a) { return a.to_host(); });
}

// Each read's host_vector is released before the next read, so from the second read on its block
// comes back from the host block cache with its pages resident: a program's steady state.
void to_host_vector_new_ndcuda(benchmark::State& state) {
  time_new_buffer_reads(state, [](const nd::ndarray<float>& a) { return a.to_host_vector(); });
  state.counters["host_block_cache"] = 1;
}

// The same with the cache off: every read faults in (and the kernel zeroes) fresh pages.
void to_host_vector_new_ndcuda_fresh_pages(benchmark::State& state) {
  const std::size_t limit = nd::set_host_block_cache_limit(0);
  time_new_buffer_reads(state, [](const nd::ndarray<float>& a) { return a.to_host_vector(); });
  nd::set_host_block_cache_limit(limit);
  state.counters["host_block_cache"] = 0;
}

/// The baseline: cudaMemcpy into a fresh `new float[n]` (no zero fill), as cupy.asnumpy does into
/// np.empty; the driver stages it.
void new_buffer_cudaMemcpy_baseline(benchmark::State& state) {
  struct fresh_buffer {
    std::unique_ptr<float[]> elements;
    [[nodiscard]] float* data() const { return elements.get(); }
  };
  time_new_buffer_reads(state, [](const nd::ndarray<float>& a) {
    fresh_buffer host{std::unique_ptr<float[]>(new float[static_cast<std::size_t>(a.size())])};
    NDCUDA_CUDA_CHECK(cudaMemcpy(host.data(), a.data(), a.nbytes(), cudaMemcpyDeviceToHost));
    return host;
  });
}

/// What pinned detection costs per copy: the driver walk over a cudaHostAlloc block.
void classify_pinned_range(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) * MiB;
  auto& b = transfer_buffers::of(bytes);
  for (auto _ : state) {
    benchmark::DoNotOptimize(nd::classify_host_memory(b.pinned, bytes, 0));
  }
}

}  // namespace

BENCHMARK(alloc_free_1MiB_device_pool);
BENCHMARK(alloc_free_1MiB_device_pool_without_capture_check);
BENCHMARK(alloc_free_1MiB_default_resource);
BENCHMARK(alloc_free_1MiB_device_pool_algorithm_only);
BENCHMARK(alloc_free_1MiB_async_pool);
BENCHMARK(alloc_free_1MiB_pinned_pool);
BENCHMARK(alloc_free_1MiB_cudaMalloc_baseline);
BENCHMARK(alloc_free_1MiB_cudaMallocAsync_baseline);
BENCHMARK(churn_4_threads_device_pool)->Threads(4)->UseRealTime();
BENCHMARK(churn_4_threads_async_pool)->Threads(4)->UseRealTime();
BENCHMARK(churn_4_threads_cudaMallocAsync_baseline)->Threads(4)->UseRealTime();

// Each ndcuda figure is registered right before its baseline, size by size (MiB), so the report
// reads as pairs from the same run.
#define NDCUDA_TRANSFER_PAIR(ours, baseline, mib)                            \
  BENCHMARK(ours)->Arg(mib)->UseManualTime()->Unit(benchmark::kMillisecond); \
  BENCHMARK(baseline)->Arg(mib)->UseManualTime()->Unit(benchmark::kMillisecond)
NDCUDA_TRANSFER_PAIR(h2d_pinned_ndcuda, h2d_pinned_cudaMemcpy_baseline, 256);
NDCUDA_TRANSFER_PAIR(h2d_pinned_ndcuda, h2d_pinned_cudaMemcpy_baseline, 1024);
NDCUDA_TRANSFER_PAIR(d2h_pinned_ndcuda, d2h_pinned_cudaMemcpy_baseline, 256);
NDCUDA_TRANSFER_PAIR(d2h_pinned_ndcuda, d2h_pinned_cudaMemcpy_baseline, 1024);
NDCUDA_TRANSFER_PAIR(h2d_pageable_ndcuda, h2d_pageable_cudaMemcpy_baseline, 256);
NDCUDA_TRANSFER_PAIR(h2d_pageable_ndcuda, h2d_pageable_cudaMemcpy_baseline, 1024);
NDCUDA_TRANSFER_PAIR(d2h_pageable_ndcuda, d2h_pageable_cudaMemcpy_baseline, 256);
NDCUDA_TRANSFER_PAIR(d2h_pageable_ndcuda, d2h_pageable_cudaMemcpy_baseline, 1024);
NDCUDA_TRANSFER_PAIR(to_host_new_std_vector_ndcuda, new_buffer_cudaMemcpy_baseline, 1024);
BENCHMARK(to_host_vector_new_ndcuda)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(to_host_vector_new_ndcuda_fresh_pages)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(classify_pinned_range)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);
