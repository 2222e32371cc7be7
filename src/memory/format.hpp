// Internal: small formatting helpers for the memory layer's messages and logs.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace ndcuda::detail {

/// "0x7f3a5c000000", or "nullptr".
inline std::string format_pointer(const void* p) {
  if (p == nullptr) {
    return "nullptr";
  }
  char text[2 + 16 + 1];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(p)));
  return text;
}

}  // namespace ndcuda::detail
