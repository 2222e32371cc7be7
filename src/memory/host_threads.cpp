// host_threads: the memcpy helpers of the transfer engine.
#include "memory/host_threads.hpp"

namespace ndcuda::detail {

host_threads::host_threads(unsigned count) {
  for (unsigned i = 1; i < count; ++i) {
    workers_.emplace_back([this] { work(); });
  }
}

host_threads::~host_threads() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) {
    w.join();
  }
}

void host_threads::drain(const std::function<void(std::size_t)>* task, std::size_t tasks) {
  for (std::size_t i = next_.fetch_add(1); i < tasks; i = next_.fetch_add(1)) {
    try {
      (*task)(i);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!failure_) {
        failure_ = std::current_exception();
      }
    }
  }
}

void host_threads::work() {
  std::uint64_t seen = 0;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) {
      return;
    }
    seen = generation_;
    // Take the job under the lock: run() resets it only once no worker is active.
    const auto* task = task_;
    const std::size_t tasks = tasks_;
    ++active_;
    lock.unlock();
    if (task != nullptr) {
      drain(task, tasks);
    }
    lock.lock();
    if (--active_ == 0) {
      idle_.notify_all();
    }
  }
}

void host_threads::run(std::size_t tasks, const std::function<void(std::size_t)>& task) {
  if (tasks == 0) {
    return;
  }
  std::unique_lock job(job_mutex_, std::try_to_lock);
  if (workers_.empty() || tasks == 1 || !job.owns_lock()) {
    for (std::size_t i = 0; i < tasks; ++i) {
      task(i);
    }
    return;
  }
  {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] { return active_ == 0; });  // a late worker of the last job is done with it
    task_ = &task;
    tasks_ = tasks;
    next_.store(0);
    failure_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  drain(&task, tasks);
  std::exception_ptr failure;
  {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] { return active_ == 0; });
    task_ = nullptr;
    tasks_ = 0;
    failure = failure_;
    failure_ = nullptr;
  }
  if (failure) {
    std::rethrow_exception(failure);
  }
}

}  // namespace ndcuda::detail
