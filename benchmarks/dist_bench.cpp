// Distributed arrays over every visible GPU (up to 4) against one GPU on the same total size:
// sum, an elementwise op, a normal<float> fill of 2^28 elements; all-reduce bus bandwidth through
// ndcuda against a raw NCCL loop in the same run. Size per GPU: NDCUDA_DIST_BENCH_GIB (default
// 8 GiB of float32; the fill's size is fixed). Skips below 2 GPUs. Each row is timed on the host
// clock to the end of its work on every GPU (host_timed) and checked by the bandwidth guard
// (support/gpu_timing.hpp): the distributed rows against the memcpy bandwidth times the GPU count.
#include <benchmark/benchmark.h>
#include <nccl.h>

#include <chrono>
#include <complex>
#include <cstdlib>
#include <ndcuda/dist.hpp>
#include <ndcuda/dist/fft.hpp>
#include <ndcuda/dist/linalg.hpp>
#include <ndcuda/dist/sorting.hpp>
#include <ndcuda/ndcuda.hpp>
#include <optional>
#include <vector>

#include "support/gpu_timing.hpp"

namespace nd = ndcuda;
namespace dist = ndcuda::dist;
using nd::bench::guard_bandwidth;
using nd::bench::host_timed;
using nd::bench::keep;

namespace {

int ranks() {
  return std::min(nd::device_count(), 4);
}

nd::index_t elements_per_gpu() {
  const char* env = std::getenv("NDCUDA_DIST_BENCH_GIB");
  const double gib = env != nullptr ? std::atof(env) : 8.0;
  return static_cast<nd::index_t>(gib * double(1ULL << 30) / sizeof(float));
}

const dist::communicator& comm() {
  static const dist::communicator c = [] {
    std::vector<int> devices;
    for (int i = 0; i < ranks(); ++i) {
      devices.push_back(i);
    }
    return dist::communicator(devices);
  }();
  return c;
}

bool skip(benchmark::State& state) {
  if (ranks() < 2) {
    state.SkipWithError("needs 2 GPUs");
    return true;
  }
  return false;
}

void sync_one(const nd::stream& s) {
  const nd::device_guard g(s.device());
  s.synchronize();
}

// ---- sum ----------------------------------------------------------------------------------------

// The sum over all GPUs and the same total size on GPU 0, by `reduce` (the default sum or the
// fixed-order one of nd::deterministic).
template <class Reduce>
void sum_distributed(benchmark::State& state, Reduce reduce) {
  if (skip(state)) {
    return;
  }
  const nd::index_t n = elements_per_gpu() * ranks();
  const auto a = dist::full<float>({n}, 1.0F, comm());
  comm().synchronize();
  host_timed(state, [&] {
    const auto s = reduce(a);  // every shard reduced, then NCCL combines the partials
    comm().synchronize();
    keep(s);
  });
  state.SetBytesProcessed(state.iterations() * n * static_cast<std::int64_t>(sizeof(float)));
  state.counters["gpus"] = ranks();
  guard_bandwidth(state, ranks());
}

template <class Reduce>
void sum_one_gpu(benchmark::State& state, Reduce reduce) {
  if (skip(state)) {
    return;
  }
  const nd::index_t n = elements_per_gpu() * ranks();  // the same total size on GPU 0
  const nd::stream& s = comm().stream(0);
  const auto a = nd::full<float>({n}, 1.0F, s);
  sync_one(s);
  host_timed(state, [&] {
    // Bound to an ndarray, so a lazy sum runs (timing the lazy node alone timed nothing).
    const nd::ndarray<float> r = reduce(a);
    sync_one(s);
    keep(r);
  });
  state.SetBytesProcessed(state.iterations() * n * static_cast<std::int64_t>(sizeof(float)));
  guard_bandwidth(state);
}

void BM_SumDistributed(benchmark::State& state) {
  sum_distributed(state, [](const auto& a) { return dist::sum(a); });
}
BENCHMARK(BM_SumDistributed)->Unit(benchmark::kMillisecond)->UseManualTime();

void BM_SumOneGpu(benchmark::State& state) {
  sum_one_gpu(state, [](const auto& a) { return nd::sum(a); });
}
BENCHMARK(BM_SumOneGpu)->Unit(benchmark::kMillisecond)->UseManualTime();

// The deterministic sums (issue 38): the same bits on any GPU count, at what cost beside the rows
// above (target: at most 10% over the default sum).
void BM_SumDeterministicDistributed(benchmark::State& state) {
  sum_distributed(state, [](const auto& a) { return dist::sum(a, nd::deterministic); });
}
BENCHMARK(BM_SumDeterministicDistributed)->Unit(benchmark::kMillisecond)->UseManualTime();

void BM_SumDeterministicOneGpu(benchmark::State& state) {
  sum_one_gpu(state, [](const auto& a) { return nd::sum(a, nd::deterministic); });
}
BENCHMARK(BM_SumDeterministicOneGpu)->Unit(benchmark::kMillisecond)->UseManualTime();

// ---- elementwise (in place, so the same memory fits as for the sum) ----------------------------

void BM_ElementwiseDistributed(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  const nd::index_t n = elements_per_gpu() * ranks();
  auto a = dist::full<float>({n}, 1.0F, comm());
  comm().synchronize();
  host_timed(state, [&] {
    a.assign(a * 0.5F + 0.25F);
    comm().synchronize();
  });
  state.SetBytesProcessed(state.iterations() * 2 * n * static_cast<std::int64_t>(sizeof(float)));
  state.counters["gpus"] = ranks();
  guard_bandwidth(state, ranks());
}
BENCHMARK(BM_ElementwiseDistributed)->Unit(benchmark::kMillisecond)->UseManualTime();

void BM_ElementwiseOneGpu(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  const nd::index_t n = elements_per_gpu() * ranks();
  const nd::stream& s = comm().stream(0);
  auto a = nd::full<float>({n}, 1.0F, s);
  sync_one(s);
  host_timed(state, [&] {
    a(nd::ellipsis) = a * 0.5F + 0.25F;
    sync_one(s);
  });
  state.SetBytesProcessed(state.iterations() * 2 * n * static_cast<std::int64_t>(sizeof(float)));
  guard_bandwidth(state);
}
BENCHMARK(BM_ElementwiseOneGpu)->Unit(benchmark::kMillisecond)->UseManualTime();

// ---- a random fill: normal<float> over 2^28 elements -------------------------------------------
// Each rank computes its block of the one draw (its global flat indices) beside the same draw on
// one GPU; the distributed fill also pays a peer copy of the draw's 8-byte offset per other GPU.

constexpr nd::index_t fill_elements = nd::index_t{1} << 28;

void BM_NormalFillDistributed(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  auto g = nd::random::default_rng(42);
  const auto d = dist::zeros<float>({fill_elements}, comm());
  comm().synchronize();
  host_timed(state, [&] {
    d.assign(g.normal<float>(d.shape(), comm().stream(0)));  // reserved on rank 0's stream
    comm().synchronize();
  });
  state.SetItemsProcessed(state.iterations() * fill_elements);
  state.SetBytesProcessed(state.iterations() * fill_elements * static_cast<std::int64_t>(sizeof(float)));
  state.counters["gpus"] = ranks();
  guard_bandwidth(state, ranks());
}
BENCHMARK(BM_NormalFillDistributed)->Unit(benchmark::kMillisecond)->UseManualTime();

void BM_NormalFillOneGpu(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  auto g = nd::random::default_rng(42);
  const nd::stream& s = comm().stream(0);
  auto a = nd::empty<float>({fill_elements}, s);
  sync_one(s);
  host_timed(state, [&] {
    a(nd::ellipsis) = g.normal<float>(a.shape(), s);
    sync_one(s);
  });
  state.SetItemsProcessed(state.iterations() * fill_elements);
  state.SetBytesProcessed(state.iterations() * fill_elements * static_cast<std::int64_t>(sizeof(float)));
  guard_bandwidth(state);
}
BENCHMARK(BM_NormalFillOneGpu)->Unit(benchmark::kMillisecond)->UseManualTime();

// ---- products: dist::matmul of NDCUDA_DIST_BENCH_MATMUL (default 16384) square float32, TF32 off --
// A by rows times B replicated (no communication) and both sharded along the contracted axis (a
// partial product per GPU, then an all-reduce of the whole result), beside nd::matmul on one GPU.

nd::index_t matmul_extent() {
  const char* env = std::getenv("NDCUDA_DIST_BENCH_MATMUL");
  return env != nullptr ? std::atoll(env) : 16384;
}

void set_flops(benchmark::State& state, nd::index_t n) {
  state.counters["TFLOPs"] = benchmark::Counter(
      2.0 * double(n) * double(n) * double(n) * 1e-12 * double(state.iterations()), benchmark::Counter::kIsRate);
}

void matmul_distributed(benchmark::State& state, int a_axis, int b_axis,
                        const std::optional<dist::sharding>& out = std::nullopt) {
  if (skip(state)) {
    return;
  }
  const nd::index_t n = matmul_extent();
  const auto spec = [](int axis) { return axis < 0 ? dist::sharding::replicated() : dist::sharding::block(axis); };
  const auto a = dist::full<float>({n, n}, 0.5F, comm(), spec(a_axis));
  const auto b = dist::full<float>({n, n}, 0.25F, comm(), spec(b_axis));
  comm().synchronize();
  host_timed(state, [&] {
    const auto c = dist::matmul(a, b, out);
    comm().synchronize();
    keep(c);
  });
  set_flops(state, n);
  state.counters["gpus"] = ranks();
}

void BM_MatmulRowsTimesReplicated(benchmark::State& state) {
  matmul_distributed(state, 0, -1);
}
BENCHMARK(BM_MatmulRowsTimesReplicated)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);

