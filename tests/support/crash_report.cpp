// Linked into every test executable (ndcuda_test_support): a test process that crashes, or that
// hangs after its last test, says where, on stderr, before it ends as it would have anyway.
// Without this a crash at exit shows in ctest only as "Segmentation fault" after "[  PASSED  ]",
// and a hang only as a timeout; the GPU suite met both (docs/jit.md, tiered first calls).
//
// - A fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) prints the signal and the thread's
//   backtrace, then re-raises it with the default action, so the exit status is unchanged.
// - When the tests are done, a watchdog is armed: a process still alive 120 s later (ctest's
//   timeout is longer) prints the main thread's backtrace, which shows what exit is waiting for,
//   and aborts.
//
// Frames in the test executable print as `exe(+0xOFFSET)`: `addr2line -f -C -e <exe> 0xOFFSET`
// names them in the same build tree.
#include <execinfo.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

namespace {

constexpr int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr unsigned exit_watchdog_seconds = 120;

// Only async-signal-safe calls from here on: write, backtrace_symbols_fd, signal, raise.
void say(const char* text) {
  (void)!write(STDERR_FILENO, text, std::strlen(text));
}

void print_backtrace() {
  void* frames[64];
  const int count = backtrace(frames, 64);
  backtrace_symbols_fd(frames, count, STDERR_FILENO);
}

void on_fatal_signal(int signal_number) {
  say("\n[ ndcuda test ] fatal signal ");
  say(strsignal(signal_number));
  say(" in this thread; backtrace:\n");
  print_backtrace();
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

void on_exit_watchdog(int) {
  say("\n[ ndcuda test ] the tests ended 120 s ago but the process has not exited; main thread:\n");
  print_backtrace();
  std::signal(SIGABRT, SIG_DFL);
  std::abort();
}

// Armed when the last test has run, so a slow test is never cut short by it.
class exit_watchdog : public ::testing::Environment {
 public:
  void TearDown() override {
    std::signal(SIGALRM, on_exit_watchdog);
    alarm(exit_watchdog_seconds);
  }
};

const bool installed = [] {
  // backtrace() loads libgcc on its first call, which allocates: do that now, not in a handler.
  void* warm[1];
  (void)backtrace(warm, 1);
  for (int signal_number : fatal_signals) {
    std::signal(signal_number, on_fatal_signal);
  }
  ::testing::AddGlobalTestEnvironment(new exit_watchdog);  // gtest owns it
  return true;
}();

}  // namespace
