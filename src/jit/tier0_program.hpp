// Internal: tier 0 of a fused expression (docs/design.md, "Tiered first calls"). The encoder turns
// the body that the expression engine generated (expr/codegen.cpp) into the register program of
// kernels/tier0_program.cuh; the launcher runs it on the ahead-of-time interpreter while the
// expression's own kernel compiles in the background (jit/background_compiles.hpp).
#pragma once

#include <cstdint>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/device/stream.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../../kernels/tier0_program.cuh"  // shared with the interpreter: plain C++

namespace ndcuda::jit::detail {

struct elementwise_signature;
struct elementwise_state;

/// An encoded program: the steps and the value types of the operands it reads.
struct tier0_program {
  std::vector<ndcuda_tier0_step> steps;
  std::vector<int> result_types;  ///< per step, the value type of its result
  int out_type = 0;
  std::vector<std::size_t> scalar_bytes;  ///< each scalar parameter's size
  /// The registered NVTX name its launches open: "<kernel name> (tier 0)", so profiles and
  /// --kernel-name filters see which expression ran, not only the interpreter.
  void* nvtx = nullptr;
};

/// The program for an elementwise body over `signature`, or nullopt when tier 0 cannot run it:
/// a dtype other than bool, int32, int64, float32 and float64; a computed input (a random draw);
/// a helper or form the interpreter lacks; more steps than it holds. `why`, when given, says
/// which (for tests and NDCUDA_JIT_LOG).
[[nodiscard]] std::optional<tier0_program> encode_tier0(std::string_view body, const elementwise_signature& signature,
                                                        std::string* why = nullptr);

/// With tiers on, gives `state` its tier-0 program when the interpreter can run its body (and its
/// NVTX name); with tiers off, or a body tier 0 lacks, leaves it without one.
void attach_tier0(elementwise_state& state);

/// The value type code of `t` (NDCUDA_TIER0_*), or -1 when tier 0 has none.
[[nodiscard]] int tier0_type(dtype t) noexcept;

/// Whether new fused expressions get a tier-0 program: on unless NDCUDA_JIT_TIERED is "0" (read
/// once) or set_tiered_calls(false) said so. Expressions already built keep what they were built
/// with.
[[nodiscard]] bool tiered_calls_enabled() noexcept;

/// Overrides NDCUDA_JIT_TIERED for expressions built from now on (tests and benchmarks).
void set_tiered_calls(bool enabled) noexcept;

/// Drops set_tiered_calls' override: NDCUDA_JIT_TIERED decides again.
void use_environment_for_tiered_calls() noexcept;

/// Launches of tier 0 in this process (tests ask which tier ran).
[[nodiscard]] std::uint64_t tier0_launch_count() noexcept;

/// Runs `encoded` on `s`'s device over dense operands of `n` elements (`strides` empty) or over
/// the collapsed iteration `shape` with per-operand `strides` (output first). False, launching
/// nothing, when no image fits the device or the iteration has more dimensions than tier 0 takes.
bool launch_tier0(const tier0_program& encoded, index_t n, std::span<const index_t> shape,
                  std::span<const strides_t> strides, const void* out, const void* const* inputs,
                  std::size_t input_count, const void* const* scalars, const stream& s);

}  // namespace ndcuda::jit::detail