void BM_MatmulContracted(benchmark::State& state) {
  matmul_distributed(state, 1, 0);
}
BENCHMARK(BM_MatmulContracted)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);

// The contracted layout with the result by rows: a reduce-scatter of the partial products.
void BM_MatmulContractedToRows(benchmark::State& state) {
  matmul_distributed(state, 1, 0, dist::sharding::block(0));
}
BENCHMARK(BM_MatmulContractedToRows)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);

// Both operands on a grid of blocks (SUMMA): the squarest grid of the ranks (2 x 1 on 2 GPUs,
// 2 x 2 on 4), or its transpose with the argument 1.
std::vector<int> squarest_grid(int p, bool transposed) {
  int rows = 1;
  for (int r = 1; r * r <= p; ++r) {
    if (p % r == 0) {
      rows = r;
    }
  }
  const int cols = p / rows;
  return transposed ? std::vector<int>{rows, cols} : std::vector<int>{cols, rows};
}

template <class T>
void matmul_summa(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  const nd::index_t n = matmul_extent();
  const auto grid = dist::sharding::block({0, 1}, squarest_grid(ranks(), state.range(0) == 1));
  const auto a = dist::full<T>({n, n}, T(0.5F), comm(), grid);
  const auto b = dist::full<T>({n, n}, T(0.25F), comm(), grid);
  comm().synchronize();
  host_timed(state, [&] {
    const auto c = dist::matmul(a, b);
    comm().synchronize();
    keep(c);
  });
  set_flops(state, n);
  state.counters["gpus"] = ranks();
  state.SetLabel(dist::describe(grid));
}
void BM_MatmulSumma(benchmark::State& state) {
  matmul_summa<float>(state);
}
BENCHMARK(BM_MatmulSumma)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);
void BM_MatmulSummaBf16(benchmark::State& state) {
  matmul_summa<__nv_bfloat16>(state);
}
BENCHMARK(BM_MatmulSummaBf16)->Arg(0)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);

