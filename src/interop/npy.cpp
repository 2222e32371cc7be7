// .npy files on the host: reading, writing and the Fortran-order transpose (the header is npy_header.cpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <limits>
#include <ndcuda/interop/npy.hpp>
#include <new>
#include <system_error>

#include "core/untrusted_files.hpp"
#include "interop/npy_detail.hpp"

namespace ndcuda {
using detail::file_problem;
using detail::replacing_writer;
namespace {

std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

std::uint32_t read_le(const unsigned char* p, std::size_t n) noexcept {
  std::uint32_t v = 0;
  for (std::size_t i = n; i-- > 0;) {
    v = (v << 8) | p[i];
  }
  return v;
}

void byte_swap(std::vector<std::byte>& data, std::size_t unit) {
  if (unit <= 1) {
    return;
  }
  for (std::size_t i = 0; i + unit <= data.size(); i += unit) {
    std::reverse(data.begin() + static_cast<std::ptrdiff_t>(i), data.begin() + static_cast<std::ptrdiff_t>(i + unit));
  }
}

std::string system_message() {
  return std::error_code(errno, std::generic_category()).message();
}

// Closes a descriptor on every path out.
struct fd_guard {
  int fd;
  explicit fd_guard(int f) noexcept : fd(f) {}
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  ~fd_guard() {
    if (fd >= 0) {
      ::close(fd);
    }
  }
};

constexpr std::size_t read_failed = static_cast<std::size_t>(-1);

// Reads until `n` bytes or the end of the file; read_failed (errno set) on an error.
std::size_t read_up_to(int fd, void* into, std::size_t n) {
  std::size_t done = 0;
  while (done < n) {
    // At most 1 GiB a call: Linux reads at most 0x7ffff000 bytes at once anyway.
    const std::size_t chunk = std::min<std::size_t>(n - done, std::size_t{1} << 30);
    const ssize_t got = ::read(fd, static_cast<char*>(into) + done, chunk);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0) {
      return read_failed;
    }
    if (got == 0) {
      break;
    }
    done += static_cast<std::size_t>(got);
  }
  return done;
}

std::string file_kind(mode_t mode) {
  if (S_ISFIFO(mode)) {
    return "a FIFO (named pipe)";
  }
  if (S_ISSOCK(mode)) {
    return "a socket";
  }
  if (S_ISCHR(mode)) {
    return "a character device";
  }
  if (S_ISBLK(mode)) {
    return "a block device";
  }
  return "a special file";
}

}  // namespace

std::size_t npy_data_bytes(const npy_header& header) {
  const auto count = static_cast<std::size_t>(shape_size(header.shape));
  const std::size_t item = itemsize(header.type);
  if (count > std::numeric_limits<std::size_t>::max() / item) {
    throw io_error("shape " + format_shape(header.shape) + " of " + std::string(name(header.type)) +
                   " needs more bytes than fit in size_t");
  }
  return count * item;
}

void write_npy_bytes(const std::filesystem::path& path, const npy_header& header, const void* data, std::size_t size) {
  const std::string preamble = format_npy_preamble(header);
  const std::size_t expected = npy_data_bytes(header);
  if (size != expected) {
    throw io_error("write_npy_bytes(" + quoted(path) + "): got " + std::to_string(size) + " bytes of data but shape " +
                   format_shape(header.shape) + " " + std::string(name(header.type)) + " needs " +
                   std::to_string(expected));
  }
  // Through a temporary renamed into place: a failed write leaves the old file as it was.
  file_problem problem;
  std::optional<replacing_writer> out = replacing_writer::create(path, 0666, problem);
  if (!out || !out->write(preamble.data(), preamble.size(), problem) || !out->write(data, size, problem) ||
      !out->commit(problem)) {
    throw io_error("cannot write " + quoted(path) + ": " + problem.why + " (the file, if it existed, is unchanged)");
  }
}

