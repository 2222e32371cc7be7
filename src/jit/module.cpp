// Loading programs per device, and launching. The driver API throughout: modules are per-context
// objects, and the runtime would pick the current device rather than the one asked for.
#include "jit/module.hpp"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/limits.hpp>

#include "jit/program_cache.hpp"

namespace ndcuda::jit::detail {
namespace {

using ndcuda::detail::driver;

// Entry points newer than the 12.0 ABI that driver_api.cpp resolves everything at: resolved here
// on their own, and optional (null on an older driver).
template <class Fn>
Fn optional_entry(const char* symbol, int version) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult status{};
#if CUDART_VERSION >= 12050
  const cudaError_t rc = cudaGetDriverEntryPointByVersion(symbol, &address, version, cudaEnableDefault, &status);
#else
  (void)version;
  const cudaError_t rc = cudaGetDriverEntryPoint(symbol, &address, cudaEnableDefault, &status);
#endif
  if (rc != cudaSuccess || status != cudaDriverEntryPointSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<Fn>(address);
}

using param_info_fn = CUresult (*)(CUfunction, std::size_t, std::size_t*, std::size_t*);
using func_load_fn = CUresult (*)(CUfunction);

param_info_fn param_info() {
  static const auto fn = optional_entry<param_info_fn>("cuFuncGetParamInfo", 12040);
  return fn;
}

func_load_fn func_load() {
  static const auto fn = optional_entry<func_load_fn>("cuFuncLoad", 12040);
  return fn;
}

bool is_image_error(CUresult rc) {
  return rc == CUDA_ERROR_INVALID_IMAGE || rc == CUDA_ERROR_NO_BINARY_FOR_GPU || rc == CUDA_ERROR_INVALID_PTX ||
         rc == CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
}

std::string error_name(CUresult rc) {
  const char* name = "CUDA_ERROR_UNKNOWN";
  (void)driver().get_error_name(rc, &name);
  return name;
}

std::string dims(dim3 d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

// PDL inside stream capture becomes a programmatic graph edge from CUDA 12.3 on; older drivers
// launch without it.
constexpr int dependent_launch_min_driver = 12030;
constexpr int dependent_launch_min_arch = 90;

}  // namespace

bool dependent_launch_enabled() noexcept {
  static const bool enabled = [] {
    const char* value = std::getenv("NDCUDA_DISABLE_PDL");
    if (value != nullptr && *value != '\0' && std::strcmp(value, "0") != 0) {
      return false;
    }
    int version = 0;
    if (cudaDriverGetVersion(&version) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    return version >= dependent_launch_min_driver;
  }();
  return enabled;
}

bool image_uses_device_heap(std::string_view image, bool ptx) {
  if (ptx) {
    return image.find(") malloc") != std::string_view::npos ||
           image.find(".extern .func free") != std::string_view::npos;
  }
  // Calls to malloc/free stay unresolved in the CUBIN's string table for the driver to link.
  using namespace std::string_view_literals;
  return image.find("\0malloc\0"sv) != std::string_view::npos || image.find("\0free\0"sv) != std::string_view::npos;
}

program::~program() {
  const ndcuda::detail::driver_api* api = ndcuda::detail::try_driver(nullptr);
  if (api == nullptr) {
    return;
  }
  for (auto& [device, module] : modules_) {
    if (module == nullptr || module->module == nullptr) {
      continue;
    }
    // cuModuleUnload acts on the current context; errors are ignored (at exit the context may
    // already be gone, and there is nothing left to free then).
    CUcontext previous = nullptr;
    if (api->ctx_get_current(&previous) != CUDA_SUCCESS) {
      continue;
    }
    if (api->ctx_set_current(module->context) == CUDA_SUCCESS) {
      (void)api->module_unload(module->module);
      (void)api->ctx_set_current(previous);
    }
  }
}

void program::check_load(int result, const char* call, int device) const {
  const auto rc = static_cast<CUresult>(result);
  if (rc == CUDA_SUCCESS) {
    return;
  }
  const std::string what = std::string(call) + "(" + key_.program_name + ", " + key_.target.name() + ")";
  if (is_image_error(rc)) {
    throw image_rejected(static_cast<int>(rc), error_name(rc), what, "device " + std::to_string(device),
                         "the driver refused the " + key_.target.name() + " image of kernel '" + key_.program_name +
                             "' on device " + std::to_string(device) + " with " + error_name(rc) +
                             "; for an image compiled just now this means the NVIDIA driver is older than NVRTC " +
                             std::to_string(key_.nvrtc_major) + "." + std::to_string(key_.nvrtc_minor) +
                             ": update the driver");
  }
  ndcuda::detail::check_driver(rc, what.c_str());
}

const loaded_kernel& program::kernel(int device, std::size_t index) const {
  std::lock_guard lock(mutex_);
  const auto& api = driver();
  auto& module = modules_[device];
  if (module == nullptr) {
    auto made = std::make_unique<device_module>();
    device_guard guard(device);  // makes `device` current (its primary context), restores after
    // A kernel first used inside a capture is loaded then: CUDA counts a module load as unsafe
    // during capture (it would invalidate the capture) though it touches no stream.
    const ndcuda::detail::relaxed_capture_mode relaxed;
    NDCUDA_DRIVER_CHECK(api.ctx_get_current(&made->context));
    check_load(api.module_load_data(&made->module, compiled_.image.data()), "cuModuleLoadData", device);
    if (image_uses_device_heap(compiled_.image, key_.target.ptx)) {
      ndcuda::detail::note_device_heap_in_use(device);
    }
    made->kernels.resize(compiled_.lowered_names.size());
    module = std::move(made);
  }
  auto& slot = module->kernels.at(index);
  if (slot == nullptr) {
    auto k = std::make_unique<loaded_kernel>();
    device_guard guard(device);
    const ndcuda::detail::relaxed_capture_mode relaxed;  // cuFuncLoad and the queries, as above
    k->driver = &api;
    k->context = module->context;
    k->device = device;
    k->name = key_.name_expressions.at(index);
    // The image's architecture, not the device's, decides: an image built for an older target
    // (an older NVRTC) has no griddepcontrol.wait in its prologue, and must not overlap.
    k->dependent_launch = key_.target.arch >= dependent_launch_min_arch && dependent_launch_enabled();
    // With lazy loading the driver may only look at the image here, so these report image
    // errors the same way as the load.
    check_load(api.module_get_function(&k->function, module->module, compiled_.lowered_names[index].c_str()),
               "cuModuleGetFunction", device);
    if (func_load_fn load = func_load()) {
      // Under lazy loading the function would otherwise load at its first launch: load it now,
      // so a refused image is reported here (where a stale cache entry can still be replaced)
      // and the first launch costs no more than the others.
      // Only a refused image matters here; any other failure leaves the load to the launch.
      if (const CUresult rc = load(k->function); is_image_error(rc)) {
        check_load(rc, "cuFuncLoad", device);
      }
    }
    check_load(api.func_get_attribute(&k->max_threads_per_block, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->function),
               "cuFuncGetAttribute", device);
    NDCUDA_DRIVER_CHECK(
        api.occupancy_max_potential_block_size(&k->min_grid_size, &k->block_size, k->function, nullptr, 0, 0));
    if (param_info_fn query = param_info()) {
      k->params_known = true;
      for (std::size_t i = 0;; ++i) {
        std::size_t offset = 0;
        std::size_t size = 0;
        const CUresult rc = query(k->function, i, &offset, &size);
        if (rc == CUDA_ERROR_INVALID_VALUE) {
          break;  // past the last parameter
        }
        if (rc != CUDA_SUCCESS) {
          k->params_known = false;
          k->param_sizes.clear();
          break;
        }
        k->param_sizes.push_back(size);
      }
    }
    k->nvtx_name = ndcuda::detail::nvtx_register(k->name);
    slot = std::move(k);
  }
  return *slot;
}

void check_arguments(const loaded_kernel& kernel, const std::size_t* sizes, std::size_t count) {
  if (!kernel.params_known) {
    return;
  }
  if (count != kernel.param_sizes.size()) {
    throw error("kernel '" + kernel.name + "' takes " + std::to_string(kernel.param_sizes.size()) +
                " parameter(s) but was launched with " + std::to_string(count) +
                " argument(s); pass one argument per kernel parameter");
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (sizes[i] != kernel.param_sizes[i]) {
      throw error("argument " + std::to_string(i) + " of kernel '" + kernel.name + "' is " + std::to_string(sizes[i]) +
                  " bytes but the kernel's parameter " + std::to_string(i) + " is " +
                  std::to_string(kernel.param_sizes[i]) +
                  " bytes; pass exactly the parameter's type (e.g. std::size_t{n} or 1.0f, not n or 1.0)");
    }
  }
}

std::pair<int, int> occupancy(const loaded_kernel& kernel, std::size_t shared_bytes) {
  if (shared_bytes == 0) {
    return {kernel.min_grid_size, kernel.block_size};
  }
  device_guard guard(kernel.device);
  int min_grid = 0;
  int block = 0;
  NDCUDA_DRIVER_CHECK(
      kernel.driver->occupancy_max_potential_block_size(&min_grid, &block, kernel.function, nullptr, shared_bytes, 0));
  return {min_grid, block};
}

void launch(const loaded_kernel& kernel, dim3 grid, dim3 block, std::size_t shared_bytes, CUstream stream, void** args,
            bool waits_first, void* range) {
  if (static_cast<long long>(block.x) * block.y * block.z > kernel.max_threads_per_block || block.x == 0 ||
      block.y == 0 || block.z == 0 || grid.x == 0 || grid.y == 0 || grid.z == 0 || shared_bytes > 0xffffffffu) {
    throw error("cannot launch kernel '" + kernel.name + "' with grid " + dims(grid) + " and block " + dims(block) +
                " and " + std::to_string(shared_bytes) +
                " shared bytes: every dimension must be at least 1, and a block may hold at most " +
                std::to_string(kernel.max_threads_per_block) + " threads for this kernel on device " +
                std::to_string(kernel.device));
  }
  const ndcuda::detail::nvtx_scope scope(range != nullptr ? range : kernel.nvtx_name);
  const auto& api = *kernel.driver;
  CUcontext current = nullptr;
  NDCUDA_DRIVER_CHECK(api.ctx_get_current(&current));
  const bool switch_context = current != kernel.context;
  if (switch_context) {
    NDCUDA_DRIVER_CHECK(api.ctx_set_current(kernel.context));
  }
  const bool dependent = waits_first && kernel.dependent_launch;
  CUresult rc = CUDA_SUCCESS;
  if (dependent) {
    CUlaunchAttribute attribute{};
    attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attribute.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config{};
    config.gridDimX = grid.x;
    config.gridDimY = grid.y;
    config.gridDimZ = grid.z;
    config.blockDimX = block.x;
    config.blockDimY = block.y;
    config.blockDimZ = block.z;
    config.sharedMemBytes = static_cast<unsigned>(shared_bytes);
    config.hStream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    rc = api.launch_kernel_ex(&config, kernel.function, args, nullptr);
  } else {
    rc = api.launch_kernel(kernel.function, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                           static_cast<unsigned>(shared_bytes), stream, args, nullptr);
  }
#ifndef NDEBUG
  // Debug builds: surface an error left by an earlier asynchronous failure here, next to the
  // launch that found it. Asked while the kernel's own context is current, so that no other
  // device's context is ever initialised by the question.
  const cudaError_t last = rc == CUDA_SUCCESS ? cudaGetLastError() : cudaSuccess;
#endif
  const CUresult restored = switch_context ? api.ctx_set_current(current) : CUDA_SUCCESS;
  if (rc != CUDA_SUCCESS) {
    const std::string call = std::string(dependent ? "cuLaunchKernelEx" : "cuLaunchKernel") + "(" + kernel.name +
                             ", grid " + dims(grid) + ", block " + dims(block) + ", " + std::to_string(shared_bytes) +
                             " shared bytes, device " + std::to_string(kernel.device) +
                             (dependent ? ", programmatic stream serialization" : "") + ")";
    ndcuda::detail::check_driver(rc, call.c_str());
  }
  NDCUDA_DRIVER_CHECK(restored);
#ifndef NDEBUG
  NDCUDA_CUDA_CHECK(last);
#endif
}

}  // namespace ndcuda::jit::detail
