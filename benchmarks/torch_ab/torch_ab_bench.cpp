// ndcuda and eager PyTorch (libtorch) on the same tensors in one process, timed in alternation: the
// GPU's clock and temperature drift (an 8192^3 tensor-core GEMM throttles the H100 within a second)
// then weigh on both sides alike, which separate scripts run minutes apart cannot promise.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <benchmark/benchmark.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <ndcuda/interop/torch.hpp>
#include <ndcuda/linalg.hpp>
#include <ndcuda/random.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace nd = ndcuda;

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
  }
}

/// Seconds per call of `body`, three calls queued on `s` between two events.
double time_three(cudaStream_t s, const std::function<void()>& body) {
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  check(cudaEventRecord(start, s), "cudaEventRecord");
  for (int c = 0; c < 3; ++c) {
    body();
  }
  check(cudaEventRecord(stop, s), "cudaEventRecord");
  check(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  check(cudaEventDestroy(start), "cudaEventDestroy");
  check(cudaEventDestroy(stop), "cudaEventDestroy");
  return static_cast<double>(ms) / 1e3 / 3;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// One warm-up call each, 2 s idle, then 15 rounds of three calls of each side, the side going first
/// alternating by round; reports ndcuda's median as the time and torch's beside it.
void interleave(benchmark::State& state, cudaStream_t torch_stream, const std::function<void()>& torch_body,
                const nd::stream& nd_stream, const std::function<void()>& nd_body) {
  torch_body();
  nd_body();
  check(cudaStreamSynchronize(torch_stream), "cudaStreamSynchronize");
  nd_stream.synchronize();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  std::vector<double> torch_s, nd_s;
  for (int round = 0; round < 15; ++round) {
    if (round % 2 == 0) {
      torch_s.push_back(time_three(torch_stream, torch_body));
      nd_s.push_back(time_three(nd_stream.handle(), nd_body));
    } else {
      nd_s.push_back(time_three(nd_stream.handle(), nd_body));
      torch_s.push_back(time_three(torch_stream, torch_body));
    }
  }
  const double t = median(torch_s), n = median(nd_s);
  for (auto _ : state) {
    state.SetIterationTime(n);
  }
  state.counters["torch_ms"] = t * 1e3;
  state.counters["ndcuda_ms"] = n * 1e3;
  state.counters["torch_over_ndcuda"] = t / n;
}

/// Skips the case without a GPU.
bool have_gpu(benchmark::State& state) {
  if (nd::device_count() == 0) {
    state.SkipWithError("no CUDA device");
    return false;
  }
  return true;
}

/// torch's side of a case: a stream from its pool, current while the case runs (torch's ops go there).
struct torch_stream {
  c10::cuda::CUDAStreamGuard guard{c10::cuda::getStreamFromPool()};
  [[nodiscard]] cudaStream_t handle() const { return c10::cuda::getCurrentCUDAStream().stream(); }
};

/// Every case: its two variants, one interleaved measurement each, manual time in ms. (Generic, so
/// that it converts to Apply's function pointer whatever Google Benchmark's version names the type.)
constexpr auto ab_cases = [](auto* b) {
  b->Arg(0)->Arg(1)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
};

/// 8192^3 bfloat16, the same tensors on both sides: 0 relu(a @ b + bias) as written in each library
/// (torch eager: matmul, add, relu; ndcuda: nd::maximum(nd::matmul(a, b) + bias, 0), one cuBLASLt
/// call); 1 the plain product.
void BM_bf16_8192_ndcuda_vs_torch(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const torch_stream torch_side;
  const cudaStream_t ts = torch_side.handle();
  const auto options = at::TensorOptions().device(at::kCUDA).dtype(at::kBFloat16);
  const at::Tensor a = at::randn({8192, 8192}, options);
  const at::Tensor b = at::randn({8192, 8192}, options);
  const at::Tensor bias = at::randn({8192}, options);
  const nd::stream s(0);
  const auto na = nd::from_torch<__nv_bfloat16>(a, s);
  const auto nb = nd::from_torch<__nv_bfloat16>(b, s);
  const auto nbias = nd::from_torch<__nv_bfloat16>(bias, s);
  if (state.range(0) == 0) {
    interleave(
        state, ts, [&] { benchmark::DoNotOptimize(at::relu(at::matmul(a, b) + bias)); }, s,
        [&] {
          const nd::ndarray<__nv_bfloat16> r = nd::maximum(nd::matmul(na, nb) + nbias, 0);
          benchmark::DoNotOptimize(r);
        });
    state.SetLabel("relu(a @ b + bias): torch eager vs ndcuda's plain spelling (target: torch_over_ndcuda >= 1.2)");
  } else {
    interleave(
        state, ts, [&] { benchmark::DoNotOptimize(at::matmul(a, b)); }, s,
        [&] { benchmark::DoNotOptimize(nd::eval(nd::matmul(na, nb))); });
    state.SetLabel("a @ b: torch.matmul vs nd::matmul (target: torch_over_ndcuda >= 0.97)");
  }
}

/// 2^28 float32 into an existing array: 0 standard normal (torch: `x.normal_()`, ndcuda:
/// `x(nd::ellipsis) = g.standard_normal<float>(...)`), 1 uniform in [0, 1) (`x.uniform_()` and
/// `g.random<float>(...)`). Issue 18's targets: both >= torch.
void BM_random_2p28_ndcuda_vs_torch(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const torch_stream torch_side;
  const cudaStream_t ts = torch_side.handle();
  const nd::index_t n = nd::index_t{1} << 28;
  at::Tensor x = at::empty({n}, at::TensorOptions().device(at::kCUDA).dtype(at::kFloat));
  auto out = nd::empty<float>({n});
  auto g = nd::random::default_rng(1234);
  if (state.range(0) == 0) {
    interleave(
        state, ts, [&] { x.normal_(); }, out.stream(), [&] { out(nd::ellipsis) = g.standard_normal<float>({n}); });
    state.SetLabel("normal float32 2^28: x.normal_() vs g.standard_normal (target: torch_over_ndcuda >= 1)");
  } else {
    interleave(
        state, ts, [&] { x.uniform_(); }, out.stream(), [&] { out(nd::ellipsis) = g.random<float>({n}); });
    state.SetLabel("random float32 2^28: x.uniform_() vs g.random (target: torch_over_ndcuda >= 1)");
  }
}

}  // namespace

BENCHMARK(BM_random_2p28_ndcuda_vs_torch)->Apply(ab_cases);
BENCHMARK(BM_bf16_8192_ndcuda_vs_torch)->Apply(ab_cases);
