/// @file
/// nd::host_vector: a std::vector for large host reads, whose elements are not zero-filled, whose
/// big blocks sit on transparent huge pages and are kept for reuse when released. Builds on
/// host_pages (src/memory/host_pages.cpp) and the host block cache (src/memory/host_block_cache.cpp).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <memory>
#include <ndcuda/core/detail/internal.hpp>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace ndcuda {

namespace detail {
/// Blocks of at least this many bytes are aligned to 2 MiB and advised as huge pages.
inline constexpr std::size_t huge_block_bytes = std::size_t{4} << 20;
/// Their alignment: one huge page.
inline constexpr std::size_t huge_block_alignment = std::size_t{2} << 20;

/// A released big block of exactly `bytes`, taken out of the host block cache, or null.
[[nodiscard]] void* reuse_host_block(std::size_t bytes) noexcept;
/// Keeps the big block [p, p + bytes) for reuse; false when it does not fit under the cache's
/// limit, and the caller frees it.
[[nodiscard]] bool keep_host_block(void* p, std::size_t bytes) noexcept;

/// Asks the kernel to back [p, p + bytes) with transparent huge pages where it can (Linux'
/// MADV_HUGEPAGE on the 2 MiB-aligned interior); a no-op elsewhere or when refused.
void advise_huge_pages(void* p, std::size_t bytes) noexcept;

/// Makes the pages of [p, p + bytes) resident and writable without touching their contents from
/// user space (MADV_POPULATE_WRITE), so a fill that follows runs at memory speed instead of taking
/// a page fault every 4 KiB. False where the kernel cannot (before Linux 5.14): nothing was done.
NDCUDA_INTERNAL bool populate_pages(void* p, std::size_t bytes) noexcept;
}  // namespace detail

/// The most bytes of released host_vector blocks (detail::huge_block_bytes or more each) kept for
/// reuse by the next allocation of the same size; default 4 GiB, 0 keeps none. A kept block's
/// pages stay resident, so reading an array of the same size again skips the kernel's page faults
/// and zeroing (a 1 GiB read reaches the speed of reading into an existing buffer). Blocks beyond a
/// lowered limit are freed at once. Returns the previous limit. Thread-safe.
std::size_t set_host_block_cache_limit(std::size_t bytes) noexcept;
/// Frees every kept block (e.g. before a phase that needs the host memory). Thread-safe.
void release_host_block_cache() noexcept;
/// The bytes of host_vector blocks kept for reuse now.
[[nodiscard]] std::size_t host_block_cache_bytes() noexcept;

/// An allocator that default-initialises: `host_vector<float>(n)` leaves the n floats
/// indeterminate, as `new float[n]` does, instead of zeroing them serially. Blocks of
/// detail::huge_block_bytes or more are 2 MiB aligned and backed by huge pages, so the first
/// write to them takes one page fault per 2 MiB, and are kept for reuse when released (see
/// set_host_block_cache_limit). Stateless: all instances are equal.
template <class T>
class host_allocator {
 public:
  using value_type = T;  ///< the element type

  host_allocator() noexcept = default;
  /// Rebinding (std::vector<bool> allocates words, not bools): stateless, nothing to copy.
  template <class U>
  host_allocator(const host_allocator<U>& /*other*/) noexcept {}  // NOLINT(google-explicit-constructor): rebinding

  /// Storage for n elements, uninitialised; std::bad_alloc (or bad_array_new_length) when the
  /// host cannot provide it.
  [[nodiscard]] T* allocate(std::size_t n) {
    if (n > std::allocator_traits<std::allocator<T>>::max_size(std::allocator<T>{})) {
      throw std::bad_array_new_length();
    }
    const std::size_t bytes = n * sizeof(T);
    if (bytes < detail::huge_block_bytes) {
      return static_cast<T*>(::operator new (bytes, std::align_val_t{alignof(T)}));
    }
    if (void* kept = detail::reuse_host_block(bytes)) {
      return static_cast<T*>(kept);
    }
    void* p = ::operator new (bytes, std::align_val_t{detail::huge_block_alignment});
    detail::advise_huge_pages(p, bytes);
    return static_cast<T*>(p);
  }

  /// Releases storage from allocate(n), with the same n.
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    // Unsized: the sized form is declared only under -fsized-deallocation, which clang before 19
    // leaves off (a clang user's build would not compile).
    if (bytes < detail::huge_block_bytes) {
      ::operator delete (p, std::align_val_t{alignof(T)});
    } else if (!detail::keep_host_block(p, bytes)) {
      ::operator delete (p, std::align_val_t{detail::huge_block_alignment});
    }
  }

  /// Default-initialisation: no zero fill for arithmetic element types.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  /// Construction from arguments (copies, resize with a value, push_back): as std::allocator.
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    std::construct_at(p, std::forward<Args>(args)...);
  }

  friend bool operator==(const host_allocator& /*a*/, const host_allocator& /*b*/) noexcept { return true; }
};

/// A std::vector that does not zero its elements on construction or resize, for reading large
/// arrays back from the device (ndarray::to_host_vector()). Everything else is std::vector's.
template <class T>
using host_vector = std::vector<T, host_allocator<T>>;

}  // namespace ndcuda

#pragma GCC visibility pop
