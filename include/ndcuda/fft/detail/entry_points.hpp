// The compiled entry points of nd::fft (src/fft, in the ndcuda::linalg library), on type-erased
// arrays. Builds on array/erased_array.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <ndcuda/array/erased_array.hpp>
#include <vector>

namespace ndcuda::fft::detail {

using ndcuda::detail::erased_array;

/// Complex-to-complex transform of x (converted to the complex dtype `type`) over `axes`, each
/// cropped or zero-padded to its length; the result keeps x's axis order.
[[nodiscard]] erased_array c2c(const erased_array& x, dtype type, const std::vector<int>& axes, const shape_t& lengths,
                               bool inverse);
/// Real-to-complex (rfftn): x converted to the real dtype `type`; the last axis of `axes` comes
/// out with length / 2 + 1 complex values.
[[nodiscard]] erased_array r2c(const erased_array& x, dtype type, const std::vector<int>& axes, const shape_t& lengths);
/// Complex-to-real (irfftn): x converted to the complex dtype `type`; `lengths` are the output
/// lengths (the last axis reads length / 2 + 1 input values).
[[nodiscard]] erased_array c2r(const erased_array& x, dtype type, const std::vector<int>& axes, const shape_t& lengths);

/// The plan cache of the calling thread's current device... of `device`: how many plans it holds.
[[nodiscard]] std::size_t cached_plans(int device);
/// Bit d set when device d has created a cuFFT plan (tests of laziness).
[[nodiscard]] unsigned long long plan_devices() noexcept;

}  // namespace ndcuda::fft::detail

namespace ndcuda::fft {

/// The most cuFFT plans kept per device (16 by default, as CuPy). Least recently used plans go
/// first; plans used while capturing a graph are kept for the process' lifetime, because the
/// graph's kernels read the plan's tables.
void set_plan_cache_size(std::size_t plans);
[[nodiscard]] std::size_t plan_cache_size() noexcept;
/// Destroys every cached plan not used by a captured graph (waits for none: cuFFT destroys a
/// plan after the work queued with it).
void clear_plan_cache();

}  // namespace ndcuda::fft

#pragma GCC visibility pop
