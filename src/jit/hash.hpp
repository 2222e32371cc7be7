// Internal: the hashes the JIT caches use. SHA-256 names and authenticates disk entries (a full-key
// digest no accidental collision reaches); hash64 is a fast checksum and in-memory map hash.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ndcuda::jit::detail {

using sha256_digest = std::array<std::uint8_t, 32>;

/// Incremental SHA-256 (FIPS 180-4), so a key can be digested field by field without copying.
class sha256 {
 public:
  sha256();
  void update(const void* data, std::size_t bytes);
  void update(std::string_view text) { update(text.data(), text.size()); }
  [[nodiscard]] sha256_digest finish();

 private:
  void compress(const std::uint8_t* block);
  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

[[nodiscard]] sha256_digest sha256_of(std::string_view data);

/// Lower-case hexadecimal of a digest (64 characters).
[[nodiscard]] std::string to_hex(const sha256_digest& digest);

/// A fast 64-bit hash (8 bytes per step, strong final mixing). Not cryptographic: it detects
/// corruption and spreads map keys; equality is always decided on the full key.
[[nodiscard]] std::uint64_t hash64(const void* data, std::size_t bytes, std::uint64_t seed = 0) noexcept;
[[nodiscard]] inline std::uint64_t hash64(std::string_view text, std::uint64_t seed = 0) noexcept {
  return hash64(text.data(), text.size(), seed);
}

}  // namespace ndcuda::jit::detail
