// Encoding and strict validation of disk cache entries: anything unexpected is a miss.
#include "jit/cache_entry.hpp"

#include <cstring>

namespace ndcuda::jit::detail {
namespace {

void put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8) {
    out += static_cast<char>((v >> shift) & 0xff);
  }
}

void put_u64(std::string& out, std::uint64_t v) {
  for (int shift = 0; shift < 64; shift += 8) {
    out += static_cast<char>((v >> shift) & 0xff);
  }
}

void put_bytes(std::string& out, std::string_view bytes) {
  put_u64(out, bytes.size());
  out += bytes;
}

std::uint64_t get_u64(std::string_view bytes, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) {
    v = (v << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  }
  return v;
}

std::uint32_t get_u32(std::string_view bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) {
    v = (v << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  }
  return v;
}

// The checksum covers the header (up to the checksum field) and the payload, so a flipped bit in
// the size or version fields is caught as surely as one in the CUBIN.
std::uint64_t entry_checksum(std::string_view header_start, std::string_view payload) {
  return hash64(payload, hash64(header_start, 0x6e64637564614a49ULL));
}

// Reads length-prefixed fields off the payload, refusing to step outside it.
class reader {
 public:
  explicit reader(std::string_view bytes) : bytes_(bytes) {}
  bool field(std::string_view& out) {
    if (bytes_.size() - at_ < 8) {
      return false;
    }
    const std::uint64_t size = get_u64(bytes_, at_);
    at_ += 8;
    if (size > bytes_.size() - at_) {
      return false;
    }
    out = bytes_.substr(at_, static_cast<std::size_t>(size));
    at_ += static_cast<std::size_t>(size);
    return true;
  }
  bool number(std::uint64_t& out) {
    if (bytes_.size() - at_ < 8) {
      return false;
    }
    out = get_u64(bytes_, at_);
    at_ += 8;
    return true;
  }
  [[nodiscard]] bool done() const { return at_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace

std::string encode_entry(const kernel_key& key, const compiled_program& program) {
  const std::string canonical = key.canonical();
  std::string payload;
  put_bytes(payload, canonical);
  put_u64(payload, program.lowered_names.size());
  for (const auto& name : program.lowered_names) {
    put_bytes(payload, name);
  }
  put_bytes(payload, program.image);

  std::string entry(entry_magic);
  put_u32(entry, entry_format_version);
  put_u32(entry, 0);
  const sha256_digest key_digest = sha256_of(canonical);
  entry.append(reinterpret_cast<const char*>(key_digest.data()), key_digest.size());
  put_u64(entry, payload.size());
  put_u64(entry, entry_checksum(entry, payload));
  entry += payload;
  return entry;
}

std::optional<compiled_program> decode_entry(std::string_view bytes, const kernel_key& key, std::string& why) {
  if (bytes.empty()) {
    why = "the file is empty";
    return std::nullopt;
  }
  if (bytes.size() < entry_header_size) {
    why = "truncated: " + std::to_string(bytes.size()) + " bytes, shorter than the " +
          std::to_string(entry_header_size) + "-byte header";
    return std::nullopt;
  }
  if (bytes.substr(0, entry_magic.size()) != entry_magic) {
    why = "not an ndcuda cache entry (wrong magic bytes)";
    return std::nullopt;
  }
  if (const auto version = get_u32(bytes, 8); version != entry_format_version) {
    why = "format version " + std::to_string(version) + ", expected " + std::to_string(entry_format_version);
    return std::nullopt;
  }
  const std::uint64_t payload_size = get_u64(bytes, 48);
  if (payload_size != bytes.size() - entry_header_size) {
    why = "truncated or extended: the header announces " + std::to_string(payload_size) +
          " payload bytes, the file has " + std::to_string(bytes.size() - entry_header_size);
    return std::nullopt;
  }
  const std::string_view payload = bytes.substr(entry_header_size);
  if (entry_checksum(bytes.substr(0, 56), payload) != get_u64(bytes, 56)) {
    why = "checksum mismatch (the file is corrupt)";
    return std::nullopt;
  }
  const std::string canonical = key.canonical();
  const sha256_digest key_digest = sha256_of(canonical);
  if (std::memcmp(bytes.data() + 16, key_digest.data(), key_digest.size()) != 0) {
    why = "it holds a different kernel (key digest mismatch)";
    return std::nullopt;
  }
  reader r(payload);
  std::string_view stored_key;
  std::uint64_t name_count = 0;
  if (!r.field(stored_key) || !r.number(name_count)) {
    why = "malformed payload";
    return std::nullopt;
  }
  if (stored_key != canonical) {
    why = "it holds a different kernel (full key mismatch)";
    return std::nullopt;
  }
  if (name_count != key.name_expressions.size()) {
    why = "malformed payload (kernel name count)";
    return std::nullopt;
  }
  compiled_program program;
  for (std::uint64_t i = 0; i < name_count; ++i) {
    std::string_view name;
    if (!r.field(name) || name.empty()) {
      why = "malformed payload (kernel names)";
      return std::nullopt;
    }
    program.lowered_names.emplace_back(name);
  }
  std::string_view image;
  if (!r.field(image) || image.empty() || !r.done()) {
    why = "malformed payload (image)";
    return std::nullopt;
  }
  program.image = std::string(image);
  return program;
}

}  // namespace ndcuda::jit::detail
