// The disk cache's POSIX file handling (declarations and contracts in disk_cache_files.hpp).
#include "jit/disk_cache_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace ndcuda::jit::detail {
namespace {

namespace fs = std::filesystem;

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

}  // namespace

fd_guard::~fd_guard() {
  if (fd >= 0) {
    ::close(fd);
  }
}

int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return errno;
    }
    if (n == 0) {
      return EIO;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

int create_private_folders(const fs::path& dir) {
  fs::path partial;
  for (const fs::path& part : dir) {
    partial /= part;
    if (::mkdir(partial.c_str(), 0700) == 0) {
      (void)::chmod(partial.c_str(), 0700);  // mkdir's mode went through the umask
    } else if (errno != EEXIST) {
      return errno;
    }
  }
  struct stat info {};
  if (::stat(dir.c_str(), &info) != 0) {
    return errno;
  }
  return S_ISDIR(info.st_mode) ? 0 : ENOTDIR;
}

std::string folder_problem(const struct stat& info) {
  if (info.st_uid != ::geteuid()) {
    return "it belongs to user id " + std::to_string(info.st_uid) + ", not to this process's user (id " +
           std::to_string(::geteuid()) + ")";
  }
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    const bool group = (info.st_mode & S_IWGRP) != 0;
    const bool others = (info.st_mode & S_IWOTH) != 0;
    return std::string("it is writable by ") +
           (group && others ? "its group and by other users"
            : group         ? "its group"
                            : "other users") +
           " (mode " + octal_mode(info.st_mode) + ")";
  }
  return {};
}

owned_file inspect(const fs::path& p, bool (*name_matches)(std::string_view) noexcept) {
  owned_file f;
  const std::string name = p.filename().string();
  struct stat info {};
  if (!name_matches(name) || ::lstat(p.c_str(), &info) != 0 || !S_ISREG(info.st_mode) || info.st_uid != ::geteuid()) {
    return f;
  }
  f.ours = true;
  f.size = static_cast<std::uint64_t>(info.st_size);
  f.modified = info.st_mtim;
  return f;
}

}  // namespace ndcuda::jit::detail
