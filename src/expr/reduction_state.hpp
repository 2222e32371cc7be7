// Internal: what reduce_engine.hpp's opaque reduction_state is: the jit engine's state for one
// (fused map, reducer) pair, built from a row of the reduction table. Builds on jit/reduction_state.hpp.
#pragma once

#include <ndcuda/expr/detail/reduce_engine.hpp>
#include <string>

#include "jit/reduction_state.hpp"

namespace ndcuda::detail {

static_assert(source_param_size == jit::detail::source_param_bytes,
              "a computed input's parameter block has one size on both sides of the engine");

/// The reducer of `spec`'s row (kernels/reducers.cuh) with its value, accumulator and result types
/// spelled in CUDA: "ndcuda::sum_reducer<float, float, float>".
[[nodiscard]] std::string reducer_spelling(const reduce_spec& spec);

struct reduction_state {
  explicit reduction_state(const reduce_spec& s, jit::detail::reduction_signature signature)
      : spec(s), engine(std::move(signature)) {}

  reduce_spec spec;
  jit::detail::reduction_state engine;
};

}  // namespace ndcuda::detail
