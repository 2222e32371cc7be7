// A small pool of compile threads: NVRTC is thread-safe, and a program's first iteration may meet
// several new kernels at once, so they compile side by side (at most four, half the cores).
//
// Exit: a compile still running when the process exits must end before anything it uses is
// destroyed. Static objects are destroyed in the reverse order of their construction, mixed with
// atexit handlers, and a compile may construct some (NVRTC loads its builtins library on its first
// compile). So a handler that drops queued compiles and waits for running ones is registered when
// the pool starts and again after each of the first compiles ends: the last one registered runs
// before everything those compiles constructed is destroyed. The GPU suite met that race as a
// crash at exit before this (tests/jit/tier0_exit.cpp runs it on the CPU).
#include "jit/background_compiles.hpp"

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

}  // namespace

void compile_in_background(std::function<void()> job) {
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
