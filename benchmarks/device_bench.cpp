// Costs of the device layer's hot calls, each beside the raw CUDA call it wraps.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <ndcuda/ndcuda.hpp>

namespace nd = ndcuda;

namespace {

bool have_gpu(benchmark::State& state) {
  if (nd::device_count() == 0) {
    state.SkipWithError(("no CUDA device available: " + nd::device_unavailable_reason()).c_str());
    return false;
  }
  return true;
}

void device_count_ndcuda(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(nd::device_count());
  }
}

void device_count_cuda_baseline(benchmark::State& state) {
  if (!have_gpu(state)) {
    return;
  }
  for (auto _ : state) {
    int count = 0;
    benchmark::DoNotOptimize(cudaGetDeviceCount(&count));
    benchmark::DoNotOptimize(count);
  }
}

void stream_create_ndcuda(benchmark::State& state) {
  if (!have_gpu(state)) {
    return;
  }
  for (auto _ : state) {
    nd::stream s(0);
    benchmark::DoNotOptimize(s.handle());
  }
}

void stream_create_cuda_baseline(benchmark::State& state) {
  if (!have_gpu(state)) {
    return;
  }
  NDCUDA_CUDA_CHECK(cudaSetDevice(0));
  for (auto _ : state) {
    cudaStream_t s = nullptr;
    NDCUDA_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    NDCUDA_CUDA_CHECK(cudaStreamDestroy(s));
  }
}

void default_stream_lookup_ndcuda(benchmark::State& state) {
  if (!have_gpu(state)) {
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(nd::default_stream(0).handle());
  }
}

void device_guard_same_device_ndcuda(benchmark::State& state) {
  if (!have_gpu(state)) {
    return;
  }
  NDCUDA_CUDA_CHECK(cudaSetDevice(0));
  for (auto _ : state) {
    nd::device_guard guard(0);
    benchmark::ClobberMemory();
  }
}

void set_device_cuda_baseline(benchmark::State& state) {
  if (!have_gpu(state)) {
    return;
  }
  for (auto _ : state) {
    int previous = 0;
    NDCUDA_CUDA_CHECK(cudaGetDevice(&previous));
    NDCUDA_CUDA_CHECK(cudaSetDevice(0));
    NDCUDA_CUDA_CHECK(cudaSetDevice(previous));
  }
}

void event_record_query_ndcuda(benchmark::State& state) {
  if (!have_gpu(state)) {
    return;
  }
  nd::stream s(0);
  nd::event e(0, false);
  for (auto _ : state) {
    e.record(s);
    benchmark::DoNotOptimize(e.query());
  }
  s.synchronize();
}

void event_record_query_cuda_baseline(benchmark::State& state) {
  if (!have_gpu(state)) {
    return;
  }
  NDCUDA_CUDA_CHECK(cudaSetDevice(0));
  cudaStream_t s = nullptr;
  cudaEvent_t e = nullptr;
  NDCUDA_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  NDCUDA_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  for (auto _ : state) {
    NDCUDA_CUDA_CHECK(cudaEventRecord(e, s));
    benchmark::DoNotOptimize(cudaEventQuery(e));
  }
  NDCUDA_CUDA_CHECK(cudaStreamSynchronize(s));
  NDCUDA_CUDA_CHECK(cudaEventDestroy(e));
  NDCUDA_CUDA_CHECK(cudaStreamDestroy(s));
}

}  // namespace

BENCHMARK(device_count_ndcuda);
BENCHMARK(device_count_cuda_baseline);
BENCHMARK(stream_create_ndcuda);
BENCHMARK(stream_create_cuda_baseline);
BENCHMARK(default_stream_lookup_ndcuda);
BENCHMARK(device_guard_same_device_ndcuda);
BENCHMARK(set_device_cuda_baseline);
BENCHMARK(event_record_query_ndcuda);
BENCHMARK(event_record_query_cuda_baseline);
