// Fuzz target: .npy files. The header dict parser on raw bytes (what it accepts must format and
// parse back the same), then read_npy over a file holding the bytes (magic, version, header
// length, dict, data size against the file size), then the Fortran transpose of what it read.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <ndcuda/interop/npy.hpp>
#include <string>
#include <string_view>

namespace nd = ndcuda;

namespace {

// One memfd for the whole run, reopened by path as read_npy opens any file: a regular file in
// memory, so no input touches the disk.
const std::string& scratch_path(int& fd) {
  static int scratch = ::memfd_create("npy_fuzz", MFD_CLOEXEC);
  static const std::string path = "/proc/self/fd/" + std::to_string(scratch);
  fd = scratch;
  return path;
}

void check_header_round_trip(std::string_view bytes) {
  try {
    const nd::npy_header header = nd::parse_npy_header_dict(bytes);
    if (nd::parse_npy_header_dict(nd::format_npy_header_dict(header)) != header) {
      __builtin_trap();
    }
  } catch (const nd::error&) {
    // io_error for a bad header: expected. Anything else escapes and is a crash.
  }
}

void check_read(const std::uint8_t* data, std::size_t size) {
  int fd = -1;
  const std::string& path = scratch_path(fd);
  if (fd < 0 || ::ftruncate(fd, 0) != 0 || (size != 0 && ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size))) {
    __builtin_trap();
  }
  try {
    const nd::npy_file file = nd::read_npy(path);
    if (file.data.size() != nd::npy_data_bytes(file.header) || file.data.size() > size) {
      __builtin_trap();
    }
    if (file.header.fortran_order) {
      const auto c_order = nd::npy_fortran_to_c_order(file.data, file.header.shape, nd::itemsize(file.header.type));
      if (c_order.size() != file.data.size()) {
        __builtin_trap();
      }
    }
  } catch (const nd::error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check_header_round_trip(std::string_view(reinterpret_cast<const char*>(data), size));
  check_read(data, size);
  return 0;
}
