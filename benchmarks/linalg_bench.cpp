// Linear algebra and FFT: nd::matmul (8192^3 float32 without TF32, bfloat16, float64; 64x64 host
// time; 1024 batched 64x64), einsum("bij,bjk->bik") beside matmul, linalg::solve 4096^2 float64,
// batched eigh / svd / qr of 1024 x (32x32) float32, fft of 2^24 complex64 and rfft2 of 4096^2 float32. Each GEMM
// figure sits beside a raw cuBLAS call on the same buffers (the baseline); benchmarks/torch/linalg_torch.py measures
// PyTorch and CuPy on the same cases. Targets: >= 0.97x torch.matmul / torch.bmm, solve >= 0.9x torch.linalg.solve,
// FFTs >= 0.95x CuPy, einsum within 5% of matmul.
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <ndcuda/fft.hpp>
#include <ndcuda/linalg.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/gpu_timing.hpp"

namespace nd = ndcuda;
using nd::bench::have_gpu;
using nd::bench::keep;
using nd::bench::timed;

namespace {

template <class T>
nd::ndarray<T> values(nd::shape_t shape) {
  // Values in [-1, 1] in no order (sin of a scaled ramp).
  const nd::index_t n = nd::shape_size(shape);
  const nd::ndarray<float> a = nd::sin(nd::arange<float>(static_cast<double>(n)) * 0.618034F);
  return a.astype<T>().reshape(shape);
}

void flops(benchmark::State& state, double per_call) {
  state.counters["TFLOPs"] = benchmark::Counter(per_call / 1e12, benchmark::Counter::kIsIterationInvariantRate);
}

void cublas_check(cublasStatus_t s) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string("cuBLAS baseline failed: ") + cublasGetStatusName(s));
  }
}

/// One handle for the baselines, on the default stream of device 0, with cuBLAS's own workspace.
cublasHandle_t baseline_handle(const nd::stream& s) {
  static cublasHandle_t h = [] {
    cublasHandle_t created = nullptr;
    cublas_check(cublasCreate(&created));
    return created;
  }();
  cublas_check(cublasSetStream(h, s.handle()));
  return h;
}

template <class T>
void BM_matmul(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = values<T>({n, n});
  const auto b = values<T>({n, n});
  timed(
      state, a.stream(), [&] { keep(nd::eval(nd::matmul(a, b))); }, 3);
  flops(state, 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n));
}

/// c(nd::ellipsis) = nd::matmul(a, b): cuBLAS writes into c (issue 36); BM_matmul makes a new
/// array each call.
template <class T>
void BM_matmul_into(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = values<T>({n, n});
  const auto b = values<T>({n, n});
  auto c = nd::empty<T>({n, n}, a.stream());
  timed(
      state, a.stream(), [&] { c(nd::ellipsis) = nd::matmul(a, b); }, 3);
  flops(state, 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n));
}

/// The baseline: the same product as one cublasGemmEx call into a preallocated output.
template <class T>
void BM_cublas_gemm(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = values<T>({n, n});
  const auto b = values<T>({n, n});
  auto c = nd::empty<T>({n, n});
  const int ni = static_cast<int>(n);
  cudaDataType_t t = CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  const float one_f = 1, zero_f = 0;
  const double one_d = 1, zero_d = 0;
  const void* one = &one_f;
  const void* zero = &zero_f;
  if constexpr (std::is_same_v<T, double>) {
    t = CUDA_R_64F;
    compute = CUBLAS_COMPUTE_64F;
    one = &one_d;
    zero = &zero_d;
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    t = CUDA_R_16BF;
  }
  const cublasHandle_t h = baseline_handle(a.stream());
  timed(
      state, a.stream(),
      [&] {
        cublas_check(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, one, b.data(), t, ni, a.data(), t, ni, zero,
                                  c.data(), t, ni, compute, CUBLAS_GEMM_DEFAULT));
      },
      3);
  flops(state, 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n));
  state.SetLabel("baseline: raw cublasGemmEx");
}

// --- the process's first product (issue 39's peer row: cuBLAS's set-up) ---------------------

