// Reading .npz archives: the zip end records (zip64 too), the central directory, and each member,
// stored or inflated through zlib, every size and offset checked against the file before use.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ndcuda/interop/npz.hpp>
#include <new>
#include <set>
#include <system_error>

#include "interop/crc32.hpp"
#include "interop/npy_detail.hpp"

#if NDCUDA_HAS_ZLIB
#include <zlib.h>
#endif

namespace ndcuda {
namespace {

constexpr std::uint32_t local_signature = 0x04034b50;
constexpr std::uint32_t central_signature = 0x02014b50;
constexpr std::uint32_t end_signature = 0x06054b50;
constexpr std::uint32_t zip64_end_signature = 0x06064b50;
constexpr std::uint32_t zip64_locator_signature = 0x07064b50;
constexpr std::size_t end_size = 22;
constexpr std::size_t zip64_locator_size = 20;
constexpr std::size_t zip64_end_size = 56;
constexpr std::size_t central_size = 46;
constexpr std::size_t local_size = 30;
// Raw deflate cannot expand data by more than about 1032:1 (258-byte matches in 2-bit codes), so a
// member claiming more is corrupt or hostile: refused before its size is allocated.
constexpr std::uint64_t deflate_max_ratio = 1032;

std::uint64_t get(const unsigned char* p, std::size_t n) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) {
    v = (v << 8) | p[i];
  }
  return v;
}

std::string system_message() {
  return std::error_code(errno, std::generic_category()).message();
}

// A read-only regular file read at offsets, every range checked against its size.
class archive_file {
 public:
  explicit archive_file(const std::filesystem::path& path) : name_("'" + path.string() + "'") {
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);  // a FIFO must not block
    if (fd_ < 0) {
      throw io_error("cannot open " + name_ + " for reading: " + system_message());
    }
    struct stat info {};
    if (::fstat(fd_, &info) != 0) {
      fail("fstat failed: " + system_message());
    }
    if (!S_ISREG(info.st_mode)) {
      fail("it is not a regular file (a directory, FIFO, socket or device); np.savez writes regular files");
    }
    size_ = static_cast<std::uint64_t>(info.st_size);
  }
  archive_file(const archive_file&) = delete;
  archive_file& operator=(const archive_file&) = delete;
  ~archive_file() { ::close(fd_); }

  [[noreturn]] void fail(const std::string& what) const {
    throw io_error("cannot read " + name_ + " as an .npz archive: " + what);
  }
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }

  void read(std::uint64_t offset, void* into, std::size_t n, std::string_view what) const {
    if (offset > size_ || n > size_ - offset) {
      fail(std::string(what) + " at offset " + std::to_string(offset) + " (" + std::to_string(n) +
           " bytes) lies past the end of the file (" + std::to_string(size_) +
           " bytes): the file is truncated or corrupt");
    }
    std::size_t done = 0;
    while (done < n) {
      const std::size_t chunk = std::min<std::size_t>(n - done, std::size_t{1} << 30);
      const ssize_t got = ::pread(fd_, static_cast<char*>(into) + done, chunk, static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) {
        continue;
      }
      if (got <= 0) {
        fail(got < 0 ? "read failed: " + system_message() : std::string("the file shrank while it was read"));
      }
      done += static_cast<std::size_t>(got);
    }
  }

 private:
  std::string name_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

struct directory_entry {
  std::string name;
  std::uint16_t flags;
  std::uint16_t method;
  std::uint32_t crc;
  std::uint64_t compressed;
  std::uint64_t size;
  std::uint64_t offset;
};

struct central_directory {
  std::uint64_t offset;
  std::uint64_t size;
  std::uint64_t count;
};

