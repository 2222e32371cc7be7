// The non-template half of reductions: axis checking and result shapes, the engine state for one
// (fused map, reducer) pair, and the launch. Builds on ops/{codegen,reduction_types}.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <memory>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/expr/detail/codegen.hpp>
#include <ndcuda/expr/detail/reduction_types.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ndcuda::detail {

/// What a reduction computes: values of dtype `value` (the map's), folded by `kind` in `acc`,
/// stored as `out`.
struct reduce_spec {
  reduce_kind kind{};
  dtype value{};
  dtype acc{};
  dtype out{};
  friend bool operator==(const reduce_spec&, const reduce_spec&) = default;
};

/// Engine state: the jit engine's state (generated sources, compiled variants) for one (map,
/// reducer) pair; defined in src/expr/reduction_state.hpp.
struct NDCUDA_INTERNAL reduction_state;

/// A fresh state for the map body `map_statement` (assigns `out`, of dtype spec.value, from in0,
/// in1, ... and scalars s0, s1, ...); callers cache it per expression type.
[[nodiscard]] std::shared_ptr<reduction_state> make_reduction_state(const std::string& map_statement,
                                                                    const reduce_spec& spec,
                                                                    std::span<const leaf_ref> inputs,
                                                                    std::span<const dtype> scalars);

/// A checked call: the inputs' broadcast shape, which of its axes are reduced, the result shape.
struct reduce_call {
  shape_t shape;
  std::vector<bool> reduced;
  shape_t result_shape;
  index_t reduced_count = 0;
};

/// Checks devices and axes (NumPy's messages), broadcasts the inputs, and throws NumPy's message
/// for an empty reduction that has no identity. `axes` nullopt: every axis.
[[nodiscard]] reduce_call prepare_reduction(reduce_kind kind, std::span<const leaf_ref> inputs,
                                            const std::optional<std::vector<int>>& axes, bool keepdims);

/// Whether `out` (C-contiguous, call.result_shape) may receive the reduction directly: on the
/// inputs' device and sharing no byte with any input (a reduction reads many elements per output,
/// so any overlap needs a temporary). Computed inputs (draws) have no memory.
[[nodiscard]] bool reduces_into(const reduce_call& call, const leaf_ref& out, std::span<const leaf_ref> inputs);

/// Runs the reduction into `out` (a fresh C-contiguous array of call.result_shape) on out's
/// stream, after each input's stream. `param` is ddof for var/std.
void run_reduction(const reduction_state& state, const reduce_call& call, const leaf_ref& out,
                   std::span<const leaf_ref> inputs, const void* const* scalars, double param);

/// Compiles, without a device, the variants a reduction over `shape` with `reduced` axes and the
/// given input strides would use (first pass and second pass): for CI without a GPU.
NDCUDA_INTERNAL void compile_reduction(const reduction_state& state, compute_capability cc,
                                       std::span<const index_t> shape, const std::vector<bool>& reduced,
                                       std::span<const strides_t> in_strides);

/// The source of the first-pass variant those arguments select (for tests and documentation).
NDCUDA_INTERNAL [[nodiscard]] std::string reduction_source_for(const reduction_state& state,
                                                               std::span<const index_t> shape,
                                                               const std::vector<bool>& reduced,
                                                               std::span<const strides_t> in_strides);

}  // namespace ndcuda::detail

#pragma GCC visibility pop
