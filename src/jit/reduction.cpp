// Reduction launches: checks and shapes, per-variant kernels, launch geometry (how many blocks,
// how the reduced elements split over blockIdx.y), partial results and the second pass.
#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/capture.hpp>
#include <ndcuda/jit/launch.hpp>
#include <ndcuda/memory/buffer.hpp>
#include <ndcuda/ops/reduce_engine.hpp>

#include "jit/elementwise_source.hpp"
#include "jit/kernel_state.hpp"
#include "jit/module.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/reduction_plan.hpp"
#include "jit/reduction_source.hpp"

namespace ndcuda::detail {

struct reduction_state {
  jit::detail::reduction_signature signature;
  jit::detail::program_cache* cache = &jit::detail::global_program_cache();

  const jit::detail::kernel_state& first_pass(const jit::detail::reduction_plan& plan) const {
    return find(jit::detail::reduction_kernel_name(signature, plan),
                [&] { return jit::detail::reduction_source(signature, plan); });
  }
  const jit::detail::kernel_state& second_pass(const jit::detail::reduction_plan& plan) const {
    return find(jit::detail::finish_kernel_name(signature, plan),
                [&] { return jit::detail::finish_source(signature, plan); });
  }

 private:
  template <class F>
  const jit::detail::kernel_state& find(const std::string& name, const F& source) const {
    std::lock_guard lock(mutex_);
    auto it = kernels_.find(name);
    if (it == kernels_.end()) {
      it = kernels_
               .emplace(name, std::make_unique<jit::detail::kernel_state>(
                                  source(), name, jit::detail::generated_kernel_options(), cache,
                                  /*waits_first=*/true))
               .first;
    }
    return *it->second;
  }
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::unique_ptr<jit::detail::kernel_state>> kernels_;
};

namespace {

using jit::detail::reduce_block;
using jit::detail::reduce_strategy;
using jit::detail::reduction_plan;

/// Bytes of partial results per output and split: more than any reducer's accumulator
/// (a Welford triple of complex128 is 40 bytes).
constexpr std::size_t partial_bytes = 64;

index_t ceil_div(index_t a, index_t b) {
  return (a + b - 1) / b;
}

struct geometry {
  dim3 grid;
  dim3 block;
  index_t chunk = 0;
  index_t splits = 1;
};

// `resident`: the blocks of reduce_block threads the device holds at once. Enough outputs fill
// them with one split; otherwise the reduced elements split over blockIdx.y so that every SM has
// blocks, each split long enough that the second pass stays small.
geometry plan_geometry(const reduction_plan& plan, index_t resident) {
  geometry g;
  g.block = dim3(reduce_block);
  const index_t per_block = plan.strategy == reduce_strategy::rows ? reduce_block / plan.group : reduce_block;
  const index_t needed = std::max<index_t>(ceil_div(plan.outputs, per_block), 1);
  const index_t grid_x = std::min<index_t>(needed, resident * 8);
  index_t splits = 1;
  if (needed < resident && plan.reduced > 0) {
    const index_t min_chunk =
        plan.strategy == reduce_strategy::rows ? index_t{plan.group} * plan.vector * 8 : index_t{16};
    splits = std::clamp<index_t>(resident / needed, 1, std::min<index_t>(ceil_div(plan.reduced, min_chunk), 65535));
  }
  // Rows: every split starts where a whole step of its group does (group x vector elements, 4 KiB
  // for float32 vectors of a block), so each warp's loads cover whole 512-byte spans. Splits that
  // started only vector-aligned read 2^28 floats at 4385 GB/s on an H200, aligned ones at 4576.
  const index_t align = plan.strategy == reduce_strategy::rows ? index_t{plan.group} * plan.vector : index_t{1};
  g.chunk = std::max<index_t>(ceil_div(plan.reduced, splits), 0);
  g.chunk = ceil_div(g.chunk, align) * align;
  g.splits = g.chunk > 0 ? ceil_div(plan.reduced, g.chunk) : 1;
  g.grid = dim3(static_cast<unsigned>(grid_x), static_cast<unsigned>(g.splits));
  return g;
}

// An indexer parameter as kernels/indexer.cuh lays it out: size, shape, strides per operand.
std::vector<std::int64_t> indexer_words(index_t size, const shape_t& shape, const std::vector<strides_t>& strides) {
  std::vector<std::int64_t> w{size};
  w.insert(w.end(), shape.begin(), shape.end());
  for (const strides_t& s : strides) {
    w.insert(w.end(), s.begin(), s.end());
  }
  return w;
}

struct packed {
  std::vector<std::int64_t> wide;
  std::vector<std::int32_t> narrow;
  void* data(bool index64) { return index64 ? static_cast<void*>(wide.data()) : static_cast<void*>(narrow.data()); }
  std::size_t bytes(bool index64) const { return index64 ? wide.size() * 8 : narrow.size() * 4; }
};

packed pack(std::vector<std::int64_t> words) {
  packed p;
  p.narrow.assign(words.begin(), words.end());  // values checked to fit by the plan when narrow
  p.wide = std::move(words);
  return p;
}

reduction_plan plan_for(const reduction_state& state, std::span<const index_t> shape, const std::vector<bool>& reduced,
                        std::span<const index_t> out_strides, std::span<const strides_t> in_strides,
                        std::span<const std::uintptr_t> addresses) {
  std::vector<std::size_t> sizes;
  for (dtype t : state.signature.in) {
    sizes.push_back(itemsize(t));
  }
  return jit::detail::plan_reduction(shape, reduced, out_strides, in_strides, addresses, sizes,
                                     needs_index(state.signature.spec.kind));
}

strides_t full_out_strides(std::span<const index_t> shape, const std::vector<bool>& reduced) {
  strides_t s(shape.size(), 0);
  index_t step = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (!reduced[d]) {
      s[d] = step;
      step *= shape[d];
    }
  }
  return s;
}

std::string empty_message(reduce_kind k) {
  switch (k) {
    case reduce_kind::min:
    case reduce_kind::norm_min:
      return "zero-size array to reduction operation minimum which has no identity";
    case reduce_kind::max:
      return "zero-size array to reduction operation maximum which has no identity";
    case reduce_kind::nanmin:
      return "zero-size array to reduction operation fmin which has no identity";
    case reduce_kind::nanmax:
      return "zero-size array to reduction operation fmax which has no identity";
    case reduce_kind::argmin:
      return "attempt to get argmin of an empty sequence";
    case reduce_kind::argmax:
      return "attempt to get argmax of an empty sequence";
    default:
      return "empty reduction";
  }
}

}  // namespace

