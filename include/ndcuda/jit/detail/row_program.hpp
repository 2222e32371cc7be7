// A row program as plain data (strings and dtypes): one row-resident kernel folding several
// reductions of each row in turn (softmax, layer norm). The expression engine fills it
// (expr/row_fusion.hpp); src/jit/row_program_source.cpp spells it and src/jit/row_program_launch.cpp
// compiles and launches it. Builds on core/dtype.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <memory>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/core/dtype.hpp>
#include <string>
#include <vector>

namespace ndcuda::jit::detail {

/// One reduction of a row program: its reducer (kernels/reducers.cuh, spelled), value and result
/// dtypes, the dtype its result has inside the kernel (`out`'s compute type: float32 for half and
/// bfloat16), and the body computing its mapped value `out` from the inputs and earlier reductions.
struct row_stage {
  std::string reducer;
  dtype value;
  dtype out;
  dtype kernel_type;
  std::string body;
  bool takes_param;  // var/std's ddof: such stages are never shared between two reductions
};

/// Compiled kernels of one program, by block size and variant (src/jit/row_program_launch.cpp).
struct NDCUDA_INTERNAL row_kernels;

/// The generated program of one tree type and leaf pattern: the stages in order (inner reductions
/// first), which stage each lazy reduction became (read by the engine to pass each stage's
/// parameter), and the final body storing `out`; the dtypes of the output, the inputs and the
/// scalars; the label its NVTX range names; its kernels (null when it cannot be launched).
struct row_program {
  std::vector<row_stage> stages;
  std::vector<int> node_stage;
  std::string final_body;
  dtype out = dtype::float32;
  std::vector<dtype> inputs;
  std::vector<dtype> scalars;
  std::string label;
  std::shared_ptr<row_kernels> kernels;
};

}  // namespace ndcuda::jit::detail

#pragma GCC visibility pop
