// A program that exits while a background compile (tiered first calls) is running, on the CPU:
// NVRTC compiles a kernel no cache holds, and main returns at once. "first": during the process's
// first compile (NVRTC loads its builtins then); "later": during a compile queued after a first
// one finished; "disk": a first compile that then writes its entry to the disk cache; "late": a
// running job that uses a static the main thread constructed after the pool started (as a compile
// on the caller's thread can), which must outlive the job; "mixed": background compiles around one
// on the main thread, with the disk cache, as a fused expression, a copy and a fill meet them.
// run_repeatedly.cmake runs it many times; every exit must be clean.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <ndcuda/jit/cache.hpp>
#include <random>
#include <string>
#include <thread>

#include "jit/background_compiles.hpp"
#include "jit/kernel_key.hpp"
#include "jit/program_cache.hpp"

namespace jd = ndcuda::jit::detail;

namespace {

// A kernel whose source no earlier run compiled (NVRTC's own cache, too).
jd::kernel_key fresh_key() {
  static std::mt19937_64 engine{std::random_device{}()};
  const std::string constant = std::to_string(engine() % 8388608) + ".0f";
  return jd::make_key("extern \"C\" __global__ void probe(float* x) { x[threadIdx.x] *= " + constant + "; }",
                      "exit_probe.cu", {"probe"}, {}, jd::compile_target{90, false});
}

// Queues `job` on the compile pool and returns once a compile thread has taken it: main then exits
// during the job, not before it starts (a queued job is only dropped at exit).
template <class Job>
void start_in_background(Job job) {
  auto started = std::make_shared<std::atomic<bool>>(false);
  jd::compile_in_background([started, job] {
    started->store(true);
    job();
  });
  while (!started->load()) {
    std::this_thread::yield();
  }
}

void compile_fresh_kernel_in_background() {
  start_in_background([key = fresh_key()] {
    try {
      (void)jd::global_program_cache().get(key);
    } catch (...) {  // NOLINT(bugprone-empty-catch): a failed compile is not what this probe tests
    }
  });
}

// Set by the destructor of a static constructed late: the static, not the flag, is what exit
// destroys (the flag has no destructor).
std::atomic<bool> late_static_destroyed{false};

struct late_static {
  late_static() = default;
  late_static(const late_static&) = delete;
  late_static& operator=(const late_static&) = delete;
  ~late_static() { late_static_destroyed.store(true); }
};

// A job that is still running when main returns and then uses a static main constructed after the
// pool started: the pool must wait for it before that static is destroyed.
void use_a_late_static_in_background() {
  start_in_background([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (late_static_destroyed.load()) {
      std::fputs("a static was destroyed under a running background job\n", stderr);
      std::_Exit(3);
    }
  });
  static const late_static constructed_after_the_pool;
  (void)constructed_after_the_pool;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "late") == 0) {
    use_a_late_static_in_background();
    std::puts("clean-exit: main returns");
    return 0;
  }
  const bool later = argc > 1 && std::strcmp(argv[1], "later") == 0;
  const bool disk = argc > 1 && std::strcmp(argv[1], "disk") == 0;
  const bool mixed = argc > 1 && std::strcmp(argv[1], "mixed") == 0;
  if (!disk && !mixed) {
    jd::global_program_cache().set_disk(nullptr);
  }
  compile_fresh_kernel_in_background();
  if (later) {
    ndcuda::jit::wait_all();
    compile_fresh_kernel_in_background();
  }
  if (mixed) {  // the flow of the two-GPU test that crashed at exit (docs/jit.md)
    (void)jd::global_program_cache().get(fresh_key());
    compile_fresh_kernel_in_background();
  }
  std::puts("clean-exit: main returns");
  return 0;
}
