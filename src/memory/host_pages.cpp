// Huge-page advice and page population for large host buffers (nd::host_vector, to_host()).
// Builds on Linux' madvise; elsewhere both are no-ops.
#include <cstddef>
#include <cstdint>
#include <ndcuda/memory/host_vector.hpp>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace ndcuda::detail {

namespace {
#if defined(__linux__)
constexpr std::uintptr_t huge_page = std::uintptr_t{2} << 20;

std::uintptr_t small_page() noexcept {
  static const auto size = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096);
  return size;
}

/// The whole pages inside [p, p + bytes), as their start and length; length 0 when there are none.
/// The start is reached from p by pointer arithmetic, so it keeps p's provenance.
std::pair<void*, std::size_t> interior(void* p, std::size_t bytes, std::uintptr_t page) noexcept {
  const auto first = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t begin = (first + page - 1) & ~(page - 1);
  const std::uintptr_t end = (first + bytes) & ~(page - 1);
  if (end <= begin) {
    return {p, 0};
  }
  return {static_cast<std::byte*>(p) + (begin - first), end - begin};
}
#endif
}  // namespace

void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const auto [start, length] = interior(p, bytes, huge_page);
  if (length != 0) {
    // Advice only: a kernel without THP, or with THP off, refuses and the pages stay small.
    (void)madvise(start, length, MADV_HUGEPAGE);
  }
#else
  (void)p;
  (void)bytes;
#endif
}

bool populate_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__)
  constexpr int populate_write = 23;  // MADV_POPULATE_WRITE (Linux 5.14), absent from older headers
  const auto [start, length] = interior(p, bytes, small_page());
  if (length == 0) {
    return true;
  }
  return madvise(start, length, populate_write) == 0;
#else
  (void)p;
  (void)bytes;
  return false;
#endif
}

}  // namespace ndcuda::detail