std::shared_ptr<reduction_state> make_reduction_state(const std::string& map_statement, const reduce_spec& spec,
                                                      std::span<const leaf_ref> inputs,
                                                      std::span<const dtype> scalars) {
  auto state = std::make_shared<reduction_state>();
  state->signature.spec = spec;
  state->signature.map_statement = map_statement;
  for (const leaf_ref& l : inputs) {
    state->signature.in.push_back(l.type);
    state->signature.sources.emplace_back(l.source != nullptr ? l.source : "");
  }
  state->signature.scalars.assign(scalars.begin(), scalars.end());
  state->signature.name = std::string("nd_") + reduce_name(spec.kind);
  if (spec.kind == reduce_kind::norm_max || spec.kind == reduce_kind::norm_min || spec.kind == reduce_kind::norm1 ||
      spec.kind == reduce_kind::norm2) {
    state->signature.name += spec.kind == reduce_kind::norm1      ? "1"
                             : spec.kind == reduce_kind::norm2    ? "2"
                             : spec.kind == reduce_kind::norm_max ? "_inf"
                                                                  : "_neginf";
  }
  return state;
}

reduce_call prepare_reduction(reduce_kind kind, std::span<const leaf_ref> inputs,
                              const std::optional<std::vector<int>>& axes, bool keepdims) {
  reduce_call call;
  call.shape = inputs[0].layout->shape;
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i].device != inputs[0].device) {
      throw device_error(std::string(reduce_name(kind)) + ": the expression reads arrays on devices " +
                         std::to_string(inputs[0].device) + " and " + std::to_string(inputs[i].device) +
                         "; copy the operands to one device first");
    }
    if (inputs[i].layout->shape != call.shape) {
      call.shape = broadcast_shapes(call.shape, inputs[i].layout->shape);
    }
  }
  call.reduced = jit::detail::reduced_axes_mask(axes, static_cast<int>(call.shape.size()));
  call.result_shape = jit::detail::reduction_result_shape(call.shape, call.reduced, keepdims);
  call.reduced_count = 1;
  for (std::size_t d = 0; d < call.shape.size(); ++d) {
    if (call.reduced[d]) {
      call.reduced_count *= call.shape[d];
    }
  }
  if (call.reduced_count == 0 && !has_identity(kind)) {
    throw shape_error(empty_message(kind));
  }
  return call;
}

