// unique_id: the NCCL id every rank of a multi-process group shares, as hex and through a file.
// The file is the part another user can reach (a shared folder, a predictable name), so writing
// never follows a planted name and reading never blocks or reads without bound: docs/security.md.
#include <fcntl.h>
#include <nccl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ndcuda/dist/communicator.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "dist/nccl_check.hpp"

namespace ndcuda::dist {

namespace {

constexpr std::size_t hex_digits = 256;  // to_hex() of the 128 bytes

// A file's text when it is a regular file holding at most `limit` bytes; otherwise nothing. Opened
// without blocking (a FIFO planted at the path must not hang the reader) and read with a bound (a
// device such as /dev/zero, or a huge file, must not fill memory).
std::optional<std::string> read_small_regular_file(const std::string& path, std::size_t limit, std::string* why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *why = errno == ENOENT ? "it does not exist yet" : std::string("it cannot be opened: ") + std::strerror(errno);
    return std::nullopt;
  }
  struct ::stat info {};
  std::optional<std::string> out;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    *why = "it is not a regular file (a FIFO, a device or a folder)";
  } else {
    std::string text(limit + 1, '\0');
    std::size_t got = 0;
    for (;;) {
      const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n > 0) {
        got += static_cast<std::size_t>(n);
        if (got < text.size()) {
          continue;
        }
      } else if (n < 0 && errno == EINTR) {
        continue;
      }
      break;
    }
    if (got > limit) {
      *why = "it holds more than an id";
    } else {
      text.resize(got);
      out = std::move(text);
    }
  }
  ::close(fd);
  return out;
}

}  // namespace

unique_id unique_id::generate() {
  static_assert(sizeof(ncclUniqueId) == sizeof(unique_id::bytes));
  ncclUniqueId id{};
  NDCUDA_NCCL_CHECK(ncclGetUniqueId(&id));
  unique_id out;
  std::copy(std::begin(id.internal), std::end(id.internal), out.bytes.begin());
  return out;
}

std::string unique_id::to_hex() const {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

unique_id unique_id::from_hex(std::string_view hex) {
  while (!hex.empty() && (hex.back() == '\n' || hex.back() == '\r' || hex.back() == ' ')) {
    hex.remove_suffix(1);
  }
  auto value = [](char c) -> int {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  };
  unique_id out;
  bool ok = hex.size() == out.bytes.size() * 2;
  for (std::size_t i = 0; ok && i < out.bytes.size(); ++i) {
    const int hi = value(hex[2 * i]);
    const int lo = value(hex[2 * i + 1]);
    ok = hi >= 0 && lo >= 0;
    out.bytes[i] = static_cast<char>(ok ? hi * 16 + lo : 0);
  }
  if (!ok) {
    throw communication_error("unique_id::from_hex: expected " + std::to_string(out.bytes.size() * 2) +
                              " hexadecimal digits (unique_id::to_hex()), got " + std::to_string(hex.size()) +
                              " characters");
  }
  return out;
}

void unique_id::write_file(const std::string& path) const {
  // A temporary of a fresh, unpredictable name next to `path` (mkostemp: O_EXCL, so a link or FIFO
  // planted at a guessable name is never opened), then a rename, which replaces whatever `path`
  // is, a planted link included, without following it: readers see no id or a whole one.
  std::vector<char> temp(path.begin(), path.end());
  for (const char c : std::string(".tmp.XXXXXX")) {
    temp.push_back(c);
  }
  temp.push_back('\0');
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) {
    throw communication_error("unique_id::write_file: cannot create a temporary file next to " + path + " (" +
                              std::strerror(errno) +
                              "); the bootstrap file must be in a folder every rank can read and rank 0 can write");
  }
  const std::string text = to_hex() + '\n';
  bool ok = ::fchmod(fd, 0644) == 0;  // mkostemp makes 0600; ranks may run as other users
  for (std::size_t done = 0; ok && done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    ok = n > 0;
    done += ok ? static_cast<std::size_t>(n) : 0;
  }
  ok = ::close(fd) == 0 && ok;
  if (!ok || std::rename(temp.data(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(temp.data());
    throw communication_error("unique_id::write_file: cannot write " + path + " (" + why +
                              "); the bootstrap file must be in a folder every rank can read and rank 0 can write");
  }
}

unique_id unique_id::read_file(const std::string& path, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string why;
  for (;;) {
    // Anything but a whole id (missing, partial, not a regular file, too long) may still be
    // replaced by rank 0's rename, so it is waited out, never trusted, up to the timeout.
    if (const auto text = read_small_regular_file(path, hex_digits + 2, &why)) {
      std::string_view hex(*text);
      while (!hex.empty() && (hex.back() == '\n' || hex.back() == '\r')) {
        hex.remove_suffix(1);
      }
      if (hex.size() == hex_digits) {
        return from_hex(hex);
      }
      why = "it does not hold a whole id (" + std::to_string(text->size()) + " bytes)";
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw communication_error("communicator: waited " + std::to_string(timeout.count()) +
                                " ms for rank 0 to write the NCCL id to " + path + ", but " + why +
                                "; is rank 0 running, and is the path on a file system every rank sees?");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace ndcuda::dist
