// Test helper: comparing host vectors bit for bit (NaN payloads and signed zeros included), as the
// promises "equal to the single-GPU result bit for bit" need. Builds on the standard library only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

namespace ndcuda::testing {

/// How many elements differ in their bits (a size mismatch counts as every element differing).
template <class T>
std::size_t differing(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) {
    return std::max(a.size(), b.size());
  }
  std::size_t bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    bad += std::memcmp(&a[i], &b[i], sizeof(T)) != 0 ? 1 : 0;
  }
  return bad;
}

}  // namespace ndcuda::testing