void run_reduction(const reduction_state& state, const reduce_call& call, const leaf_ref& out,
                   std::span<const leaf_ref> inputs, const void* const* scalars, double param) {
  const stream& s = *out.s;
  if (shape_size(call.result_shape) == 0) {
    return;
  }
  std::vector<strides_t> in_strides;
  std::vector<std::uintptr_t> addresses;
  for (const leaf_ref& in : inputs) {
    if (!(*in.s == s)) {
      order_after(s, *in.s);
    }
    in_strides.push_back(in.layout->shape == call.shape
                             ? in.layout->strides
                             : broadcast_strides(in.layout->shape, in.layout->strides, call.shape));
    // A computed input has no memory to align: its data is its parameter block on the host.
    addresses.push_back(in.source != nullptr ? 0 : reinterpret_cast<std::uintptr_t>(in.data));
  }
  retain_for_capture(s, std::span<const leaf_ref>(&out, 1));  // a graph being captured keeps them alive
  retain_for_capture(s, inputs);
  const strides_t out_strides = full_out_strides(call.shape, call.reduced);
  const reduction_plan plan = plan_for(state, call.shape, call.reduced, out_strides, in_strides, addresses);
  const jit::detail::kernel_state& first = state.first_pass(plan);
  const jit::detail::loaded_kernel& k = first.on_device(s.device());
  const auto [min_grid, best_block] = jit::detail::occupancy(k, 0);
  const index_t resident = std::max<index_t>(index_t{min_grid} * std::max(best_block, 32) / reduce_block, 1);
  const geometry g = plan_geometry(plan, resident);

  void* partials = nullptr;
  std::shared_ptr<const void> partials_owner;
  if (g.splits > 1) {
    const index_t partial_count = checked_mul(g.splits, plan.outputs, "reduction partials");
    partials_owner = allocate_buffer(checked_bytes(partial_count, partial_bytes), s, &partials);
  }
  packed outer = pack(indexer_words(plan.outputs, plan.out_shape, plan.out_strides));
  packed inner = pack(indexer_words(plan.reduced, plan.red_shape, plan.red_strides));
  const bool wide = plan.index64;
  std::int64_t chunk64 = g.chunk;
  auto chunk32 = static_cast<std::int32_t>(wide ? 0 : g.chunk);
  double p = param;

  std::vector<const void*> pointers{out.data, partials};
  for (const leaf_ref& in : inputs) {
    pointers.push_back(in.data);
  }
  std::vector<void*> args;
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < pointers.size(); ++i) {
    const bool source = i >= 2 && inputs[i - 2].source != nullptr;
    args.push_back(source ? const_cast<void*>(pointers[i]) : const_cast<void**>(&pointers[i]));
    sizes.push_back(source ? source_param_size : sizeof(void*));
  }
  for (std::size_t i = 0; i < state.signature.scalars.size(); ++i) {
    args.push_back(const_cast<void*>(scalars[i]));
    sizes.push_back(itemsize(state.signature.scalars[i]));
  }
  args.push_back(outer.data(wide));
  sizes.push_back(outer.bytes(wide));
  args.push_back(inner.data(wide));
  sizes.push_back(inner.bytes(wide));
  args.push_back(wide ? static_cast<void*>(&chunk64) : static_cast<void*>(&chunk32));
  sizes.push_back(wide ? sizeof chunk64 : sizeof chunk32);
  args.push_back(&p);
  sizes.push_back(sizeof p);
  jit::detail::check_arguments(k, sizes.data(), args.size());
  jit::detail::launch(k, g.grid, g.block, 0, static_cast<CUstream>(s.handle()), args.data(), first.waits_first);
  if (g.splits == 1) {
    return;
  }

  const jit::detail::kernel_state& second = state.second_pass(plan);
  const jit::detail::loaded_kernel& f = second.on_device(s.device());
  std::int64_t splits64 = g.splits;
  auto splits32 = static_cast<std::int32_t>(g.splits);
  auto count = static_cast<std::int64_t>(plan.reduced);
  const void* partials_in = partials;
  void* out_data = const_cast<void*>(out.data);
  std::vector<void*> fargs{&out_data,        const_cast<void**>(&partials_in),
                           outer.data(wide), wide ? static_cast<void*>(&splits64) : static_cast<void*>(&splits32),
                           &count,           &p};
  std::vector<std::size_t> fsizes{sizeof(void*), sizeof(void*), outer.bytes(wide), wide ? std::size_t{8} : 4, 8, 8};
  jit::detail::check_arguments(f, fsizes.data(), fargs.size());
  const index_t fblocks = plan.strategy == reduce_strategy::rows
                              ? std::min<index_t>(plan.outputs, resident * 8)
                              : std::min<index_t>(ceil_div(plan.outputs, reduce_block), resident * 8);
  jit::detail::launch(f, dim3(static_cast<unsigned>(fblocks)), dim3(reduce_block), 0, static_cast<CUstream>(s.handle()),
                      fargs.data(), second.waits_first);
}

void compile_reduction(const reduction_state& state, compute_capability cc, std::span<const index_t> shape,
                       const std::vector<bool>& reduced, std::span<const strides_t> in_strides) {
  const std::vector<std::uintptr_t> aligned(in_strides.size(), 256);
  const strides_t out_strides = full_out_strides(shape, reduced);
  const reduction_plan plan = plan_for(state, shape, reduced, out_strides, in_strides, aligned);
  jit::detail::compile_for(state.first_pass(plan), cc);
  jit::detail::compile_for(state.second_pass(plan), cc);
}

std::string reduction_source_for(const reduction_state& state, std::span<const index_t> shape,
                                 const std::vector<bool>& reduced, std::span<const strides_t> in_strides) {
  const std::vector<std::uintptr_t> aligned(in_strides.size(), 256);
  const strides_t out_strides = full_out_strides(shape, reduced);
  return jit::detail::reduction_source(state.signature,
                                       plan_for(state, shape, reduced, out_strides, in_strides, aligned));
}

}  // namespace ndcuda::detail
