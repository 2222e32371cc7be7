// The checked open, bounded read and replacing write of untrusted_files.hpp.
#include "core/untrusted_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <system_error>
#include <utility>
#include <vector>

namespace ndcuda::detail {

namespace {

std::string errno_text(int error) {
  return std::error_code(error, std::generic_category()).message();
}

bool fail(file_problem& problem, int error, std::string why) {
  problem.error = error;
  problem.why = std::move(why);
  return false;
}

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) {
    return "a folder";
  }
  if (S_ISFIFO(mode)) {
    return "a FIFO";
  }
  if (S_ISSOCK(mode)) {
    return "a socket";
  }
  if (S_ISCHR(mode) || S_ISBLK(mode)) {
    return "a device";
  }
  return "not a regular file";
}

// 16 hex digits from the system's random source: a temporary name nobody can guess in advance.
std::string random_suffix() {
  static constexpr char digits[] = "0123456789abcdef";
  std::random_device source;
  std::string out;
  for (int word = 0; word < 2; ++word) {
    std::uint32_t bits = source();
    for (int i = 0; i < 8; ++i, bits >>= 4) {
      out += digits[bits & 0xf];
    }
  }
  return out;
}

}  // namespace

file_descriptor& file_descriptor::operator=(file_descriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) {
      ::close(fd_);
    }
    fd_ = other.release();
  }
  return *this;
}

file_descriptor::~file_descriptor() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

namespace {

// open(2) with `flags`, then fstat: a regular file, or nothing and the reason.
std::optional<std::pair<file_descriptor, struct stat>> open_regular(const std::filesystem::path& path, int flags,
                                                                    mode_t mode, file_problem& problem) {
  file_descriptor fd(::open(path.c_str(), flags, mode));
  if (fd.get() < 0) {
    const int error = errno;
    fail(problem, error,
         error == ELOOP && (flags & O_NOFOLLOW) != 0 ? std::string("it is a symbolic link")
                                                     : "it cannot be opened: " + errno_text(error));
    return std::nullopt;
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) {
    fail(problem, errno, "fstat failed: " + errno_text(errno));
    return std::nullopt;
  }
  if (!S_ISREG(info.st_mode)) {
    fail(problem, 0, "it is " + kind_of(info.st_mode) + ", not a regular file");
    return std::nullopt;
  }
  return std::make_pair(std::move(fd), info);
}

}  // namespace

std::optional<regular_file> open_append_file(const std::filesystem::path& path, mode_t mode, file_problem& problem) {
  auto opened = open_regular(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode, problem);
  if (!opened) {
    return std::nullopt;
  }
  return regular_file{std::move(opened->first), static_cast<std::uint64_t>(opened->second.st_size)};
}

std::optional<regular_file> open_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes,
                                              bool follow_links, file_problem& problem) {
  const int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (follow_links ? 0 : O_NOFOLLOW);
  auto opened = open_regular(path, flags, 0, problem);
  if (!opened) {
    return std::nullopt;
  }
  file_descriptor fd = std::move(opened->first);
  const auto size = static_cast<std::uint64_t>(opened->second.st_size);
  if (size > max_bytes) {
    fail(problem, 0,
         "it holds " + std::to_string(size) + " bytes, more than the " + std::to_string(max_bytes) + " expected");
    return std::nullopt;
  }
  // Reads should block from here on (a regular file never waits, but a slow filesystem may say EAGAIN).
  (void)::fcntl(fd.get(), F_SETFL, O_RDONLY);
  return regular_file{std::move(fd), size};
}

std::optional<std::string> read_whole(const regular_file& file, file_problem& problem) {
  // One byte more than the size: a file that grew since fstat is noticed, not cut.
  std::string bytes(static_cast<std::size_t>(file.size) + 1, '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(file.fd.get(), bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      fail(problem, errno, "reading it failed: " + errno_text(errno));
      return std::nullopt;
    }
    if (n == 0) {
      break;
    }
    got += static_cast<std::size_t>(n);
  }
  if (got != file.size) {
    fail(problem, 0, "its size changed while it was read");
    return std::nullopt;
  }
  bytes.resize(got);
  return bytes;
}

std::optional<std::string> read_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes,
                                             bool follow_links, file_problem& problem) {
  const std::optional<regular_file> file = open_regular_file(path, max_bytes, follow_links, problem);
  if (!file) {
    return std::nullopt;
  }
  return read_whole(*file, problem);
}

