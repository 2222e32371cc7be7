// unique_id as hex and through a file: the NCCL id every rank of a multi-process group shares. The
// file is the part another user can reach (a shared folder, a predictable name), so writing never
// follows a planted name and reading never blocks or reads without bound (docs/security.md). No
// NCCL here: the fuzz target tests/fuzz/id_file_fuzz.cpp builds this file alone.
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <ndcuda/dist/communicator.hpp>
#include <string>
#include <string_view>
#include <thread>

#include "core/untrusted_files.hpp"

namespace ndcuda::dist {

namespace {

constexpr std::size_t hex_digits = 256;  // to_hex() of the 128 bytes

}  // namespace

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
  // Through the library's one writer of untrusted paths (src/core/untrusted_files.hpp): a
  // temporary of an unpredictable name next to `path`, renamed over it when whole, so a link or
  // FIFO planted at a guessable name is never opened, and readers see no id or a whole one. 0644:
  // the ranks may run as other users.
  detail::file_problem problem;
  if (!detail::replace_file(path, to_hex() + '\n', 0644, problem)) {
    throw communication_error("unique_id::write_file: cannot write " + detail::quote_input(path) + " (" + problem.why +
                              "); the bootstrap file must be in a folder every rank can read and rank 0 can write");
  }
}

unique_id unique_id::read_file(const std::string& path, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string why;
  for (;;) {
    // Anything but a whole id (missing, partial, not a regular file, too long) may still be
    // replaced by rank 0's rename, so it is waited out, never trusted, up to the timeout.
    // Opened without blocking (a FIFO planted at the path must not hang the reader) and bounded (a
    // device such as /dev/zero, or a huge file, must not fill memory); links are followed, since
    // the path is the user's.
    detail::file_problem problem;
    if (const auto text = detail::read_regular_file(path, hex_digits + 2, true, problem)) {
      std::string_view hex(*text);
      while (!hex.empty() && (hex.back() == '\n' || hex.back() == '\r')) {
        hex.remove_suffix(1);
      }
      if (hex.size() == hex_digits) {
        return from_hex(hex);
      }
      why = "it does not hold a whole id (" + std::to_string(text->size()) + " bytes)";
    } else {
      why = problem.error == ENOENT ? "it does not exist yet" : problem.why;
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
