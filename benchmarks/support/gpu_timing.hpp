// What every GPU benchmark needs: a CUDA return-code check, a skip without a device, timing of
// work queued on a stream with CUDA events (manual time), and the guard that refuses a bandwidth
// no GPU can reach (guard_bandwidth). Builds on Google Benchmark.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/enumeration.hpp>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/expr/expression.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace ndcuda::bench {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
  }
}

namespace detail {

/// The timing loop of the row being run on this thread: its state and the seconds summed so far
/// (what Google Benchmark divides a rate counter by).
struct loop_time {
  const benchmark::State* state = nullptr;
  double seconds = 0;
};

inline loop_time& current_loop() {
  thread_local loop_time t;
  return t;
}

/// The row's name where this Google Benchmark version tells it (State::name, 1.8 on), else "".
template <class S>
std::string row_name(const S& state) {
  if constexpr (requires { state.name(); }) {
    return std::string(state.name());
  } else {
    return {};
  }
}

}  // namespace detail

/// False (and the benchmark marked skipped with the reason) when no device is visible. Starts the
/// row's loop time afresh (set_iteration_time).
inline bool have_gpu(benchmark::State& state) {
  detail::current_loop() = {};
  if (device_count() == 0) {
    state.SkipWithError("no CUDA device available");
    return false;
  }
  return true;
}

/// state.SetIterationTime(seconds), also summed for guard_bandwidth. Every manual-time loop whose
/// row reports a bandwidth sets its times through this (timed and host_timed do).
inline void set_iteration_time(benchmark::State& state, double seconds) {
  detail::loop_time& t = detail::current_loop();
  if (t.state != &state) {
    t = {&state, 0.0};
  }
  t.seconds += seconds;
  state.SetIterationTime(seconds);
}

/// Whether V is a lazy value: an expression, a reduction, a product or a draw not computed yet.
template <class V>
inline constexpr bool is_lazy = ndcuda::detail::is_expr<std::remove_cvref_t<V>>;

/// What a timed body computed, kept from the optimiser: an evaluated value (an array, a tuple of
/// arrays, a number). A lazy value does not compile here: it would compute nothing, and time
/// nothing (dist_bench once reported 16 PB/s that way).
template <class V>
void keep(const V& value) {
  static_assert(!is_lazy<V>,
                "keep() takes computed values: this is a lazy value (expression, reduction, matmul or draw), which "
                "computes nothing until used; write keep(nd::eval(x)), or assign it to an array");
  benchmark::DoNotOptimize(value);
}

// A body that returns a lazy value would be timed computing nothing.
template <class F>
constexpr void check_body() {
  static_assert(!is_lazy<std::invoke_result_t<F&>>,
                "a timed body returns a lazy value, which computes nothing: return nd::eval(x), assign it to "
                "an array, or pass it to keep()");
}

/// Times `body` (work queued on `s`) with CUDA events, as manual time per call, after one warm-up
/// call that compiles or loads the kernels and fills the memory pools. With `calls` > 1 that many
/// calls are queued back to back between the two events: the steady state of a program whose host
/// runs ahead of the GPU, which leaves out the host time and launch latency of a lone call (the
/// convention of nvbench); with 1, a lone call's latency counts too.
template <class F>
void timed(benchmark::State& state, const stream& s, F&& body, int calls = 1) {
  check_body<F>();
  detail::current_loop() = {&state, 0.0};
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
    set_iteration_time(state, static_cast<double>(ms) / 1e3 / calls);
  }
  check(cudaEventDestroy(start), "cudaEventDestroy");
  check(cudaEventDestroy(stop), "cudaEventDestroy");
}

