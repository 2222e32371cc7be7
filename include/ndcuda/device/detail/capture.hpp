// Stream ordering and graph capture rules: the hooks that keep captured graphs' arrays alive, and
// the checks before a host wait or a cross-stream dependency. Builds on device/stream.hpp;
// implemented in src/device/{capture_retention,capture_scope,capture}.cpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <functional>
#include <memory>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/device/stream.hpp>
#include <shared_mutex>

namespace ndcuda::detail {

/// True while at least one nd::capture / capture_scope is open in the process: one relaxed atomic
/// load, so the hooks below cost nothing when nobody captures.
[[nodiscard]] bool captures_active() noexcept;

/// Makes "`s` is not capturing, so an event may be recorded on it and waited for" hold when another
/// thread may begin a capture on `s`: the memory layer holds it shared from that check through the
/// record and the wait, and capture_scope holds it exclusively while it begins a capture. (A
/// capture begun with cudaStreamBeginCapture directly, not through ndcuda, is outside it.)
NDCUDA_INTERNAL [[nodiscard]] std::shared_mutex& capture_begin_mutex() noexcept;

/// CUDA's id of the capture sequence `s` takes part in, or 0 when it is not capturing.
NDCUDA_INTERNAL [[nodiscard]] unsigned long long capture_id(const stream& s);

/// Makes the graph being captured on `s` hold `owner` (an array's buffer, a host buffer) until the
/// graph and all its launches are gone. Returns false when `s` is not capturing into a capture
/// ndcuda opened (nothing is held then). Buffers allocated inside that same capture are graph
/// memory and are not held.
bool retain_for_capture_slow(const stream& s, const std::shared_ptr<const void>& owner);
inline bool retain_for_capture(const stream& s, const std::shared_ptr<const void>& owner) {
  return owner != nullptr && captures_active() && retain_for_capture_slow(s, owner);
}

/// Records that `owner` was allocated inside capture `id` (graph memory: freed inside the graph
/// when dropped there, never held by it).
NDCUDA_INTERNAL void note_capture_allocation(unsigned long long id, const void* owner);

/// Runs `release` once `s` is no longer capturing: a buffer dropped while its stream captures an
/// unrelated graph must not be freed into that graph. Runs on ndcuda's release thread.
NDCUDA_INTERNAL void release_when_not_capturing(const stream& s, std::function<void()> release);

/// Throws capture_error, before CUDA is called, when `s` is capturing: `what` (an operation that
/// needs the data on the host) cannot be recorded into a graph. On a stream with a wait bound (a
/// communicator's) it then waits for the stream's work within that bound (detail/wait_bound.hpp),
/// so the host wait that follows cannot hang on a dead peer.
void refuse_host_wait(const stream& s, const char* what);

/// Blocks the host until `s` has run its work, refusing (capture_error) while `s` is capturing;
/// `what` names the operation in the message.
void synchronize_for(const stream& s, const char* what);

/// Orders work queued later on `later` after the work queued so far on `earlier` (an event), when
/// they differ. Throws capture_error when that would cross a capture's boundary (one of them
/// capturing, the other not or into another graph).
void order_after(const stream& later, const stream& earlier);

/// Switches the calling thread to relaxed capture mode for its lifetime
/// (cudaThreadExchangeStreamCaptureMode, push/pop): for the setup work ndcuda does on first use
/// (loading a module, creating the capture pool) that CUDA counts as "potentially unsafe" during a
/// capture although it touches no stream. Construct it with the target device current.
class relaxed_capture_mode {
 public:
  relaxed_capture_mode() noexcept;
  ~relaxed_capture_mode();
  relaxed_capture_mode(const relaxed_capture_mode&) = delete;
  relaxed_capture_mode& operator=(const relaxed_capture_mode&) = delete;

 private:
  int previous_;
  bool exchanged_;
};

}  // namespace ndcuda::detail

#pragma GCC visibility pop