template <class T>
void matmul_one_gpu(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  const nd::index_t n = matmul_extent();
  const nd::stream& s = comm().stream(0);
  const auto a = nd::full<T>({n, n}, T(0.5F), s);
  const auto b = nd::full<T>({n, n}, T(0.25F), s);
  auto c = nd::empty<T>({n, n}, s);
  sync_one(s);
  host_timed(state, [&] {
    c(nd::ellipsis) = nd::matmul(a, b);
    sync_one(s);
  });
  set_flops(state, n);
}
void BM_MatmulOneGpuBf16(benchmark::State& state) {
  matmul_one_gpu<__nv_bfloat16>(state);
}
BENCHMARK(BM_MatmulOneGpuBf16)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);

void BM_MatmulOneGpu(benchmark::State& state) {
  matmul_one_gpu<float>(state);
}
BENCHMARK(BM_MatmulOneGpu)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);

// A raw NCCL baseline's set-up: one communicator per GPU through ncclCommInitAll, a stream each and
// `buffers` device buffers of `bytes` each (zeroed), released at the end of the benchmark.
struct raw_nccl {
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
  std::vector<std::vector<float*>> buffers;  // [rank][buffer]
  bool communicators = false;                // ncclCommInitAll succeeded
  bool ok = false;                           // and every stream and buffer too

