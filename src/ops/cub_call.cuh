// What the nvcc-compiled ops share: running a CUB algorithm with its temporary storage from
// ndcuda's allocator, launch checks, and the per-width entry points of the segmented sorts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/memory/detail/buffer.hpp>
#include <ndcuda/ops/detail/device_algorithms.hpp>

namespace ndcuda::detail {

/// Checks the launch of a kernel this library wrote (<<<...>>>): a bad configuration is reported
/// at once; in debug builds an earlier asynchronous failure surfaces here too.
inline void check_launch(const char* what) {
#ifndef NDEBUG
  check_cuda(cudaGetLastError(), what);
#else
  check_cuda(cudaPeekAtLastError(), what);
#endif
}

/// Runs a CUB device algorithm as CUB asks: once to size its temporary storage, then for real,
/// with the storage allocated on `s` from the device's default resource and released on `s` after
/// the work (stream order makes that safe). `call(void* temp, std::size_t& bytes)` returns CUB's code.
template <class F>
void run_cub(const char* what, const stream& s, F&& call) {
  std::size_t bytes = 0;
  check_cuda(call(nullptr, bytes), what);
  void* temp = nullptr;
  const auto owner = allocate_buffer(bytes == 0 ? 1 : bytes, s, &temp);
  check_cuda(call(temp, bytes), what);
  check_launch(what);
}

/// A grid for a grid-stride loop over n elements.
inline unsigned grid_for(index_t n, unsigned block) {
  const index_t blocks = (n + block - 1) / block;
  return static_cast<unsigned>(blocks < (1 << 16) ? (blocks < 1 ? 1 : blocks) : (1 << 16));
}

// The segmented sorts (many rows in one call), in their own translation unit so that nvcc builds
// them beside the single-segment radix sorts.
void segmented_sort_keys(std::size_t key_bytes, const void* in, void* out, index_t n, index_t segment, const stream& s);
void segmented_sort_pairs(std::size_t key_bytes, const void* keys_in, void* keys_out, const std::int64_t* values_in,
                          std::int64_t* values_out, index_t n, index_t segment, const stream& s);

/// The unsigned type of a key width, for a switch over widths.
template <std::size_t Bytes>
struct key_type;
template <>
struct key_type<1> {
  using type = std::uint8_t;
};
template <>
struct key_type<2> {
  using type = std::uint16_t;
};
template <>
struct key_type<4> {
  using type = std::uint32_t;
};
template <>
struct key_type<8> {
  using type = std::uint64_t;
};

/// Calls f(U{}) with U the unsigned key type of `bytes` bytes.
template <class F>
void with_key_type(std::size_t bytes, const char* what, F&& f) {
  switch (bytes) {
    case 1:
      return f(std::uint8_t{});
    case 2:
      return f(std::uint16_t{});
    case 4:
      return f(std::uint32_t{});
    case 8:
      return f(std::uint64_t{});
    default:
      throw error(std::string(what) + ": no key type of " + std::to_string(bytes) + " bytes");
  }
}

}  // namespace ndcuda::detail
