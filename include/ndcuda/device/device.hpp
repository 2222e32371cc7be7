// A CUDA device and its properties, queried without creating a context, and device_guard.
// Builds on device/enumeration.hpp (NVML/driver counting) and core/error.hpp.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace ndcuda {

struct compute_capability {
  int major = 0;
  int minor = 0;
  /// 90 for sm_90: the number NVRTC's -arch=sm_XX takes.
  [[nodiscard]] constexpr int value() const noexcept { return major * 10 + minor; }
  friend constexpr bool operator==(compute_capability, compute_capability) = default;
};

struct memory_info {
  std::size_t free = 0;
  std::size_t total = 0;
};

/// One CUDA device, by its ordinal after CUDA_VISIBLE_DEVICES. Cheap to copy. Queries go through
/// the driver (cuDeviceGet*), so inspecting a device never creates a context on it.
class device {
 public:
  /// Throws device_error when `index` is not a visible device.
  explicit device(int index);

  [[nodiscard]] int index() const noexcept { return index_; }
  [[nodiscard]] std::string name() const;
  [[nodiscard]] compute_capability capability() const;
  [[nodiscard]] int multiprocessor_count() const;
  [[nodiscard]] std::size_t total_memory() const;
  /// Free and total memory. Through NVML when it is present (no context is created); otherwise
  /// through cudaMemGetInfo, which initialises this device's primary context.
  [[nodiscard]] memory_info memory() const;
  /// "GPU-8f9a1c3e-...": the identifier CUDA_VISIBLE_DEVICES and nvidia-smi use.
  [[nodiscard]] std::string uuid() const;
  /// Generic integer attribute (cudaDeviceAttr value), for what has no named query.
  [[nodiscard]] int attribute(int cuda_device_attribute) const;

  friend bool operator==(const device&, const device&) = default;

 private:
  int index_;
};

std::ostream& operator<<(std::ostream& os, const device& d);

/// Every visible device, in CUDA order.
[[nodiscard]] std::vector<device> devices();

/// The calling thread's current device (cudaGetDevice; 0 when none was chosen). Creates no context.
[[nodiscard]] device current_device();

/// Makes a device current for the calling thread for the guard's lifetime, then restores exactly
/// the context that was current before (none, if none was): so a guard on device 3 never leaves
/// the thread pointing at, or creating a context on, device 0.
class device_guard {
 public:
  explicit device_guard(int index);
  explicit device_guard(const device& d) : device_guard(d.index()) {}
  ~device_guard();
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

 private:
  void* previous_context_ = nullptr;  // CUcontext; void* keeps cuda.h out of public headers
  bool restore_ = false;
};

}  // namespace ndcuda
