// .npz archives: the zip container as Python's zipfile writes it for NumPy (zip64 local headers,
// stored or raw-deflate members through zlib), and a validating reader. Builds on npy_header.cpp.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ndcuda/interop/npz.hpp>
#include <new>
#include <optional>
#include <set>

#include "core/untrusted_files.hpp"
#include "interop/crc32.hpp"
#include "interop/npy_detail.hpp"

#if NDCUDA_HAS_ZLIB
#include <zlib.h>
#endif

namespace ndcuda {
namespace {

// Python's zipfile switches to zip64 fields above this (ZIP64_LIMIT), not at 4 GiB.
constexpr std::uint64_t zip64_limit = (std::uint64_t{1} << 31) - 1;
constexpr std::uint32_t local_signature = 0x04034b50;
constexpr std::uint32_t central_signature = 0x02014b50;
constexpr std::uint32_t end_signature = 0x06054b50;
constexpr std::uint32_t zip64_end_signature = 0x06064b50;
constexpr std::uint32_t zip64_locator_signature = 0x07064b50;
constexpr std::uint16_t zip64_version = 45;  // "version needed": 4.5, zip64
constexpr std::uint16_t made_by_unix = 0x0300 | zip64_version;
constexpr std::uint16_t dos_date_1980 = 0x21;  // NumPy pins the timestamp to 1980-01-01 00:00
constexpr std::uint32_t unix_mode_0600 = 0600u << 16;
constexpr std::uint16_t method_stored = 0;
constexpr std::uint16_t method_deflated = 8;
constexpr std::uint16_t flag_utf8 = 0x800;

std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

void put16(std::string& out, std::uint64_t v) {
  out += static_cast<char>(v & 0xff);
  out += static_cast<char>((v >> 8) & 0xff);
}
void put32(std::string& out, std::uint64_t v) {
  put16(out, v & 0xffff);
  put16(out, (v >> 16) & 0xffff);
}
void put64(std::string& out, std::uint64_t v) {
  put32(out, v & 0xffffffff);
  put32(out, v >> 32);
}
std::uint64_t get(const unsigned char* p, std::size_t n) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) {
    v = (v << 8) | p[i];
  }
  return v;
}

[[noreturn]] void no_zlib(std::string_view what) {
  throw io_error(std::string(what) +
                 " needs deflate, and this ndcuda was built without zlib; install zlib (Debian: apt-get install "
                 "zlib1g-dev) and rebuild ndcuda, or use stored (uncompressed) archives: nd::savez");
}

// Output that knows its position and can patch bytes already written (Python's zipfile seeks back
// the same way to fill in a member's CRC and compressed size). Written to a temporary renamed over
// the archive by finish(): a failed write leaves the old archive as it was.
class zip_writer {
 public:
  explicit zip_writer(const std::filesystem::path& path)
      : path_(path), out_(detail::replacing_writer::create(path, 0666, problem_)) {
    if (!out_) {
      fail();
    }
  }
  void write(const void* data, std::size_t size) {
    if (!out_->write(data, size, problem_)) {
      fail();
    }
  }
  void write(const std::string& s) { write(s.data(), s.size()); }
  void patch(std::uint64_t at, const std::string& bytes) {
    if (!out_->write_at(at, bytes.data(), bytes.size(), problem_)) {
      fail();
    }
  }
  void finish() {
    if (!out_->commit(problem_)) {
      fail();
    }
  }
  [[nodiscard]] std::uint64_t pos() const noexcept { return out_->position(); }

 private:
  [[noreturn]] void fail() const {
    throw io_error("cannot write " + quoted(path_) + ": " + problem_.why +
                   " (the archive, if it existed, is unchanged)");
  }
  std::filesystem::path path_;
  detail::file_problem problem_;
  std::optional<detail::replacing_writer> out_;
};

struct written_member {
  std::string name;
  std::uint16_t flags;
  std::uint16_t method;
  std::uint32_t crc;
  std::uint64_t size;
  std::uint64_t compressed;
  std::uint64_t offset;
};

