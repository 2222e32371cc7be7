// Internal: compiling and launching row programs (jit/detail/row_program.hpp): each program's
// kernels by block size and variant, and the launch over operands seen as rows and columns. The
// expression engine decides whether a call fits one (src/expr/row_fusion.cpp). Builds on
// jit/row_program_source.hpp.
#pragma once

#include <memory>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/jit/detail/row_program.hpp>
#include <span>
#include <string_view>

namespace ndcuda::jit::detail {

/// The kernel cache of `p` (each variant generated and compiled on first use), its launches
/// inside the NVTX range `range`; null when `p`'s parameter list does not fit a generated kernel
/// (row_program_fits), so that it is never launched.
[[nodiscard]] std::shared_ptr<row_kernels> make_row_kernels(const row_program& p, std::string_view range);

/// One operand of a row launch: its data and its strides, in elements, between rows and between
/// the columns of a row.
struct row_operand {
  const void* data = nullptr;
  index_t row_stride = 0;
  index_t column_stride = 0;
};

/// Launches `p` (its kernels made) over `rows` x `columns` (both > 0) on `s`: a block per row
/// (grid-striding past 2^20 rows), as many threads as the row's length asks, the row held in
/// registers when it fits. `inputs` in `p.inputs`' order; `scalars`: one host value per scalar;
/// `params`: each stage's parameter (var/std's ddof).
void launch_row_program(const row_program& p, const row_operand& out, std::span<const row_operand> inputs,
                        const void* const* scalars, std::span<const double> params, index_t rows, index_t columns,
                        const stream& s);

}  // namespace ndcuda::jit::detail
