// Device properties through the driver (no context), current device, and device_guard.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/enumeration.hpp>

#include "device/driver_api.hpp"
#include "device/nvml.hpp"

namespace ndcuda {
namespace {

CUdevice driver_device(int index) {
  CUdevice handle{};
  NDCUDA_DRIVER_CHECK(detail::driver().device_get(&handle, index));
  return handle;
}

int driver_attribute(int index, CUdevice_attribute attribute) {
  int value = 0;
  NDCUDA_DRIVER_CHECK(detail::driver().device_get_attribute(&value, attribute, driver_device(index)));
  return value;
}

}  // namespace

device::device(int index) : index_(index) {
  int count = 0;
  NDCUDA_DRIVER_CHECK(detail::driver().device_get_count(&count));
  if (index < 0 || index >= count) {
    throw device_error("device " + std::to_string(index) + " does not exist: " + std::to_string(count) +
                       " CUDA device(s) are visible (ordinals 0.." + std::to_string(count - 1) +
                       "); pick an index below nd::device_count(), and check CUDA_VISIBLE_DEVICES");
  }
}

std::string device::name() const {
  std::array<char, 256> buffer{};
  NDCUDA_DRIVER_CHECK(
      detail::driver().device_get_name(buffer.data(), static_cast<int>(buffer.size()), driver_device(index_)));
  return buffer.data();
}

compute_capability device::capability() const {
  return {driver_attribute(index_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
          driver_attribute(index_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)};
}

int device::multiprocessor_count() const {
  return driver_attribute(index_, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
}

int device::attribute(int cuda_device_attribute) const {
  return driver_attribute(index_, static_cast<CUdevice_attribute>(cuda_device_attribute));
}

std::size_t device::total_memory() const {
  std::size_t bytes = 0;
  NDCUDA_DRIVER_CHECK(detail::driver().device_total_mem(&bytes, driver_device(index_)));
  return bytes;
}

std::string device::uuid() const {
  CUuuid raw{};
  NDCUDA_DRIVER_CHECK(detail::driver().device_get_uuid(&raw, driver_device(index_)));
  // NVML's and nvidia-smi's spelling: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx
  std::string text = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) {
      text += '-';
    }
    std::array<char, 3> hex{};
    std::snprintf(hex.data(), hex.size(), "%02x", static_cast<unsigned>(static_cast<unsigned char>(raw.bytes[i])));
    text += hex.data();
  }
  return text;
}

memory_info device::memory() const {
  if (const auto* nvml = detail::nvml::get()) {
    if (auto info = detail::nvml::memory_by_uuid(*nvml, uuid())) {
      // NVML's total also counts what the driver reserves for itself (about 600 MiB on an H200);
      // report CUDA's total, as cudaMemGetInfo does, so both paths give the same numbers.
      const std::size_t total = total_memory();
      return {std::min(static_cast<std::size_t>(info->free), total), total};
    }
  }
  device_guard guard(index_);
  memory_info info;
  NDCUDA_CUDA_CHECK(cudaMemGetInfo(&info.free, &info.total));
  return info;
}

std::ostream& operator<<(std::ostream& os, const device& d) {
  auto cc = d.capability();
  return os << "<device " << d.index() << ": " << d.name() << ", sm_" << cc.value() << ", " << d.multiprocessor_count()
            << " SMs, " << (d.total_memory() >> 20) << " MiB>";
}

std::vector<device> devices() {
  std::vector<device> result;
  const int count = device_count();
  result.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    result.emplace_back(i);
  }
  return result;
}

namespace {

// The device this thread works on while no context is current: what the runtime said before the
// thread's first device_guard switched from "no context". Needed because cudaSetDevice also moves
// the runtime's own per-thread device, and restoring "no context" afterwards (so that device 0
// stays untouched) cannot move it back without creating a context: after a guard for GPU 3, a bare
// cudaGetDevice would answer 3, and every default-stream call would silently go to GPU 3.
thread_local int device_without_context = -1;

}  // namespace

device current_device() {
  if (device_without_context >= 0) {  // a guard ran on this thread, so the driver is there
    CUcontext context = nullptr;
    NDCUDA_DRIVER_CHECK(detail::driver().ctx_get_current(&context));
    if (context == nullptr) {
      return device(device_without_context);
    }
  }
  int index = 0;
  const cudaError_t rc = cudaGetDevice(&index);
  if (rc != cudaSuccess) {
    (void)cudaGetLastError();
    // No device at all (CUDA_VISIBLE_DEVICES="", no GPU, no driver): say so in ndcuda's words rather
    // than cudaErrorNoDevice from a call the user never made. Every "current device" default
    // (nd::stream, default_stream(), nd::zeros without a stream) passes through here.
    if (device_count() == 0) {
      require_devices(1);
    }
    detail::throw_cuda_error(rc, "cudaGetDevice(&index)", detail::source_location::current());
  }
  return device(index);
}

device_guard::device_guard(int index) {
  const auto& driver = detail::driver();
  CUcontext previous = nullptr;
  NDCUDA_DRIVER_CHECK(driver.ctx_get_current(&previous));
  if (previous != nullptr) {
    int current = -1;
    NDCUDA_CUDA_CHECK(cudaGetDevice(&current));
    if (current == index) {
      return;  // already there: nothing to switch, nothing to restore
    }
  }
  (void)device(index);  // validates the ordinal with a clear message
  if (previous == nullptr && device_without_context < 0) {
    int before = 0;
    if (cudaGetDevice(&before) == cudaSuccess) {
      device_without_context = before;
    } else {
      (void)cudaGetLastError();
    }
  }
  NDCUDA_CUDA_CHECK(cudaSetDevice(index));
  previous_context_ = previous;
  restore_ = true;
}

device_guard::~device_guard() {
  if (restore_) {
    // Restoring the driver context (rather than calling cudaSetDevice(previous)) is what keeps an
    // untouched device 0 untouched: cudaSetDevice would create its primary context.
    (void)detail::driver().ctx_set_current(static_cast<CUcontext>(previous_context_));
  }
}

}  // namespace ndcuda
