// Beginning and ending a capture: capture_scope (begin, end into an nd::graph, abandon), the
// capture modes, and relaxed_capture_mode. Builds on device/device.hpp, the capture registry
// (capture_registry.hpp, capture_retention.cpp) and graph_state.hpp.
#include <memory>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/graph.hpp>
#include <shared_mutex>
#include <string>
#include <utility>

#include "device/capture_registry.hpp"
#include "device/graph_state.hpp"

namespace ndcuda {
namespace detail {
namespace {

cudaStreamCaptureMode to_cuda(capture_mode mode) {
  switch (mode) {
    case capture_mode::global:
      return cudaStreamCaptureModeGlobal;
    case capture_mode::thread_local_:
      return cudaStreamCaptureModeThreadLocal;
    case capture_mode::relaxed:
      return cudaStreamCaptureModeRelaxed;
  }
  throw error("unknown nd::capture_mode " + std::to_string(static_cast<int>(mode)));
}

stream wrap_for_capture(cudaStream_t handle) {
  if (handle == nullptr || handle == cudaStreamLegacy) {
    throw capture_error(
        "capture on the legacy NULL stream was refused: CUDA cannot capture it (it orders against every blocking "
        "stream of the device), and ndcuda never uses it. Capture on a stream of your own (nd::stream s; "
        "nd::capture(s, ...)) or on cudaStreamPerThread");
  }
  return stream::wrap(handle);
}

}  // namespace

relaxed_capture_mode::relaxed_capture_mode() noexcept : previous_(cudaStreamCaptureModeRelaxed), exchanged_(false) {
  auto mode = cudaStreamCaptureModeRelaxed;
  if (cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess) {
    previous_ = static_cast<int>(mode);
    exchanged_ = true;
  } else {
    (void)cudaGetLastError();
  }
}

relaxed_capture_mode::~relaxed_capture_mode() {
  if (exchanged_) {
    auto mode = static_cast<cudaStreamCaptureMode>(previous_);
    if (cudaThreadExchangeStreamCaptureMode(&mode) != cudaSuccess) {
      (void)cudaGetLastError();
    }
  }
}

}  // namespace detail

const char* to_string(capture_mode mode) noexcept {
  switch (mode) {
    case capture_mode::global:
      return "global";
    case capture_mode::thread_local_:
      return "thread_local";
    case capture_mode::relaxed:
      return "relaxed";
  }
  return "unknown";
}

// ---- capture_scope ----------------------------------------------------------------------------

capture_scope::capture_scope(cudaStream_t s, capture_mode mode) : capture_scope(detail::wrap_for_capture(s), mode) {}

capture_scope::capture_scope(const stream& s, capture_mode mode) : stream_(s), mode_(mode) {
  const cudaStreamCaptureMode cuda_mode = detail::to_cuda(mode);
  if (s.handle() == nullptr || s.handle() == cudaStreamLegacy) {
    throw capture_error("capture on the legacy NULL stream was refused; capture on a stream of your own");
  }
  // No pool may record an event on s between its "not capturing" check and the record (capture.hpp).
  const std::unique_lock no_pool_in_between(detail::capture_begin_mutex());
  if (s.is_capturing()) {
    throw capture_error(
        "capture_scope: the stream is already capturing a CUDA graph; captures do not nest on one stream. End the open "
        "capture first, or "
        "capture the inner work on another stream");
  }
  auto record = std::make_unique<detail::capture_record>();
  record->device = s.device();
  device_guard guard(s.device());
  NDCUDA_CUDA_CHECK(cudaStreamBeginCapture(s.handle(), cuda_mode));
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaError_t rc = cudaStreamGetCaptureInfo(s.handle(), &status, &record->id);
  if (rc != cudaSuccess) {
    cudaGraph_t discarded = nullptr;
    (void)cudaStreamEndCapture(s.handle(), &discarded);
    if (discarded != nullptr) {
      (void)cudaGraphDestroy(discarded);
    }
    NDCUDA_CUDA_CHECK(rc);
  }
  detail::open_capture_record(*record);
  record_ = std::move(record);
}

unsigned long long capture_scope::id() const noexcept {
  return record_ ? record_->id : 0;
}

graph capture_scope::end() {
  if (!record_) {
    throw error("capture_scope::end() was called twice; a scope captures one graph");
  }
  device_guard guard(stream_.device());
  cudaGraph_t captured = nullptr;
  const cudaError_t rc = cudaStreamEndCapture(stream_.handle(), &captured);
  auto owners = detail::close_capture_record(*record_);
  record_.reset();
  detail::nudge_releases();  // buffers dropped during the capture may go now
  if (rc != cudaSuccess) {
    (void)cudaGetLastError();
    if (captured != nullptr) {
      (void)cudaGraphDestroy(captured);
    }
    throw capture_error(std::string("capture_scope::end(): CUDA invalidated the capture (") + cudaGetErrorName(rc) +
                        ": " + cudaGetErrorString(rc) +
                        "). A call CUDA cannot record was made during the capture: in global mode, by any thread "
                        "(use nd::capture_mode::thread_local_), or a CUDA call outside ndcuda on this thread. The "
                        "stream can capture again");
  }
  auto st = std::make_shared<graph::state>();
  st->graph = captured;
  st->device = stream_.device();
  std::size_t nodes = 0;
  NDCUDA_CUDA_CHECK(cudaGraphGetNodes(captured, nullptr, &nodes));
  if (nodes == 0) {
    // The usual cause is arrays that live on another stream: their operations ran there, eagerly.
    throw capture_error(
        "capture_scope::end(): nothing was captured. ndcuda runs each operation on its output array's stream, so "
        "arrays created on another stream (e.g. the default stream) were computed at once instead of recorded: "
        "create the arrays the capture writes on the capture stream (nd::empty<float>(shape, s)), or use "
        "a.on_stream(s)");
  }
  if (!owners.empty()) {
    // The graph (and every executable made from it) holds the owners through a user object, which
    // CUDA releases only after the last launch that uses them has finished.
    detail::hold_for_graph(captured, std::move(owners));
  }
  // Allocations that outlive the capture (arrays created inside and kept) are freed by the next
  // launch before it allocates them again, so replays never accumulate graph memory.
  NDCUDA_CUDA_CHECK(cudaGraphInstantiateWithFlags(&st->exec, captured, cudaGraphInstantiateFlagAutoFreeOnLaunch));
  return graph(std::move(st));
}

void capture_scope::abandon() noexcept {
  try {
    device_guard guard(stream_.device());
    cudaGraph_t discarded = nullptr;
    if (cudaStreamEndCapture(stream_.handle(), &discarded) != cudaSuccess) {
      (void)cudaGetLastError();
    }
    if (discarded != nullptr) {
      (void)cudaGraphDestroy(discarded);
    }
  } catch (...) {
  }
  // The owners were held for a graph that will never exist: dropped here, off the capture.
  auto owners = detail::close_capture_record(*record_);
  record_.reset();
  owners.clear();
  detail::nudge_releases();
}

capture_scope::~capture_scope() {
  if (record_) {
    abandon();
  }
}

}  // namespace ndcuda
