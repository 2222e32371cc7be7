// Running a tier-0 program: the interpreter image that fits the device (a CUBIN of the same major
// architecture, no newer than the device), loaded once per device like any JIT program, and its
// parameter block filled per launch. The reduction folds' images load the same way
// (tier0_reduction.cpp).
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/device/device.hpp>

#include "jit/elementwise_state.hpp"
#include "jit/module.hpp"
#include "jit/program_cache.hpp"
#include "jit/tier0_images.hpp"
#include "jit/tier0_program.hpp"

namespace ndcuda::jit::detail {
namespace {

constexpr const char* interpreter_name = "ndcuda_tier0_elementwise";

}  // namespace

const tier0_image* tier0_image_for(std::span<const tier0_image> images, int device_arch) {
  const tier0_image* best = nullptr;
  for (const tier0_image& image : images) {
    if (image.arch / 10 == device_arch / 10 && image.arch <= device_arch) {
      best = &image;
    }
  }
  return best;
}

const program* tier0_program_for(std::span<const tier0_image> images, const char* file,
                                 const std::vector<std::string>& kernels, int device_arch) {
  const tier0_image* best = tier0_image_for(images, device_arch);
  if (best == nullptr) {
    return nullptr;
  }
  // Made once per image and kept for the life of the process, as global_program_cache() keeps its
  // programs.
  static std::mutex mutex;
  static auto* programs = new std::vector<std::pair<const unsigned char*, std::unique_ptr<program>>>();
  std::lock_guard lock(mutex);
  for (const auto& [data, made] : *programs) {
    if (data == best->data) {
      return made.get();
    }
  }
  kernel_key key;
  key.target = compile_target{best->arch, false};
  key.program_name = file;
  key.name_expressions = kernels;
  compiled_program image;
  image.image.assign(reinterpret_cast<const char*>(best->data), best->size);
  image.lowered_names = kernels;
  programs->emplace_back(best->data, std::make_unique<program>(std::move(key), std::move(image), false));
  return programs->back().second.get();
}

namespace {

std::atomic<std::uint64_t> launches{0};
std::atomic<int> tiered_override{-1};  // -1: NDCUDA_JIT_TIERED decides

}  // namespace

std::uint64_t tier0_launch_count() noexcept {
  return launches.load(std::memory_order_relaxed);
}

bool tiered_calls_enabled() noexcept {
  if (const int set = tiered_override.load(std::memory_order_relaxed); set >= 0) {
    return set != 0;
  }
  static const bool from_environment = [] {
    const char* value = std::getenv("NDCUDA_JIT_TIERED");
    return value == nullptr || std::strcmp(value, "0") != 0;
  }();
  return from_environment;
}

void set_tiered_calls(bool enabled) noexcept {
  tiered_override.store(enabled ? 1 : 0, std::memory_order_relaxed);
}

void use_environment_for_tiered_calls() noexcept {
  tiered_override.store(-1, std::memory_order_relaxed);
}

void attach_tier0(elementwise_state& state) {
  if (!tiered_calls_enabled()) {
    return;
  }
  state.tier0 = encode_tier0(state.body, state.signature);
  if (state.tier0) {
    state.tier0->nvtx = ndcuda::detail::nvtx_register(state.name + " (tier 0)");
  }
}

bool launch_tier0(const tier0_program& encoded, index_t n, std::span<const index_t> shape,
                  std::span<const strides_t> strides, const void* out, const void* const* inputs,
                  std::size_t input_count, const void* const* scalars, const stream& s) {
  if (shape.size() > NDCUDA_TIER0_MAX_NDIM || input_count + 1 > NDCUDA_TIER0_MAX_OPERANDS) {
    return false;
  }
  const int device_index = s.device();
  static const std::vector<std::string> names = {interpreter_name};
  const program* interpreter =
      tier0_program_for(tier0_images(), "tier0_interpreter.cu", names, device(device_index).capability().value());
  if (interpreter == nullptr) {
    return false;
  }
  const loaded_kernel& k = interpreter->kernel(device_index, 0);

  ndcuda_tier0_params params{};
  std::copy(encoded.steps.begin(), encoded.steps.end(), params.steps);
  params.step_count = static_cast<int>(encoded.steps.size());
  params.out_type = encoded.out_type;
  params.ndim = strides.empty() ? 0 : static_cast<int>(shape.size());
  params.size = n;
  params.pointers[0] = const_cast<void*>(out);
  for (std::size_t i = 0; i < input_count; ++i) {
    params.pointers[i + 1] = const_cast<void*>(inputs[i]);
  }
  for (std::size_t i = 0; i < encoded.scalar_bytes.size(); ++i) {
    std::memcpy(&params.scalars[i], scalars[i], std::min(encoded.scalar_bytes[i], sizeof(params.scalars[i])));
  }
  for (std::size_t d = 0; d < shape.size() && !strides.empty(); ++d) {
    params.shape[d] = shape[d];
    for (std::size_t o = 0; o < strides.size(); ++o) {
      params.strides[o][d] = strides[o][d];
    }
  }
  // A grid-stride loop: blocks of 128 threads, each thread NDCUDA_TIER0_LANES elements a pass; at
  // most two waves of the threads that fill the device (the occupancy helper's blocks of its own
  // best size, counted in threads).
  constexpr index_t block = 128;
  const index_t fill = index_t{std::max(k.min_grid_size, 1)} * std::max(k.block_size, 32) / block;
  const index_t per_block = block * NDCUDA_TIER0_LANES;
  const index_t blocks = std::clamp<index_t>((n + per_block - 1) / per_block, 1, std::max<index_t>(fill * 2, 1));
  void* args[] = {&params};
  launch(k, dim3(static_cast<unsigned>(blocks)), dim3(static_cast<unsigned>(block)), 0,
         static_cast<CUstream>(s.handle()), args, /*waits_first=*/false, encoded.nvtx);
  launches.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace ndcuda::jit::detail