// Two 1024^2 float32 matrices made from host values (no kernel, so nothing is compiled first).
std::pair<nd::ndarray<float>, nd::ndarray<float>> first_product_inputs() {
  constexpr nd::index_t n = 1024;
  std::vector<float> host(static_cast<std::size_t>(n * n));
  for (std::size_t i = 0; i < host.size(); ++i) {
    host[i] = static_cast<float>(std::sin(0.618034 * static_cast<double>(i)));
  }
  auto a = nd::asarray<float>(host, {n, n});
  auto b = nd::asarray<float>(host, {n, n});
  a.stream().synchronize();
  return {std::move(a), std::move(b)};
}

// The process's first nd::matmul of 1024^2 float32, from the call to the product on the device
// (its handle, workspace, output and the GEMM). Meaningful only as the process's first product, so
// run alone, beside its floor in another fresh process and CuPy's:
//   linalg_bench --benchmark_filter=first_matmul_of_process
//   linalg_bench --benchmark_filter=first_cublas_gemm_of_process
//   python3 benchmarks/cupy/first_matmul_cupy.py
void BM_first_matmul_of_process(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto [a, b] = first_product_inputs();
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const nd::ndarray<float> c = nd::matmul(a, b);
    c.stream().synchronize();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  state.SetLabel("the process's first matmul; run alone");
}

// Its floor: cublasCreate and the same cublasSgemm into a preallocated output, in a fresh process.
void BM_first_cublas_gemm_of_process(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto [a, b] = first_product_inputs();
  auto c = nd::empty<float>({1024, 1024}, a.stream());
  const float one = 1;
  const float zero = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    cublasHandle_t h = nullptr;
    cublas_check(cublasCreate(&h));
    cublas_check(cublasSetStream(h, a.stream().handle()));
    cublas_check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1024, 1024, 1024, &one, b.data(), 1024, a.data(), 1024, &zero,
                             c.data(), 1024));
    a.stream().synchronize();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    cublas_check(cublasDestroy(h));
  }
  state.SetLabel("baseline: the process's first cublasCreate + cublasSgemm; run alone");
}

/// Host time of a small product: the call returns once queued; the GPU keeps up.
void BM_matmul_64_host(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = values<float>({64, 64});
  const auto b = values<float>({64, 64});
  keep(nd::eval(nd::matmul(a, b)));
  a.stream().synchronize();
  int i = 0;
  for (auto _ : state) {
    keep(nd::eval(nd::matmul(a, b)));
    if (++i % 256 == 0) {
      state.PauseTiming();
      a.stream().synchronize();
      state.ResumeTiming();
    }
  }
  a.stream().synchronize();
  state.SetLabel("host time per call (torch.matmul alike in linalg_torch.py)");
}

void BM_matmul_batched(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto a = values<float>({1024, 64, 64});
  const auto b = values<float>({1024, 64, 64});
  timed(
      state, a.stream(), [&] { keep(nd::eval(nd::matmul(a, b))); }, 10);
  flops(state, 2.0 * 1024 * 64 * 64 * 64);
}

void BM_einsum_batched(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = values<float>({1024, n, n});
  const auto b = values<float>({1024, n, n});
  timed(
      state, a.stream(), [&] { keep(nd::einsum("bij,bjk->bik", a, b)); }, 10);
  flops(state, 2.0 * 1024 * static_cast<double>(n * n * n));
  state.SetLabel("compare BM_matmul_batched_n");
}

void BM_matmul_batched_n(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = values<float>({1024, n, n});
  const auto b = values<float>({1024, n, n});
  timed(
      state, a.stream(), [&] { keep(nd::eval(nd::matmul(a, b))); }, 10);
  flops(state, 2.0 * 1024 * static_cast<double>(n * n * n));
}

void BM_solve(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto r = values<double>({n, n});
  const nd::ndarray<double> a = r + nd::eye<double>(n) * static_cast<double>(n);
  const auto b = values<double>({n});
  // solve reads its info code back (one wait per call), as torch.linalg.solve does.
  timed(
      state, a.stream(), [&] { keep(nd::linalg::solve(a, b)); }, 1);
  flops(state, 2.0 / 3.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n));
}

