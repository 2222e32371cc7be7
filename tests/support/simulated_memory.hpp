// A simulated chunk upstream and stream ordering, so the pools' algorithms run in CI without a GPU.
// Builds on ndcuda/memory/pool_interfaces.hpp; fake streams are never handed to CUDA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/memory/pool_interfaces.hpp>
#include <ndcuda/memory/stats.hpp>
#include <string>
#include <utility>
#include <vector>

namespace ndcuda::testing {

/// A stream handle that only the simulation understands (stream::wrap with a device makes no CUDA call).
inline stream fake_stream(int id, int device = 0) {
  return stream::wrap(reinterpret_cast<cudaStream_t>(std::uintptr_t{0x5000} + static_cast<std::uintptr_t>(id) * 64),
                      device);
}

/// Hands out fake, never dereferenced addresses from a budget of `capacity` bytes; records every
/// request; can be told to fail.
class simulated_upstream final : public chunk_upstream {
 public:
  explicit simulated_upstream(std::size_t capacity) : capacity_(capacity) {}

  void* allocate_chunk(std::size_t bytes, const stream& /*s*/) override {
    std::lock_guard lock(mutex_);
    requests_.push_back(bytes);
    if (fail_next_ > 0) {
      --fail_next_;
      return nullptr;
    }
    if (bytes > capacity_ - in_use_) {
      return nullptr;
    }
    // Chunks are never adjacent, so nothing could merge across them by address arithmetic alone.
    const std::uintptr_t address = next_;
    next_ += (bytes + 0xFFFF) / 0x10000 * 0x10000 + 0x10000;
    live_.emplace(address, bytes);
    in_use_ += bytes;
    return reinterpret_cast<void*>(address);
  }

  void free_chunk(void* p, std::size_t bytes) override {
    std::lock_guard lock(mutex_);
    auto found = live_.find(reinterpret_cast<std::uintptr_t>(p));
    if (found == live_.end() || found->second != bytes) {
      ++bad_frees_;
      return;
    }
    in_use_ -= bytes;
    live_.erase(found);
    frees_.push_back(bytes);
  }

  std::string describe() const override {
    std::lock_guard lock(mutex_);
    return "simulated upstream: " + format_bytes(capacity_ - in_use_) + " free of " + format_bytes(capacity_);
  }

  void fail_next(int n) {
    std::lock_guard lock(mutex_);
    fail_next_ = n;
  }
  void set_capacity(std::size_t bytes) {
    std::lock_guard lock(mutex_);
    capacity_ = bytes;
  }
  std::vector<std::size_t> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  std::vector<std::size_t> frees() const {
    std::lock_guard lock(mutex_);
    return frees_;
  }
  std::size_t in_use() const {
    std::lock_guard lock(mutex_);
    return in_use_;
  }
  std::size_t live_chunks() const {
    std::lock_guard lock(mutex_);
    return live_.size();
  }
  int bad_frees() const {
    std::lock_guard lock(mutex_);
    return bad_frees_;
  }

 private:
  mutable std::mutex mutex_;
  std::size_t capacity_;
  std::size_t in_use_ = 0;
  std::uintptr_t next_ = std::uintptr_t{1} << 40;
  std::map<std::uintptr_t, std::size_t> live_;
  std::vector<std::size_t> requests_;
  std::vector<std::size_t> frees_;
  int fail_next_ = 0;
  int bad_frees_ = 0;
};

/// Streams as counters of queued and finished work. A test queues work (enqueue), finishes it
/// (finish), marks a stream as capturing, and reads back which waits and syncs the pool made.
class simulated_ordering final : public stream_ordering {
 public:
  void enqueue(const stream& s) {
    std::lock_guard lock(mutex_);
    ++streams_[s.handle()].queued;
  }
  void finish(const stream& s) {
    std::lock_guard lock(mutex_);
    auto& st = streams_[s.handle()];
    st.finished = st.queued;
  }
  void set_capturing(const stream& s, bool on) {
    std::lock_guard lock(mutex_);
    streams_[s.handle()].capturing = on;
  }
  bool busy(const stream& s) {
    std::lock_guard lock(mutex_);
    auto& st = streams_[s.handle()];
    return st.finished != st.queued;
  }

  bool capturing(const stream& s) override {
    std::lock_guard lock(mutex_);
    return streams_[s.handle()].capturing;
  }
  bool idle(const stream& s) override {
    std::lock_guard lock(mutex_);
    auto& st = streams_[s.handle()];
    if (st.capturing) {
      ++misuse_;  // CUDA would invalidate the capture
    }
    ++idle_queries_;
    return st.finished == st.queued;
  }
  token record(const stream& s) override {
    std::lock_guard lock(mutex_);
    auto& st = streams_[s.handle()];
    if (st.capturing) {
      ++misuse_;
    }
    marks_.push_back({s.handle(), st.queued, true});
    ++records_;
    return marks_.size();  // never 0
  }
  bool completed(token t) override {
    std::lock_guard lock(mutex_);
    const mark& m = at(t);
    return streams_[m.stream].finished >= m.epoch;
  }
  void wait(const stream& s, token t) override {
    std::lock_guard lock(mutex_);
    waits_.emplace_back(s.handle(), at(t).stream);
  }
  void synchronize(token t) override {
    std::lock_guard lock(mutex_);
    const mark& m = at(t);
    auto& st = streams_[m.stream];
    st.finished = std::max(st.finished, m.epoch);
    ++syncs_;
  }
  void release(token t) noexcept override {
    std::lock_guard lock(mutex_);
    if (t == 0 || t > marks_.size() || !marks_[t - 1].live) {
      ++misuse_;
      return;
    }
    marks_[t - 1].live = false;
  }

  /// (consumer, producer) for each cross-stream wait the pool asked for.
  std::vector<std::pair<cudaStream_t, cudaStream_t>> waits() const {
    std::lock_guard lock(mutex_);
    return waits_;
  }
  std::size_t live_tokens() const {
    std::lock_guard lock(mutex_);
    std::size_t n = 0;
    for (const mark& m : marks_) {
      n += m.live ? 1 : 0;
    }
    return n;
  }
  int syncs() const {
    std::lock_guard lock(mutex_);
    return syncs_;
  }
  int records() const {
    std::lock_guard lock(mutex_);
    return records_;
  }
  /// Calls CUDA would have rejected (querying a capturing stream, releasing a token twice).
  int misuse() const {
    std::lock_guard lock(mutex_);
    return misuse_;
  }

 private:
  struct stream_sim {
    std::uint64_t queued = 0;
    std::uint64_t finished = 0;
    bool capturing = false;
  };
  struct mark {
    cudaStream_t stream;
    std::uint64_t epoch;
    bool live;
  };
  const mark& at(token t) const {
    static const mark none{nullptr, 0, false};
    if (t == 0 || t > marks_.size()) {
      ++misuse_;
      return none;
    }
    if (!marks_[t - 1].live) {
      ++misuse_;
    }
    return marks_[t - 1];
  }

  mutable std::mutex mutex_;
  std::map<cudaStream_t, stream_sim> streams_;
  std::vector<mark> marks_;
  std::vector<std::pair<cudaStream_t, cudaStream_t>> waits_;
  int syncs_ = 0;
  int records_ = 0;
  int idle_queries_ = 0;
  mutable int misuse_ = 0;
};

}  // namespace ndcuda::testing
