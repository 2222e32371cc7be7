// What every GPU benchmark needs: a CUDA return-code check, a skip without a device, and timing
// of work queued on a stream with CUDA events (manual time). Builds on Google Benchmark.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <ndcuda/array/creation.hpp>
#include <ndcuda/device/enumeration.hpp>
#include <ndcuda/device/stream.hpp>
#include <stdexcept>
#include <string>

namespace ndcuda::bench {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
  }
}

/// False (and the benchmark marked skipped with the reason) when no device is visible.
inline bool have_gpu(benchmark::State& state) {
  if (device_count() == 0) {
    state.SkipWithError("no CUDA device available");
    return false;
  }
  return true;
}

/// Times `body` (work queued on `s`) with CUDA events, as manual time per call, after one warm-up
/// call that compiles or loads the kernels and fills the memory pools. With `calls` > 1 that many
/// calls are queued back to back between the two events: the steady state of a program whose host
/// runs ahead of the GPU, which leaves out the host time and launch latency of a lone call (the
/// convention of nvbench); with 1, a lone call's latency counts too.
template <class F>
void timed(benchmark::State& state, const stream& s, F&& body, int calls = 1) {
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  body();
  check(cudaStreamSynchronize(s.handle()), "cudaStreamSynchronize");
  for (auto _ : state) {
    check(cudaEventRecord(start, s.handle()), "cudaEventRecord");
    for (int c = 0; c < calls; ++c) {
      body();
    }
    check(cudaEventRecord(stop, s.handle()), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    state.SetIterationTime(static_cast<double>(ms) / 1e3 / calls);
  }
  check(cudaEventDestroy(start), "cudaEventDestroy");
  check(cudaEventDestroy(stop), "cudaEventDestroy");
}

/// The sizes of the bandwidth sweeps that tools/plot_bandwidth.py draws (add, sum, copy and the
/// cudaMemcpy baseline): 2^20 .. 2^28 elements, a factor 4 apart, as the CuPy and PyTorch sweeps
/// (benchmarks/cupy/bandwidth_cupy.py, benchmarks/torch/bandwidth_torch.py).
inline void bandwidth_sweep(benchmark::internal::Benchmark* b) {
  for (int p = 20; p <= 28; p += 2) {
    b->Arg(index_t{1} << p);
  }
  b->UseManualTime();
}

/// The baseline of the bandwidth benchmarks: `BENCHMARK(nd::bench::BM_memcpy_d2d)->Arg(n)`, one
/// cudaMemcpyAsync device to device of n floats, counted as n items and 2 * 4n bytes (read +
/// written), timed like the cases beside it.
inline void BM_memcpy_d2d(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const index_t n = state.range(0);
  const auto a = zeros<float>({n});
  auto c = empty<float>({n});
  timed(state, a.stream(), [&] {
    check(cudaMemcpyAsync(c.data(), a.data(), a.nbytes(), cudaMemcpyDeviceToDevice, a.stream().handle()),
          "cudaMemcpyAsync");
  });
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(2 * a.nbytes()));
  state.SetLabel("baseline: D2D copy, read + write bytes");
}

}  // namespace ndcuda::bench
