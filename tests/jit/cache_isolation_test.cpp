// Keeps the JIT tests out of any shared cache: each test process gets a fresh cache folder, removed
// when it ends, even when NDCUDA_CACHE_DIR is set. The cache tests plant foreign and corrupt
// entries, which must not reach a real cache, and tests running in parallel (ctest -j) on one
// folder rewrote each other's entries. Tests about the disk cache make their own folders on top.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

namespace {

class isolated_cache : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/ndcuda-jit-cache-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) return;
    dir_ = pattern;
    ::setenv("NDCUDA_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (dir_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

 private:
  std::string dir_;
};

[[maybe_unused]] const auto* const registered = ::testing::AddGlobalTestEnvironment(new isolated_cache);

}  // namespace
