// Ufuncs with two outputs (divmod, frexp, modf) as one kernel: the type-erased entry that builds
// and runs it (src/expr/pair_outputs.cpp). Builds on expr/leaf_ref.hpp and the elementwise engine
// (jit/elementwise_kernel.hpp).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/expr/leaf_ref.hpp>
#include <ndcuda/jit/elementwise_kernel.hpp>
#include <span>

namespace ndcuda::detail {

/// Which two-output ufunc: divmod(a, b) -> (a // b, a % b), frexp(x) -> (mantissa, exponent),
/// modf(x) -> (fractional, integral).
enum class pair_kind : std::uint8_t { divmod, frexp, modf };

/// One operand: an array (`array` set) or a scalar kernel parameter of dtype `type` at `scalar`.
struct pair_operand {
  const leaf_ref* array = nullptr;
  dtype type = dtype::float64;
  const void* scalar = nullptr;
};

/// The kernel state for `kind` over operands of these kinds and dtypes, computing in `compute`'s
/// dtype and writing dtypes `first` and `second`; built once per combination, then cached.
[[nodiscard]] const jit::detail::elementwise_state& pair_state(pair_kind kind, std::span<const pair_operand> in,
                                                               dtype compute, dtype first, dtype second);

/// Runs `kind` over `in` (arrays broadcast to first's shape), writing `first` and `second` (fresh,
/// C-contiguous arrays of one shape, on one stream) in one kernel.
void run_pair(pair_kind kind, std::span<const pair_operand> in, dtype compute, const leaf_ref& first,
              const leaf_ref& second);

}  // namespace ndcuda::detail

#pragma GCC visibility pop
