// Lazily created per-device library handles. Handles are never destroyed: they live until the
// process ends, because destroying them from static destructors races the CUDA runtime's own
// teardown (the same choice PyTorch and CuPy make).
#include "linalg/handles.hpp"

#include <array>
#include <atomic>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/memory/detail/buffer.hpp>
#include <string>

#include "linalg/library_check.hpp"

namespace ndcuda::linalg::detail {

namespace {

constexpr int max_devices = 64;

struct device_slot {
  std::mutex blas_mutex;
  cublasHandle_t blas = nullptr;
  std::mutex lt_mutex;
  cublasLtHandle_t lt = nullptr;
  std::mutex solver_mutex;
  cusolverDnHandle_t solver = nullptr;
};

std::array<device_slot, max_devices>& slots() {
  static auto* all = new std::array<device_slot, max_devices>();  // never destroyed, see above
  return *all;
}

std::atomic<unsigned long long> blas_bits{0};
std::atomic<unsigned long long> lt_bits{0};
std::atomic<unsigned long long> solver_bits{0};

device_slot& slot_for(int device) {
  if (device < 0 || device >= max_devices) {
    throw device_error("linalg: device " + std::to_string(device) + " is outside the " + std::to_string(max_devices) +
                       " devices ndcuda keeps library handles for");
  }
  return slots()[static_cast<std::size_t>(device)];
}

/// Runs `create` with `device` current only (no context on another device) and in relaxed capture
/// mode: handle creation allocates, which CUDA would count against a capture in progress.
template <class F>
void create_on(int device, F&& create) {
  device_guard guard(device);
  ndcuda::detail::relaxed_capture_mode relaxed;
  create();
}

}  // namespace

blas_lease::blas_lease(const stream& s, std::size_t workspace_bytes) : guard_(s.device()) {
  device_slot& slot = slot_for(s.device());
  lock_ = std::unique_lock(slot.blas_mutex);
  if (slot.blas == nullptr) {
    create_on(s.device(), [&] {
      cublasHandle_t h = nullptr;
      NDCUDA_LIB_CHECK(cublasCreate(&h));
      // Host pointers for alpha/beta (their values are read at enqueue, so graphs capture them).
      NDCUDA_LIB_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
      slot.blas = h;
    });
    blas_bits.fetch_or(1ull << s.device());
  }
  handle_ = slot.blas;
  // cublasSetStream resets the workspace to cuBLAS's own pool: set ours after it.
  NDCUDA_LIB_CHECK(cublasSetStream(handle_, s.handle()));
  if (workspace_bytes > 0) {
    void* p = nullptr;
    workspace_ = ndcuda::detail::allocate_buffer(workspace_bytes, s, &p);
    NDCUDA_LIB_CHECK(cublasSetWorkspace(handle_, p, workspace_bytes));
  }
}

cublasLtHandle_t lt_handle(const stream& s) {
  device_slot& slot = slot_for(s.device());
  std::lock_guard lock(slot.lt_mutex);
  if (slot.lt == nullptr) {
    create_on(s.device(), [&] {
      cublasLtHandle_t h = nullptr;
      NDCUDA_LIB_CHECK(cublasLtCreate(&h));
      slot.lt = h;
    });
    lt_bits.fetch_or(1ull << s.device());
  }
  return slot.lt;
}

solver_lease::solver_lease(const stream& s) : guard_(s.device()) {
  device_slot& slot = slot_for(s.device());
  lock_ = std::unique_lock(slot.solver_mutex);
  if (slot.solver == nullptr) {
    create_on(s.device(), [&] {
      cusolverDnHandle_t h = nullptr;
      NDCUDA_LIB_CHECK(cusolverDnCreate(&h));
      slot.solver = h;
    });
    solver_bits.fetch_or(1ull << s.device());
  }
  handle_ = slot.solver;
  NDCUDA_LIB_CHECK(cusolverDnSetStream(handle_, s.handle()));
}

handle_census census() noexcept {
  return {blas_bits.load(), lt_bits.load(), solver_bits.load()};
}

cudaDataType_t cuda_type(dtype t) {
  switch (t) {
    case dtype::float16:
      return CUDA_R_16F;
    case dtype::bfloat16:
      return CUDA_R_16BF;
    case dtype::float32:
      return CUDA_R_32F;
    case dtype::float64:
      return CUDA_R_64F;
    case dtype::complex64:
      return CUDA_C_32F;
    case dtype::complex128:
      return CUDA_C_64F;
    default:
      throw error("ndcuda internal error: no cuBLAS type for " + std::string(name(t)));
  }
}

}  // namespace ndcuda::linalg::detail
