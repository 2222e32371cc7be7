// Internal: an elementwise kernel's body and signature, and its variants (one generated_kernel, its
// parameter list and kernel_state, per plan variant, created on first use). Launch paths for dense pointers and for
// strided operands.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "jit/elementwise_plan.hpp"
#include "jit/elementwise_source.hpp"
#include "jit/kernel_args.hpp"
#include "jit/kernel_state.hpp"
#include "jit/tier0_program.hpp"

namespace ndcuda::jit::detail {

/// Inputs beyond this would not fit a launch's parameter space with a strided indexer.
inline constexpr std::size_t elementwise_max_inputs = 31;
/// Scalar parameters (16 bytes at most each) beside them.
inline constexpr std::size_t elementwise_max_scalars = 32;

struct elementwise_state {
  elementwise_state(std::string body_text, std::string kernel_name, elementwise_signature sig,
                    program_cache* programs = nullptr);

  std::string body;
  std::string name;
  elementwise_signature signature;
  std::vector<std::size_t> itemsizes;  ///< output first
  /// signature.computes_inputs(), once: its contiguous launches loop over waves (elementwise.cpp).
  bool computes_inputs = false;
  program_cache* cache;
  /// The registered NVTX name of the op's range: "elementwise <name>", or the expression's label.
  void* nvtx = nullptr;
  /// The body as a tier-0 program, for fused expressions that the interpreter can run (set by
  /// make_expression_state); launches use it while the variant compiles in the background.
  std::optional<tier0_program> tier0;

  /// The kernel for `plan`'s variant and its parameters (its source generated on first use).
  [[nodiscard]] const generated_kernel& variant(const elementwise_plan& plan) const;

 private:
  mutable std::array<std::atomic<const generated_kernel*>, elementwise_variant_count> variants_{};
  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<generated_kernel>> owned_;
};

}  // namespace ndcuda::jit::detail