// Writes preamble then data, deflated or not; returns the bytes written and updates the CRC.
std::uint64_t write_member_data(zip_writer& out, const std::string& preamble, const std::vector<std::byte>& data,
                                bool compressed, std::uint32_t& crc, const std::string& source) {
  crc = detail::crc32_update(detail::crc32_update(0, preamble.data(), preamble.size()), data.data(), data.size());
  if (!compressed) {
    out.write(preamble);
    if (!data.empty()) {
      out.write(data.data(), data.size());
    }
    return preamble.size() + data.size();
  }
#if NDCUDA_HAS_ZLIB
  // Python's zlib.compressobj(Z_DEFAULT_COMPRESSION, DEFLATED, -15): raw deflate, default memLevel.
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw io_error("savez_compressed(" + source + "): zlib's deflateInit2 failed");
  }
  std::vector<unsigned char> buffer(std::size_t{1} << 18);
  std::uint64_t written = 0;
  const auto pump = [&](const void* in, std::size_t size, int flush) {
    auto* p = static_cast<Bytef*>(const_cast<void*>(in));
    std::size_t left = size;
    do {
      const auto chunk = static_cast<uInt>(std::min<std::size_t>(left, std::size_t{1} << 30));
      zs.next_in = p;
      zs.avail_in = chunk;
      const int f = left == chunk ? flush : Z_NO_FLUSH;
      int rc = Z_OK;
      do {
        zs.next_out = buffer.data();
        zs.avail_out = static_cast<uInt>(buffer.size());
        rc = deflate(&zs, f);
        if (rc == Z_STREAM_ERROR) {
          deflateEnd(&zs);
          throw io_error("savez_compressed(" + source + "): zlib's deflate failed");
        }
        const std::size_t have = buffer.size() - zs.avail_out;
        if (have != 0) {
          try {
            out.write(buffer.data(), have);
          } catch (...) {
            deflateEnd(&zs);
            throw;
          }
          written += have;
        }
      } while (zs.avail_out == 0 || (f == Z_FINISH && rc != Z_STREAM_END));
      p += chunk;
      left -= chunk;
    } while (left != 0);
  };
  pump(preamble.data(), preamble.size(), Z_NO_FLUSH);
  pump(data.data(), data.size(), Z_FINISH);
  deflateEnd(&zs);
  return written;
#else
  (void)source;
  no_zlib("savez_compressed");
#endif
}

}  // namespace

std::string npz_positional_name(std::size_t i) {
  return "arr_" + std::to_string(i);
}

bool npz_deflate_available() noexcept {
#if NDCUDA_HAS_ZLIB
  return true;
#else
  return false;
#endif
}

void write_npz(const std::filesystem::path& path, std::span<const npz_member> members, bool compressed) {
  const char* const op = compressed ? "savez_compressed" : "savez";
  if (compressed && !npz_deflate_available()) {
    no_zlib(op);
  }
  std::set<std::string> names;
  std::vector<std::string> preambles;
  for (const npz_member& m : members) {
    if (m.name.empty()) {
      throw io_error(std::string(op) + "(" + quoted(path) + "): an array has an empty name; give every array a name");
    }
    if (!names.insert(m.name).second) {
      throw io_error(std::string(op) + "(" + quoted(path) + "): the name '" + m.name +
                     "' is given twice; each array of an .npz archive needs its own name");
    }
    // Checked before the file is opened, so a refused archive leaves no file behind.
    preambles.push_back(format_npy_preamble(m.array.header));
    if (m.array.data.size() != npy_data_bytes(m.array.header)) {
      throw io_error(std::string(op) + "(" + quoted(path) + "): array '" + m.name + "' has " +
                     std::to_string(m.array.data.size()) + " bytes of data but its header needs " +
                     std::to_string(npy_data_bytes(m.array.header)));
    }
  }
  zip_writer out(path);
  std::vector<written_member> directory;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const npz_member& m = members[i];
    written_member w{m.name + ".npy", 0, compressed ? method_deflated : method_stored, 0, 0, 0, out.pos()};
    if (std::any_of(w.name.begin(), w.name.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; })) {
      w.flags = flag_utf8;
    }
    w.size = preambles[i].size() + m.array.data.size();
    std::string local;
    put32(local, local_signature);
    put16(local, zip64_version);
    put16(local, w.flags);
    put16(local, w.method);
    put16(local, 0);
    put16(local, dos_date_1980);
    put32(local, 0);  // CRC-32, patched below
    put32(local, 0xffffffff);
    put32(local, 0xffffffff);
    put16(local, w.name.size());
    put16(local, 20);
    local += w.name;
    put16(local, 1);  // zip64 extra: both sizes (NumPy opens members with force_zip64=True)
    put16(local, 16);
    put64(local, w.size);
    const std::uint64_t compressed_at = out.pos() + local.size();
    put64(local, 0);  // compressed size, patched below
    out.write(local);
    w.compressed = write_member_data(out, preambles[i], m.array.data, compressed, w.crc, quoted(path));
    std::string crc;
    put32(crc, w.crc);
    out.patch(w.offset + 14, crc);
    std::string size;
    put64(size, w.compressed);
    out.patch(compressed_at, size);
    directory.push_back(std::move(w));
  }
  const std::uint64_t central_at = out.pos();
  for (const written_member& w : directory) {
    std::vector<std::uint64_t> extra;
    std::uint64_t size32 = w.size;
    std::uint64_t compressed32 = w.compressed;
    std::uint64_t offset32 = w.offset;
    if (w.size > zip64_limit || w.compressed > zip64_limit) {
      extra.push_back(w.size);
      extra.push_back(w.compressed);
      size32 = compressed32 = 0xffffffff;
    }
    if (w.offset > zip64_limit) {
      extra.push_back(w.offset);
      offset32 = 0xffffffff;
    }
    std::string entry;
    put32(entry, central_signature);
    put16(entry, made_by_unix);
    put16(entry, zip64_version);
    put16(entry, w.flags);
    put16(entry, w.method);
    put16(entry, 0);
    put16(entry, dos_date_1980);
    put32(entry, w.crc);
    put32(entry, compressed32);
    put32(entry, size32);
    put16(entry, w.name.size());
    put16(entry, extra.empty() ? 0 : 4 + 8 * extra.size());
    put16(entry, 0);  // comment
    put16(entry, 0);  // disk
    put16(entry, 0);  // internal attributes
    put32(entry, unix_mode_0600);
    put32(entry, offset32);
    entry += w.name;
    if (!extra.empty()) {
      put16(entry, 1);
      put16(entry, 8 * extra.size());
      for (const std::uint64_t v : extra) {
        put64(entry, v);
      }
    }
    out.write(entry);
  }
  const std::uint64_t count = directory.size();
  const std::uint64_t central_size = out.pos() - central_at;
  std::string end;
  if (count > 0xffff || central_at > zip64_limit || central_size > zip64_limit) {
    const std::uint64_t zip64_end_at = out.pos();
    put32(end, zip64_end_signature);
    put64(end, 44);
    put16(end, zip64_version);
    put16(end, zip64_version);
    put32(end, 0);
    put32(end, 0);
    put64(end, count);
    put64(end, count);
    put64(end, central_size);
    put64(end, central_at);
    put32(end, zip64_locator_signature);
    put32(end, 0);
    put64(end, zip64_end_at);
    put32(end, 1);
  }
  put32(end, end_signature);
  put16(end, 0);
  put16(end, 0);
  put16(end, std::min<std::uint64_t>(count, 0xffff));
  put16(end, std::min<std::uint64_t>(count, 0xffff));
  put32(end, std::min<std::uint64_t>(central_size, 0xffffffff));
  put32(end, std::min<std::uint64_t>(central_at, 0xffffffff));
  put16(end, 0);
  out.write(end);
  out.finish();
}

