// stream and the per-device default library streams.
#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/detail/wait_bound.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/event.hpp>
#include <ndcuda/device/stream.hpp>
#include <thread>

#include "device/driver_api.hpp"

namespace ndcuda {

struct stream::state {
  cudaStream_t handle = nullptr;
  int device = 0;
  bool owned = false;
  // Set once by the stream's owner before the stream is shared (detail::set_wait_bound).
  mutable std::shared_ptr<const detail::wait_bound> bound;

  state(cudaStream_t h, int d, bool o) : handle(h), device(d), owned(o) {}
  state(const state&) = delete;
  state& operator=(const state&) = delete;
  ~state() {
    if (!owned) {
      return;
    }
    try {
      device_guard guard(device);  // keep the runtime from binding a context on another device
      // At process exit the runtime may already be gone; there is nothing left to release then.
      if (cudaStreamDestroy(handle) != cudaSuccess) {
        (void)cudaGetLastError();
      }
    } catch (const error&) {
      // The driver is gone (process exit): the stream went with it.
    }
  }
};

namespace {

cudaStream_t create_non_blocking(int device, int priority) {
  device_guard guard(device);
  int least = 0;
  int greatest = 0;
  NDCUDA_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  // CUDA's numbering is inverted: greatest priority is the smallest number.
  priority = std::clamp(priority, greatest, least);
  cudaStream_t handle = nullptr;
  NDCUDA_CUDA_CHECK(cudaStreamCreateWithPriority(&handle, cudaStreamNonBlocking, priority));
  return handle;
}

}  // namespace

stream::stream() : stream(current_device().index()) {}

stream::stream(int device, int priority)
    : state_(std::make_shared<const state>(create_non_blocking(device, priority), device, true)) {}

stream stream::wrap(cudaStream_t handle, int device) {
  if (handle == nullptr || handle == cudaStreamLegacy) {
    throw error(
        "stream::wrap was given the legacy NULL stream, which ndcuda never uses: it serialises with every "
        "blocking stream and cannot be captured into a CUDA graph. Pass a stream you created, "
        "cudaStreamPerThread, or use nd::default_stream()");
  }
  if (device < 0) {
#if CUDART_VERSION >= 12080
    NDCUDA_CUDA_CHECK(cudaStreamGetDevice(handle, &device));
#else
    NDCUDA_CUDA_CHECK(cudaGetDevice(&device));
#endif
  }
  return stream(std::make_shared<const state>(handle, device, false));
}

cudaStream_t stream::handle() const noexcept {
  return state_->handle;
}
int stream::device() const noexcept {
  return state_->device;
}
bool stream::owns_handle() const noexcept {
  return state_->owned;
}

bool stream::is_capturing() const {
  // Through the driver: the runtime's cudaStreamIsCapturing would initialise a context on the
  // thread's current device (device 0 by default) when none is current.
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  NDCUDA_DRIVER_CHECK(detail::driver().stream_is_capturing(reinterpret_cast<CUstream>(handle()), &status));
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

// The runtime calls below run under a guard for the stream's own device, so that waiting on a
// stream of device 1 never creates a context on device 0.
void stream::synchronize() const {
  if (is_capturing()) {
    throw capture_error(
        "stream::synchronize() was called while the stream is capturing a CUDA graph; a host wait cannot be "
        "recorded in a graph. Synchronize after the capture ends, or after launching the graph");
  }
  if (state_->bound) {
    detail::bounded_synchronize(*this, "stream::synchronize()");
    return;
  }
  device_guard guard(device());
  NDCUDA_CUDA_CHECK(cudaStreamSynchronize(handle()));
}

bool stream::query() const {
  // cudaStreamQuery on a capturing stream is an illegal call that invalidates the capture.
  if (is_capturing()) {
    throw capture_error(
        "stream::query() was called while the stream is capturing a CUDA graph; whether queued work has finished "
        "cannot be asked of a capture (CUDA would invalidate it). Query after the capture ends, or query the stream "
        "the graph is launched on");
  }
  device_guard guard(device());
  cudaError_t rc = cudaStreamQuery(handle());
  if (rc == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  NDCUDA_CUDA_CHECK(rc);
  return true;
}

void stream::wait(const event& e) const {
  device_guard guard(device());
  NDCUDA_CUDA_CHECK(cudaStreamWaitEvent(handle(), e.handle(), 0));
}

namespace detail {

void set_wait_bound(const stream& s, std::shared_ptr<const wait_bound> bound) {
  s.state_->bound = std::move(bound);
}

const wait_bound* wait_bound_of(const stream& s) noexcept {
  return s.state_->bound.get();
}

void bounded_synchronize(const stream& s, const char* what) {
  const wait_bound* bound = wait_bound_of(s);
  if (bound == nullptr) {
    s.synchronize();
    return;
  }
  // Polling instead of cudaStreamSynchronize: a collective whose peer is gone never finishes, and
  // only a wait that can give up lets the communicator be aborted. The first polls spin (most
  // waits end within microseconds), later ones sleep so a long wait costs no core.
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + bound->timeout();
  for (int polls = 0; !s.query(); ++polls) {
    bound->poll(what);
    if (std::chrono::steady_clock::now() > deadline) {
      bound->expire(what);
    }
    if (polls < 64) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(polls < 1024 ? 20 : 200));
    }
  }
}

}  // namespace detail

stream default_stream(int device) {
  // Leaked on purpose: default streams live until the process ends, and destroying them from a
  // static destructor would race the runtime's own teardown.
  static auto* streams = new std::map<int, stream>();
  static auto* mutex = new std::mutex();
  std::lock_guard lock(*mutex);
  auto found = streams->find(device);
  if (found == streams->end()) {
    found = streams->emplace(device, stream(device)).first;
  }
  return found->second;
}

stream default_stream() {
  return default_stream(current_device().index());
}

}  // namespace ndcuda
