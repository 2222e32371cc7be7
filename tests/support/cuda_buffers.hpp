// Test helpers: RAII CUDA buffers of every kind the memory layer must tell apart, and fast random
// fill/compare for large buffers. Builds on the CUDA runtime only (no ndcuda resource), so tests
// compare ndcuda against memory it did not allocate.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/stream.hpp>
#include <vector>

#include "support/gpu.hpp"

namespace ndcuda::testing {

/// Page-locked host memory from cudaHostAlloc.
struct host_alloc_buffer {
  char* ptr = nullptr;
  std::size_t bytes = 0;
  explicit host_alloc_buffer(std::size_t n) : bytes(n) {
    NDCUDA_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&ptr), n, cudaHostAllocPortable));
  }
  ~host_alloc_buffer() { (void)cudaFreeHost(ptr); }
  host_alloc_buffer(const host_alloc_buffer&) = delete;
  host_alloc_buffer& operator=(const host_alloc_buffer&) = delete;
};

/// Ordinary (pageable) host memory, page-aligned so parts of it can be registered.
struct pageable_buffer {
  char* ptr = nullptr;
  std::size_t bytes = 0;
  explicit pageable_buffer(std::size_t n) : bytes(n) {
    ptr = static_cast<char*>(std::aligned_alloc(4096, (n + 4095) / 4096 * 4096));
    if (ptr == nullptr) {
      throw std::bad_alloc();
    }
  }
  ~pageable_buffer() { std::free(ptr); }
  pageable_buffer(const pageable_buffer&) = delete;
  pageable_buffer& operator=(const pageable_buffer&) = delete;
};

/// cudaHostRegister over [p, p + n) for the buffer's lifetime.
struct registration {
  void* ptr;
  explicit registration(void* p, std::size_t n) : ptr(p) {
    NDCUDA_CUDA_CHECK(cudaHostRegister(p, n, cudaHostRegisterDefault));
  }
  ~registration() { (void)cudaHostUnregister(ptr); }
  registration(const registration&) = delete;
  registration& operator=(const registration&) = delete;
};

/// cudaMalloc'd device memory, outside any ndcuda pool.
struct device_buffer {
  char* ptr = nullptr;
  std::size_t bytes = 0;
  explicit device_buffer(std::size_t n) : bytes(n) { NDCUDA_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr), n)); }
  ~device_buffer() { (void)cudaFree(ptr); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
};

/// Fills with random bytes (xorshift seeded from the test's generator: fast enough for 100s of MiB).
inline void fill_random(void* p, std::size_t n) {
  std::uint64_t x = rng()() | 1U;
  auto* bytes = static_cast<unsigned char*>(p);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::memcpy(bytes + i, &x, 8);
  }
  for (; i < n; ++i) {
    bytes[i] = static_cast<unsigned char>(x >> (8 * (i % 8)));
  }
}

/// Index of the first differing byte, or n when equal.
inline std::size_t first_difference(const void* a, const void* b, std::size_t n) {
  if (std::memcmp(a, b, n) == 0) {
    return n;
  }
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  std::size_t i = 0;
  while (x[i] == y[i]) {
    ++i;
  }
  return i;
}

/// Device bytes as a host vector, through a plain cudaMemcpyAsync on `s` (not the engine under test).
inline std::vector<unsigned char> read_back(const void* device, std::size_t n, const stream& s) {
  std::vector<unsigned char> host(n);
  NDCUDA_CUDA_CHECK(cudaMemcpyAsync(host.data(), device, n, cudaMemcpyDeviceToHost, s.handle()));
  NDCUDA_CUDA_CHECK(cudaStreamSynchronize(s.handle()));
  return host;
}

}  // namespace ndcuda::testing
