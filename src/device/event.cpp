// event: RAII over cudaEvent_t, with capture-aware waiting.
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/event.hpp>
#include <ndcuda/device/stream.hpp>
#include <utility>

namespace ndcuda {

event::event(bool timing) : event(current_device().index(), timing) {}

event::event(int device, bool timing) : device_(device), timing_(timing) {
  device_guard guard(device);
  NDCUDA_CUDA_CHECK(cudaEventCreateWithFlags(&handle_, timing ? cudaEventDefault : cudaEventDisableTiming));
}

event::~event() {
  if (handle_ == nullptr) {
    return;
  }
  try {
    device_guard guard(device_);  // keep the runtime from binding a context on another device
    if (cudaEventDestroy(handle_) != cudaSuccess) {
      (void)cudaGetLastError();  // runtime already unloading at exit
    }
  } catch (const error&) {
    // The driver is gone (process exit): the event went with it.
  }
}

event::event(event&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      device_(other.device_),
      timing_(other.timing_),
      recorded_(other.recorded_),
      recorded_on_(other.recorded_on_) {}

event& event::operator=(event&& other) noexcept {
  if (this != &other) {
    event discarded(std::move(*this));
    handle_ = std::exchange(other.handle_, nullptr);
    device_ = other.device_;
    timing_ = other.timing_;
    recorded_ = other.recorded_;
    recorded_on_ = other.recorded_on_;
  }
  return *this;
}

void event::record(const stream& s) {
  if (s.device() != device_) {
    throw device_error("event::record: the event belongs to device " + std::to_string(device_) +
                       " but the stream to device " + std::to_string(s.device()) +
                       "; create the event on the stream's device (nd::event(s.device(), timing))");
  }
  device_guard guard(device_);
  NDCUDA_CUDA_CHECK(cudaEventRecord(handle_, s.handle()));
  recorded_ = true;
  recorded_on_ = s.handle();
}

void event::synchronize() const {
  if (recorded_ && stream::wrap(recorded_on_, device_).is_capturing()) {
    throw capture_error(
        "event::synchronize() on an event recorded into a CUDA graph capture: the host cannot wait for a "
        "graph node. Wait after the capture ends, or make another stream wait with stream::wait(event)");
  }
  device_guard guard(device_);
  NDCUDA_CUDA_CHECK(cudaEventSynchronize(handle_));
}

bool event::query() const {
  device_guard guard(device_);
  cudaError_t rc = cudaEventQuery(handle_);
  if (rc == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  NDCUDA_CUDA_CHECK(rc);
  return true;
}

float elapsed_ms(const event& start, const event& end) {
  if (!start.timing() || !end.timing()) {
    throw error(
        "elapsed_ms needs two timing events, but one was created with timing disabled; create both "
        "with nd::event(/*timing=*/true)");
  }
  device_guard guard(end.device());
  float ms = 0.0F;
  cudaError_t rc = cudaEventElapsedTime(&ms, start.handle(), end.handle());
  if (rc == cudaErrorNotReady) {
    (void)cudaGetLastError();
    throw error("elapsed_ms: the events have not both completed; call end.synchronize() first");
  }
  NDCUDA_CUDA_CHECK(rc);
  return ms;
}

}  // namespace ndcuda
