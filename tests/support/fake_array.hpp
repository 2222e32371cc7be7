// Arrays whose data pointer is fake, for host-only tests of code paths that launch nothing:
// planning, code generation, and checks that throw before any CUDA call.
#pragma once

#include <cstdint>
#include <ndcuda/ndcuda.hpp>
#include <utility>

namespace ndcuda::testing {

/// An array at a made-up device address: code generation and checks never touch its memory.
template <class T>
ndarray<T> fake(shape_t shape, std::uintptr_t address = 0x10000) {
  return from_device(reinterpret_cast<T*>(address), std::move(shape), nullptr, 0, {},
                     stream::wrap(cudaStreamPerThread, 0));
}

}  // namespace ndcuda::testing
