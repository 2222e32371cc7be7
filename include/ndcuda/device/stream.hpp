/// @file
/// stream: a refcounted, non-blocking CUDA stream bound to one device, and each device's
/// default library stream. Builds on device/device.hpp; every ndcuda operation is ordered on one.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cuda_runtime_api.h>

#include <memory>

namespace ndcuda {

class event;
class stream;

namespace detail {
class wait_bound;
void set_wait_bound(const stream& s, std::shared_ptr<const wait_bound> bound);
const wait_bound* wait_bound_of(const stream& s) noexcept;
}  // namespace detail

/// A non-blocking CUDA stream on one device. Copies share the same stream (reference semantics,
/// like ndarray); an owning stream is destroyed when its last copy goes. Never the legacy NULL
/// stream, so all work on it can be captured into a CUDA graph.
class stream {
 public:
  /// A new non-blocking stream on the current device.
  stream();
  /// A new non-blocking stream on `device`. Lower `priority` numbers run first (CUDA's convention);
  /// the value is clamped to the device's range.
  explicit stream(int device, int priority = 0);

  /// A non-owning handle to a stream created elsewhere (PyTorch, CuPy, your own code). `device` -1
  /// asks CUDA which device the stream belongs to. The legacy NULL stream is refused: it orders
  /// against every other stream and cannot be captured; use cudaStreamPerThread or a real stream.
  [[nodiscard]] static stream wrap(cudaStream_t handle, int device = -1);

  /// The CUDA stream, for use with CUDA's own API.
  [[nodiscard]] cudaStream_t handle() const noexcept;
  /// The device the stream belongs to.
  [[nodiscard]] int device() const noexcept;
  /// Whether this stream (and its copies) destroy the CUDA stream, i.e. it was not wrap()ped.
  [[nodiscard]] bool owns_handle() const noexcept;

  /// Blocks until all work queued so far has finished. Throws capture_error while the stream is
  /// capturing a graph (synchronizing is not capturable). The streams of a dist::communicator
  /// wait at most the communicator's timeout, then throw dist::communication_error.
  void synchronize() const;
  /// True when all work queued so far has finished. Never blocks. Throws capture_error while the
  /// stream is capturing a graph (CUDA would invalidate the capture).
  [[nodiscard]] bool query() const;
  /// Orders all later work on this stream after `e` (cudaStreamWaitEvent); no host blocking.
  void wait(const event& e) const;
  /// True while this stream is capturing a CUDA graph.
  [[nodiscard]] bool is_capturing() const;

  friend bool operator==(const stream& a, const stream& b) noexcept { return a.handle() == b.handle(); }

 private:
  friend void detail::set_wait_bound(const stream& s, std::shared_ptr<const detail::wait_bound> bound);
  friend const detail::wait_bound* detail::wait_bound_of(const stream& s) noexcept;
  struct state;
  explicit stream(std::shared_ptr<const state> s) : state_(std::move(s)) {}
  std::shared_ptr<const state> state_;
};

/// The library's default stream of `device`: created on first use, non-blocking, shared by all
/// threads, alive until the process ends. What every operation uses when given no stream.
[[nodiscard]] stream default_stream(int device);
/// The default stream of the calling thread's current device.
[[nodiscard]] stream default_stream();

namespace detail {

/// Device 0's per-thread stream, wrapped without any CUDA call: the stream of placeholders (a
/// default-constructed array) that must exist on machines without a GPU.
[[nodiscard]] inline const stream& placeholder_stream() {
  static const stream s = stream::wrap(cudaStreamPerThread, 0);
  return s;
}

}  // namespace detail

}  // namespace ndcuda

#pragma GCC visibility pop
