// What captured graphs keep alive: the registry of open captures (the owners each graph must hold,
// the buffers allocated inside it), the hooks behind retain_for_capture and its kin, the user
// object through which a graph holds its owners, and the release thread that drops them once the
// graph is gone. Builds on device/detail/capture.hpp and capture_registry.hpp.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/device.hpp>
#include <thread>
#include <unordered_map>
#include <vector>

#include "device/capture_registry.hpp"

namespace ndcuda::detail {
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

void open_capture_record(capture_record& record) {
  {
    capture_registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.by_id.emplace(record.id, &record);
  }
  open_captures.fetch_add(1, std::memory_order_relaxed);
}

std::vector<std::shared_ptr<const void>> close_capture_record(capture_record& record) {
  {
    capture_registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.by_id.erase(record.id);
  }
  open_captures.fetch_sub(1, std::memory_order_relaxed);
  std::lock_guard lock(record.mutex);
  return std::move(record.owners);
}

void hold_for_graph(cudaGraph_t graph, std::vector<std::shared_ptr<const void>> owners) {
  auto* held = new held_owners{std::move(owners)};
  cudaUserObject_t object = nullptr;
  if (const cudaError_t made =
          cudaUserObjectCreate(&object, held, release_held_owners, 1, cudaUserObjectNoDestructorSync);
      made != cudaSuccess) {
    delete held;
    NDCUDA_CUDA_CHECK(made);
  }
  if (const cudaError_t retained = cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove);
      retained != cudaSuccess) {
    (void)cudaUserObjectRelease(object, 1);
    NDCUDA_CUDA_CHECK(retained);
  }
}

void nudge_releases() {
  the_releaser().nudge();
}

}  // namespace ndcuda::detail
