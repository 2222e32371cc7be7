// Elementwise launches: plan, variant, geometry (1-d from the occupancy helper, or 2-d), arguments.
#include <algorithm>
#include <cstdint>
#include <ndcuda/core/error.hpp>
#include <ndcuda/jit/elementwise_kernel.hpp>

#include "jit/elementwise_state.hpp"
#include "jit/module.hpp"

namespace ndcuda::jit::detail {
namespace {

// Threads per block of the 1-d launches. The occupancy helper tends to answer 1024; small arrays
// then run on a few large blocks, and in a CUDA graph of dependent 2^16-element adds 16 blocks of
// 1024 cost 1.13 us a node against 0.82 us for 64 blocks of 256 (H200, PDL on). Big arrays keep
// the same threads in flight either way.
constexpr index_t flat_block_limit = 256;

// A grid-stride launch over `work` threads' worth of items: at most flat_block_limit threads a
// block and never more than 2^29 threads (what 32-bit indexing allows for). The strided variant
// stops at four full waves of blocks; the contiguous one takes a thread per vector (a full grid):
// on an H100, c = a + b at 2^28 float32 moved 3033 GB/s that way against 2902 with four waves of
// grid-stride loops, and a copy 2999 against 2836 (cudaMemcpy D2D: 2981), in one run.
std::pair<dim3, dim3> geometry(const loaded_kernel& k, index_t work, bool full_grid) {
  const auto best = static_cast<index_t>(std::max(k.block_size, 32));
  const index_t block = std::min(best, flat_block_limit);
  const index_t waves = static_cast<index_t>(std::max(k.min_grid_size, 1)) * best / block * 4;
  const index_t limit = (index_t{1} << 29) / block;
  const index_t blocks = std::clamp<index_t>((work + block - 1) / block, 1, full_grid ? limit : std::min(waves, limit));
  return {dim3(static_cast<unsigned>(blocks)), dim3(static_cast<unsigned>(block))};
}

// A kernel that computes inputs (random draws: Philox, and for normals Box-Muller, per element)
// is bound by arithmetic more than by memory. Its threads loop over four waves instead of taking
// one vector each, which pays each thread's set-up (the round keys, the draw's offset) once per
// several vectors. 2^28 float32 on an H100, same runs: `normal` 621 -> 557-571 us (torch.randn
// 596-603 us), `random` 334 -> 348 us, `x + 0.1f * normal(...)` 824 -> 774 us. Vectors of 32
// bytes made `normal` 4% faster still but halved `random` and `integers` (each store then covers
// half of every 32-byte sector it touches). Only kernels with a computed input loop so: a plain
// `c = a + b` at 2^28 float32 on an H200 took 768 us over four waves against 734 us with a full
// grid (torch.add: 746 us), when every expression was taken for one (session 5).
//
// A 1-d launch of `plan`: otherwise the contiguous variant's threads take one aligned vector each (the
// tail of fewer than `vector` elements goes to the first threads), so it needs size / vector
// threads; the strided variant a thread per element.
void run(const kernel_state& state, const loaded_kernel& k, const elementwise_plan& plan, const stream& s,
         kernel_args::packer& args, bool computes) {
  const index_t work = plan.contiguous ? (plan.size + plan.vector - 1) / plan.vector : plan.size;
  const auto [grid, block] = geometry(k, work, plan.contiguous && !computes);
  args.launch(k, grid, block, 0, static_cast<CUstream>(s.handle()), state.waits_first);
}

index_t ceil_div(index_t a, index_t b) {
  return (a + b - 1) / b;
}

// The 2-d grid: a block as wide as the rows (a power of two from one warp up to the occupancy
// helper's block), the rest of its threads on further rows; enough blocks to cover every row and
// column once, capped where the kernel's grid-stride loops take over (grid.y's hardware limit, and
// grid.x * block.x <= 2^29 so 32-bit column indices cannot overflow).
std::pair<dim3, dim3> geometry_2d(const loaded_kernel& k, index_t rows, index_t cols) {
  const index_t block = std::max(k.block_size, 32);
  index_t width = 32;
  while (width < cols && width < block) {
    width *= 2;
  }
  const index_t height = std::max<index_t>(block / width, 1);
  const index_t grid_x = std::min(ceil_div(cols, width), (index_t{1} << 29) / width);
  // About four waves of blocks in all; the kernel's row loop is grid-stride. One block per row
  // (65536 blocks of one element per thread for an 8192^2 outer product) spent more time
  // scheduling blocks than moving bytes.
  const index_t wave_blocks = std::max<index_t>(index_t{std::max(k.min_grid_size, 1)} * 4 / grid_x, 1);
  const index_t grid_y = std::min<index_t>({ceil_div(rows, height), wave_blocks, 65535});
  return {dim3(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y)),
          dim3(static_cast<unsigned>(width), static_cast<unsigned>(height))};
}

// The vectorised 2-d variant: row_vector_block threads, a block as wide as a row's vectors (a
// power of two from one warp up), the rest of its threads on further rows, so several rows are
// in flight per block; about four waves of blocks, the rows grid-stride as in geometry_2d.
std::pair<dim3, dim3> geometry_row_vectors(const loaded_kernel& k, index_t rows, index_t vectors) {
  const index_t threads = row_vector_block;
  index_t width = 32;
  while (width < vectors && width < threads) {
    width *= 2;
  }
  const index_t height = threads / width;
  const index_t grid_x = std::min(ceil_div(vectors, width), (index_t{1} << 29) / width);
  const index_t waves =
      std::max<index_t>(index_t{std::max(k.min_grid_size, 1)} * std::max(k.block_size, 32) * 4 / threads, 1);
  const index_t grid_y = std::min<index_t>({ceil_div(rows, height), std::max<index_t>(waves / grid_x, 1), 65535});
  return {dim3(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y)),
          dim3(static_cast<unsigned>(width), static_cast<unsigned>(height))};
}

