// Device memory for the JIT's GPU tests (the memory layer is not used here, so these tests stay
// independent of it), and the driver's view of contexts and module loading.
// Builds on device_guard and the internal driver API.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <vector>

#include "device/driver_api.hpp"
#include "support/contexts.hpp"

namespace ndcuda::testing {

/// cudaMalloc'ed elements on one device. upload() waits for the copy to land, download() expects
/// the kernels that wrote the buffer to have been synchronised.
template <class T>
class device_buffer {
 public:
  device_buffer(int device, std::size_t count) : device_(device), count_(count) {
    device_guard guard(device_);
    NDCUDA_CUDA_CHECK(cudaMalloc(&data_, (count_ == 0 ? 1 : count_) * sizeof(T)));
  }
  device_buffer(int device, const std::vector<T>& host) : device_buffer(device, host.size()) { upload(host); }
  ~device_buffer() {
    device_guard guard(device_);
    (void)cudaFree(data_);
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  [[nodiscard]] T* data() const { return static_cast<T*>(data_); }
  [[nodiscard]] std::size_t size() const { return count_; }

  void upload(const std::vector<T>& host) {
    device_guard guard(device_);
    NDCUDA_CUDA_CHECK(cudaMemcpy(data_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    // A pageable copy may return before its DMA lands; kernels on non-blocking streams would not
    // wait for it.
    NDCUDA_CUDA_CHECK(cudaDeviceSynchronize());
  }
  [[nodiscard]] std::vector<T> download() const {
    std::vector<T> host(count_);
    device_guard guard(device_);
    NDCUDA_CUDA_CHECK(cudaMemcpy(host.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  int device_;
  std::size_t count_;
  void* data_ = nullptr;
};

/// The module loading mode the driver settled on (CUDA_MODULE_LOADING, read at initialisation).
inline CUmoduleLoadingMode loading_mode() {
  CUmoduleLoadingMode mode{};
  NDCUDA_DRIVER_CHECK(detail::driver().module_get_loading_mode(&mode));
  return mode;
}

}  // namespace ndcuda::testing
