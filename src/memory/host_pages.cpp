// Huge-page advice and page population for large host buffers (nd::host_vector, to_host()).
// Builds on Linux' madvise; elsewhere both are no-ops.
#include <cstdint>
#include <ndcuda/memory/host_vector.hpp>

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

/// The whole pages inside [p, p + bytes), as [begin, end); begin == end when there are none.
std::pair<std::uintptr_t, std::uintptr_t> interior(void* p, std::size_t bytes, std::uintptr_t page) noexcept {
  const auto first = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t begin = (first + page - 1) & ~(page - 1);
  const std::uintptr_t end = (first + bytes) & ~(page - 1);
  return {begin, end > begin ? end : begin};
}
#endif
}  // namespace

void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const auto [begin, end] = interior(p, bytes, huge_page);
  if (end > begin) {
    // Advice only: a kernel without THP, or with THP off, refuses and the pages stay small.
    (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  }
#else
  (void)p;
  (void)bytes;
#endif
}

bool populate_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__)
  constexpr int populate_write = 23;  // MADV_POPULATE_WRITE (Linux 5.14), absent from older headers
  const auto [begin, end] = interior(p, bytes, small_page());
  if (end == begin) {
    return true;
  }
  return madvise(reinterpret_cast<void*>(begin), end - begin, populate_write) == 0;
#else
  (void)p;
  (void)bytes;
  return false;
#endif
}

}  // namespace ndcuda::detail
