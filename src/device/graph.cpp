// Graph capture: the registry of open captures (what each graph must keep alive), the release
// thread that drops what finished graphs held, and nd::graph / capture_scope themselves.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/graph.hpp>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ndcuda {
namespace detail {

/// What one open capture collects: the owners its graph must hold, and the buffers allocated
/// inside it (graph memory, which the graph owns by itself).
struct capture_record {
  unsigned long long id = 0;
  int device = 0;
  std::mutex mutex;
  std::vector<std::shared_ptr<const void>> owners;
  std::unordered_set<const void*> held;
  std::unordered_set<const void*> graph_memory;
};

namespace {

std::atomic<int> open_captures{0};

struct capture_registry {
  std::mutex mutex;
  std::unordered_map<unsigned long long, capture_record*> by_id;
};

capture_registry& registry() {
  static auto* r = new capture_registry();  // leaked: buffers may be dropped from static destructors
  return *r;
}

capture_record* find_record(unsigned long long id) {
  capture_registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto found = r.by_id.find(id);
  return found == r.by_id.end() ? nullptr : found->second;
}

/// Drops what finished graphs held, and buffers whose stream was capturing when they were
/// dropped. A thread of its own: CUDA calls user-object destructors where no CUDA call may be
/// made, and a buffer's release calls CUDA (a free on its stream).
class releaser {
 public:
  void post(std::function<void()> fn) {
    {
      std::lock_guard lock(mutex_);
      start();
      ready_.push_back(std::move(fn));
    }
    wake_.notify_one();
  }

  void post_when_not_capturing(const stream& s, std::function<void()> fn) {
    {
      std::lock_guard lock(mutex_);
      start();
      waiting_.push_back({s, std::move(fn)});
    }
    wake_.notify_one();
  }

  void nudge() { wake_.notify_one(); }

 private:
  struct waiting_release {
    stream s;
    std::function<void()> fn;
  };

  void start() {
    if (!started_) {
      started_ = true;
      std::thread([this] { run(); }).detach();  // lives as long as the process, like the registry
    }
  }

  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      // While buffers wait for a stream to stop capturing, look again every few milliseconds.
      if (waiting_.empty()) {
        wake_.wait(lock, [&] { return !ready_.empty() || !waiting_.empty(); });
      } else {
        wake_.wait_for(lock, std::chrono::milliseconds(2));
      }
      std::vector<std::function<void()>> due(std::make_move_iterator(ready_.begin()),
                                             std::make_move_iterator(ready_.end()));
      ready_.clear();
      std::vector<waiting_release> still;
      std::vector<waiting_release> candidates;
      candidates.swap(waiting_);
      lock.unlock();
      for (auto& w : candidates) {
        bool capturing = true;
        try {
          capturing = w.s.is_capturing();
        } catch (...) {
          capturing = false;  // the driver is gone: release (the resource tolerates teardown)
        }
        if (capturing) {
          still.push_back(std::move(w));
        } else {
          due.push_back(std::move(w.fn));
        }
      }
      for (auto& fn : due) {
        try {
          fn();
        } catch (...) {  // a release never throws to anyone: there is no one to tell
        }
      }
      due.clear();
      candidates.clear();
      lock.lock();
      for (auto& w : still) {
        waiting_.push_back(std::move(w));
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  bool started_ = false;
  std::vector<std::function<void()>> ready_;
  std::vector<waiting_release> waiting_;
};

releaser& the_releaser() {
  static auto* r = new releaser();  // never destroyed: its thread runs until the process ends
  return *r;
}

/// The owners a graph holds, as the payload of a CUDA user object.
struct held_owners {
  std::vector<std::shared_ptr<const void>> owners;
};

// Called by CUDA once the graph, its executable and every launch of them are gone; no CUDA call
// is allowed here, so the owners go to the release thread.
void release_held_owners(void* payload) {
  auto* held = static_cast<held_owners*>(payload);
  try {
    the_releaser().post([held] { delete held; });
  } catch (...) {
    // Out of host memory: leaking the owners is the only thing left that is safe here.
  }
}

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

bool captures_active() noexcept {
  return open_captures.load(std::memory_order_relaxed) > 0;
}

unsigned long long capture_id(const stream& s) {
  if (!s.is_capturing()) {  // the driver's question needs no context
    return 0;
  }
  device_guard guard(s.device());
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  NDCUDA_CUDA_CHECK(cudaStreamGetCaptureInfo(s.handle(), &status, &id));
  return status == cudaStreamCaptureStatusNone ? 0 : id;
}

bool retain_for_capture_slow(const stream& s, const std::shared_ptr<const void>& owner) {
  const unsigned long long id = capture_id(s);
  if (id == 0) {
    return false;
  }
  capture_record* record = find_record(id);
  if (record == nullptr) {
    return false;  // a capture begun outside ndcuda: its owner keeps its buffers alive
  }
  std::lock_guard lock(record->mutex);
  if (!record->graph_memory.contains(owner.get()) && record->held.insert(owner.get()).second) {
    record->owners.push_back(owner);
  }
  return true;
}

void note_capture_allocation(unsigned long long id, const void* owner) {
  if (capture_record* record = find_record(id)) {
    std::lock_guard lock(record->mutex);
    record->graph_memory.insert(owner);
  }
}

void release_when_not_capturing(const stream& s, std::function<void()> release) {
  the_releaser().post_when_not_capturing(s, std::move(release));
}

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

// ---- graph ------------------------------------------------------------------------------------

struct graph::state {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  int device = 0;

