// Per-device cuBLAS, cuBLASLt and cuSOLVER handles: created on the first use on that device (with
// only that device current), leased under a lock, bound to the operation's stream, with a
// workspace from ndcuda's pool. Private to ndcuda::linalg.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cusolverDn.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/stream.hpp>

namespace ndcuda::linalg::detail {

/// The cuBLAS handle of `s`'s device, locked for this lease (cuBLAS handles are not safe to share
/// between threads that set different streams), bound to `s`, and given a `workspace_bytes`
/// workspace from the pool allocated on `s` (graph memory while `s` captures). The workspace goes
/// back to the pool on `s` when the lease ends, ordered after the call.
class blas_lease {
 public:
  blas_lease(const stream& s, std::size_t workspace_bytes);
  [[nodiscard]] cublasHandle_t get() const noexcept { return handle_; }

 private:
  // cuBLAS launches on the current device: the stream's, for as long as the lease is held (else a
  // call for device 3 would run with device 0 current, fail, and create device 0's context).
  device_guard guard_;
  std::unique_lock<std::mutex> lock_;
  cublasHandle_t handle_ = nullptr;
  std::shared_ptr<const void> workspace_;
};

/// The cuBLASLt handle of `s`'s device (cuBLASLt is stream-free per call; the lock only guards
/// creation). Workspaces are passed per matmul call.
[[nodiscard]] cublasLtHandle_t lt_handle(const stream& s);

/// The cuSOLVER dense handle of `s`'s device, locked and bound to `s`. Workspaces are allocated
/// per call by the solver code (their sizes depend on the call).
class solver_lease {
 public:
  explicit solver_lease(const stream& s);
  [[nodiscard]] cusolverDnHandle_t get() const noexcept { return handle_; }

 private:
  device_guard guard_;  // as in blas_lease: cuSOLVER works on the current device
  std::unique_lock<std::mutex> lock_;
  cusolverDnHandle_t handle_ = nullptr;
};

/// How many devices have each kind of handle created (for tests of laziness): bit d of the result
/// is set when device d has a handle of that kind.
struct handle_census {
  unsigned long long blas = 0;
  unsigned long long lt = 0;
  unsigned long long solver = 0;
};
[[nodiscard]] handle_census census() noexcept;

/// The CUDA data type of a float or complex dtype (cuBLAS, cuBLASLt); internal error otherwise.
[[nodiscard]] cudaDataType_t cuda_type(dtype t);

}  // namespace ndcuda::linalg::detail