  raw_nccl(int n, std::size_t bytes, int count)
      : comms(static_cast<std::size_t>(n)),
        streams(static_cast<std::size_t>(n)),
        buffers(static_cast<std::size_t>(n), std::vector<float*>(static_cast<std::size_t>(count))) {
    std::vector<int> devices;
    for (int i = 0; i < n; ++i) {
      devices.push_back(i);
    }
    {
      const nd::device_guard g(0);
      communicators = ncclCommInitAll(comms.data(), n, devices.data()) == ncclSuccess;
      ok = communicators;
    }
    for (int i = 0; ok && i < n; ++i) {
      const nd::device_guard g(i);
      const auto k = static_cast<std::size_t>(i);
      ok = cudaStreamCreateWithFlags(&streams[k], cudaStreamNonBlocking) == cudaSuccess;
      for (float*& b : buffers[k]) {
        ok = ok && cudaMalloc(&b, bytes) == cudaSuccess && cudaMemset(b, 0, bytes) == cudaSuccess;
      }
      ok = ok && cudaDeviceSynchronize() == cudaSuccess;
    }
  }
  raw_nccl(const raw_nccl&) = delete;
  raw_nccl& operator=(const raw_nccl&) = delete;
  ~raw_nccl() {
    for (std::size_t k = 0; k < comms.size(); ++k) {
      const nd::device_guard g(static_cast<int>(k));
      for (float* b : buffers[k]) {
        cudaFree(b);
      }
      if (streams[k] != nullptr) {
        cudaStreamDestroy(streams[k]);
      }
      if (communicators) {
        ncclCommDestroy(comms[k]);
      }
    }
  }
  void synchronize() const {
    for (std::size_t k = 0; k < streams.size(); ++k) {
      const nd::device_guard g(static_cast<int>(k));
      cudaStreamSynchronize(streams[k]);
    }
  }
};

// One timed call of a distributed operation (every GPU synchronised after it) and of its one-GPU
// baseline, for the sort and indexing rows below.
template <class F>
void time_distributed(benchmark::State& state, F&& run) {
  comm().synchronize();
  host_timed(state, [&] {
    keep(run());
    comm().synchronize();
  });
  state.counters["gpus"] = ranks();
}

template <class F>
void time_one_gpu(benchmark::State& state, const nd::stream& s, F&& run) {
  sync_one(s);
  host_timed(state, [&] {
    keep(run());
    sync_one(s);
  });
}

// ---- sort: dist::sort of 2^30 float32 keys (NDCUDA_DIST_BENCH_SORT_LOG2) beside nd::sort on one
// GPU and a raw NCCL all-to-all of the same bytes in equal pieces (the sample sort's exchange).

