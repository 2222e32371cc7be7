/// @file
/// CUDA graphs: capture of ndcuda work on a stream (nd::capture, capture_scope) into an nd::graph
/// that can be launched again and again. Builds on device/stream.hpp; see docs/graphs.md.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <ndcuda/device/stream.hpp>
#include <string>
#include <type_traits>
#include <utility>

namespace ndcuda {

/// Which other threads' CUDA calls may break a capture (cudaStreamCaptureMode). A "potentially
/// unsafe" call (cudaMalloc, a synchronous copy, ...) is one that CUDA cannot record:
enum class capture_mode {
  global,         ///< refused on every thread while the capture runs (CUDA's own default)
  thread_local_,  ///< refused only on the capturing thread: other threads keep working (ndcuda's default)
  relaxed,        ///< never refused; only calls that conflict with capture itself fail
};

/// The mode's name, for messages.
[[nodiscard]] const char* to_string(capture_mode mode) noexcept;

/// A captured and instantiated CUDA graph (cudaGraph_t plus its cudaGraphExec_t). Copies share
/// the graph; it is destroyed when the last copy goes, after its launches have finished. The
/// arrays its work reads and writes are kept alive while it (or a launch of it) exists.
class graph {
 public:
  /// An empty graph; launch() throws.
  graph() = default;

  /// Runs the graph on `s` (cudaGraphLaunch), ordered after the work queued on `s` so far. The
  /// stream must belong to the graph's device. Arrays allocated inside the capture hold the
  /// values of the latest launch once it has finished.
  void launch(const stream& s) const;
  /// Uploads the graph to the device ahead of its first launch (cudaGraphUpload), so that launch
  /// costs no more than later ones.
  void upload(const stream& s) const;
  /// Writes the graph in Graphviz DOT form to `path` (cudaGraphDebugDotPrint, verbose).
  void debug_dot(const std::string& path) const;

  /// Number of nodes (kernels, copies, memory allocations and frees, ...) in the graph.
  [[nodiscard]] std::size_t node_count() const;
  /// The device the graph runs on.
  [[nodiscard]] int device() const;
  /// The captured cudaGraph_t, for use with CUDA's own API.
  [[nodiscard]] cudaGraph_t handle() const noexcept;
  /// The instantiated cudaGraphExec_t, for use with CUDA's own API.
  [[nodiscard]] cudaGraphExec_t exec_handle() const noexcept;
  /// Whether this holds a graph (a default-constructed one does not).
  [[nodiscard]] explicit operator bool() const noexcept { return state_ != nullptr; }

 private:
  friend class capture_scope;
  struct state;
  explicit graph(std::shared_ptr<const state> s) : state_(std::move(s)) {}
  const state& checked(const char* what) const;
  std::shared_ptr<const state> state_;
};

namespace detail {
struct capture_record;
}

/// RAII capture: the constructor begins capturing on `s` (cudaStreamBeginCapture), end() stops
/// and instantiates. Destroyed without end() (an exception), it abandons the capture and leaves
/// the stream usable for a new one. Throws capture_error, before CUDA is called, for the legacy
/// NULL stream and for a stream that is already capturing (captures do not nest on one stream).
///
///   nd::graph g;
///   {
///     nd::capture_scope scope(s);
///     out = a + b;        // recorded, not run
///     g = scope.end();
///   }
///   g.launch(s);
class capture_scope {
 public:
  /// Begins capturing work on `s` into a graph; end() finishes it.
  explicit capture_scope(const stream& s, capture_mode mode = capture_mode::thread_local_);
  /// For a raw handle: the legacy NULL stream (nullptr or cudaStreamLegacy) throws capture_error.
  explicit capture_scope(cudaStream_t s, capture_mode mode = capture_mode::thread_local_);
  ~capture_scope();
  capture_scope(const capture_scope&) = delete;
  capture_scope& operator=(const capture_scope&) = delete;
  capture_scope(capture_scope&&) = delete;
  capture_scope& operator=(capture_scope&&) = delete;

  /// Ends the capture and instantiates the graph. Throws capture_error when CUDA invalidated the
  /// capture (an unsafe call on another thread in global mode, a CUDA call ndcuda does not make).
  [[nodiscard]] graph end();
  /// The stream being captured.
  [[nodiscard]] const stream& capture_stream() const noexcept { return stream_; }
  /// Which other threads' CUDA calls may break this capture.
  [[nodiscard]] capture_mode mode() const noexcept { return mode_; }
  /// CUDA's id of this capture sequence.
  [[nodiscard]] unsigned long long id() const noexcept;

 private:
  void abandon() noexcept;
  stream stream_;
  capture_mode mode_;
  std::unique_ptr<detail::capture_record> record_;
};

/// Captures what `fn` queues on `s` into a graph: `nd::capture(s, [&] { out = a * x + b; })`.
/// If `fn` throws, the capture is abandoned (the stream stays usable) and the exception goes on.
template <class F>
requires std::is_invocable_v<F&>
[[nodiscard]] graph capture(const stream& s, F&& fn, capture_mode mode = capture_mode::thread_local_) {
  capture_scope scope(s, mode);
  fn();
  return scope.end();
}

/// The same for a raw stream handle; the legacy NULL stream throws capture_error.
template <class F>
requires std::is_invocable_v<F&>
[[nodiscard]] graph capture(cudaStream_t s, F&& fn, capture_mode mode = capture_mode::thread_local_) {
  capture_scope scope(s, mode);
  fn();
  return scope.end();
}

}  // namespace ndcuda

#pragma GCC visibility pop
