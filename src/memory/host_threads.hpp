// Internal: a small fixed set of worker threads for splitting host memcpy of staging buffers.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ndcuda::detail {

/// `count - 1` workers plus the calling thread run the tasks of one job at a time. A second caller
/// while a job runs does its tasks alone rather than wait.
class host_threads {
 public:
  explicit host_threads(unsigned count);
  ~host_threads();
  host_threads(const host_threads&) = delete;
  host_threads& operator=(const host_threads&) = delete;

  [[nodiscard]] unsigned size() const noexcept { return static_cast<unsigned>(workers_.size()) + 1; }

  /// Runs task(i) for every i in [0, tasks) and returns when all have finished; rethrows the first
  /// exception a task threw.
  void run(std::size_t tasks, const std::function<void(std::size_t)>& task);

 private:
  void work();
  void drain(const std::function<void(std::size_t)>* task, std::size_t tasks);

  std::vector<std::thread> workers_;
  std::mutex job_mutex_;  // one job at a time
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::uint64_t generation_ = 0;
  bool stop_ = false;
  const std::function<void(std::size_t)>* task_ = nullptr;
  std::size_t tasks_ = 0;
  std::atomic<std::size_t> next_{0};
  unsigned active_ = 0;
  std::exception_ptr failure_;
};

}  // namespace ndcuda::detail