nd::index_t sort_keys() {
  const char* env = std::getenv("NDCUDA_DIST_BENCH_SORT_LOG2");
  return nd::index_t{1} << (env != nullptr ? std::atoi(env) : 30);
}

void BM_SortDistributed(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  auto g = nd::random::default_rng(7);
  const auto x = dist::distribute(g.random<float>({sort_keys()}), comm(), 0);
  time_distributed(state, [&] { return dist::sort(x); });
  state.SetItemsProcessed(state.iterations() * sort_keys());
}
BENCHMARK(BM_SortDistributed)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);

void BM_SortOneGpu(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  auto g = nd::random::default_rng(7);
  const nd::stream& s = comm().stream(0);
  const nd::ndarray<float> x = g.random<float>({sort_keys()}, s);
  time_one_gpu(state, s, [&] { return nd::sort(x, 0, s); });
  state.SetItemsProcessed(state.iterations() * sort_keys());
}
BENCHMARK(BM_SortOneGpu)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);

// ---- indexing: dist::extract of 2^28 float32 with about half the mask true, and dist::take of
// 2^26 random global indices (sharded) into 2^28 float32, beside nd::extract / nd::take on one GPU.

constexpr nd::index_t indexed_elements = nd::index_t{1} << 28;
constexpr nd::index_t take_indices = nd::index_t{1} << 26;

void BM_ExtractDistributed(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  auto g = nd::random::default_rng(11);
  const auto x = dist::distribute(g.random<float>({indexed_elements}), comm(), 0);
  const dist::distributed_array<bool> mask = x > 0.5F;
  time_distributed(state, [&] { return dist::extract(mask, x); });
}
BENCHMARK(BM_ExtractDistributed)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(10);

void BM_ExtractOneGpu(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  auto g = nd::random::default_rng(11);
  const nd::stream& s = comm().stream(0);
  const nd::ndarray<float> x = g.random<float>({indexed_elements}, s);
  const nd::ndarray<bool> mask = x > 0.5F;
  time_one_gpu(state, s, [&] { return nd::extract(mask, x); });
}
BENCHMARK(BM_ExtractOneGpu)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(10);

void BM_TakeDistributed(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  auto g = nd::random::default_rng(13);
  const auto x = dist::distribute(g.random<float>({indexed_elements}), comm(), 0);
  const auto idx = dist::distribute(
      nd::ndarray<std::int64_t>(g.integers<std::int64_t>(0, indexed_elements, {take_indices})), comm(), 0);
  time_distributed(state, [&] { return dist::take(x, idx); });
}
BENCHMARK(BM_TakeDistributed)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(10);

void BM_TakeOneGpu(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  auto g = nd::random::default_rng(13);
  const nd::stream& s = comm().stream(0);
  const nd::ndarray<float> x = g.random<float>({indexed_elements}, s);
  const nd::ndarray<std::int64_t> idx = g.integers<std::int64_t>(0, indexed_elements, {take_indices}, false, s);
  time_one_gpu(state, s, [&] { return nd::take(x, idx); });
}
BENCHMARK(BM_TakeOneGpu)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(10);

// ---- unique and add_at: dist::unique (with counts) of 2^28 int32 keys drawn from 2^24 values, and
// dist::add_at of 2^26 float32 values at random indices into 2^24 float32 (both sharded), beside
// nd::unique / nd::add_at on one GPU.

constexpr nd::index_t unique_keys = nd::index_t{1} << 28;
constexpr nd::index_t accumulated = nd::index_t{1} << 24;

void BM_UniqueDistributed(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  auto g = nd::random::default_rng(17);
  const auto x =
      dist::distribute(nd::ndarray<std::int32_t>(g.integers<std::int32_t>(0, accumulated, {unique_keys})), comm(), 0);
  time_distributed(state, [&] { return dist::unique(x, nd::unique_options{false, false, true, true}).counts; });
}
BENCHMARK(BM_UniqueDistributed)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);