central_directory find_directory(const archive_file& file) {
  if (file.size() < end_size) {
    file.fail(file.size() == 0 ? "it is empty" : "it is too short to be a zip file (np.savez writes .npz files)");
  }
  // The end record sits in the last 22 bytes plus at most a 65535-byte comment.
  const std::uint64_t tail_size = std::min<std::uint64_t>(file.size(), end_size + 0xffff);
  std::vector<unsigned char> tail(tail_size);
  file.read(file.size() - tail_size, tail.data(), tail.size(), "the zip end record");
  std::size_t at = tail.size() - end_size + 1;
  bool found = false;
  while (at-- > 0) {
    if (get(&tail[at], 4) == end_signature && at + end_size + get(&tail[at + 20], 2) == tail.size()) {
      found = true;
      break;
    }
  }
  if (!found) {
    const bool npy = file.size() >= 6 && std::memcmp(tail.data(), "\x93NUMPY", 6) == 0 && tail_size == file.size();
    file.fail(npy ? std::string("it is a .npy file, not an archive; read it with nd::load<T>")
                  : std::string("it is not a zip file (no end-of-central-directory record)"));
  }
  const unsigned char* e = &tail[at];
  const std::uint64_t end_at = file.size() - tail_size + at;
  if (get(e + 4, 2) != 0 || get(e + 6, 2) != 0) {
    file.fail("it is a multi-volume (split) zip archive, which ndcuda does not read");
  }
  central_directory dir{get(e + 16, 4), get(e + 12, 4), get(e + 10, 2)};
  std::uint64_t directory_end = end_at;
  if (end_at >= zip64_locator_size) {
    unsigned char locator[zip64_locator_size];
    file.read(end_at - zip64_locator_size, locator, sizeof locator, "the zip64 locator");
    if (get(locator, 4) == zip64_locator_signature) {
      const std::uint64_t zip64_at = get(locator + 8, 8);
      if (zip64_at > end_at - zip64_locator_size || end_at - zip64_locator_size - zip64_at < zip64_end_size) {
        file.fail("its zip64 locator points at offset " + std::to_string(zip64_at) + ", outside the archive");
      }
      unsigned char record[zip64_end_size];
      file.read(zip64_at, record, sizeof record, "the zip64 end record");
      if (get(record, 4) != zip64_end_signature) {
        file.fail("its zip64 end record has a bad signature");
      }
      dir = {get(record + 48, 8), get(record + 40, 8), get(record + 32, 8)};
      directory_end = zip64_at;
    }
  }
  if (dir.offset > directory_end || dir.size > directory_end - dir.offset) {
    file.fail("its central directory (offset " + std::to_string(dir.offset) + ", " + std::to_string(dir.size) +
              " bytes) does not lie before its end record");
  }
  if (dir.count > dir.size / central_size) {
    file.fail("its end record claims " + std::to_string(dir.count) + " members in a central directory of " +
              std::to_string(dir.size) + " bytes");
  }
  return dir;
}

std::vector<directory_entry> read_directory(const archive_file& file, const central_directory& dir) {
  std::vector<unsigned char> bytes(dir.size);
  file.read(dir.offset, bytes.data(), bytes.size(), "the central directory");
  std::vector<directory_entry> entries;
  std::size_t at = 0;
  for (std::uint64_t i = 0; i < dir.count; ++i) {
    const std::string which = "central directory entry " + std::to_string(i);
    if (bytes.size() - at < central_size || get(&bytes[at], 4) != central_signature) {
      file.fail(which + " is truncated or has a bad signature");
    }
    const unsigned char* c = &bytes[at];
    const std::size_t name_len = get(c + 28, 2);
    const std::size_t extra_len = get(c + 30, 2);
    const std::size_t comment_len = get(c + 32, 2);
    if (bytes.size() - at - central_size < name_len + extra_len + comment_len) {
      file.fail(which + " runs past the central directory");
    }
    directory_entry e{std::string(reinterpret_cast<const char*>(c) + central_size, name_len),
                      static_cast<std::uint16_t>(get(c + 8, 2)),
                      static_cast<std::uint16_t>(get(c + 10, 2)),
                      static_cast<std::uint32_t>(get(c + 16, 4)),
                      get(c + 20, 4),
                      get(c + 24, 4),
                      get(c + 42, 4)};
    // zip64 extra field (id 1): 8-byte values for exactly those fields that hold 0xffffffff.
    const unsigned char* x = c + central_size + name_len;
    for (std::size_t k = 0; k + 4 <= extra_len;) {
      const std::uint64_t id = get(x + k, 2);
      const std::size_t len = get(x + k + 2, 2);
      if (k + 4 + len > extra_len) {
        file.fail(which + " ('" + detail::quote_npy_text(e.name) + "') has an extra field past its end");
      }
      if (id == 1) {
        std::size_t v = k + 4;
        for (std::uint64_t* field : {&e.size, &e.compressed, &e.offset}) {
          if (*field == 0xffffffff) {
            if (v + 8 > k + 4 + len) {
              file.fail(which + " ('" + detail::quote_npy_text(e.name) + "') has a zip64 field that is too short");
            }
            *field = get(x + v, 8);
            v += 8;
          }
        }
      }
      k += 4 + len;
    }
    at += central_size + name_len + extra_len + comment_len;
    entries.push_back(std::move(e));
  }
  return entries;
}

