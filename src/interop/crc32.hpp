// The zip CRC-32 that npz.cpp (writing) and npz_read.cpp (checking) share: zlib's crc32 when the
// build has zlib, else one table-driven fallback of the same polynomial. Builds on zlib or nothing.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#ifndef NDCUDA_HAS_ZLIB
#error "crc32.hpp: include it only from the .npz sources, which src/CMakeLists.txt and tests/fuzz give NDCUDA_HAS_ZLIB"
#endif
#if NDCUDA_HAS_ZLIB
#include <zlib.h>
#endif

namespace ndcuda::detail {

/// The CRC-32 of the bytes before, `crc` (0 to start), continued over [data, data + size).
inline std::uint32_t crc32_update(std::uint32_t crc, const void* data, std::size_t size) {
#if NDCUDA_HAS_ZLIB
  const auto* p = static_cast<const Bytef*>(data);
  while (size != 0) {  // zlib takes uInt lengths
    const auto chunk = static_cast<uInt>(std::min<std::size_t>(size, std::size_t{1} << 30));
    crc = static_cast<std::uint32_t>(::crc32(crc, p, chunk));
    p += chunk;
    size -= chunk;
  }
  return crc;
#else
  // Without zlib, stored members still need their CRC-32 (the zip polynomial, reflected).
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) {
        c = (c & 1) != 0 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      }
      t[i] = c;
    }
    return t;
  }();
  crc = ~crc;
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  }
  return ~crc;
#endif
}

}  // namespace ndcuda::detail
