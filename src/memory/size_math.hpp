// Internal: overflow-aware size arithmetic shared by the pools.
#pragma once

#include <cstddef>
#include <limits>
#include <ndcuda/memory/memory_resource.hpp>

namespace ndcuda::detail {

inline constexpr std::size_t max_size = std::numeric_limits<std::size_t>::max();
/// Beyond this a request cannot even be rounded to the alignment.
inline constexpr std::size_t largest_request = max_size - allocation_alignment + 1;

/// n rounded up to a multiple of `multiple`; the caller makes sure it does not overflow.
constexpr std::size_t round_up(std::size_t n, std::size_t multiple) noexcept {
  return (n + multiple - 1) / multiple * multiple;
}

/// a - b, or 0: counters never wrap below zero.
constexpr std::size_t saturating_sub(std::size_t a, std::size_t b) noexcept {
  return a > b ? a - b : 0;
}

}  // namespace ndcuda::detail
