// Launchers of the fixed-order sums (include/ndcuda/ops/detail/deterministic_kernels.hpp): the
// order lives entirely in kernels/deterministic_sum.cuh, so every caller (one GPU, a shard, a
// block assembled from two ranks) gets the same bits for the same values.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <ndcuda/ops/detail/deterministic_kernels.hpp>
#include <string>

namespace ndcuda::detail {
namespace {

constexpr const char* source_text = R"(#include "ndcuda/deterministic_sum.cuh"
)";
constexpr unsigned threads = 256;               // kernels/deterministic_sum.cuh's `threads`
constexpr index_t max_grid = index_t{1} << 20;  // blocks loop over the rest

const raw_kernel& kernel(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<raw_kernel>> kernels;
  const std::lock_guard lock(mutex);
  auto& k = kernels[name];
  if (!k) {
    k = std::make_unique<raw_kernel>(source_text, name);
  }
  return *k;
}

std::string value_type(dtype t) {
  if (t == dtype::float32) {
    return "float";
  }
  if (t == dtype::float64) {
    return "double";
  }
  throw type_error("deterministic sum: no kernel for " + std::string(name(t)) +
                   "; it sums float32 and float64 (integer sums are exact already: use nd::sum; convert "
                   "float16 or bfloat16 with astype<float>())");
}

}  // namespace

void deterministic_block_sums(dtype t, const void* x, index_t n, double* out, const stream& s) {
  const index_t blocks = deterministic_blocks(n);
  if (blocks == 0) {
    return;
  }
  const raw_kernel& k = kernel("ndcuda::deterministic::block_sums<" + value_type(t) + ">");
  launch_config config;
  config.grid = dim3(static_cast<unsigned>(std::min(blocks, max_grid)));
  config.block = dim3(threads);
  k.launch(config, s, x, static_cast<long long>(n), static_cast<long long>(deterministic_block), out);
}

void deterministic_total(const double* partials, index_t count, double divisor, dtype t, void* out, const stream& s) {
  const raw_kernel& k = kernel("ndcuda::deterministic::total<" + value_type(t) + ">");
  launch_config config;
  config.block = dim3(threads);
  k.launch(config, s, partials, static_cast<long long>(count), divisor, out);
}

void compile_deterministic_kernels(compute_capability cc) {
  for (const char* t : {"float", "double"}) {
    kernel(std::string("ndcuda::deterministic::block_sums<") + t + ">").compile(cc);
    kernel(std::string("ndcuda::deterministic::total<") + t + ">").compile(cc);
  }
}

}  // namespace ndcuda::detail
