// A small pool of compile threads: NVRTC is thread-safe, and a program's first iteration may meet
// several new kernels at once, so they compile side by side (at most four, half the cores).
//
// Exit: a compile still running when the process exits must end before anything it uses is
// destroyed. A compile may use statics constructed after the pool started, by the compile itself
// (NVRTC builds some on its first compile) or by another thread (a later compile on the caller's
// thread), and static destructors and atexit handlers run in the reverse order of their
// registration: an atexit handler registered when the pool started runs after theirs. So the pool
// is stopped (queued compiles dropped, running ones waited for) by the destructor of a
// thread_local guard in the main thread: the thread that calls exit destroys its thread_local
// objects before any static object ([basic.start.term]; glibc's exit runs them first). The atexit
// handlers below stay as a fallback for a process that exits from another thread. The GPU suite met
// that race as a crash at exit; tests/jit_exit/ runs it on the CPU.
#include "jit/background_compiles.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <ndcuda/jit/cache.hpp>
#include <thread>
#include <vector>

#include "jit/program_cache.hpp"

namespace ndcuda::jit::detail {
namespace {

void register_exit_wait();

class compile_pool {
 public:
  compile_pool() {
    // Constructed after the cache the jobs use, so destroyed before it would be (it is leaked anyway).
    (void)global_program_cache();
    const unsigned cores = std::max(std::thread::hardware_concurrency(), 2u);
    const unsigned count = std::clamp(cores / 2, 1u, 4u);
    for (unsigned i = 0; i < count; ++i) {
      threads_.emplace_back([this] { work(); });
    }
  }
  ~compile_pool() { stop(); }

  /// Drops queued jobs and waits for running ones; later submits are dropped. Idempotent.
  void stop() {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) {
        return;
      }
      stopping_ = true;
      pending_ -= queue_.size();
      queue_.clear();
    }
    ready_.notify_all();
    for (std::thread& t : threads_) {
      t.join();
    }
    idle_.notify_all();
  }
  compile_pool(const compile_pool&) = delete;
  compile_pool& operator=(const compile_pool&) = delete;

  void submit(std::function<void()> job) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) {
        return;  // the process is exiting
      }
      queue_.push_back(std::move(job));
      ++pending_;
    }
    ready_.notify_one();
  }

  void wait_idle() {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [this] { return pending_ == 0; });
  }

 private:
  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) {
        return;
      }
      std::function<void()> job = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      job();
      if (finished_.fetch_add(1) < exit_registrations) {
        register_exit_wait();  // after whatever this compile constructed
      }
      lock.lock();
      if (--pending_ == 0) {
        idle_.notify_all();
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::condition_variable idle_;
  std::deque<std::function<void()>> queue_;
  std::size_t pending_ = 0;  // queued and running
  bool stopping_ = false;
  std::atomic<unsigned> finished_{0};
  static constexpr unsigned exit_registrations = 8;
  std::vector<std::thread> threads_;
};

// Leaked: stopped (never destroyed) at exit by the handlers below, so no thread outlives it.
std::atomic<compile_pool*> the_pool{nullptr};

compile_pool* pool(bool start) {
  compile_pool* p = the_pool.load(std::memory_order_acquire);
  if (p != nullptr || !start) {
    return p;
  }
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  if (the_pool.load() == nullptr) {
    the_pool.store(new compile_pool(), std::memory_order_release);
    register_exit_wait();
  }
  return the_pool.load();
}

void stop_at_exit() {
  if (compile_pool* p = the_pool.load(std::memory_order_acquire)) {
    p->stop();
  }
}

void register_exit_wait() {
  (void)std::atexit(stop_at_exit);
}

// Destroyed first when the main thread exits the process (returning from main or calling exit);
// in any other thread, when that thread ends, which must not stop the pool.
struct main_thread_exit_guard {
  main_thread_exit_guard() = default;
  main_thread_exit_guard(const main_thread_exit_guard&) = delete;
  main_thread_exit_guard& operator=(const main_thread_exit_guard&) = delete;
  ~main_thread_exit_guard() {
    if (gettid() == getpid()) {
      stop_at_exit();
    }
  }
};

void arm_main_thread_exit_guard() {
  if (gettid() == getpid()) {
    thread_local main_thread_exit_guard guard;
    (void)guard;
  }
}

}  // namespace

void compile_in_background(std::function<void()> job) {
  arm_main_thread_exit_guard();
  pool(true)->submit(std::move(job));
}

}  // namespace ndcuda::jit::detail

namespace ndcuda::jit {

void wait_all() {
  if (detail::compile_pool* p = detail::pool(false)) {
    p->wait_idle();
  }
}

}  // namespace ndcuda::jit