std::vector<std::byte> allocate(std::uint64_t n, const std::string& what) {
  try {
    return std::vector<std::byte>(static_cast<std::size_t>(n));
  } catch (const std::bad_alloc&) {
    throw out_of_memory(what + " needs " + std::to_string(n) +
                        " bytes of host memory, and the host has no room for them; free host memory or load a "
                        "smaller archive");
  }
}

std::vector<std::byte> inflate_member(const archive_file& file, const directory_entry& e, std::uint64_t data_at,
                                      const std::string& member) {
#if NDCUDA_HAS_ZLIB
  std::vector<std::byte> in = allocate(e.compressed, member);
  file.read(data_at, in.data(), in.size(), member);
  std::vector<std::byte> out = allocate(e.size, member);
  z_stream zs{};
  if (inflateInit2(&zs, -15) != Z_OK) {
    file.fail(member + ": zlib's inflateInit2 failed");
  }
  std::size_t in_done = 0;
  std::size_t out_done = 0;
  int rc = Z_OK;
  while (rc == Z_OK) {
    const std::size_t in_chunk = std::min<std::size_t>(in.size() - in_done, std::size_t{1} << 30);
    const std::size_t out_chunk = std::min<std::size_t>(out.size() - out_done, std::size_t{1} << 30);
    zs.next_in = reinterpret_cast<Bytef*>(in.data() + in_done);
    zs.avail_in = static_cast<uInt>(in_chunk);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + out_done);
    zs.avail_out = static_cast<uInt>(out_chunk);
    rc = inflate(&zs, Z_NO_FLUSH);
    in_done += in_chunk - zs.avail_in;
    out_done += out_chunk - zs.avail_out;
    if (rc == Z_BUF_ERROR && (in_done == in.size() || out_done == out.size())) {
      break;  // no progress possible: input ran out or output is full before the stream's end
    }
    if (rc == Z_BUF_ERROR) {
      rc = Z_OK;
    }
  }
  const char* msg = zs.msg;
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) {
    file.fail(member + " does not inflate to its stated " + std::to_string(e.size) + " bytes (" +
              (rc == Z_DATA_ERROR && msg != nullptr ? std::string("zlib: ") + msg
                                                    : std::string("the deflate stream ends early or runs long")) +
              "): the archive is corrupt");
  }
  if (out_done != out.size()) {
    file.fail(member + " inflates to " + std::to_string(out_done) + " bytes but the archive states " +
              std::to_string(e.size) + ": the archive is corrupt");
  }
  return out;
#else
  (void)data_at;
  (void)e;
  file.fail(member +
            " is deflated (np.savez_compressed), and this ndcuda was built without zlib; install zlib "
            "(Debian: apt-get install zlib1g-dev) and rebuild ndcuda, or save the archive with np.savez");
#endif
}

