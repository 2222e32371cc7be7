// NVML through dlopen: the library is optional, and its absence is a reason, never a failure.
#include "device/nvml.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <ndcuda/core/error.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/untrusted_files.hpp"

namespace ndcuda::detail::nvml {

#if NDCUDA_HAVE_NVML_H
// The entry points as dlsym hands them over must have nvml.h's prototypes.
static_assert(std::is_same_v<decltype(api::init_v2), decltype(&::nvmlInit_v2)>);
static_assert(std::is_same_v<decltype(api::shutdown), decltype(&::nvmlShutdown)>);
static_assert(std::is_same_v<decltype(api::error_string), decltype(&::nvmlErrorString)>);
static_assert(std::is_same_v<decltype(api::device_get_count_v2), decltype(&::nvmlDeviceGetCount_v2)>);
static_assert(std::is_same_v<decltype(api::device_get_handle_by_index_v2), decltype(&::nvmlDeviceGetHandleByIndex_v2)>);
static_assert(std::is_same_v<decltype(api::device_get_handle_by_uuid), decltype(&::nvmlDeviceGetHandleByUUID)>);
static_assert(std::is_same_v<decltype(api::device_get_uuid), decltype(&::nvmlDeviceGetUUID)>);
static_assert(std::is_same_v<decltype(api::device_get_name), decltype(&::nvmlDeviceGetName)>);
static_assert(std::is_same_v<decltype(api::device_get_memory_info), decltype(&::nvmlDeviceGetMemoryInfo)>);
static_assert(std::is_same_v<decltype(api::device_get_compute_running_processes_v3),
                             decltype(&::nvmlDeviceGetComputeRunningProcesses_v3)>);
static_assert(std::is_same_v<decltype(api::device_get_mig_mode), decltype(&::nvmlDeviceGetMigMode)>);
static_assert(
    std::is_same_v<decltype(api::device_get_max_mig_device_count), decltype(&::nvmlDeviceGetMaxMigDeviceCount)>);
static_assert(std::is_same_v<decltype(api::device_get_mig_device_handle_by_index),
                             decltype(&::nvmlDeviceGetMigDeviceHandleByIndex)>);
#endif

namespace {

constexpr const char* default_library = "libnvidia-ml.so.1";

template <class Fn>
void resolve_optional(void* handle, const char* symbol, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
}

template <class Fn>
bool resolve(void* handle, const char* symbol, Fn& fn, std::string& missing) {
  resolve_optional(handle, symbol, fn);
  if (fn == nullptr && missing.empty()) {
    missing = symbol;
  }
  return fn != nullptr;
}

void check(const api& nvml, return_t code, const char* call) {
  if (code != success) {
    throw device_error("NVML call " + std::string(call) + " failed with " + nvml.describe(code));
  }
}

std::string read_uuid(const api& nvml, device_t device, const char* call) {
  char buffer[uuid_buffer_size] = {};
  check(nvml, nvml.device_get_uuid(device, buffer, uuid_buffer_size), call);
  return buffer;
}

}  // namespace

std::string api::describe(return_t code) const {
  const char* text = error_string != nullptr ? error_string(code) : nullptr;
  return "'" + std::string(text != nullptr ? text : "unknown error") + "' (" + std::to_string(code) + ")";
}

std::unique_ptr<library> library::load(const std::string& name) {
  auto lib = std::make_unique<library>();
  lib->name_ = name;
  // dlopen reads what it is given: a FIFO or a device named by NDCUDA_NVML_LIBRARY would hang it.
  // A path is handed to the loader only when it is a regular file (or a link to one); a missing one
  // gets the loader's own message, and bare names go through the loader's search.
  if (ndcuda::detail::file_problem problem;
      name.find('/') != std::string::npos && !ndcuda::detail::is_regular_file(name, problem) && problem.error == 0) {
    lib->reason_ = "NVML (" + name + ") not found (" + problem.why + ")";
    return lib;
  }
  (void)dlerror();
  lib->handle_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib->handle_ == nullptr) {
    const char* error = dlerror();
    std::string_view why = error != nullptr ? error : "dlopen failed";
    // glibc starts the message with the file name, which the reason already gives.
    if (why.starts_with(name + ": ")) {
      why.remove_prefix(name.size() + 2);
    }
    lib->reason_ = "NVML (" + name + ") not found (" + std::string(why) + ")";
    return lib;
  }
  api& a = lib->api_;
  std::string missing;
  resolve(lib->handle_, "nvmlInit_v2", a.init_v2, missing);
  resolve(lib->handle_, "nvmlShutdown", a.shutdown, missing);
  resolve(lib->handle_, "nvmlErrorString", a.error_string, missing);
  resolve(lib->handle_, "nvmlDeviceGetCount_v2", a.device_get_count_v2, missing);
  resolve(lib->handle_, "nvmlDeviceGetHandleByIndex_v2", a.device_get_handle_by_index_v2, missing);
  resolve(lib->handle_, "nvmlDeviceGetHandleByUUID", a.device_get_handle_by_uuid, missing);
  resolve(lib->handle_, "nvmlDeviceGetUUID", a.device_get_uuid, missing);
  resolve(lib->handle_, "nvmlDeviceGetName", a.device_get_name, missing);
  resolve(lib->handle_, "nvmlDeviceGetMemoryInfo", a.device_get_memory_info, missing);
  resolve_optional(lib->handle_, "nvmlDeviceGetComputeRunningProcesses_v3", a.device_get_compute_running_processes_v3);
  resolve_optional(lib->handle_, "nvmlDeviceGetMigMode", a.device_get_mig_mode);
  resolve_optional(lib->handle_, "nvmlDeviceGetMaxMigDeviceCount", a.device_get_max_mig_device_count);
  resolve_optional(lib->handle_, "nvmlDeviceGetMigDeviceHandleByIndex", a.device_get_mig_device_handle_by_index);
  if (!missing.empty()) {
    lib->reason_ = "NVML (" + name + ") has no entry point " + missing + "; update the NVIDIA driver";
    return lib;
  }
  if (return_t rc = a.init_v2(); rc != success) {
    // Typically NVML_ERROR_DRIVER_NOT_LOADED (9): the library is installed but the kernel module is not.
    lib->reason_ = "NVML (" + name + ") failed to initialise: nvmlInit_v2 returned " + a.describe(rc);
    return lib;
  }
  lib->initialized_ = true;
  return lib;
}