/// Stacks of 1024 (32 x 32) float32 matrices: eigh through XsyevBatched, svd (full) through gesvdjBatched, qr through
/// cuBLAS's geqrfBatched and ndcuda's Q kernel, one call for the stack each. Each reads its info codes back (one wait
/// per call; qr has none), as torch.linalg does. No looped path is reachable at this size, so the figure stands alone
/// beside torch.linalg in linalg_torch.py. Items: matrices.
void BM_batched_small(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t batch = 1024, n = 32;
  const auto r = values<float>({batch, n, n});
  const nd::ndarray<float> sym = r + r.swapaxes(-1, -2);
  switch (state.range(0)) {
    case 0:
      timed(state, sym.stream(), [&] { keep(nd::linalg::eigh(sym)); });
      state.SetLabel("eigh 1024x(32x32) float32, XsyevBatched; torch.linalg.eigh in linalg_torch.py");
      break;
    case 1:
      timed(state, r.stream(), [&] { keep(nd::linalg::svd(r)); });
      state.SetLabel("svd 1024x(32x32) float32, gesvdjBatched; torch.linalg.svd in linalg_torch.py");
      break;
    default:
      timed(state, r.stream(), [&] { keep(nd::linalg::qr(r)); });
      state.SetLabel("qr 1024x(32x32) float32, geqrfBatched + Q kernel; torch.linalg.qr in linalg_torch.py");
      break;
  }
  state.SetItemsProcessed(state.iterations() * batch);
}

void BM_fft_c64(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const nd::ndarray<std::complex<float>> x = values<float>({n}).astype<std::complex<float>>();
  timed(
      state, x.stream(), [&] { keep(nd::fft::fft(x)); }, 10);
  state.counters["GBps"] =
      benchmark::Counter(2.0 * static_cast<double>(x.nbytes()) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel("read + write bytes; CuPy cupy.fft.fft in linalg_torch.py");
  nd::bench::guard_bandwidth(state);
}

void BM_rfft2_f32(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto x = values<float>({n, n});
  timed(
      state, x.stream(), [&] { keep(nd::fft::rfft2(x)); }, 10);
  state.counters["GBps"] =
      benchmark::Counter(static_cast<double>(x.nbytes()) * 2.0 / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel("read + write bytes; CuPy cupy.fft.rfft2 in linalg_torch.py");
  nd::bench::guard_bandwidth(state);
}

/// relu(a @ b + bias) unfused: the product bound to an array, then one fused elementwise kernel.
void BM_matmul_bias_relu_bf16(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = values<__nv_bfloat16>({n, n});
  const auto b = values<__nv_bfloat16>({n, n});
  const auto bias = values<__nv_bfloat16>({n});
  timed(
      state, a.stream(),
      [&] {
        const nd::ndarray<__nv_bfloat16> p = nd::matmul(a, b);
        keep(nd::eval(nd::maximum(p + bias, 0)));
      },
      3);
  flops(state, 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n));
  state.SetLabel("unfused: matmul into an array + one elementwise kernel");
}

/// relu(a @ b + bias) written as plain NumPy-style code: recognised, one cuBLASLt epilogue call.
void BM_matmul_plain_bias_relu_bf16(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = values<__nv_bfloat16>({n, n});
  const auto b = values<__nv_bfloat16>({n, n});
  const auto bias = values<__nv_bfloat16>({n});
  timed(
      state, a.stream(),
      [&] {
        const nd::ndarray<__nv_bfloat16> r = nd::maximum(nd::matmul(a, b) + bias, 0);
        keep(r);
      },
      3);
  flops(state, 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n));
  state.SetLabel("fused from the plain spelling nd::maximum(nd::matmul(a, b) + bias, 0) (target >= 1.2x eager torch)");
}

/// The same as one cuBLASLt call with a bias + ReLU epilogue.
void BM_matmul_epilogue_bias_relu_bf16(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = state.range(0);
  const auto a = values<__nv_bfloat16>({n, n});
  const auto b = values<__nv_bfloat16>({n, n});
  const auto bias = values<__nv_bfloat16>({n});
  timed(
      state, a.stream(), [&] { keep(nd::linalg::matmul_epilogue(a, b, bias, nd::linalg::activation::relu)); }, 3);
  flops(state, 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n));
  state.SetLabel("fused: one cuBLASLt call (target >= 1.2x eager torch.relu(a @ b + bias))");
}

