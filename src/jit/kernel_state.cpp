// Resolving a kernel on a device: target architecture, key, program (memory, disk or NVRTC),
// module; and the public launch entry points built on that.
#include "jit/kernel_state.hpp"

#include <algorithm>
#include <ndcuda/jit/raw_kernel.hpp>

#include "jit/background_compiles.hpp"
#include "jit/compile_events.hpp"
#include "jit/kernel_record.hpp"
#include "jit/tier0_program.hpp"
#include "jit/warnings.hpp"

namespace ndcuda::jit::detail {

std::string program_name_for(std::string_view name) {
  std::string out;
  for (char c : name) {
    const bool identifier = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out += identifier ? c : '_';
  }
  return (out.empty() ? std::string("kernel") : out) + ".cu";
}

kernel_state::kernel_state(std::string source_text, std::string name_expression, std::vector<std::string> nvrtc_options,
                           program_cache* programs, bool generated_waits_first, std::string what)
    : source(std::move(source_text)),
      name(std::move(name_expression)),
      options(std::move(nvrtc_options)),
      program_name(program_name_for(name)),
      cache(programs != nullptr ? programs : &global_program_cache()),
      waits_first(generated_waits_first),
      description(std::move(what)) {
  if (name.empty()) {
    throw error(
        "a raw_kernel needs the name of the kernel to launch (e.g. \"saxpy\" for extern \"C\" __global__ "
        "void saxpy(...), or \"scale<float>\" for a template instance)");
  }
}

kernel_key kernel_state::key_for(compile_target target) const {
  return make_key(source, program_name, {name}, options, target);
}

const loaded_kernel& kernel_state::resolve(int device_index) const {
  if (device_index >= fast_devices) {
    std::lock_guard lock(mutex_);
    if (auto found = other_devices_.find(device_index); found != other_devices_.end()) {
      return *found->second;
    }
  }
  const device dev(device_index);  // validates the ordinal with a clear message
  const compile_target target = select_target(dev.capability().value());
  const kernel_key key = key_for(target);
  std::shared_ptr<const program> prog = observed_get(*cache, key, name, description);
  const loaded_kernel* loaded = nullptr;
  try {
    loaded = &prog->kernel(device_index, 0);
  } catch (const image_rejected& rejected) {
    if (!prog->from_disk()) {
      throw;
    }
    // A cache entry the driver will not load (it passed validation, so it was written for
    // another device or driver): recompile, overwrite it, and go on.
    warn_once("stale-cache-entry", "the driver refused kernel '" + name + "' from the JIT disk cache (" +
                                       rejected.name() + "); recompiling it for " + target.name() +
                                       " and replacing the entry");
    prog = cache->replace_stale(key, prog.get());
    loaded = &prog->kernel(device_index, 0);
  }
  std::lock_guard lock(mutex_);
  programs_.push_back(prog);
  if (device_index < fast_devices) {
    resolved_[static_cast<std::size_t>(device_index)].store(loaded, std::memory_order_release);
  } else {
    other_devices_[device_index] = loaded;
  }
  return *loaded;
}

bool kernel_state::ready_without_waiting(int device_index) const {
  if (!unresolved_on(device_index)) {
    return true;  // resolved, or a device past the fast table: the usual path
  }
  std::unique_lock lock(mutex_);
  if (background_done_ != nullptr) {
    return background_done_->load(std::memory_order_acquire);
  }
  kernel_key key = key_for(select_target(device(device_index).capability().value()));
  if (cache->available(key)) {
    return true;
  }
  background_done_ = std::make_shared<std::atomic<bool>>(false);
  lock.unlock();
  record_key(key);  // now: the process may end before the compile does
  // The job holds copies: the kernel_state may go before it runs.
  compile_in_background(
      [programs = cache, key = std::move(key), kernel = name, what = description, done = background_done_] {
        try {
          (void)observed_get(*programs, key, kernel, what, /*background=*/true);
        } catch (...) {  // NOLINT(bugprone-empty-catch): the next on_device compiles again and reports it
        }
        done->store(true, std::memory_order_release);
      });
  return false;
}

std::shared_ptr<kernel_state> make_kernel_state(std::string source, std::string name,
                                                std::vector<std::string> options) {
  return std::make_shared<kernel_state>(std::move(source), std::move(name), std::move(options));
}

void launch(const kernel_state& kernel, const launch_config& config, const stream& s, void* const* args,
            const std::size_t* sizes, std::size_t count) {
  const loaded_kernel& k = kernel.on_device(s.device());
  check_arguments(k, sizes, count);
  launch(k, config.grid, config.block, config.shared_bytes, static_cast<CUstream>(s.handle()), const_cast<void**>(args),
         kernel.waits_first);
}

launch_config occupancy_config(const kernel_state& kernel, const stream& s, std::size_t work_items,
                               std::size_t shared_bytes) {
  const loaded_kernel& k = kernel.on_device(s.device());
  const auto [min_grid, block_size] = occupancy(k, shared_bytes);
  const std::size_t block = static_cast<std::size_t>(std::max(block_size, 1));
  // Enough blocks for every item, but no more than fill the device four times over: a
  // grid-stride loop then gives each thread several items and keeps every SM busy.
  const std::size_t wanted = std::max<std::size_t>((work_items + block - 1) / block, 1);
  const std::size_t cap = static_cast<std::size_t>(std::max(min_grid, 1)) * 4;
  return {dim3(static_cast<unsigned>(std::min(wanted, cap))), dim3(static_cast<unsigned>(block)), shared_bytes};
}

void compile_for(const kernel_state& kernel, compute_capability cc) {
  (void)observed_get(*kernel.cache, kernel.key_for(select_target(cc.value())), kernel.name, kernel.description);
}

void start_compile(const kernel_state& kernel, int device) {
  if (tiered_calls_enabled()) {
    (void)kernel.ready_without_waiting(device);
  }
}

}  // namespace ndcuda::jit::detail

namespace ndcuda {

// Out of line so that the library exports raw_kernel's member, not a detail:: entry point.
void raw_kernel::start_compile(const stream& s) const {
  jit::detail::start_compile(*state_, s.device());
}

}  // namespace ndcuda

namespace ndcuda::jit::detail {

const std::string& kernel_name(const kernel_state& kernel) {
  return kernel.name;
}

const std::string& kernel_source(const kernel_state& kernel) {
  return kernel.source;
}

}  // namespace ndcuda::jit::detail
