// Internal: the CUDA source of a row program (jit/detail/row_program.hpp): an extern "C" kernel
// `nd_rows` running a block per row over kernels/row_fusion.cuh's row_reduce templates, one call
// per stage, then the row's store. Builds on jit/kernel_args.hpp.
#pragma once

#include <ndcuda/jit/detail/row_program.hpp>
#include <string>

#include "jit/kernel_args.hpp"

namespace ndcuda::jit::detail {

/// The kernel's parameters: (out, out's row and column strides, then per input its pointer and
/// strides, s0.., each stage's parameter, rows, columns), strides and counts as long long. Its
/// source and its launches both use them; throws error when they pass kernel_args::max_params.
[[nodiscard]] kernel_args row_program_args(const row_program& p);

/// Whether `p`'s parameter list fits kernel_args::max_params (a program that does not is computed
/// with its reductions first).
[[nodiscard]] bool row_program_fits(const row_program& p) noexcept;

/// The source of `p` for blocks of `block` threads, each holding `items` columns of the row in
/// registers (0: rows too long for that, read again at each stage). Also for tests and the
/// documentation.
[[nodiscard]] std::string row_program_source(const row_program& p, int block, int items);

}  // namespace ndcuda::jit::detail
