// Internal: the POSIX file handling under the disk cache: exact reads and writes on descriptors,
// private folder creation, the folder trust check, and stat of a directory entry without following
// links. Builds on the C library only; disk_cache.cpp decides what each result means.
#pragma once

#include <sys/stat.h>
#include <time.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace ndcuda::jit::detail {

/// Closes a descriptor on every path out.
struct fd_guard {
  int fd = -1;
  explicit fd_guard(int f) noexcept : fd(f) {}
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  ~fd_guard();
  int release() noexcept {
    const int f = fd;
    fd = -1;
    return f;
  }
};

/// Writes all of `bytes`: 0 or an errno.
[[nodiscard]] int write_all(int fd, std::string_view bytes);

/// mkdir -p whose new folders are 0700 whatever the umask: the cache holds kernel sources and
/// binaries that are nobody else's business. Folders that already exist are left as they are
/// (folder_problem judges the cache folder itself). 0 or an errno.
[[nodiscard]] int create_private_folders(const std::filesystem::path& dir);

/// Why a folder with this stat must not be trusted (another user owns it, or group or others may
/// write it), or empty when it may be.
[[nodiscard]] std::string folder_problem(const struct stat& info);

/// One lstat of a directory entry: `ours` when its name passes `name_matches` and it is a regular
/// file (not a link) owned by the effective user; what clear() and the sweep need to know that a
/// file is ndcuda's own.
struct owned_file {
  bool ours = false;
  std::uint64_t size = 0;
  struct timespec modified {};
};
[[nodiscard]] owned_file inspect(const std::filesystem::path& p, bool (*name_matches)(std::string_view) noexcept);

[[nodiscard]] inline bool older(const struct timespec& a, const struct timespec& b) noexcept {
  return a.tv_sec != b.tv_sec ? a.tv_sec < b.tv_sec : a.tv_nsec < b.tv_nsec;
}

[[nodiscard]] inline bool is_hex_digit(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

}  // namespace ndcuda::jit::detail