npy_file parse_npy_bytes(std::vector<std::byte>&& bytes, std::string_view source) {
  const std::string src(source);
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < 10 || std::memcmp(p, detail::npy_magic.data(), detail::npy_magic.size()) != 0) {
    throw io_error(src + " is not a .npy file: it does not start with the magic \\x93NUMPY and a header length");
  }
  const int major = p[6];
  const int minor = p[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    throw io_error(src + " has .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                   "; ndcuda reads versions 1.0, 2.0 and 3.0");
  }
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_bytes) {
    throw io_error(src + " is truncated: it ends inside the .npy header length");
  }
  const std::uint64_t dict_len = get(p + 8, length_bytes);
  const std::uint64_t data_offset = 8 + length_bytes + dict_len;
  if (dict_len > detail::npy_max_header_bytes || data_offset > bytes.size()) {
    throw io_error(src + " has a .npy header of " + std::to_string(dict_len) + " bytes but holds " +
                   std::to_string(bytes.size()) + " bytes in all (at most " +
                   std::to_string(detail::npy_max_header_bytes) + " header bytes are read)");
  }
  bool big_endian = false;
  npy_file result{detail::parse_npy_header_dict(
                      std::string_view(reinterpret_cast<const char*>(p) + 8 + length_bytes, dict_len), src, big_endian),
                  {}};
  const std::size_t needed = npy_data_bytes(result.header);
  if (needed > bytes.size() - data_offset) {
    throw io_error(src + " holds " + std::to_string(bytes.size() - data_offset) + " bytes of data but shape " +
                   format_shape(result.header.shape) + " " + std::string(name(result.header.type)) + " needs " +
                   std::to_string(needed) + " (it is truncated)");
  }
  // Cut the header off the front in place (a memmove, no second buffer); trailing bytes are
  // ignored, as NumPy ignores them.
  bytes.erase(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(data_offset));
  bytes.resize(needed);
  result.data = std::move(bytes);
  if (big_endian) {
    const std::size_t item = itemsize(result.header.type);
    const std::size_t unit = is_complex(result.header.type) ? item / 2 : item;
    for (std::size_t i = 0; unit > 1 && i + unit <= result.data.size(); i += unit) {
      std::reverse(result.data.begin() + static_cast<std::ptrdiff_t>(i),
                   result.data.begin() + static_cast<std::ptrdiff_t>(i + unit));
    }
  }
  return result;
}

}  // namespace ndcuda
