// Internal: the CUDA source of one elementwise variant: the user's body wrapped in an op struct
// and a small extern "C" kernel calling the templates of kernels/elementwise.cuh.
#pragma once

#include <algorithm>
#include <ndcuda/core/dtype.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "jit/elementwise_plan.hpp"
#include "jit/kernel_args.hpp"

namespace ndcuda::jit::detail {

/// The first statement of every kernel ndcuda generates (kernels/dependent_launch.cuh): only
/// kernels that open with it may be launched with programmatic dependent launch.
inline constexpr const char* dependent_launch_prologue = "ndcuda::dependent_launch_prologue();";

struct elementwise_signature {
  dtype out;
  std::vector<dtype> in;
  /// Values passed per launch as kernel parameters (s0, s1, ... in the body), so that a new value
  /// reuses the compiled kernel: they are never spelled into the source.
  std::vector<dtype> scalars = {};
  /// Per input, empty for an array, or the CUDA type of a computed input (a random draw,
  /// kernels/random.cuh's philox_source<E, W>): passed by value, indexed like an array, its
  /// elements of type `<source>::value_type` computed from their flat index. Empty: all arrays.
  std::vector<std::string> sources = {};

  [[nodiscard]] bool is_source(std::size_t input) const { return input < sources.size() && !sources[input].empty(); }
  /// Whether any input is computed. Expressions list an empty source for each array leaf, so
  /// `sources` being non-empty does not mean this.
  [[nodiscard]] bool computes_inputs() const {
    return std::any_of(sources.begin(), sources.end(), [](const std::string& t) { return !t.empty(); });
  }
};

/// The variant's parameters: out, in0.., s0.., then `n` (contiguous) or the strided indexer
/// `index` (and the tiled variant's `staged` mask). Its source and its launches both use them.
[[nodiscard]] kernel_args elementwise_args(const elementwise_signature& signature, const elementwise_plan& plan);

/// "scaled_sum__c4_i32" (contiguous, 4 per vector, 32-bit), "scaled_sum__s3_i64" (strided 3-d) or
/// "scaled_sum__t2_i32" (2-d tiled).
[[nodiscard]] std::string elementwise_kernel_name(std::string_view name, const elementwise_plan& plan);

/// The full source. Inputs are in0, in1, ... (and x, y, z, w for the first four), scalars s0, s1,
/// ..., the output is `out`; the body is compiled under `#line 1 "<name> (body)"` so NVRTC's messages point into it.
[[nodiscard]] std::string elementwise_source(std::string_view body, std::string_view name,
                                             const elementwise_signature& signature, const elementwise_plan& plan);

/// Throws error unless `name` is a C identifier (it names the generated kernel).
void check_kernel_identifier(std::string_view name, std::string_view what);

/// The line that tells kernels/elementwise.cuh which ufunc helpers `body` needs: every helper a
/// fused expression calls is ndcuda::nd_<name>, so a body naming none defines
/// NDCUDA_KERNEL_WITHOUT_UFUNCS, one naming only those of ufuncs_core.cuh defines
/// NDCUDA_KERNEL_CORE_UFUNCS, and any other gets "" (all of ufuncs.cuh). Parsing less saves NVRTC
/// time on every first call (docs/jit.md, "First-call compile time").
[[nodiscard]] std::string ufunc_header_define(std::string_view body);

}  // namespace ndcuda::jit::detail