library::~library() {
  if (initialized_) {
    (void)api_.shutdown();
  }
  if (handle_ != nullptr) {
    dlclose(handle_);
  }
}

std::string configured_library_name() {
  const char* env = std::getenv("NDCUDA_NVML_LIBRARY");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string(default_library);
}

namespace {

const library* process_library() noexcept {
  // Deliberately leaked: nvmlShutdown from a static destructor could run after another static's
  // destructor still queries NVML, or after the loader has begun tearing libraries down. NVML
  // holds no resource that outlives the process, so staying initialised until exit costs nothing.
  static const library* const instance = []() -> const library* {
    try {
      return library::load(configured_library_name()).release();
    } catch (...) {  // std::bad_alloc: reads as "NVML unavailable".
      return nullptr;
    }
  }();
  return instance;
}

}  // namespace

const api* get() noexcept {
  const library* lib = process_library();
  return lib != nullptr && lib->ok() ? &lib->functions() : nullptr;
}

std::string unavailable_reason() {
  const library* lib = process_library();
  if (lib == nullptr) {
    return "NVML could not be loaded (out of memory)";
  }
  return lib->reason();
}

std::optional<memory_t> memory_by_uuid(const api& nvml, const std::string& uuid) noexcept {
  device_t device = nullptr;
  if (nvml.device_get_handle_by_uuid(uuid.c_str(), &device) != success) {
    return std::nullopt;
  }
  memory_t memory{};
  if (nvml.device_get_memory_info(device, &memory) != success) {
    return std::nullopt;
  }
  return memory;
}

std::vector<physical_device> list_physical_devices(const api& nvml) {
  unsigned int count = 0;
  check(nvml, nvml.device_get_count_v2(&count), "nvmlDeviceGetCount_v2");
  std::vector<physical_device> devices;
  devices.reserve(count);
  for (unsigned int i = 0; i < count; ++i) {
    device_t device = nullptr;
    check(nvml, nvml.device_get_handle_by_index_v2(i, &device), "nvmlDeviceGetHandleByIndex_v2");
    physical_device gpu;
    gpu.uuid = read_uuid(nvml, device, "nvmlDeviceGetUUID");
    if (nvml.device_get_mig_mode != nullptr) {
      unsigned int current = 0;
      unsigned int pending = 0;
      const return_t rc = nvml.device_get_mig_mode(device, &current, &pending);
      // NOT_SUPPORTED: a GPU without MIG (anything before Ampere, consumer boards).
      if (rc != error_not_supported) {
        check(nvml, rc, "nvmlDeviceGetMigMode");
        gpu.mig_enabled = current == device_mig_enable;
      }
    }
    if (gpu.mig_enabled) {
      if (nvml.device_get_max_mig_device_count == nullptr || nvml.device_get_mig_device_handle_by_index == nullptr) {
        throw device_error("NVML reports GPU " + gpu.uuid +
                           " in MIG mode but has no nvmlDeviceGetMigDeviceHandleByIndex; update the NVIDIA driver");
      }
      unsigned int slots = 0;
      check(nvml, nvml.device_get_max_mig_device_count(device, &slots), "nvmlDeviceGetMaxMigDeviceCount");
      for (unsigned int slot = 0; slot < slots; ++slot) {
        device_t mig = nullptr;
        const return_t rc = nvml.device_get_mig_device_handle_by_index(device, slot, &mig);
        if (rc == error_not_found) {
          continue;  // An empty slot: MIG device indices need not be dense.
        }
        check(nvml, rc, "nvmlDeviceGetMigDeviceHandleByIndex");
        gpu.mig_uuids.push_back(read_uuid(nvml, mig, "nvmlDeviceGetUUID (MIG device)"));
      }
    }
    devices.push_back(std::move(gpu));
  }
  return devices;
}

std::vector<physical_device> list_physical_devices() {
  const api* nvml = get();
  if (nvml == nullptr) {
    throw device_error(unavailable_reason());
  }
  return list_physical_devices(*nvml);
}

}  // namespace ndcuda::detail::nvml