bool is_regular_file(const std::filesystem::path& path, file_problem& problem) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return fail(problem, errno, "it cannot be read: " + errno_text(errno));
  }
  if (!S_ISREG(info.st_mode)) {
    return fail(problem, 0, "it is " + kind_of(info.st_mode) + ", not a regular file");
  }
  return true;
}

std::optional<std::filesystem::path> first_special_file(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::recursive_directory_iterator it(dir, std::filesystem::directory_options::skip_permission_denied, ec);
  for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const std::filesystem::file_status status = it->symlink_status(ec);
    if (ec) {
      break;
    }
    switch (status.type()) {
      case std::filesystem::file_type::regular:
      case std::filesystem::file_type::directory:
      case std::filesystem::file_type::symlink:
        break;
      default:
        return it->path();
    }
  }
  return std::nullopt;
}

replacing_writer::replacing_writer(std::filesystem::path destination, std::filesystem::path temporary,
                                   file_descriptor fd) noexcept
    : destination_(std::move(destination)), temporary_(std::move(temporary)), fd_(std::move(fd)) {}

replacing_writer::replacing_writer(replacing_writer&& other) noexcept
    : destination_(std::move(other.destination_)),
      temporary_(std::move(other.temporary_)),
      fd_(std::move(other.fd_)),
      position_(other.position_),
      committed_(other.committed_) {
  other.committed_ = true;  // the moved-from writer owns no temporary any more
}

replacing_writer::~replacing_writer() {
  if (!committed_) {
    fd_ = file_descriptor();
    (void)::unlink(temporary_.c_str());
  }
}

std::optional<replacing_writer> replacing_writer::create(const std::filesystem::path& destination, mode_t mode,
                                                         file_problem& problem) {
  struct stat info {};
  if (::lstat(destination.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    fail(problem, EISDIR, "it is a folder");
    return std::nullopt;
  }
  // Next to the destination, so the rename stays on one filesystem and is atomic. O_EXCL and
  // O_NOFOLLOW: a name someone planted (a link, a FIFO) is never opened; `mode` goes through the
  // umask as any new file's does.
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::filesystem::path name = destination;
    name += ".tmp." + random_suffix();
    file_descriptor fd(::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    if (fd.get() >= 0) {
      return replacing_writer(destination, std::move(name), std::move(fd));
    }
    if (errno != EEXIST) {
      break;
    }
  }
  const int error = errno;
  fail(problem, error,
       error == ENOENT ? std::string("its folder does not exist")
                       : "creating a temporary file in its folder failed: " + errno_text(error));
  return std::nullopt;
}

bool replacing_writer::write(const void* data, std::size_t size, file_problem& problem) {
  if (!write_at(position_, data, size, problem)) {
    return false;
  }
  position_ += size;
  return true;
}

bool replacing_writer::write_at(std::uint64_t offset, const void* data, std::size_t size, file_problem& problem) {
  const auto* bytes = static_cast<const char*>(data);
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::pwrite(fd_.get(), bytes + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return fail(problem, errno, "writing it failed: " + errno_text(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

bool replacing_writer::commit(file_problem& problem) {
  if (::close(fd_.release()) != 0) {
    return fail(problem, errno, "writing it failed: " + errno_text(errno));
  }
  // rename replaces whatever is at the destination (a planted link too) without following it.
  if (::rename(temporary_.c_str(), destination_.c_str()) != 0) {
    return fail(problem, errno, "renaming the finished file into place failed: " + errno_text(errno));
  }
  committed_ = true;
  return true;
}

bool replace_file(const std::filesystem::path& destination, std::string_view bytes, mode_t mode,
                  file_problem& problem) {
  std::optional<replacing_writer> writer = replacing_writer::create(destination, mode, problem);
  return writer && writer->write(bytes.data(), bytes.size(), problem) && writer->commit(problem);
}

std::string quote_input(std::string_view text, std::size_t limit) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  const std::size_t shown = text.size() < limit ? text.size() : limit;
  for (std::size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += digits[c >> 4];
      out += digits[c & 0xf];
    }
  }
  if (shown < text.size()) {
    out += "... (" + std::to_string(text.size()) + " characters)";
  }
  return out;
}

}  // namespace ndcuda::detail