npy_file read_npy(const std::filesystem::path& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer. Anything but a regular file is refused
  // by fstat before a byte is read, so a FIFO, a socket or /dev/zero fails at once.
  fd_guard file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (file.fd < 0) {
    throw io_error("cannot open " + quoted(path) + " for reading: " + system_message());
  }
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) {
    throw io_error("cannot read " + quoted(path) + ": fstat failed: " + system_message());
  }
  if (S_ISDIR(info.st_mode)) {
    throw io_error("cannot read " + quoted(path) + " as a .npy file: it is a directory");
  }
  if (!S_ISREG(info.st_mode)) {
    throw io_error("cannot read " + quoted(path) + " as a .npy file: it is " + file_kind(info.st_mode) +
                   ", not a regular file; save the data to a file first (np.save writes one)");
  }
  // Every size the file claims is checked against what it holds before memory is set aside for it.
  const auto file_size = static_cast<std::uint64_t>(info.st_size);
  const auto read_some = [&](void* into, std::size_t n) {
    const std::size_t got = read_up_to(file.fd, into, n);
    if (got == read_failed) {
      throw io_error("reading " + quoted(path) + " failed: " + system_message());
    }
    return got;
  };
  std::array<unsigned char, 12> preamble{};
  const std::size_t got = read_some(preamble.data(), 8);
  if (got >= 4 && std::memcmp(preamble.data(), "PK\x03\x04", 4) == 0) {
    throw io_error(quoted(path) + " is an .npz archive (a zip file), not a .npy file; read it with nd::load_npz");
  }
  if (got < 8 || std::memcmp(preamble.data(), detail::npy_magic.data(), detail::npy_magic.size()) != 0) {
    throw io_error(quoted(path) + " is not a .npy file: " +
                   (got == 0 ? std::string("it is empty") : "it does not start with the magic \\x93NUMPY") +
                   " (np.save writes .npy files; .npz archives and np.savetxt text are other formats)");
  }
  const int major = preamble[6];
  const int minor = preamble[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    throw io_error(quoted(path) + " has .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                   "; ndcuda reads versions 1.0, 2.0 and 3.0");
  }
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  if (read_some(preamble.data() + 8, length_bytes) < length_bytes) {
    throw io_error(quoted(path) + " is truncated: it ends inside the .npy header length");
  }
  const std::size_t dict_len = read_le(preamble.data() + 8, length_bytes);
  const std::uint64_t data_offset = 8 + length_bytes + std::uint64_t{dict_len};
  if (data_offset > file_size) {
    throw io_error(quoted(path) + " is truncated: its .npy header says " + std::to_string(dict_len) +
                   " bytes but the file holds " + std::to_string(file_size - 8 - length_bytes) + " after the preamble");
  }
  if (dict_len > detail::npy_max_header_bytes) {
    throw io_error(quoted(path) + " has a .npy header of " + std::to_string(dict_len) +
                   " bytes; ndcuda reads headers of " + "at most " + std::to_string(detail::npy_max_header_bytes) +
                   " bytes (np.save writes a few hundred), so this is not a file np.save wrote");
  }
  std::string dict(dict_len, '\0');
  if (const std::size_t held = read_some(dict.data(), dict_len); held < dict_len) {
    throw io_error(quoted(path) + " is truncated: its .npy header says " + std::to_string(dict_len) +
                   " bytes but the file holds " + std::to_string(held) + " after the preamble");
  }
  bool big_endian = false;
  npy_file result{detail::parse_npy_header_dict(dict, quoted(path), big_endian), {}};
  const std::size_t needed = npy_data_bytes(result.header);
  if (needed > file_size - data_offset) {
    throw io_error(quoted(path) + " holds " + std::to_string(file_size - data_offset) + " bytes of data but shape " +
                   format_shape(result.header.shape) + " " + std::string(name(result.header.type)) + " needs " +
                   std::to_string(needed) + " (the file is truncated)");
  }
  try {
    result.data.resize(needed);
  } catch (const std::bad_alloc&) {
    throw out_of_memory("reading " + quoted(path) + " needs " + std::to_string(needed) +
                        " bytes of host memory for its data, and the host has no room for them; free host memory "
                        "or load a smaller array");
  }
  // Read straight into the vector: a file of several GB is held once. The file may still shrink
  // under us, so the count read is checked again.
  if (const std::size_t held = read_some(result.data.data(), needed); held < needed) {
    throw io_error(quoted(path) + " holds " + std::to_string(held) + " bytes of data but shape " +
                   format_shape(result.header.shape) + " " + std::string(name(result.header.type)) + " needs " +
                   std::to_string(needed) + " (the file is truncated)");
  }
  if (big_endian) {
    // Complex numbers are two floats, each swapped on its own.
    const std::size_t item = itemsize(result.header.type);
    byte_swap(result.data, is_complex(result.header.type) ? item / 2 : item);
  }
  return result;
}

std::vector<std::byte> npy_fortran_to_c_order(std::span<const std::byte> data, std::span<const index_t> shape,
                                              std::size_t itemsize) {
  const auto count = static_cast<std::size_t>(shape_size(shape));
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(count, itemsize, &bytes) || data.size() != bytes) {
    throw io_error("npy_fortran_to_c_order: " + std::to_string(data.size()) + " bytes do not hold shape " +
                   format_shape(shape) + " of " + std::to_string(itemsize) + "-byte elements");
  }
  std::vector<std::byte> out(data.size());
  if (count == 0) {
    return out;
  }
  const std::size_t ndim = shape.size();
  std::vector<std::size_t> f_stride(ndim, 1);  // Fortran strides in elements
  for (std::size_t d = 1; d < ndim; ++d) {
    f_stride[d] = f_stride[d - 1] * static_cast<std::size_t>(shape[d - 1]);
  }
  std::vector<index_t> index(ndim, 0);
  std::size_t source = 0;
  for (std::size_t c = 0; c < count; ++c) {
    std::memcpy(out.data() + c * itemsize, data.data() + source * itemsize, itemsize);
    // Advance the C-order multi-index, innermost dimension fastest, tracking the Fortran offset.
    for (std::size_t d = ndim; d-- > 0;) {
      if (++index[d] < shape[d]) {
        source += f_stride[d];
        break;
      }
      source -= f_stride[d] * static_cast<std::size_t>(shape[d] - 1);
      index[d] = 0;
    }
  }
  return out;
}

std::string npy_dtype_mismatch_message(const std::filesystem::path& path, dtype held, dtype asked) {
  const std::string held_name(name(held));
  return quoted(path) + " holds " + held_name + ", load_npy<" + std::string(cpp_type_name(asked)) + "> asked for " +
         std::string(name(asked)) + "; load it with load_npy<" + std::string(cpp_type_name(held)) +
         "> or convert the array in NumPy with astype before saving";
}

}  // namespace ndcuda