/// Tensor-core GEMMs at this size draw enough power that the GPU lowers its clocks after a few
/// hundred milliseconds of sustained load, so a long timing loop measures the throttled clock and
/// the order of the cases matters. These cases use the protocol of linalg_torch.py's cool-start
/// rows instead: 2 s idle, one warm-up call, then the median of 7 timings of 3 calls.
template <class F>
void cool_start(benchmark::State& state, const nd::stream& s, F&& body) {
  std::this_thread::sleep_for(std::chrono::seconds(2));
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  nd::bench::check(cudaEventCreate(&start), "cudaEventCreate");
  nd::bench::check(cudaEventCreate(&stop), "cudaEventCreate");
  body();
  s.synchronize();
  std::vector<double> seconds;
  for (int r = 0; r < 7; ++r) {
    nd::bench::check(cudaEventRecord(start, s.handle()), "cudaEventRecord");
    for (int c = 0; c < 3; ++c) {
      body();
    }
    nd::bench::check(cudaEventRecord(stop, s.handle()), "cudaEventRecord");
    nd::bench::check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    nd::bench::check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    seconds.push_back(static_cast<double>(ms) / 1e3 / 3);
  }
  std::sort(seconds.begin(), seconds.end());
  for (auto _ : state) {
    state.SetIterationTime(seconds[3]);
  }
  nd::bench::check(cudaEventDestroy(start), "cudaEventDestroy");
  nd::bench::check(cudaEventDestroy(stop), "cudaEventDestroy");
}

/// bfloat16 8192^3 cases from a cool start: 0 matmul, 1 raw cublasGemmEx, 2 relu(a @ b + bias)
/// unfused, 3 the same through matmul_epilogue (one cuBLASLt call), 4 the same written plainly as
/// nd::maximum(nd::matmul(a, b) + bias, 0) (recognised: one cuBLASLt call).
void BM_bf16_cool_start(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const nd::index_t n = 8192;
  const auto a = values<__nv_bfloat16>({n, n});
  const auto b = values<__nv_bfloat16>({n, n});
  const auto bias = values<__nv_bfloat16>({n});
  auto c = nd::empty<__nv_bfloat16>({n, n});
  const int ni = static_cast<int>(n);
  const float one = 1, zero = 0;
  const cublasHandle_t h = baseline_handle(a.stream());
  switch (state.range(0)) {
    case 0:
      cool_start(state, a.stream(), [&] { keep(nd::eval(nd::matmul(a, b))); });
      state.SetLabel("matmul (torch.matmul cool start in linalg_torch.py)");
      break;
    case 1:
      cool_start(state, a.stream(), [&] {
        cublas_check(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, b.data(), CUDA_R_16BF, ni, a.data(),
                                  CUDA_R_16BF, ni, &zero, c.data(), CUDA_R_16BF, ni, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT));
      });
      state.SetLabel("baseline: raw cublasGemmEx");
      break;
    case 2:
      cool_start(state, a.stream(), [&] {
        const nd::ndarray<__nv_bfloat16> p = nd::matmul(a, b);
        keep(nd::eval(nd::maximum(p + bias, 0)));
      });
      state.SetLabel("relu(a @ b + bias) unfused: matmul into an array + one elementwise kernel");
      break;
    case 4:
      cool_start(state, a.stream(), [&] {
        const nd::ndarray<__nv_bfloat16> r = nd::maximum(nd::matmul(a, b) + bias, 0);
        keep(r);
      });
      state.SetLabel("relu(a @ b + bias) fused from the plain spelling nd::maximum(nd::matmul(a, b) + bias, 0)");
      break;
    default:
      cool_start(state, a.stream(),
                 [&] { keep(nd::linalg::matmul_epilogue(a, b, bias, nd::linalg::activation::relu)); });
      state.SetLabel("relu(a @ b + bias) fused: matmul_epilogue (eager torch cool start in linalg_torch.py)");
      break;
  }
  flops(state, 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n));
}

}  // namespace

BENCHMARK(BM_first_matmul_of_process)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_first_cublas_gemm_of_process)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_matmul<float>)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cublas_gemm<float>)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_matmul<float>)->Arg(1024)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_matmul_into<float>)->Arg(1024)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_cublas_gemm<float>)->Arg(1024)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_matmul<__nv_bfloat16>)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cublas_gemm<__nv_bfloat16>)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_matmul<double>)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cublas_gemm<double>)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_matmul_64_host)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_matmul_batched)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_matmul_batched_n)->Arg(64)->Arg(256)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_einsum_batched)->Arg(64)->Arg(256)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_solve)->Arg(4096)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_batched_small)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_fft_c64)->Arg(1 << 24)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_rfft2_f32)->Arg(4096)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_matmul_bias_relu_bf16)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_matmul_epilogue_bias_relu_bf16)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_matmul_plain_bias_relu_bf16)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_bf16_cool_start)->DenseRange(0, 4)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