// The local header must tell the member's story as its central directory entry does: the same
// name, flags, method, and (unless sizes come after the data: flag bit 3) CRC and sizes. Zip
// readers that trust one record and not the other read different archives from the same bytes.
void check_local_header(const archive_file& file, const directory_entry& e, const unsigned char* local,
                        const std::string& member) {
  const auto disagree = [&](const std::string& what, const std::string& local_value, const std::string& central_value) {
    file.fail(member + "'s local header gives " + what + " " + local_value + " where the central directory gives " +
              central_value + ": the archive is corrupt or was altered");
  };
  const std::size_t name_len = get(local + 26, 2);
  std::string name(name_len, '\0');
  file.read(e.offset + local_size, name.data(), name.size(), member + "'s local header");
  if (name != e.name) {
    disagree("the name", "'" + detail::quote_npy_text(name) + "'", "'" + detail::quote_npy_text(e.name) + "'");
  }
  const auto flags = static_cast<std::uint16_t>(get(local + 6, 2));
  if ((flags & 1) != (e.flags & 1)) {
    disagree("encryption flag", std::to_string(flags & 1), std::to_string(e.flags & 1));
  }
  if (const std::uint64_t method = get(local + 8, 2); method != e.method) {
    disagree("compression method", std::to_string(method), std::to_string(e.method));
  }
  if ((flags & 8) != 0) {
    return;  // CRC and sizes are in a data descriptor after the data; the central values rule
  }
  if (const std::uint64_t crc = get(local + 14, 4); crc != e.crc) {
    disagree("CRC-32", std::to_string(crc), std::to_string(e.crc));
  }
  std::uint64_t compressed = get(local + 18, 4);
  std::uint64_t size = get(local + 22, 4);
  if (compressed == 0xffffffff || size == 0xffffffff) {
    // zip64: the local extra field (id 1) holds both sizes, uncompressed first.
    const std::size_t extra_len = get(local + 28, 2);
    std::vector<unsigned char> extra(extra_len);
    file.read(e.offset + local_size + name_len, extra.data(), extra.size(), member + "'s local header");
    for (std::size_t k = 0; k + 4 <= extra_len;) {
      const std::size_t len = get(&extra[k + 2], 2);
      if (get(&extra[k], 2) == 1 && len >= 16 && k + 4 + len <= extra_len) {
        size = get(&extra[k + 4], 8);
        compressed = get(&extra[k + 12], 8);
        break;
      }
      k += 4 + len;
    }
  }
  if (compressed != e.compressed) {
    disagree("compressed size", std::to_string(compressed), std::to_string(e.compressed));
  }
  if (size != e.size) {
    disagree("size", std::to_string(size), std::to_string(e.size));
  }
}

}  // namespace

std::vector<npz_member> read_npz(const std::filesystem::path& path) {
  const archive_file file(path);
  const central_directory dir = find_directory(file);
  const std::vector<directory_entry> entries = read_directory(file, dir);
  std::vector<npz_member> members;
  std::set<std::string> seen;
  for (const directory_entry& e : entries) {
    const std::string member = "member '" + detail::quote_npy_text(e.name) + "'";
    constexpr std::string_view suffix = ".npy";
    if (e.name.size() <= suffix.size() || e.name.compare(e.name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      file.fail(member + " is not a .npy file; ndcuda reads archives of .npy members only (as np.savez writes)");
    }
    std::string key = e.name.substr(0, e.name.size() - suffix.size());
    if (!seen.insert(key).second) {
      file.fail(member + " appears twice");
    }
    if ((e.flags & 1) != 0) {
      file.fail(member + " is encrypted, which ndcuda does not read");
    }
    if (e.method != 0 && e.method != 8) {
      file.fail(member + " uses zip compression method " + std::to_string(e.method) +
                "; ndcuda reads stored (0) and deflated (8) members, as np.savez and np.savez_compressed write");
    }
    if (e.method == 8 && e.size / deflate_max_ratio > e.compressed + 1) {
      file.fail(member + " claims to inflate " + std::to_string(e.compressed) + " bytes to " + std::to_string(e.size) +
                ", more than deflate can: the archive is corrupt or hostile");
    }
    unsigned char local[local_size];
    file.read(e.offset, local, sizeof local, member + "'s local header");
    if (get(local, 4) != local_signature) {
      file.fail(member + "'s local header at offset " + std::to_string(e.offset) + " has a bad signature");
    }
    check_local_header(file, e, local, member);
    const std::uint64_t data_at = e.offset + local_size + get(local + 26, 2) + get(local + 28, 2);
    if (data_at > dir.offset || e.compressed > dir.offset - data_at) {
      file.fail(member + "'s data (" + std::to_string(e.compressed) + " bytes at offset " + std::to_string(data_at) +
                ") runs into the central directory at offset " + std::to_string(dir.offset));
    }
    std::vector<std::byte> bytes;
    if (e.method == 0) {
      if (e.compressed != e.size) {
        file.fail(member + " is stored but its sizes differ (" + std::to_string(e.compressed) + " and " +
                  std::to_string(e.size) + ")");
      }
      bytes = allocate(e.size, member);
      file.read(data_at, bytes.data(), bytes.size(), member);
    } else {
      bytes = inflate_member(file, e, data_at, member);
    }
    if (detail::crc32_update(0, bytes.data(), bytes.size()) != e.crc) {
      file.fail(member + " fails its CRC-32 check: the archive is corrupt");
    }
    members.push_back({std::move(key), parse_npy_bytes(std::move(bytes), file.name() + " " + member)});
  }
  return members;
}

}  // namespace ndcuda
