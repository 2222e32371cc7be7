// Keeps the JIT tests out of the user's real cache: unless NDCUDA_CACHE_DIR is already set, each
// test process gets a fresh cache folder, removed when it ends. Tests about the disk cache make
// their own folders on top of this.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

namespace {

class isolated_cache : public ::testing::Environment {
 public:
  void SetUp() override {
    if (const char* set = std::getenv("NDCUDA_CACHE_DIR"); set != nullptr && *set != '\0') return;
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
