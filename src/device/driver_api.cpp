// Resolves the driver API through cudart so that libcuda.so.1 is a run-time, not a link-time, need.
#include "device/driver_api.hpp"

#include <cuda_runtime_api.h>

#include <string>

namespace ndcuda::detail {
namespace {

// The ABI version the entry points are requested at: the oldest toolkit ndcuda supports.
constexpr int requested_driver_abi = 12000;

template <class Fn>
bool resolve(const char* symbol, Fn& fn, std::string& why, cudaError_t& runtime_result) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult status{};
#if CUDART_VERSION >= 12050
  cudaError_t rc = cudaGetDriverEntryPointByVersion(symbol, &address, requested_driver_abi, cudaEnableDefault, &status);
#else
  cudaError_t rc = cudaGetDriverEntryPoint(symbol, &address, cudaEnableDefault, &status);
#endif
  if (rc != cudaSuccess || status != cudaDriverEntryPointSuccess || address == nullptr) {
    (void)cudaGetLastError();
    runtime_result = rc;
    if (rc != cudaSuccess) {
      why = std::string("the CUDA driver could not be loaded (") + cudaGetErrorName(rc) + ": " +
            cudaGetErrorString(rc) + "); install an NVIDIA driver that supports CUDA " +
            std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10) + " or newer";
    } else {
      why = std::string("the installed CUDA driver has no entry point ") + symbol + "; update the NVIDIA driver";
    }
    return false;
  }
  fn = reinterpret_cast<Fn>(address);
  return true;
}

struct loaded_driver {
  driver_api api;
  bool ok = false;
  CUresult init_result = CUDA_ERROR_NOT_INITIALIZED;
  std::string why;
};

const loaded_driver& load_driver() {
  static const loaded_driver loaded = [] {
    loaded_driver d;
    driver_api& a = d.api;
    d.ok = true;
    cudaError_t runtime_result = cudaSuccess;
#define NDCUDA_DRIVER_RESOLVE(member, symbol, prototype) \
  d.ok = d.ok && resolve(#symbol, a.member, d.why, runtime_result);
    NDCUDA_DRIVER_ENTRY_POINTS(NDCUDA_DRIVER_RESOLVE)
#undef NDCUDA_DRIVER_RESOLVE
    // cudart initialises the driver to answer the entry-point query, so a CUDA_VISIBLE_DEVICES
    // that hides every device shows up here already; report it as cuInit would have.
    if (runtime_result == cudaErrorNoDevice) {
      d.init_result = CUDA_ERROR_NO_DEVICE;
    } else if (runtime_result == cudaErrorInvalidDevice) {
      d.init_result = CUDA_ERROR_INVALID_DEVICE;
    }
    if (d.ok) {
      d.init_result = a.init(0);
      if (CUresult rc = d.init_result; rc != CUDA_SUCCESS) {
        const char* name = "unknown";
        a.get_error_name(rc, &name);
        d.ok = false;
        d.why = std::string("cuInit failed with ") + name +
                (rc == CUDA_ERROR_NO_DEVICE ? " (no CUDA-capable device is visible; check CUDA_VISIBLE_DEVICES)" : "");
      }
    }
    return d;
  }();
  return loaded;
}

}  // namespace

const driver_api* try_driver(std::string* why, CUresult* init_result) noexcept {
  const loaded_driver& d = load_driver();
  if (init_result != nullptr) {
    *init_result = d.init_result;
  }
  if (!d.ok) {
    if (why != nullptr) {
      *why = d.why;
    }
    return nullptr;
  }
  return &d.api;
}

const driver_api& driver() {
  std::string why;
  const driver_api* api = try_driver(&why);
  if (api == nullptr) {
    throw device_error("no CUDA device available: " + why);
  }
  return *api;
}

void throw_driver_error(CUresult code, const char* call, const source_location& where) {
  const char* name = "CUDA_ERROR_UNKNOWN";
  const char* text = "unknown driver error";
  if (const driver_api* api = try_driver(nullptr)) {
    api->get_error_name(code, &name);
    api->get_error_string(code, &text);
  }
  std::string location = format_location(where);
  std::string message = "CUDA driver call " + std::string(call) + " failed with " + name + " (" +
                        std::to_string(static_cast<int>(code)) + "): " + text + " at " + location;
  throw cuda_error(static_cast<int>(code), name, call, std::move(location), message);
}

}  // namespace ndcuda::detail