  state() = default;
  state(const state&) = delete;
  state& operator=(const state&) = delete;
  ~state() {
    try {
      device_guard guard(device);
      // CUDA defers the release of what launches still use; at exit the runtime may be gone.
      if (exec != nullptr && cudaGraphExecDestroy(exec) != cudaSuccess) {
        (void)cudaGetLastError();
      }
      if (graph != nullptr && cudaGraphDestroy(graph) != cudaSuccess) {
        (void)cudaGetLastError();
      }
    } catch (...) {
    }
  }
};

const graph::state& graph::checked(const char* what) const {
  if (!state_) {
    throw error(std::string("graph::") + what +
                " on an empty nd::graph; obtain one from nd::capture(stream, fn) or capture_scope::end()");
  }
  return *state_;
}

void graph::launch(const stream& s) const {
  const state& st = checked("launch");
  if (s.device() != st.device) {
    throw device_error("graph::launch: the graph was captured on device " + std::to_string(st.device) +
                       " but the stream belongs to device " + std::to_string(s.device()) +
                       "; launch it on a stream of its own device");
  }
  device_guard guard(st.device);
  NDCUDA_CUDA_CHECK(cudaGraphLaunch(st.exec, s.handle()));
}

void graph::upload(const stream& s) const {
  const state& st = checked("upload");
  if (s.device() != st.device) {
    throw device_error("graph::upload: the graph belongs to device " + std::to_string(st.device) +
                       ", the stream to device " + std::to_string(s.device()));
  }
  device_guard guard(st.device);
  NDCUDA_CUDA_CHECK(cudaGraphUpload(st.exec, s.handle()));
}

void graph::debug_dot(const std::string& path) const {
  const state& st = checked("debug_dot");
  device_guard guard(st.device);
  NDCUDA_CUDA_CHECK(cudaGraphDebugDotPrint(st.graph, path.c_str(), cudaGraphDebugDotFlagsVerbose));
}

std::size_t graph::node_count() const {
  const state& st = checked("node_count");
  device_guard guard(st.device);
  std::size_t count = 0;
  NDCUDA_CUDA_CHECK(cudaGraphGetNodes(st.graph, nullptr, &count));
  return count;
}

int graph::device() const {
  return checked("device").device;
}

cudaGraph_t graph::handle() const noexcept {
  return state_ ? state_->graph : nullptr;
}

cudaGraphExec_t graph::exec_handle() const noexcept {
  return state_ ? state_->exec : nullptr;
}

// ---- capture_scope ----------------------------------------------------------------------------

capture_scope::capture_scope(cudaStream_t s, capture_mode mode) : capture_scope(detail::wrap_for_capture(s), mode) {}

capture_scope::capture_scope(const stream& s, capture_mode mode) : stream_(s), mode_(mode) {
  const cudaStreamCaptureMode cuda_mode = detail::to_cuda(mode);
  if (s.handle() == nullptr || s.handle() == cudaStreamLegacy) {
    throw capture_error("capture on the legacy NULL stream was refused; capture on a stream of your own");
  }
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
  {
    detail::capture_registry& r = detail::registry();
    std::lock_guard lock(r.mutex);
    r.by_id.emplace(record->id, record.get());
  }
  detail::open_captures.fetch_add(1, std::memory_order_relaxed);
  record_ = std::move(record);
}

unsigned long long capture_scope::id() const noexcept {
  return record_ ? record_->id : 0;
}

namespace {

/// Unregisters `record` and hands back what it collected.
std::vector<std::shared_ptr<const void>> close_record(detail::capture_record& record) {
  {
    detail::capture_registry& r = detail::registry();
    std::lock_guard lock(r.mutex);
    r.by_id.erase(record.id);
  }
  detail::open_captures.fetch_sub(1, std::memory_order_relaxed);
  std::lock_guard lock(record.mutex);
  return std::move(record.owners);
}

}  // namespace

graph capture_scope::end() {
  if (!record_) {
    throw error("capture_scope::end() was called twice; a scope captures one graph");
  }
  device_guard guard(stream_.device());
  cudaGraph_t captured = nullptr;
  const cudaError_t rc = cudaStreamEndCapture(stream_.handle(), &captured);
  auto owners = close_record(*record_);
  record_.reset();
  detail::the_releaser().nudge();  // buffers dropped during the capture may go now
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
    auto* held = new detail::held_owners{std::move(owners)};
    cudaUserObject_t object = nullptr;
    if (const cudaError_t made =
            cudaUserObjectCreate(&object, held, detail::release_held_owners, 1, cudaUserObjectNoDestructorSync);
        made != cudaSuccess) {
      delete held;
      NDCUDA_CUDA_CHECK(made);
    }
    if (const cudaError_t retained = cudaGraphRetainUserObject(captured, object, 1, cudaGraphUserObjectMove);
        retained != cudaSuccess) {
      (void)cudaUserObjectRelease(object, 1);
      NDCUDA_CUDA_CHECK(retained);
    }
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
  auto owners = close_record(*record_);
  record_.reset();
  owners.clear();
  detail::the_releaser().nudge();
}

capture_scope::~capture_scope() {
  if (record_) {
    abandon();
  }
}

}  // namespace ndcuda
