// Internal: the bytes of one disk cache entry. A fixed header (magic, format version, SHA-256 of
// the full key, payload size, checksum) and a payload that repeats the full key, so that a hit is
// decided by comparing keys in full, never by a digest alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "jit/kernel_key.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace ndcuda::jit::detail {

inline constexpr std::string_view entry_magic = "NDCUJIT\x1a";  // 8 bytes; \x1a stops `type` on Windows
inline constexpr std::uint32_t entry_format_version = 1;
inline constexpr std::size_t entry_header_size = 64;

/// Serialises `program` under `key`:
///   0  magic (8)          8  format version (u32)    12 reserved, zero (u32)
///   16 SHA-256 of key.canonical() (32)               48 payload size (u64)
///   56 hash64 of bytes 0..55 and of the payload (u64)
///   64 payload: key.canonical() | lowered names | image, each u64-length-prefixed
/// All integers little-endian.
[[nodiscard]] std::string encode_entry(const kernel_key& key, const compiled_program& program);

/// The program stored in `bytes` if they are a valid entry for exactly `key`; otherwise nullopt,
/// with the reason in `why` ("truncated: 12 of 64 header bytes", "checksum mismatch", ...).
[[nodiscard]] std::optional<compiled_program> decode_entry(std::string_view bytes, const kernel_key& key,
                                                           std::string& why);

}  // namespace ndcuda::jit::detail
