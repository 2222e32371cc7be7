// A limit on the host's waits for a stream whose work can depend on another process: a
// communicator's streams carry one, so that item(), to_host(), synchronize() and every other host
// wait on them ends with an error, instead of hanging, when a peer died or skipped a collective.
// Builds on device/stream.hpp; the stream side is in src/device/stream.cpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <chrono>
#include <memory>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/device/stream.hpp>

namespace ndcuda::detail {

/// What bounds the host waits of a stream. The communicator implements it (src/dist).
class wait_bound {
 public:
  wait_bound() = default;
  wait_bound(const wait_bound&) = delete;
  wait_bound& operator=(const wait_bound&) = delete;
  virtual ~wait_bound() = default;

  /// How long one host wait may take before expire() is called.
  [[nodiscard]] virtual std::chrono::milliseconds timeout() const noexcept = 0;
  /// Called between polls of an unfinished wait: throws (after releasing what it must, such as
  /// aborting the communicator) when the work can no longer finish, e.g. NCCL reported an error.
  virtual void poll(const char* what) const = 0;
  /// Called once the wait has lasted timeout(): releases what the stuck work waits on (so that the
  /// stream drains) and throws an error that names `what`.
  [[noreturn]] virtual void expire(const char* what) const = 0;
};

/// Gives `s` (and every copy of it) a bound; set once, when the owner creates the stream, before
/// the stream is shared with other threads.
void set_wait_bound(const stream& s, std::shared_ptr<const wait_bound> bound);
/// The bound of `s`, or nullptr for an ordinary stream (whose waits are plain CUDA waits).
[[nodiscard]] const wait_bound* wait_bound_of(const stream& s) noexcept;

/// Waits on the host for the work queued on `s` so far: polls the stream, calling the bound's
/// poll() in between and expire() past its timeout. A plain synchronize without a bound.
NDCUDA_INTERNAL void bounded_synchronize(const stream& s, const char* what);

}  // namespace ndcuda::detail

#pragma GCC visibility pop
