/// @file
/// A CUDA device and its properties, queried without creating a context, and device_guard.
/// Builds on device/enumeration.hpp (NVML/driver counting) and core/error.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace ndcuda {

/// A GPU's compute capability, e.g. 9.0 for H100.
struct compute_capability {
  int major = 0;  ///< the major version (9 for sm_90)
  int minor = 0;  ///< the minor version (0 for sm_90)
  /// 90 for sm_90: the number NVRTC's -arch=sm_XX takes.
  [[nodiscard]] constexpr int value() const noexcept { return major * 10 + minor; }
  friend constexpr bool operator==(compute_capability, compute_capability) = default;
};

/// Free and total memory of a device, in bytes (cudaMemGetInfo).
struct memory_info {
  std::size_t free = 0;   ///< bytes not in use by any process
  std::size_t total = 0;  ///< bytes of the device
};

/// One CUDA device, by its ordinal after CUDA_VISIBLE_DEVICES. Cheap to copy. Queries go through
/// the driver (cuDeviceGet*), so inspecting a device never creates a context on it.
class device {
 public:
  /// Throws device_error when `index` is not a visible device.
  explicit device(int index);

  /// The CUDA device index.
  [[nodiscard]] int index() const noexcept { return index_; }
  /// The product name, e.g. "NVIDIA H100 80GB HBM3".
  [[nodiscard]] std::string name() const;
  /// The compute capability (major, minor).
  [[nodiscard]] compute_capability capability() const;
  /// The number of streaming multiprocessors.
  [[nodiscard]] int multiprocessor_count() const;
  /// The device memory in bytes.
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

/// Writes `<device 0: NAME, sm_90, 132 SMs, 81559 MiB>`.
std::ostream& operator<<(std::ostream& os, const device& d);

/// Every visible device, in CUDA order.
[[nodiscard]] std::vector<device> devices();

/// The calling thread's current device: that of its current context, else the one it had before
/// any ndcuda guard ran (0 when none was chosen). ndcuda's internal guards never move it. Creates
/// no context.
[[nodiscard]] device current_device();

/// Makes a device current for the calling thread for the guard's lifetime, then restores exactly
/// the context that was current before (none, if none was): so a guard on device 3 never leaves
/// the thread pointing at, or creating a context on, device 0.
class device_guard {
 public:
  /// Makes device `index` current for this thread until the guard is destroyed.
  explicit device_guard(int index);
  /// Makes `d` current for this thread until the guard is destroyed.
  explicit device_guard(const device& d) : device_guard(d.index()) {}
  ~device_guard();
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

 private:
  void* previous_context_ = nullptr;  // CUcontext; void* keeps cuda.h out of public headers
  bool restore_ = false;
};

}  // namespace ndcuda

#pragma GCC visibility pop