void BM_UniqueOneGpu(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  auto g = nd::random::default_rng(17);
  const nd::stream& s = comm().stream(0);
  const nd::ndarray<std::int32_t> x = g.integers<std::int32_t>(0, accumulated, {unique_keys}, false, s);
  time_one_gpu(state, s, [&] { return nd::unique(x, nd::unique_options{false, false, true, true}).counts; });
}
BENCHMARK(BM_UniqueOneGpu)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);

void BM_AddAtDistributed(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  auto g = nd::random::default_rng(19);
  const auto a = dist::zeros<float>({accumulated}, comm());
  const auto idx =
      dist::distribute(nd::ndarray<std::int64_t>(g.integers<std::int64_t>(0, accumulated, {take_indices})), comm(), 0);
  const auto values = dist::distribute(g.random<float>({take_indices}), comm(), 0);
  time_distributed(state, [&] {
    dist::add_at(a, idx, values);
    return a.local_shard(0);
  });
}
BENCHMARK(BM_AddAtDistributed)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(10);

void BM_AddAtOneGpu(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  auto g = nd::random::default_rng(19);
  const nd::stream& s = comm().stream(0);
  const nd::ndarray<float> a = nd::zeros<float>({accumulated}, s);
  const nd::ndarray<std::int64_t> idx = g.integers<std::int64_t>(0, accumulated, {take_indices}, false, s);
  const nd::ndarray<float> values = g.random<float>({take_indices}, s);
  time_one_gpu(state, s, [&] {
    nd::add_at(a, idx, values);
    return a;
  });
}
BENCHMARK(BM_AddAtOneGpu)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(10);

// ---- fft: dist::fft::fftn of an edge^3 complex64 cube (edge 1024, NDCUDA_DIST_BENCH_FFT_EDGE),
// sharded along axis 0, with the result back on axis 0 and in the transposed layout (one
// all-to-all less), the transpose alone (reshard to axis 1), and nd::fft::fftn on one GPU.

nd::index_t fft_edge() {
  const char* env = std::getenv("NDCUDA_DIST_BENCH_FFT_EDGE");
  return env != nullptr ? std::atoi(env) : 1024;
}

dist::distributed_array<std::complex<float>> fft_cube() {
  const nd::index_t e = fft_edge();
  return dist::full<std::complex<float>>({e, e, e}, {1.0F, -0.5F}, comm(), dist::sharding::block(0));
}

void BM_FftnDistributed(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  const auto x = fft_cube();
  time_distributed(state, [&] { return dist::fft::fftn(x); });
}
BENCHMARK(BM_FftnDistributed)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);

void BM_FftnTransposedDistributed(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  const auto x = fft_cube();
  time_distributed(state, [&] { return dist::fft::fftn(x, "backward", dist::sharding::block(1)); });
}
BENCHMARK(BM_FftnTransposedDistributed)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);

void BM_FftnTransposeOnly(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  const auto x = fft_cube();
  time_distributed(state, [&] { return x.reshard(1); });
  state.counters["GB"] = static_cast<double>(x.size()) * 8e-9;
}
BENCHMARK(BM_FftnTransposeOnly)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);

void BM_FftnOneGpu(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  const nd::stream& s = comm().stream(0);
  const nd::index_t e = fft_edge();
  const auto x = nd::full<std::complex<float>>({e, e, e}, {1.0F, -0.5F}, s);
  time_one_gpu(state, s, [&] { return nd::fft::fftn(x); });
}
BENCHMARK(BM_FftnOneGpu)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);

// ndcuda's all-to-all (dist::detail::all_to_all, what sort, extract, take and unique exchange
// through) of `total` float32 elements in equal pieces, beside the raw NCCL one below.
void BM_AllToAllNdcuda(benchmark::State& state, nd::index_t total) {
  if (skip(state)) {
    return;
  }
  const int n = ranks();
  const nd::index_t piece = total / (nd::index_t{n} * n);
  const auto x = dist::full<float>({piece * n * n}, 1.0F, comm());
  const auto plan = [&](int, int to) { return dist::block_range{to * piece, (to + 1) * piece}; };
  time_distributed(state, [&] { return dist::detail::all_to_all(x.local_shards(), plan, comm()); });
}
BENCHMARK_CAPTURE(BM_AllToAllNdcuda, sort_keys, sort_keys())
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(5);
BENCHMARK_CAPTURE(BM_AllToAllNdcuda, fft_cube, fft_edge() * fft_edge() * fft_edge() * 2)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(5);

