// Several processes sharing one empty cache folder, all compiling the same kernels at once: each
// succeeds, and the folder ends with one valid entry per kernel and no temp files. The test
// re-executes its own binary; the child's work runs before GoogleTest starts (see below).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <ndcuda/jit/raw_kernel.hpp>

#include "jit/cache_entry.hpp"
#include "jit/disk_cache.hpp"
#include "jit/kernel_state.hpp"
#include "jit_support.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;
namespace fs = std::filesystem;

namespace {

constexpr int kernel_count = 3;
constexpr int process_count = 8;
constexpr const char* child_variable = "NDCUDA_JIT_RACE_CHILD";

nd::raw_kernel race_kernel(int i) {
  return nd::raw_kernel("extern \"C\" __global__ void race(int* p) { *p = " + std::to_string(i) + "; }", "race");
}

// In a child: wait until the parent releases every child at once (it closes the pipe), compile
// the kernels through the public API into NDCUDA_CACHE_DIR, and exit with 0 on success.
int run_child(int start_fd) {
  char byte = 0;
  while (::read(start_fd, &byte, 1) > 0) {
  }
  try {
    for (int i = 0; i < kernel_count; ++i) race_kernel(i).compile({9, 0});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "race child %d: %s\n", static_cast<int>(::getpid()), e.what());
    return 1;
  }
  return 0;
}

// Runs at static initialisation: a child never reaches GoogleTest's main.
[[maybe_unused]] const bool child_ran = [] {
  if (const char* fd = std::getenv(child_variable)) std::_Exit(run_child(std::atoi(fd)));
  return false;
}();

}  // namespace

TEST(JitDiskRace, ProcessesSharingAnEmptyCacheFolderAllSucceedAndLeaveOneValidEntryEach) {
  nd::testing::temp_dir dir;
  const fs::path cache = dir.path() / "shared-cache";  // not even created yet
  int start[2];
  ASSERT_EQ(::pipe(start), 0);
  std::vector<pid_t> children;
  for (int p = 0; p < process_count; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(start[1]);
      ::setenv(child_variable, std::to_string(start[0]).c_str(), 1);
      ::setenv("NDCUDA_CACHE_DIR", cache.c_str(), 1);
      ::unsetenv("NDCUDA_CACHE");
      char* const argv[] = {const_cast<char*>("jit_tests"), nullptr};
      ::execv("/proc/self/exe", argv);
      std::_Exit(127);
    }
    children.push_back(pid);
  }
  ::close(start[0]);
  ::close(start[1]);  // go
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child " << pid << " status " << status;
  }

  int entries = 0;
  for (const auto& e : fs::directory_iterator(cache)) {
    const std::string name = e.path().filename().string();
    EXPECT_FALSE(name.starts_with(jd::disk_cache::temp_marker)) << "a temp file was left: " << name;
    entries += name.ends_with(".ndjit") ? 1 : 0;
  }
  EXPECT_EQ(entries, kernel_count);
  // Each entry validates against the key this process builds for the same kernel.
  jd::disk_cache_config config;
  config.directory = cache;
  jd::disk_cache disk(config);
  for (int i = 0; i < kernel_count; ++i) {
    const auto kernel = race_kernel(i);
    const jd::kernel_state state(kernel.source(), kernel.name(), {});
    const auto key = state.key_for(jd::select_target(90));
    std::ifstream in(disk.entry_path(key), std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::string why;
    EXPECT_TRUE(jd::decode_entry(bytes, key, why).has_value()) << "kernel " << i << ": " << why;
  }
}
