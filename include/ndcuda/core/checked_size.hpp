/// @file
/// Overflow-checked size arithmetic: element counts, byte counts and offsets of shapes and strides.
/// Builds on core/shape.hpp and core/error.hpp; every size that reaches an allocation or a launch goes through it.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <ndcuda/core/shape.hpp>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace ndcuda {

/// The most bytes an array may span, NumPy's limit too (its sizes are intp): byte offsets and byte
/// counts of any valid array then fit int64 and size_t alike.
inline constexpr index_t max_array_bytes = std::numeric_limits<index_t>::max();

/// a * b and a + b in int64: false (and `out` unspecified) when the result does not fit.
[[nodiscard]] constexpr bool try_mul(index_t a, index_t b, index_t& out) noexcept {
  return !__builtin_mul_overflow(a, b, &out);
}
/// a + b in int64: false (and `out` unspecified) when the result does not fit.
[[nodiscard]] constexpr bool try_add(index_t a, index_t b, index_t& out) noexcept {
  return !__builtin_add_overflow(a, b, &out);
}

/// a * b and a + b, or shape_error saying that `what` overflows int64.
[[nodiscard]] index_t checked_mul(index_t a, index_t b, const char* what);
/// a + b, or shape_error saying that `what` overflows int64.
[[nodiscard]] index_t checked_add(index_t a, index_t b, const char* what);

/// Bytes of `count` elements of `itemsize` bytes. shape_error (NumPy's "array is too big") when
/// the count is negative or the bytes exceed max_array_bytes.
[[nodiscard]] std::size_t checked_bytes(index_t count, std::size_t itemsize);

/// Bytes of a C-contiguous array of `shape`: shape_size's checks, and, as NumPy does, the product
/// of the non-zero extents times `itemsize` must fit max_array_bytes even when another extent is 0
/// (so C strides of any accepted shape cannot overflow either).
[[nodiscard]] std::size_t checked_nbytes(std::span<const index_t> shape, std::size_t itemsize);

/// The element offsets, relative to the first element, that a strided view reaches: every element
/// lies in [low, high]. Both 0 for an empty view. shape_error when the sum overflows int64, when
/// the lengths of shape and strides differ, or on a negative extent.
struct element_reach {
  index_t low = 0;   ///< The lowest element offset the view reaches (<= 0).
  index_t high = 0;  ///< The highest element offset the view reaches (>= 0).
};
/// The element offsets a view of `shape` and `strides` reaches, checked against int64 overflow.
[[nodiscard]] element_reach checked_reach(std::span<const index_t> shape, std::span<const index_t> strides);

/// Checks a view's (shape, strides, offset) against an element size: a valid shape whose bytes fit,
/// one stride per extent, and every element's byte offset from the buffer's base, offset included,
/// representable in int64. shape_error naming `what` otherwise.
void check_view(std::span<const index_t> shape, std::span<const index_t> strides, index_t offset, std::size_t itemsize,
                const char* what);

/// out_of_memory naming host memory, for a host buffer of `bytes` that could not be allocated.
[[noreturn]] void throw_host_out_of_memory(std::size_t bytes, const char* what);

/// This machine's physical memory in bytes (sysconf's pages times the page size).
[[nodiscard]] std::uint64_t host_memory_bytes() noexcept;
/// Refuses, with out_of_memory naming `what`, `count` host items of `bytes_each` bytes that together
/// exceed this machine's physical memory (or a negative count). Checked before a host table sized
/// by a user's count is built: under overcommit a huge reserve succeeds and the process is killed
/// later, so catching std::bad_alloc is not enough.
void check_host_fits(index_t count, std::uint64_t bytes_each, const std::string& what);

namespace detail {
template <class T>
constexpr std::size_t saturated_bytes(std::size_t n) noexcept {
  return n > std::numeric_limits<std::size_t>::max() / sizeof(T) ? std::numeric_limits<std::size_t>::max()
                                                                 : n * sizeof(T);
}
}  // namespace detail

/// A value-initialised host vector of n elements: a failed allocation (std::bad_alloc, or a size
/// beyond what the vector can hold) becomes out_of_memory naming host memory and `what`.
template <class T>
[[nodiscard]] std::vector<T> checked_host_vector(std::size_t n, const char* what) {
  try {
    return std::vector<T>(n);
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  throw_host_out_of_memory(detail::saturated_bytes<T>(n), what);
}

/// n default-initialised elements on the host, as checked_host_vector (for bool, which std::vector packs).
template <class T>
[[nodiscard]] std::unique_ptr<T[]> host_array(std::size_t n, const char* what) {
  try {
    return std::unique_ptr<T[]>(new T[n]);
  } catch (const std::bad_alloc&) {  // includes std::bad_array_new_length
  }
  throw_host_out_of_memory(detail::saturated_bytes<T>(n), what);
}

}  // namespace ndcuda

#pragma GCC visibility pop
