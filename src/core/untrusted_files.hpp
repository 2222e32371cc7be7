// Internal: the one way ndcuda opens a file by a path it did not create (a user's .npy, a shared
// bootstrap id, NDCUDA_* variables' paths, the JIT dump folder). Reads never block and never read
// without bound: a FIFO, a device or a folder in a file's place is refused by fstat after a
// non-blocking open. Writes never follow a planted name: the bytes go to a temporary of an
// unpredictable name in the destination's folder (mkostemp, O_EXCL), which is renamed over the
// destination only when complete, so a failed write leaves the old file intact and a link planted
// at the destination is replaced, not followed. Results carry a reason instead of throwing, since
// each caller has its own error type (io_error, communication_error, a warning). docs/security.md.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/tool_export.hpp"

namespace ndcuda::detail {

/// A descriptor closed on every path out.
class file_descriptor {
 public:
  file_descriptor() = default;
  explicit file_descriptor(int fd) noexcept : fd_(fd) {}
  file_descriptor(file_descriptor&& other) noexcept : fd_(other.release()) {}
  file_descriptor& operator=(file_descriptor&& other) noexcept;
  file_descriptor(const file_descriptor&) = delete;
  file_descriptor& operator=(const file_descriptor&) = delete;
  ~file_descriptor();

  [[nodiscard]] int get() const noexcept { return fd_; }
  int release() noexcept {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

/// A regular file open for reading, and its size when it was opened.
struct regular_file {
  file_descriptor fd;
  std::uint64_t size = 0;
};

/// Why an open or read failed: the errno (0 when the file itself was refused) and the words.
struct file_problem {
  int error = 0;
  std::string why;
};

/// Opens `path` for reading: O_NONBLOCK (a FIFO must not wait for a writer), O_NOFOLLOW unless
/// `follow_links`, then fstat refuses anything but a regular file and a file over `max_bytes`.
[[nodiscard]] std::optional<regular_file> open_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes,
                                                            bool follow_links, file_problem& problem);

/// The whole of an opened file (its size at open; a file that grows or shrinks meanwhile fails).
[[nodiscard]] std::optional<std::string> read_whole(const regular_file& file, file_problem& problem);

/// open_regular_file then read_whole.
[[nodiscard]] NDCUDA_TOOL_API std::optional<std::string> read_regular_file(const std::filesystem::path& path,
                                                                           std::uint64_t max_bytes, bool follow_links,
                                                                           file_problem& problem);

/// Opens `path` for appending, creating it with `mode` (less the umask) when missing: O_APPEND |
/// O_NOFOLLOW | O_NONBLOCK, then fstat refuses anything but a regular file. `size` is its size at
/// open. For a log several processes append whole records to (one write each), where a temporary
/// renamed into place would lose the others' records.
[[nodiscard]] std::optional<regular_file> open_append_file(const std::filesystem::path& path, mode_t mode,
                                                           file_problem& problem);

/// Whether `path` (links followed) is a regular file, without opening it: for a path handed to
/// another library (dlopen, a compiler's include folder), which would block on a FIFO.
[[nodiscard]] bool is_regular_file(const std::filesystem::path& path, file_problem& problem);

/// The first entry under `dir` (recursively, links not followed) that is neither a regular file,
/// a folder nor a link: a FIFO, socket or device that a reader of the folder would block on.
[[nodiscard]] std::optional<std::filesystem::path> first_special_file(const std::filesystem::path& dir);

/// A file written under a temporary name next to `destination`, renamed over it by commit(). The
/// temporary is removed when the writer goes without a commit.
class replacing_writer {
 public:
  /// Creates the temporary with `mode` (less the umask, as any new file).
  [[nodiscard]] static std::optional<replacing_writer> create(const std::filesystem::path& destination, mode_t mode,
                                                              file_problem& problem);
  replacing_writer(replacing_writer&& other) noexcept;
  replacing_writer& operator=(replacing_writer&&) = delete;
  replacing_writer(const replacing_writer&) = delete;
  replacing_writer& operator=(const replacing_writer&) = delete;
  ~replacing_writer();

  /// Appends `size` bytes.
  [[nodiscard]] bool write(const void* data, std::size_t size, file_problem& problem);
  /// Overwrites bytes already written at `offset` (a zip member's sizes, filled in afterwards).
  [[nodiscard]] bool write_at(std::uint64_t offset, const void* data, std::size_t size, file_problem& problem);
  /// The bytes written so far.
  [[nodiscard]] std::uint64_t position() const noexcept { return position_; }
  /// Closes the temporary and renames it over the destination.
  [[nodiscard]] bool commit(file_problem& problem);

 private:
  replacing_writer(std::filesystem::path destination, std::filesystem::path temporary, file_descriptor fd) noexcept;

  std::filesystem::path destination_;
  std::filesystem::path temporary_;
  file_descriptor fd_;
  std::uint64_t position_ = 0;
  bool committed_ = false;
};

/// create, write and commit in one call.
[[nodiscard]] bool replace_file(const std::filesystem::path& destination, std::string_view bytes, mode_t mode,
                                file_problem& problem);

/// `text` as a message quotes input: at most `limit` characters, control and non-ASCII bytes (a NUL
/// included) spelled \xNN, and the full length named when it was cut.
[[nodiscard]] std::string quote_input(std::string_view text, std::size_t limit = 200);

}  // namespace ndcuda::detail
