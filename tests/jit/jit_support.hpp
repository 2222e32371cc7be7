// Helpers for the JIT tests: temporary folders, scoped environment variables, captured warnings,
// and a stand-in compiler that counts calls without running NVRTC.
// Builds on the library's internal headers (src/ is on the tests' include path).
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <ndcuda/jit/cache.hpp>
#include <optional>
#include <string>
#include <vector>

#include "jit/kernel_key.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace ndcuda::testing {

/// A fresh folder under $TMPDIR (or /tmp), removed with everything in it at scope exit.
class temp_dir {
 public:
  temp_dir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/ndcuda-jit-test-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Sets (or with nullopt unsets) an environment variable for the scope's lifetime.
class scoped_env {
 public:
  scoped_env(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) previous_ = old;
    if (value) {
      ::setenv(name_.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ~scoped_env() {
    if (previous_) {
      ::setenv(name_.c_str(), previous_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  std::string name_;
  std::optional<std::string> previous_;
};

/// Collects JIT warnings instead of printing them, for the scope's lifetime.
class captured_warnings {
 public:
  captured_warnings() {
    previous_ = jit::set_warning_handler([this](const std::string& message) {
      std::lock_guard lock(mutex_);
      messages_.push_back(message);
    });
  }
  ~captured_warnings() { jit::set_warning_handler(previous_); }
  captured_warnings(const captured_warnings&) = delete;
  captured_warnings& operator=(const captured_warnings&) = delete;

  [[nodiscard]] std::vector<std::string> messages() const {
    std::lock_guard lock(mutex_);
    return messages_;
  }
  [[nodiscard]] std::size_t count() const { return messages().size(); }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
  jit::warning_handler previous_;
};

/// A compiler that does not compile: its "image" names the key, and it counts its calls.
struct counting_compiler {
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
  jit::detail::compiled_program operator()(const jit::detail::kernel_key& key) const {
    calls->fetch_add(1);
    jit::detail::compiled_program program;
    program.image = "IMAGE:" + jit::detail::to_hex(jit::detail::digest(key));
    for (const auto& expression : key.name_expressions) program.lowered_names.push_back("lowered_" + expression);
    return program;
  }
};

/// A key as the library builds it, for a small kernel whose source differs by `tag`.
inline jit::detail::kernel_key small_key(const std::string& tag, int arch = 90) {
  return jit::detail::make_key("extern \"C\" __global__ void k(float* x) { x[threadIdx.x] *= 2; } // " + tag, "k.cu",
                               {"k"}, {}, {arch, false});
}

}  // namespace ndcuda::testing
