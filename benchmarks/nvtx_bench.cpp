// The host cost of the NVTX range every public op opens (core/detail/nvtx.hpp), with no profiler
// attached, beside an empty loop: what each op pays for its range. Needs no GPU.
#include <benchmark/benchmark.h>

#include <ndcuda/core/detail/nvtx.hpp>

namespace nd = ndcuda;

namespace {

// The floor: the loop and a compiler barrier, nothing else.
void BM_nvtx_baseline_empty(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_nvtx_baseline_empty);

// One op's range, as ops write it: a constant-initialised name (registered on first use) pushed
// and popped.
void BM_nvtx_op_range(benchmark::State& state) {
  for (auto _ : state) {
    const nd::detail::op_range<"bench::op"> range;
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_nvtx_op_range);

// A range from a handle registered once (what a fused expression and a kernel launch open).
void BM_nvtx_scope_handle(benchmark::State& state) {
  void* handle = nd::detail::nvtx_register("bench::handle");
  for (auto _ : state) {
    const nd::detail::nvtx_scope range(handle);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_nvtx_scope_handle);

// What one elementwise op adds in all: its op range around the kernel-launch range.
void BM_nvtx_elementwise_pair(benchmark::State& state) {
  void* op = nd::detail::nvtx_register("bench::elementwise");
  void* kernel = nd::detail::nvtx_register("bench::kernel");
  for (auto _ : state) {
    const nd::detail::nvtx_scope outer(op);
    const nd::detail::nvtx_scope inner(kernel);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_nvtx_elementwise_pair);

}  // namespace
