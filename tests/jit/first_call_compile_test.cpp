// What keeps a first call's NVRTC compile short: generated elementwise bodies that call no ufunc
// skip kernels/ufuncs.cuh, and a reduction's two passes compile side by side. CPU tests (NVRTC
// and the program cache need no GPU), plus a GPU check of first-call reductions against a host
// reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/ops/operators.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <string>
#include <thread>
#include <vector>

#include "jit/elementwise_source.hpp"
#include "jit/kernel_key.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/program_cache.hpp"
#include "jit/reduction_state.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;

namespace {

constexpr const char* without_ufuncs = "#define NDCUDA_KERNEL_WITHOUT_UFUNCS 1";

jd::elementwise_plan contiguous_plan() {
  jd::elementwise_plan plan;
  plan.contiguous = true;
  plan.vector = 4;
  return plan;
}

jd::reduction_signature sum_signature(const std::string& name, const std::string& reducer) {
  jd::reduction_signature sig;
  sig.name = name;
  sig.map_statement = "out = in0 * 2.0f";
  sig.reducer = reducer;
  sig.value = sig.acc = sig.out = nd::dtype::float32;
  sig.in = {nd::dtype::float32};
  return sig;
}

// Compiles a full reduction of 2^20 elements: both passes.
void compile_full_reduction(const jd::reduction_state& state) {
  const nd::shape_t shape{nd::index_t{1} << 20};
  const std::vector<nd::strides_t> in{nd::c_strides(shape)};
  jd::compile_reduction(state, nd::compute_capability{9, 0}, shape, {true}, nd::strides_t{0}, in);
}

}  // namespace

TEST(JitFirstCall, ElementwiseBodiesThatCallNoUfuncSkipTheUfuncHeaderAndCompile) {
  const jd::elementwise_signature sig{nd::dtype::float32, {nd::dtype::float32, nd::dtype::float32}};
  const jd::elementwise_plan plan = contiguous_plan();
  const std::string plain = jd::elementwise_source("out = x * 3.5f + y", "plain", sig, plan);
  const std::string fused = jd::elementwise_source("out = ndcuda::nd_maximum(x, y)", "fused", sig, plan);
  EXPECT_NE(plain.find(without_ufuncs), std::string::npos) << plain;
  EXPECT_EQ(fused.find(without_ufuncs), std::string::npos) << fused;
  // Both compile: the ufunc call finds kernels/ufuncs.cuh, the plain body does not need it.
  for (const auto& [source, name] : {std::pair{plain, std::string("plain")}, std::pair{fused, std::string("fused")}}) {
    const auto key = jd::make_key(source, name + ".cu", {jd::elementwise_kernel_name(name, plan)},
                                  jd::generated_kernel_options(), {90, false});
    EXPECT_NO_THROW((void)jd::nvrtc_compile(key)) << source;
  }
}

TEST(JitFirstCall, ReductionPassesCompileSideBySideAndOnce) {
  // A compiler that records how many compiles were in flight at once: each waits (up to 10 s, so
  // a loaded machine cannot make it flaky) until another one has started.
  std::atomic<int> in_flight{0};
  std::atomic<int> most{0};
  std::atomic<int> calls{0};
  jd::program_cache cache(
      [&](const jd::kernel_key& key) {
        const int now = ++in_flight;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (most.load() < 2 && calls.load() == 0 && std::chrono::steady_clock::now() < deadline) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        --in_flight;
        ++calls;
        return jd::compiled_program{"image", std::vector<std::string>(key.name_expressions.size(), "lowered"), ""};
      },
      nullptr);
  const jd::reduction_state state(sum_signature("side_by_side", "ndcuda::sum_reducer<float, float, float>"), &cache);
  compile_full_reduction(state);
  EXPECT_EQ(calls.load(), 2);  // first pass and second pass
  EXPECT_EQ(most.load(), 2);   // ... at the same time
  compile_full_reduction(state);
  EXPECT_EQ(calls.load(), 2);  // both from memory now
}

TEST(JitFirstCall, ReductionCompileErrorsStillReachTheCaller) {
  jd::program_cache cache(jd::nvrtc_compile, nullptr);
  // Both passes name the reducer, so both fail: the first pass's error in the calling thread, the
  // second pass's in the background, where it is dropped and found again by the caller.
  const jd::reduction_state state(sum_signature("broken", "ndcuda::no_such_reducer<float>"), &cache);
  EXPECT_THROW(compile_full_reduction(state), nd::compile_error);
  EXPECT_THROW(compile_full_reduction(state), nd::compile_error);  // failures are not cached
}

// First calls of reductions that split (so the second pass compiled beside the first) and one
// that does not, on fresh random input, against sums and maxima computed in double on the host.
TEST(JitFirstCall, GpuFirstCallReductionsMatchTheHostReference) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = (std::size_t{1} << 20) + 7;
  const std::vector<double> host = nd::testing::uniform_values<double>(n, -2.0, 2.0);
  const auto a = nd::asarray(host.data(), nd::shape_t{static_cast<nd::index_t>(n)});
  long double want = 0;
  for (double x : host) want += x;
  // The tolerance of tests/ops/gpu_reduction_test.cpp: 8 n eps x the largest |x| (2).
  EXPECT_NEAR(static_cast<double>(nd::sum(a).item()), static_cast<double>(want),
              8.0 * static_cast<double>(n) * 2.22e-16 * 2.0);

  const nd::index_t rows = 3;
  const nd::index_t cols = 200001;
  const std::vector<float> matrix =
      nd::testing::uniform_values<float>(static_cast<std::size_t>(rows * cols), -2.0, 2.0);
  const auto m = nd::asarray(matrix.data(), nd::shape_t{rows, cols});
  const std::vector<float> row_max = nd::max(m, 1).to_host();      // 3 outputs: splits
  const std::vector<float> col_sum = nd::sum(m * m, 0).to_host();  // many outputs: one pass
  ASSERT_EQ(row_max.size(), static_cast<std::size_t>(rows));
  ASSERT_EQ(col_sum.size(), static_cast<std::size_t>(cols));
  for (nd::index_t r = 0; r < rows; ++r) {
    const auto begin = matrix.begin() + r * cols;
    EXPECT_EQ(row_max[static_cast<std::size_t>(r)], *std::max_element(begin, begin + cols)) << "row " << r;
  }
  for (nd::index_t c = 0; c < cols; ++c) {
    double s = 0;
    for (nd::index_t r = 0; r < rows; ++r) {
      const double x = matrix[static_cast<std::size_t>(r * cols + c)];
      s += x * x;
    }
    ASSERT_NEAR(col_sum[static_cast<std::size_t>(c)], s, 1e-5 * std::max(1.0, s)) << "column " << c;
  }
}
