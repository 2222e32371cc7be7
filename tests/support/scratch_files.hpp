// Files for the tests that write and read them (.npy, .npz, text): a scratch directory per test,
// whole-file reads and writes. Header-only; builds on GoogleTest and <filesystem>, no ndcuda.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace ndcuda::testing {

/// A fixture whose dir_ is a fresh directory per test (named after the suite, the process and the
/// test, so parallel ctest runs never share one), removed afterwards: `using Npy = scratch_dir_test;`.
class scratch_dir_test : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           (std::string("ndcuda_") + info->test_suite_name() + "_" + std::to_string(getpid()) + "_" + info->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

/// The whole file as a string of bytes (empty when it cannot be read).
inline std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The whole file as bytes.
inline std::vector<std::byte> file_bytes(const std::filesystem::path& path) {
  const std::string text = file_text(path);
  std::vector<std::byte> out(text.size());
  if (!text.empty()) {  // memcpy into an empty vector's null data() is undefined (UBSan says so)
    std::memcpy(out.data(), text.data(), text.size());
  }
  return out;
}

/// Replaces the file's contents with `bytes`.
inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace ndcuda::testing