// The tiled variant: fixed tile_edge x tile_block_rows blocks (the kernel's layout), one per tile
// up to four waves' worth of threads, as geometry() allows the strided variant; the kernel loops
// over the rest.
std::pair<dim3, dim3> geometry_tiled(const loaded_kernel& k, index_t rows, index_t cols) {
  const index_t threads = index_t{tile_edge} * tile_block_rows;
  const index_t tiles = ceil_div(rows, tile_edge) * ceil_div(cols, tile_edge);
  const index_t waves =
      std::max<index_t>(index_t{std::max(k.min_grid_size, 1)} * std::max(k.block_size, 32) * 4 / threads, 1);
  const index_t blocks = std::clamp<index_t>(tiles, 1, std::min(waves, (index_t{1} << 29) / threads));
  return {dim3(static_cast<unsigned>(blocks)),
          dim3(static_cast<unsigned>(tile_edge), static_cast<unsigned>(tile_block_rows))};
}

// A computed input is read where it is: staging it through a tile would only copy values that
// are as cheap to compute again. Drops such inputs from the tiled plan (the 2-d grid when none
// is left), keeping the other inputs' tiles packed as the kernel lays them out.
void unstage_sources(elementwise_plan& plan, const elementwise_state& state) {
  if (!plan.tiled()) {
    return;
  }
  for (std::size_t i = 0; i < state.signature.in.size(); ++i) {
    if (state.signature.is_source(i)) {
      plan.staged &= ~(std::uint32_t{1} << i);
    }
  }
  plan.shared_bytes = 0;
  for (std::size_t i = 0; i < state.signature.in.size(); ++i) {
    if ((plan.staged >> i & 1u) != 0) {
      plan.shared_bytes += tile_bytes(state.itemsizes[i + 1]);
    }
  }
}

}  // namespace

