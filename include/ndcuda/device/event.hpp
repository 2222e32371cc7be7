/// @file
/// event: an RAII CUDA event for ordering streams and timing work on the device.
/// Builds on device/stream.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cuda_runtime_api.h>

namespace ndcuda {

class stream;

/// A CUDA event on one device. Move-only: it owns its cudaEvent_t.
class event {
 public:
  /// An event on the current device. `timing` false makes record/wait cheaper (cudaEventDisableTiming).
  explicit event(bool timing = true);
  /// An event on `device`.
  event(int device, bool timing);
  ~event();
  /// Takes `other`'s CUDA event; `other` is left empty.
  event(event&& other) noexcept;
  /// Destroys this event's CUDA event and takes `other`'s.
  event& operator=(event&& other) noexcept;
  event(const event&) = delete;
  event& operator=(const event&) = delete;

  /// Captures the work queued on `s` so far. The stream must be on this event's device.
  void record(const stream& s);
  /// Blocks until the recorded work has finished. Throws capture_error while `s` of the last
  /// record is capturing (the event is then a graph node, not something the host can wait on).
  void synchronize() const;
  /// True when the recorded work has finished (or nothing was recorded). Never blocks.
  [[nodiscard]] bool query() const;

  /// The CUDA event, for use with CUDA's own API.
  [[nodiscard]] cudaEvent_t handle() const noexcept { return handle_; }
  /// The device the event belongs to.
  [[nodiscard]] int device() const noexcept { return device_; }
  /// Whether the event records timing (elapsed times can be read).
  [[nodiscard]] bool timing() const noexcept { return timing_; }

 private:
  cudaEvent_t handle_ = nullptr;
  int device_ = 0;
  bool timing_ = true;
  bool recorded_ = false;
  cudaStream_t recorded_on_ = nullptr;  // to tell a capture-time record from a real one
};

/// Milliseconds between two recorded timing events (cudaEventElapsedTime). Both must have
/// completed; throws error with the reason otherwise.
[[nodiscard]] float elapsed_ms(const event& start, const event& end);

}  // namespace ndcuda

#pragma GCC visibility pop
