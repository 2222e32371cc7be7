// Row programs' kernels and launches: a generated kernel per block size and held/re-read variant,
// compiled on first use, and the launch packing its arguments through the parameter list the
// source was spelled from. Builds on jit/row_program_source.hpp and jit/kernel_args.hpp.
#include "jit/row_program_launch.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/core/error.hpp>
#include <string>

#include "jit/kernel_args.hpp"
#include "jit/kernel_state.hpp"
#include "jit/row_program_source.hpp"

namespace ndcuda::jit::detail {
namespace {

/// Block sizes a program is compiled for, chosen by row length (launch_row_program).
constexpr std::array<int, 4> row_blocks{128, 256, 512, 1024};

/// Columns a thread holds in registers when the row fits (row_blocks.back() * held_items columns);
/// longer rows are read again from L1/L2 at each stage.
constexpr int held_items = 8;

int block_for(index_t columns) {
  for (int b : row_blocks) {
    if (columns <= static_cast<index_t>(held_items) * b) {
      return b;
    }
  }
  return row_blocks.back();
}

}  // namespace

struct row_kernels {
  std::mutex mutex;
  // By block size, then held (1) or re-read (0).
  std::array<std::unique_ptr<generated_kernel>, 2 * row_blocks.size()> by_variant;
  void* nvtx = nullptr;
};

namespace {

const generated_kernel& kernel_for(const row_program& p, int block, int items) {
  row_kernels& k = *p.kernels;
  const auto slot =
      2 * static_cast<std::size_t>(std::find(row_blocks.begin(), row_blocks.end(), block) - row_blocks.begin()) +
      (items > 0 ? 1 : 0);
  std::lock_guard lock(k.mutex);
  if (!k.by_variant[slot]) {
    // kernel_state is not movable: built in place. The source does not open with the dependent
    // launch prologue, so the kernel never launches with PDL.
    k.by_variant[slot].reset(new generated_kernel{
        row_program_args(p), kernel_state(row_program_source(p, block, items), "nd_rows", {}, nullptr,
                                          /*waits_first=*/false)});
  }
  return *k.by_variant[slot];
}

}  // namespace

std::shared_ptr<row_kernels> make_row_kernels(const row_program& p, std::string_view range) {
  if (!row_program_fits(p)) {
    return nullptr;
  }
  auto kernels = std::make_shared<row_kernels>();
  kernels->nvtx = ndcuda::detail::nvtx_register(range);
  return kernels;
}

void launch_row_program(const row_program& p, const row_operand& out, std::span<const row_operand> inputs,
                        const void* const* scalars, std::span<const double> params, index_t rows, index_t columns,
                        const stream& s) {
  if (p.kernels == nullptr || inputs.size() != p.inputs.size() || params.size() != p.stages.size()) {
    throw error("internal: a row program was launched without its kernels or with the wrong operands; please report");
  }
  const int block = block_for(columns);
  const int items = columns <= static_cast<index_t>(held_items) * block ? held_items : 0;
  const ndcuda::detail::nvtx_scope range(p.kernels->nvtx);
  const generated_kernel& variant = kernel_for(p, block, items);
  const loaded_kernel& k = variant.kernel.on_device(s.device());
  kernel_args::packer args(variant.args);
  args.pointer(out.data).index(out.row_stride).index(out.column_stride);
  for (const row_operand& in : inputs) {
    args.pointer(in.data).index(in.row_stride).index(in.column_stride);
  }
  args.scalars(scalars, p.scalars.size());
  for (const double param : params) {
    args.value(param);
  }
  args.index(rows).index(columns);
  args.launch(k, dim3(static_cast<unsigned>(std::min<index_t>(rows, index_t{1} << 20))),
              dim3(static_cast<unsigned>(block)), 0, static_cast<CUstream>(s.handle()), variant.kernel.waits_first);
}

}  // namespace ndcuda::jit::detail