/// Times `body` on the host clock, as manual time per call, after one warm-up call: for work that
/// spans several streams or GPUs, where `body` itself waits until its work is done.
template <class F>
void host_timed(benchmark::State& state, F&& body) {
  check_body<F>();
  detail::current_loop() = {&state, 0.0};
  body();
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    body();
    set_iteration_time(state, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
}

/// This process's cudaMemcpyAsync device-to-device bandwidth on device 0, bytes read + written per
/// second: measured once, the first time it is asked for (1 GiB copied 10 times back to back, best
/// of 5 timings; a smaller buffer when 1 GiB does not fit), then cached.
inline double memcpy_d2d_bandwidth() {
  static const double measured = [] {
    const device_guard on(0);
    void* a = nullptr;
    void* b = nullptr;
    std::size_t bytes = std::size_t{1} << 30;
    while (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) {
      (void)cudaGetLastError();
      (void)cudaFree(a);
      a = nullptr;
      if (bytes <= (std::size_t{64} << 20)) {
        throw std::runtime_error("bandwidth guard: no room on device 0 for the cudaMemcpy baseline");
      }
      bytes /= 2;
    }
    cudaStream_t s = nullptr;
    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    constexpr int copies = 10;
    check(cudaMemsetAsync(a, 0, bytes, s), "cudaMemsetAsync");
    check(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");  // warm-up
    float best_ms = 0;
    for (int r = 0; r < 5; ++r) {
      check(cudaEventRecord(start, s), "cudaEventRecord");
      for (int c = 0; c < copies; ++c) {
        check(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
      }
      check(cudaEventRecord(stop, s), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      best_ms = r == 0 ? ms : std::min(best_ms, ms);
    }
    check(cudaEventDestroy(start), "cudaEventDestroy");
    check(cudaEventDestroy(stop), "cudaEventDestroy");
    check(cudaStreamDestroy(s), "cudaStreamDestroy");
    check(cudaFree(a), "cudaFree");
    check(cudaFree(b), "cudaFree");
    const double bandwidth = 2.0 * static_cast<double>(bytes) * copies / (static_cast<double>(best_ms) / 1e3);
    std::fprintf(stderr, "bandwidth guard: cudaMemcpy D2D on device 0 in this run: %.1f GB/s (read + write)\n",
                 bandwidth / 1e9);
    return bandwidth;
  }();
  return measured;
}

/// The guard against figures no GPU can reach: fails the row (SkipWithError, and a line on stderr)
/// when a bandwidth it reports is above 1.1x this run's cudaMemcpy D2D bandwidth
/// (memcpy_d2d_bandwidth, read + write bytes) times `gpus`, the GPUs the row's work spans. A figure
/// that high means the timed work did not run (a lazy expression or reduction never evaluated, a
/// missing wait), not a fast kernel. The bandwidths are the counters Google Benchmark reports as
/// bytes per second (SetBytesProcessed's "bytes_per_second") and those in GB/s (a name ending in
/// "GBps"); a rate among them is divided by the seconds of the loop (set_iteration_time). Call it
/// last, after the counters are set.
inline void guard_bandwidth(benchmark::State& state, int gpus = 1) {
  const detail::loop_time loop = detail::current_loop();
  detail::current_loop() = {};
  if (state.error_occurred() || state.iterations() == 0) {
    return;
  }
  const auto iterations = static_cast<double>(state.iterations());
  std::string row = detail::row_name(state);
  row = row.empty() ? "this row" : row;
  for (const auto& [name, counter] : state.counters) {
    const std::string_view n(name);
    const bool in_bytes = n == "bytes_per_second";
    const bool in_gb = n.size() >= 4 && n.substr(n.size() - 4) == "GBps";
    if ((!in_bytes && !in_gb) || (counter.flags & benchmark::Counter::kInvert) != 0) {
      continue;
    }
    double figure = counter.value * (in_gb ? 1e9 : 1.0);
    if ((counter.flags & benchmark::Counter::kIsIterationInvariant) != 0) {
      figure *= iterations;
    }
    if ((counter.flags & benchmark::Counter::kAvgIterations) != 0) {
      figure /= iterations;
    }
    if ((counter.flags & benchmark::Counter::kIsRate) != 0) {
      if (loop.state != &state || loop.seconds <= 0) {
        const std::string message = "bandwidth guard: " + row + " reports " + name +
                                    " but its loop time was not recorded (time it with nd::bench::timed, "
                                    "host_timed or set_iteration_time)";
        std::fprintf(stderr, "%s\n", message.c_str());
        state.SkipWithError(message.c_str());
        return;
      }
      figure /= loop.seconds;
    }
    const double baseline = memcpy_d2d_bandwidth();
    const double ceiling = 1.1 * baseline * gpus;
    if (figure > ceiling) {
      char text[512];
      std::snprintf(text, sizeof text,
                    "bandwidth guard: %s reports %.1f GB/s (%s), above 1.1x this run's cudaMemcpy D2D "
                    "bandwidth of %.1f GB/s x %d GPU(s): refused, the timed work did not all run (an "
                    "unevaluated lazy expression or reduction? a missing wait?)",
                    row.c_str(), figure / 1e9, name.c_str(), baseline / 1e9, gpus);
      std::fprintf(stderr, "%s\n", text);
      state.SkipWithError(text);
      return;
    }
  }
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
  guard_bandwidth(state);
}

}  // namespace ndcuda::bench
