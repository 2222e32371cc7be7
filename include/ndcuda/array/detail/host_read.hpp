/// @file
/// The host buffers ndarray::to_host() and to_host_vector() read into: large ones get their pages
/// made resident in parallel first. Builds on memory/host_vector.hpp and memory/transfer.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/memory/host_vector.hpp>
#include <ndcuda/memory/transfer.hpp>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace ndcuda::detail {

/// n value-initialised elements, as std::vector<T>(n). A large vector's zero fill is serial and,
/// on fresh memory, takes a page fault every 4 KiB: about 1.5 GB/s. So its storage is reserved
/// first, advised as huge pages and populated by the transfer engine's threads, and the fill then
/// runs at memory speed. out_of_memory naming `what` when the host cannot hold it.
template <class T>
[[nodiscard]] std::vector<T> zeroed_host_vector(std::size_t n, const char* what) {
  if constexpr (std::is_same_v<T, bool>) {
    return checked_host_vector<T>(n, what);  // packed bits, no data(): nothing to populate
  } else {
    if (n < huge_block_bytes / sizeof(T)) {
      return checked_host_vector<T>(n, what);
    }
    try {
      std::vector<T> out;
      out.reserve(n);
      advise_huge_pages(out.data(), n * sizeof(T));
      default_transfer_engine().populate(out.data(), n * sizeof(T));
      out.resize(n);
      return out;
    } catch (const std::bad_alloc&) {
    } catch (const std::length_error&) {
    }
    throw_host_out_of_memory(saturated_bytes<T>(n), what);
  }
}

/// n default-initialised elements in an nd::host_vector; out_of_memory naming `what` when the
/// host cannot hold them. Nothing touches its pages before the copy: the transfer engine's lanes
/// fault them in, each thread its own part, while the DMA runs (measured faster on an H100 host
/// than populating them first: 28-36 against 21-26 GB/s for 1 GiB).
template <class T>
[[nodiscard]] host_vector<T> uninitialized_host_vector(std::size_t n, const char* what) {
  try {
    return host_vector<T>(n);
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  throw_host_out_of_memory(saturated_bytes<T>(n), what);
}

}  // namespace ndcuda::detail

#pragma GCC visibility pop
