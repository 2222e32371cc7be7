// The checksum of the embedded kernel headers, computed once per process.
#include "jit/embedded_headers.hpp"

#include <algorithm>
#include <cstdint>

#include "jit/hash.hpp"

namespace ndcuda::jit::detail {

const std::string& embedded_headers_checksum() {
  static const std::string checksum = [] {
    sha256 h;
    for (const embedded_header& header : embedded_headers()) {
      // Length-prefixed, so moving text from one header to the next changes the digest.
      const auto name_size = static_cast<std::uint64_t>(header.name.size());
      const auto content_size = static_cast<std::uint64_t>(header.content.size());
      h.update(&name_size, sizeof name_size);
      h.update(header.name);
      h.update(&content_size, sizeof content_size);
      h.update(header.content);
    }
    return to_hex(h.finish());
  }();
  return checksum;
}

bool is_embedded_header(std::string_view name) {
  const auto& headers = embedded_headers();
  return std::any_of(headers.begin(), headers.end(), [&](const embedded_header& h) { return h.name == name; });
}

}  // namespace ndcuda::jit::detail
