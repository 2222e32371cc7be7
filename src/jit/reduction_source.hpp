// Internal: the CUDA source of a reduction's kernels: the fused map as a small struct, the
// reducer of kernels/reducers.cuh, and an extern "C" kernel calling a kernels/reduction.cuh
// template (first pass: rows or columns; second pass: folding the partial results).
#pragma once

#include <ndcuda/core/dtype.hpp>
#include <ndcuda/ops/reduce_engine.hpp>
#include <string>
#include <vector>

#include "jit/reduction_plan.hpp"

namespace ndcuda::jit::detail {

struct reduction_signature {
  ndcuda::detail::reduce_spec spec{};
  std::string map_statement;  ///< assigns `out` (of spec.value) from in0, in1, ..., s0, s1, ...
  std::vector<dtype> in;
  std::vector<dtype> scalars;
  std::string name;  ///< a C identifier: "nd_sum"
  /// Per input: empty for an array, else a computed input's CUDA type (elementwise_signature::sources).
  std::vector<std::string> sources = {};

  [[nodiscard]] bool is_source(std::size_t input) const { return input < sources.size() && !sources[input].empty(); }
};

/// The reducer struct spelled for CUDA, e.g. "ndcuda::sum_reducer<float, float, float>".
[[nodiscard]] std::string reducer_type(const ndcuda::detail::reduce_spec& spec);

/// "nd_sum__r1x1_b256_v4_i32", and for the second pass "nd_sum__fr1_i32" / "nd_sum__fc1_i64".
[[nodiscard]] std::string reduction_kernel_name(const reduction_signature& sig, const reduction_plan& plan);
[[nodiscard]] std::string finish_kernel_name(const reduction_signature& sig, const reduction_plan& plan);

/// First pass: (out, partials, in0.., s0.., outer indexer, inner indexer, chunk, param).
[[nodiscard]] std::string reduction_source(const reduction_signature& sig, const reduction_plan& plan);
/// Second pass: (out, partials, outer indexer, splits, count, param).
[[nodiscard]] std::string finish_source(const reduction_signature& sig, const reduction_plan& plan);

}  // namespace ndcuda::jit::detail
