// Internal: the CUDA source of a reduction's kernels: the fused map as a small struct, the
// reducer of kernels/reducers.cuh, and an extern "C" kernel calling a kernels/reduction.cuh
// template (first pass: rows or columns; second pass: folding the partial results).
#pragma once

#include <ndcuda/core/dtype.hpp>
#include <string>
#include <vector>

#include "jit/kernel_args.hpp"
#include "jit/reduction_plan.hpp"

namespace ndcuda::jit::detail {

/// What the generated kernels of one reduction are, in strings and dtypes only: ops/ decides them
/// (src/expr/reduction.cpp, from the reduction table).
struct reduction_signature {
  std::string name;           ///< a C identifier: "nd_sum"
  std::string map_statement;  ///< assigns `out` (of `value`) from in0, in1, ..., s0, s1, ...
  /// The reducer's CUDA type (kernels/reducers.cuh): "ndcuda::sum_reducer<float, float, float>".
  std::string reducer;
  dtype value{};  ///< the map's result, what the reducer folds
  dtype acc{};    ///< the reducer's accumulator (its partial results between the passes)
  dtype out{};    ///< the result's
  std::vector<dtype> in;
  std::vector<dtype> scalars;
  /// Per input: empty for an array, else a computed input's CUDA type (elementwise_signature::sources).
  std::vector<std::string> sources = {};
  /// The reduced dimensions keep their logical C order (the reducer reports positions: argmin).
  bool keep_order = false;

  [[nodiscard]] bool is_source(std::size_t input) const { return input < sources.size() && !sources[input].empty(); }
};

/// "nd_sum__r1x1_b256_v4_i32", and for the second pass "nd_sum__fr1_i32" / "nd_sum__fc1_i64".
[[nodiscard]] std::string reduction_kernel_name(const reduction_signature& sig, const reduction_plan& plan);
[[nodiscard]] std::string finish_kernel_name(const reduction_signature& sig, const reduction_plan& plan);

/// First pass: (out, partials, in0.., s0.., outer indexer, inner indexer, chunk, param).
[[nodiscard]] kernel_args reduction_args(const reduction_signature& sig, const reduction_plan& plan);
[[nodiscard]] std::string reduction_source(const reduction_signature& sig, const reduction_plan& plan);
/// Second pass: (out, partials, outer indexer, splits, count, param).
[[nodiscard]] kernel_args finish_args(const reduction_signature& sig, const reduction_plan& plan);
[[nodiscard]] std::string finish_source(const reduction_signature& sig, const reduction_plan& plan);

}  // namespace ndcuda::jit::detail
