// Internal: a reduction's kernels as elementwise_state holds an elementwise kernel's: the
// signature (strings and dtypes), its variants, and the launch. Builds on jit/reduction_source.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/stream.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "jit/kernel_args.hpp"
#include "jit/reduction_plan.hpp"
#include "jit/reduction_source.hpp"
#include "jit/tier0_reduction.hpp"

namespace ndcuda::jit::detail {

/// Bytes of partial results per output and split: more than any reducer's accumulator (a
/// Welford triple of complex128 is 40 bytes).
inline constexpr std::size_t reduce_partial_bytes = 64;

struct reduction_state {
  explicit reduction_state(reduction_signature sig, program_cache* programs = nullptr);

  reduction_signature signature;
  std::vector<std::size_t> itemsizes;  ///< the inputs'
  program_cache* cache;
  /// Set when tier 0 can run this reduction (tiers on, a reducer with folds, a map the
  /// interpreter runs): first calls then run it while the two passes compile.
  std::optional<tier0_reduction> tier0;

  /// The kernels for `plan` (their sources generated on first use).
  [[nodiscard]] const generated_kernel& first_pass(const reduction_plan& plan) const;
  [[nodiscard]] const generated_kernel& second_pass(const reduction_plan& plan) const;

  /// The plan over `shape` (the inputs' broadcast shape) with `reduced` axes: see plan_reduction.
  [[nodiscard]] reduction_plan plan(std::span<const index_t> shape, const std::vector<bool>& reduced,
                                    std::span<const index_t> out_strides, std::span<const strides_t> in_strides,
                                    std::span<const std::uintptr_t> addresses) const;

 private:
  template <class F>
  const generated_kernel& find(const std::string& name, const F& make) const;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::unique_ptr<generated_kernel>> kernels_;
};

/// One reduction launch, planned: the variant loaded on the device and the grid. A launch runs in
/// two steps so that the caller owns the buffer of partial results (splits > 1).
struct reduction_launch {
  reduction_plan plan;
  const generated_kernel* first = nullptr;
  const loaded_kernel* kernel = nullptr;
  dim3 grid;
  dim3 block;
  index_t chunk = 0;   ///< reduced elements per split
  index_t splits = 1;  ///< > 1: a second pass folds splits x plan.outputs partial results
  index_t resident = 1;
  /// Tier 0 runs this launch (jit/tier0_reduction.hpp): `kernel` is null until a fallback loads
  /// it, and the caller provides a map buffer of `tier0_buffer_bytes` (none when 0).
  bool tier0 = false;
  index_t tier0_buffer_bytes = 0;
};

/// The second pass's grid: a block per output (rows) or a thread per output (columns), at most
/// eight waves of resident blocks.
[[nodiscard]] dim3 finish_grid(const reduction_launch& launch);

/// The blocks of reduce_block threads that `device` holds at once, all SMs full: the geometry's
/// measure, from the device alone, so that tier 0 and the compiled kernels split alike.
[[nodiscard]] index_t resident_blocks(int device);

/// Plans a launch on `device`. `out_strides` are the result's over every dimension of `shape` (0
/// for reduced ones), `in_strides` the inputs' broadcast to `shape`, `addresses` theirs (0 for a
/// computed input).
[[nodiscard]] reduction_launch plan_reduction_launch(const reduction_state& state, int device,
                                                     std::span<const index_t> shape, const std::vector<bool>& reduced,
                                                     std::span<const index_t> out_strides,
                                                     std::span<const strides_t> in_strides,
                                                     std::span<const std::uintptr_t> addresses);

/// Runs the planned launch on `s`: the first pass, and when it splits, the second pass over
/// `partials` (splits x outputs x reduce_partial_bytes bytes); on tier 0, the map into
/// `map_buffer` first (launch.tier0_buffer_bytes). `inputs`: device pointers, or a computed
/// input's host parameter block; `scalars`: one host value per scalar; `param`: ddof.
void launch_reduction(const reduction_state& state, const reduction_launch& launch, const stream& s, void* out,
                      void* partials, void* map_buffer, const void* const* inputs, const void* const* scalars,
                      double param);

/// Compiles for `cc`, without a device, both passes of the variant those arguments select
/// (inputs taken as aligned).
void compile_reduction(const reduction_state& state, compute_capability cc, std::span<const index_t> shape,
                       const std::vector<bool>& reduced, std::span<const index_t> out_strides,
                       std::span<const strides_t> in_strides);

/// The first pass's source for those arguments.
[[nodiscard]] std::string reduction_source_for(const reduction_state& state, std::span<const index_t> shape,
                                               const std::vector<bool>& reduced, std::span<const index_t> out_strides,
                                               std::span<const strides_t> in_strides);

}  // namespace ndcuda::jit::detail
