// Kernel-body generation and launch for fused expressions: the non-template half of evaluation.
// Builds on expr/operation.hpp and jit/elementwise_kernel.hpp (the engine that compiles and runs it).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <memory>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/expr/leaf_ref.hpp>
#include <ndcuda/expr/operation.hpp>
#include <ndcuda/jit/elementwise_kernel.hpp>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace ndcuda::detail {

/// The kernel's names for input array `index` ("in3") and scalar parameter `index` ("s0"). Out of
/// line on purpose: "in" + std::to_string(i) inlined into a user's Release build makes g++ 12 warn
/// (-Wrestrict, a false positive in libstdc++'s string insert).
[[nodiscard]] std::string input_name(int index);
[[nodiscard]] std::string scalar_name(int index);

/// `args` converted to `input`'s compute type and combined as `s` spells; the result has
/// compute_type(result). `name` is the ufunc's (operation::name), for the label.
[[nodiscard]] node_code emit_operation(spelling s, dtype input, dtype result, std::span<const node_code> args,
                                       const char* name = "");

/// The labels of array input `index` ("a", "b", ..., "z", "in26") and scalar `index` ("s0").
[[nodiscard]] std::string input_label(int index);

/// Value numbering of one tree's operation nodes (hash-consing): each node's text, written over its
/// arguments' value numbers, names one value, so identical subtrees (the same leaves and ops, or
/// the same node object used twice) are one value, computed once per element. A value used more
/// than once becomes a local; the others are inlined, so a tree without repeats reads as before.
class value_table {
 public:
  /// `code` (an operation over arguments already interned) as a reference to its value.
  [[nodiscard]] node_code intern(node_code code);
  /// The kernel body storing `root` into an output of dtype `out`: the locals, then the store.
  [[nodiscard]] std::string body(dtype out, const node_code& root) const;

 private:
  struct value {
    std::string text;  // over references to earlier values
    dtype type;
    int uses;
  };
  std::vector<value> values_;
  std::unordered_map<std::string, int> ids_;
};

/// The statement storing `root` into an output of dtype `out` (a tree without interned values).
NDCUDA_INTERNAL [[nodiscard]] std::string store_statement(dtype out, const node_code& root);

/// What every launch over leaf_refs (elementwise, reductions, row programs) does before it queues
/// its kernel on `s`: `s` waits for the inputs' streams, and a graph being captured keeps `out` and
/// the inputs alive. release_sources_after is its other half.
NDCUDA_INTERNAL void before_leaf_launch(const stream& s, const leaf_ref& out, std::span<const leaf_ref> inputs);

/// Orders the streams of the computed leaves (random draws) among `leaves` after the work queued on
/// `s` so far, where a kernel read them. A draw releases its device offset cell on its generator's
/// stream when the expression goes, which may be before the kernel on `s` ran; a reuse of that memory
/// there must wait for the kernel. Call it after every launch over leaf_refs.
void release_sources_after(const stream& s, std::span<const leaf_ref> leaves);

/// The engine state for a generated body (a fresh one; callers cache it per expression type). Its
/// NVTX range is "elementwise <label>", registered here once.
[[nodiscard]] std::shared_ptr<jit::detail::elementwise_state> make_expression_state(const std::string& body,
                                                                                    const char* name, dtype out,
                                                                                    std::span<const leaf_ref> inputs,
                                                                                    std::span<const dtype> scalars,
                                                                                    const std::string& label = {});

/// Runs the fused kernel writing `out` (broadcasting the inputs to its shape) on out's stream,
/// after each input's stream; through a temporary when an input overlaps `out` differently.
void run_expression(const jit::detail::elementwise_state& state, const leaf_ref& out, std::span<const leaf_ref> inputs,
                    const void* const* scalars);

/// Checks (on the host, no device) that the dense variant of `state` compiles for `cc`.
NDCUDA_INTERNAL void compile_expression(const jit::detail::elementwise_state& state, compute_capability cc);

}  // namespace ndcuda::detail

#pragma GCC visibility pop