// A raw NCCL all-to-all of `total` float32 elements in equal pieces (the sort's and the fft
// transpose's exchange without ndcuda).
void BM_AllToAllRawNccl(benchmark::State& state, nd::index_t total) {
  if (skip(state)) {
    return;
  }
  const int n = ranks();
  const std::size_t piece = static_cast<std::size_t>(total) / static_cast<std::size_t>(n * n);
  const raw_nccl raw(n, piece * static_cast<std::size_t>(n) * sizeof(float), 2);  // send, receive
  if (!raw.ok) {
    state.SkipWithError("NCCL or CUDA set-up failed");
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    ncclGroupStart();
    for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k) {
      for (int j = 0; j < n; ++j) {
        const std::size_t at = static_cast<std::size_t>(j) * piece;
        ncclSend(raw.buffers[k][0] + at, piece, ncclFloat32, j, raw.comms[k], raw.streams[k]);
        ncclRecv(raw.buffers[k][1] + at, piece, ncclFloat32, j, raw.comms[k], raw.streams[k]);
      }
    }
    ncclGroupEnd();
    raw.synchronize();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  state.counters["ms_per_exchange"] = seconds / double(state.iterations()) * 1e3;
}
BENCHMARK_CAPTURE(BM_AllToAllRawNccl, sort_keys, sort_keys())
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(5);
BENCHMARK_CAPTURE(BM_AllToAllRawNccl, fft_cube, fft_edge() * fft_edge() * fft_edge() * 2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(5);

// ---- all-reduce bus bandwidth -------------------------------------------------------------------

constexpr std::size_t allreduce_count = std::size_t{64} << 20;  // 256 MiB of float32 per GPU

// NCCL's bus bandwidth: the algorithm bandwidth times 2 (n - 1) / n.
void set_bus_bandwidth(benchmark::State& state, double seconds_per_iteration) {
  const double n = ranks();
  const double bytes = double(allreduce_count) * sizeof(float);
  state.counters["busbw_GBps"] = bytes / seconds_per_iteration * 2 * (n - 1) / n / 1e9;
}

void BM_AllReduceNdcuda(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  const auto a = dist::full<float>({static_cast<nd::index_t>(allreduce_count) * ranks()}, 1.0F, comm(),
                                   dist::sharding::replicated());
  std::vector<void*> buffers;
  for (const auto& s : a.local_shards()) {
    buffers.push_back(s.data());
  }
  comm().synchronize();
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    comm().all_reduce(buffers, allreduce_count, nd::dtype::float32, dist::reduce_op::sum);
    comm().synchronize();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  set_bus_bandwidth(state, seconds / double(state.iterations()));
  guard_bandwidth(state);
}
BENCHMARK(BM_AllReduceNdcuda)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_AllReduceRawNccl(benchmark::State& state) {
  if (skip(state)) {
    return;
  }
  const int n = ranks();
  const raw_nccl raw(n, allreduce_count * sizeof(float), 1);
  if (!raw.ok) {
    state.SkipWithError("NCCL or CUDA set-up failed");
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    ncclGroupStart();
    for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k) {
      float* b = raw.buffers[k][0];
      ncclAllReduce(b, b, allreduce_count, ncclFloat32, ncclSum, raw.comms[k], raw.streams[k]);
    }
    ncclGroupEnd();
    raw.synchronize();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  set_bus_bandwidth(state, seconds / double(state.iterations()));
  guard_bandwidth(state);
}
BENCHMARK(BM_AllReduceRawNccl)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