elementwise_state::elementwise_state(std::string body_text, std::string kernel_name, elementwise_signature sig,
                                     program_cache* programs)
    : body(std::move(body_text)),
      name(std::move(kernel_name)),
      signature(std::move(sig)),
      computes_inputs(signature.computes_inputs()),
      cache(programs != nullptr ? programs : &global_program_cache()) {
  check_kernel_identifier(name, "elementwise kernel");
  if (body.find_first_not_of(" \t\r\n;") == std::string::npos) {
    throw error("elementwise kernel '" + name + "' has an empty body; write what `out` is, e.g. \"out = x * 2\"");
  }
  if (signature.in.size() > elementwise_max_inputs) {
    throw error("elementwise kernel '" + name + "' has " + std::to_string(signature.in.size()) + " inputs; at most " +
                std::to_string(elementwise_max_inputs) + " are supported");
  }
  if (signature.scalars.size() > elementwise_max_scalars) {
    throw error("elementwise kernel '" + name + "' has " + std::to_string(signature.scalars.size()) +
                " scalar parameters; at most " + std::to_string(elementwise_max_scalars) + " are supported");
  }
  itemsizes.push_back(itemsize(signature.out));
  for (dtype t : signature.in) {
    itemsizes.push_back(itemsize(t));
  }
}

const generated_kernel& elementwise_state::variant(const elementwise_plan& plan) const {
  const auto id = static_cast<std::size_t>(plan.variant());
  if (const generated_kernel* k = variants_[id].load(std::memory_order_acquire)) {
    return *k;
  }
  std::lock_guard lock(mutex_);
  if (const generated_kernel* k = variants_[id].load(std::memory_order_acquire)) {
    return *k;
  }
  // kernel_state is not movable: built in place.
  owned_.emplace_back(new generated_kernel{
      elementwise_args(signature, plan),
      kernel_state(elementwise_source(body, name, signature, plan), elementwise_kernel_name(name, plan),
                   generated_kernel_options(), cache, /*waits_first=*/true, body)});
  variants_[id].store(owned_.back().get(), std::memory_order_release);
  return *owned_.back();
}

std::shared_ptr<elementwise_state> make_elementwise_state(std::string body, std::string name, dtype out,
                                                          std::vector<dtype> in, std::vector<dtype> scalars,
                                                          std::vector<std::string> sources) {
  return std::make_shared<elementwise_state>(
      std::move(body), std::move(name),
      elementwise_signature{out, std::move(in), std::move(scalars), std::move(sources)});
}

void launch_elementwise(const elementwise_state& state, index_t n, void* out, const void* const* in, const stream& s,
                        const void* const* scalars) {
  if (n < 0) {
    throw shape_error("elementwise kernel '" + state.name + "' was given a negative element count " +
                      std::to_string(n));
  }
  if (n == 0) {
    return;
  }
  const std::size_t inputs = state.signature.in.size();
  std::array<std::uintptr_t, elementwise_max_inputs + 1> addresses{};
  addresses[0] = reinterpret_cast<std::uintptr_t>(out);
  for (std::size_t i = 0; i < inputs; ++i) {
    // A computed input has no memory to align: `in[i]` is its parameter block on the host.
    addresses[i + 1] = state.signature.is_source(i) ? 0 : reinterpret_cast<std::uintptr_t>(in[i]);
  }
  const elementwise_plan plan = plan_contiguous(n, {addresses.data(), inputs + 1}, state.itemsizes);
  const generated_kernel& variant = state.variant(plan);
  if (state.tier0 && !variant.kernel.ready_without_waiting(s.device()) &&
      launch_tier0(*state.tier0, n, {}, {}, out, in, inputs, scalars, s)) {
    return;  // tier 0 ran it; the variant compiles in the background for later calls
  }
  const loaded_kernel& k = variant.kernel.on_device(s.device());
  kernel_args::packer args(variant.args);
  args.pointer(out).inputs(in, inputs).scalars(scalars, state.signature.scalars.size()).index(n);
  run(variant.kernel, k, plan, s, args, state.computes_inputs);
}

