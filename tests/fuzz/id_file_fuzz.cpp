// Fuzz target: the NCCL bootstrap id file another user can reach. unique_id::read_file over the
// input as the file's bytes (never blocks, never reads past its bound, a whole id or
// communication_error), from_hex over the same bytes (an id exactly when they are 256 hex digits,
// then to_hex gives them back), and a write_file/read_file round trip of what was read.
// fuzz-sources: src/dist/unique_id_file.cpp
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <ndcuda/dist/communicator.hpp>
#include <string>
#include <string_view>

namespace nd = ndcuda;
namespace dist = ndcuda::dist;

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.remove_suffix(1);
  }
  return text;
}

bool all_hex(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
}

// A folder of this process for the round trip, removed at exit.
struct scratch {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("ndcuda_id_fuzz_" + std::to_string(::getpid()));
  scratch() { std::filesystem::create_directories(dir); }
  ~scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const int fd = ::memfd_create("id_file_fuzz", MFD_CLOEXEC);
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  static const scratch folder;
  static unsigned calls = 0;
  if (fd < 0 || ::ftruncate(fd, 0) != 0 || (size != 0 && ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size))) {
    __builtin_trap();
  }
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string_view hex = trimmed(text);
  const bool valid = hex.size() == 256 && all_hex(hex);
  try {
    const dist::unique_id id = dist::unique_id::from_hex(text);
    if (!valid || id.to_hex() != lower(hex)) {
      __builtin_trap();
    }
  } catch (const dist::communication_error&) {
    if (valid) {
      __builtin_trap();
    }
  }
  try {
    const dist::unique_id id = dist::unique_id::read_file(path, std::chrono::milliseconds(0));
    // Only a file of a whole id (its hex, then at most two line-end bytes) is taken.
    if (id.to_hex() != lower(trimmed(text.substr(0, 256))) || size > 258) {
      __builtin_trap();
    }
    if (++calls % 16 == 0) {
      const std::string copy = (folder.dir / "id").string();
      id.write_file(copy);
      if (dist::unique_id::read_file(copy, std::chrono::milliseconds(0)) != id) {
        __builtin_trap();
      }
    }
  } catch (const dist::communication_error&) {
  }
  return 0;
}
