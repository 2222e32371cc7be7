// Fuzz target: .npz archives and text files. read_npz over the bytes (end records, zip64 fields, the
// central directory, local headers, inflate, CRC, each member's .npy header), then loadtxt_bytes over
// the same bytes as text, then savetxt_bytes with the first bytes as a printf-style fmt.
// fuzz-sources: src/interop/npz.cpp src/interop/npz_read.cpp src/interop/text_io.cpp
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ndcuda/interop/npz.hpp>
#include <ndcuda/interop/text_io.hpp>
#include <string>
#include <vector>

namespace nd = ndcuda;

namespace {

// One memfd for the whole run, reopened by path as the readers open any file: a regular file in
// memory, so no input touches the disk. A second one takes savetxt's output.
std::string memfd_path(const char* name, int& fd) {
  fd = ::memfd_create(name, MFD_CLOEXEC);
  return "/proc/self/fd/" + std::to_string(fd);
}

void check_npz(const std::string& path) {
  try {
    for (const nd::npz_member& m : nd::read_npz(path)) {
      if (m.array.data.size() != nd::npy_data_bytes(m.array.header) || m.name.empty()) {
        __builtin_trap();
      }
    }
  } catch (const nd::error&) {
  }
}

void check_loadtxt(const std::string& path, const std::uint8_t* data, std::size_t size) {
  for (const nd::dtype t : {nd::dtype::float64, nd::dtype::int8, nd::dtype::float16}) {
    try {
      nd::loadtxt_options o;
      if (size > 0 && data[0] == ',') {
        o.delimiter = ",";
      }
      o.usecols = size > 1 && data[1] == '-' ? std::vector<nd::index_t>{-1, 0} : std::vector<nd::index_t>{};
      nd::shape_t shape;
      const auto bytes = nd::loadtxt_bytes(path, t, o, shape);
      if (bytes.size() != static_cast<std::size_t>(nd::shape_size(shape)) * nd::itemsize(t)) {
        __builtin_trap();
      }
    } catch (const nd::error&) {
    }
  }
}

void check_savetxt(const std::uint8_t* data, std::size_t size) {
  static int out_fd = -1;
  static const std::string out = memfd_path("npz_fuzz_out", out_fd);
  nd::savetxt_options o;
  o.fmt.assign(reinterpret_cast<const char*>(data), std::min<std::size_t>(size, 24));
  const double values[4] = {1.5, -2e300, 0.0, 7.0};
  try {
    nd::savetxt_bytes(out, nd::dtype::float64, {2, 2}, values, o);
    nd::savetxt_bytes(out, nd::dtype::int64, {4}, values, o);
  } catch (const nd::error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static int fd = -1;
  static const std::string path = memfd_path("npz_fuzz", fd);
  if (fd < 0 || ::ftruncate(fd, 0) != 0 || (size != 0 && ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size))) {
    __builtin_trap();
  }
  check_npz(path);
  check_loadtxt(path, data, size);
  check_savetxt(data, size);
  return 0;
}