void launch_elementwise(const elementwise_state& state, const operand& out, std::span<const operand> in,
                        const stream& s, const void* const* scalars) {
  const std::size_t inputs = state.signature.in.size();
  if (in.size() != inputs) {
    throw error("elementwise kernel '" + state.name + "' takes " + std::to_string(inputs) + " inputs, got " +
                std::to_string(in.size()));
  }
  const std::span<const index_t> shape = out.shape;
  if (shape_size(shape) == 0) {
    return;
  }
  std::vector<strides_t> strides;
  strides.reserve(inputs + 1);
  strides.emplace_back(out.strides.empty() ? c_strides(shape) : strides_t(out.strides.begin(), out.strides.end()));
  if (strides[0].size() != shape.size()) {
    throw shape_error("the output of elementwise kernel '" + state.name + "' has " + std::to_string(strides[0].size()) +
                      " strides for a shape of " + std::to_string(shape.size()) + " dimensions " + format_shape(shape));
  }
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (strides[0][d] == 0 && shape[d] > 1) {
      throw shape_error("the output of elementwise kernel '" + state.name + "' has stride 0 along axis " +
                        std::to_string(d) + " of shape " + format_shape(shape) +
                        ": every output element must be written once (NumPy: non-broadcastable output operand)");
    }
  }
  for (const operand& o : in) {
    const strides_t own = o.strides.empty() ? c_strides(o.shape) : strides_t(o.strides.begin(), o.strides.end());
    strides.push_back(broadcast_strides(o.shape, own, shape));  // NumPy's message if they do not fit
  }
  std::vector<std::uintptr_t> addresses;
  addresses.push_back(reinterpret_cast<std::uintptr_t>(out.data));
  for (std::size_t i = 0; i < in.size(); ++i) {
    addresses.push_back(state.signature.is_source(i) ? 0 : reinterpret_cast<std::uintptr_t>(in[i].data));
  }

  elementwise_plan plan = plan_strided(shape, strides, addresses, state.itemsizes);
  unstage_sources(plan, state);
  if (plan.contiguous) {
    std::vector<const void*> pointers;
    for (const operand& o : in) {
      pointers.push_back(o.data);
    }
    launch_elementwise(state, plan.size, const_cast<void*>(out.data), pointers.data(), s, scalars);
    return;
  }
  const generated_kernel& variant = state.variant(plan);
  if (state.tier0 && !variant.kernel.ready_without_waiting(s.device())) {
    std::vector<const void*> pointers;
    for (const operand& o : in) {
      pointers.push_back(o.data);
    }
    if (launch_tier0(*state.tier0, plan.size, plan.shape, plan.strides, out.data, pointers.data(), inputs, scalars,
                     s)) {
      return;
    }
  }
  const loaded_kernel& k = variant.kernel.on_device(s.device());
  kernel_args::packer args(variant.args);
  args.pointer(out.data);
  for (const operand& o : in) {
    args.input(o.data);
  }
  args.scalars(scalars, state.signature.scalars.size()).indexer(plan.size, plan.shape, plan.strides);
  if (plan.tiled()) {
    args.value(plan.staged);
  }
  if (plan.contiguous || plan.ndim() != 2 || (!plan.tiled() && plan.shape[1] < narrow_columns)) {
    run(variant.kernel, k, plan, s, args, state.computes_inputs);
    return;
  }
  const auto [grid, block] = plan.tiled()         ? geometry_tiled(k, plan.shape[0], plan.shape[1])
                             : plan.row_vectors() ? geometry_row_vectors(k, plan.shape[0], plan.shape[1] / plan.vector)
                                                  : geometry_2d(k, plan.shape[0], plan.shape[1]);
  args.launch(k, grid, block, plan.shared_bytes, static_cast<CUstream>(s.handle()), variant.kernel.waits_first);
}

void compile_elementwise(const elementwise_state& state, compute_capability cc) {
  // The variant nearly every first launch uses: dense, 32-bit, vectors as wide as 16 bytes allow.
  std::vector<std::uintptr_t> aligned(state.itemsizes.size(), 256);
  const elementwise_plan plan = plan_contiguous(1024, aligned, state.itemsizes);
  compile_for(state.variant(plan).kernel, cc);
}

}  // namespace ndcuda::jit::detail
