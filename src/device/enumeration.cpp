// Device counting: NVML plus ndcuda's own CUDA_VISIBLE_DEVICES rules, so that asking how many
// GPUs there are never initialises CUDA; the driver answers only when NVML cannot.
#include <cstdlib>
#include <exception>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/enumeration.hpp>
#include <ndcuda/device/visible_devices.hpp>
#include <string>
#include <vector>

#include "core/untrusted_files.hpp"
#include "device/driver_api.hpp"
#include "device/nvml.hpp"

namespace ndcuda {
namespace {

struct nvml_listing {
  bool ok = false;
  std::vector<physical_device> devices;
  std::string reason;  // why !ok
};

// GPUs do not come and go under a running process (hot-plug aside, which CUDA ignores as well),
// so NVML is asked once.
const nvml_listing& listing() {
  static const nvml_listing cached = [] {
    nvml_listing l;
    const detail::nvml::api* nvml = detail::nvml::get();
    if (nvml == nullptr) {
      l.reason = detail::nvml::unavailable_reason();
      return l;
    }
    try {
      l.devices = detail::nvml::list_physical_devices(*nvml);
      l.ok = true;
    } catch (const std::exception& e) {
      // A partial listing could disagree with the driver; let the driver count instead.
      l.reason = e.what();
    }
    return l;
  }();
  return cached;
}

struct enumeration {
  int count = 0;
  enumeration_source source = enumeration_source::unavailable;
  std::string reason;  // set when count == 0
};

std::string plural_gpus(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " GPU" : " GPUs");
}

std::string quoted_env(const char* env) {
  return "CUDA_VISIBLE_DEVICES=\"" + detail::quote_input(env) + "\"";
}

enumeration from_nvml(const nvml_listing& l) {
  const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
  const auto visible = apply_cuda_visible_devices(env, l.devices);
  enumeration e{static_cast<int>(visible.size()), enumeration_source::nvml, {}};
  if (!visible.empty()) {
    return e;
  }
  if (l.devices.empty()) {
    e.reason = "NVML (" + detail::nvml::configured_library_name() + ") lists no NVIDIA GPU";
  } else if (env != nullptr) {
    e.reason = quoted_env(env) + " hides all " + plural_gpus(l.devices.size()) +
               "; unset it, or list each wanted GPU once, all by ordinal (below " + std::to_string(l.devices.size()) +
               ") or all by UUID (from `nvidia-smi -L`)";
  } else {
    e.reason = "every GPU is in MIG mode with no MIG device created; create one with `nvidia-smi mig`";
  }
  return e;
}

enumeration from_driver(const std::string& nvml_reason) {
  std::string why;
  CUresult init_result = CUDA_ERROR_NOT_INITIALIZED;
  const detail::driver_api* driver = detail::try_driver(&why, &init_result);
  const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string env_note = env != nullptr ? " with " + quoted_env(env) : std::string();
  if (driver == nullptr) {
    // cuInit fails with NO_DEVICE when CUDA_VISIBLE_DEVICES leaves nothing, and with INVALID_DEVICE
    // when it names a device twice; for counting, both are the answer 0.
    if (init_result == CUDA_ERROR_NO_DEVICE || init_result == CUDA_ERROR_INVALID_DEVICE) {
      return {0, enumeration_source::driver, nvml_reason + "; the CUDA driver sees no device" + env_note};
    }
    return {0, enumeration_source::unavailable, nvml_reason + " and " + why};
  }
  int count = 0;
  if (CUresult rc = driver->device_get_count(&count); rc != CUDA_SUCCESS) {
    const char* name = "CUDA_ERROR_UNKNOWN";
    driver->get_error_name(rc, &name);
    return {0, enumeration_source::driver, nvml_reason + "; cuDeviceGetCount failed with " + name};
  }
  enumeration e{count, enumeration_source::driver, {}};
  if (count <= 0) {
    e.count = 0;
    e.reason = nvml_reason + "; the CUDA driver sees no device" + env_note;
  }
  return e;
}

enumeration enumerate() {
  const nvml_listing& l = listing();
  return l.ok ? from_nvml(l) : from_driver(l.reason);
}

}  // namespace

int device_count() noexcept {
  try {
    // The NVML listing is fixed; only CUDA_VISIBLE_DEVICES can change the answer, so remember the
    // answer for the value last seen. This keeps the count as cheap as cudaGetDeviceCount.
    thread_local std::string last_env;
    thread_local bool last_env_set = false;
    thread_local int last_count = -1;
    const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
    if (last_count >= 0 && last_env_set == (env != nullptr) && (env == nullptr || last_env == env)) {
      return last_count;
    }
    const enumeration e = enumerate();
    if (e.source == enumeration_source::nvml) {
      last_env_set = env != nullptr;
      last_env = env != nullptr ? env : "";
      last_count = e.count;
    }
    return e.count;
  } catch (...) {  // std::bad_alloc while building a message: report nothing usable.
    return 0;
  }
}

std::string device_unavailable_reason() {
  return enumerate().reason;
}

void require_devices(int count) {
  const enumeration e = enumerate();
  if (e.count >= count) {
    return;
  }
  if (e.count == 0) {
    throw device_error("no CUDA device available: " + e.reason);
  }
  const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
  throw device_error("this needs " + std::to_string(count) + " CUDA devices but only " + std::to_string(e.count) +
                     (e.count == 1 ? " is" : " are") + " visible" +
                     (env != nullptr ? " (" + quoted_env(env) + ")" : std::string()) +
                     "; run it on a machine with more GPUs, or make more of them visible through CUDA_VISIBLE_DEVICES");
}

enumeration_source device_enumeration_source() noexcept {
  try {
    return enumerate().source;
  } catch (...) {
    return enumeration_source::unavailable;
  }
}

}  // namespace ndcuda
