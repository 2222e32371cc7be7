// The compactions behind masks and nonzero (CUB, compiled in src/ops/select.cu), type-erased:
// contiguous buffers, a stream. Builds on core/ and device/stream.hpp only, so nvcc compiles it lightly.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <cstdint>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/device/stream.hpp>

namespace ndcuda::detail {

/// How many of the n bools are true; waits for the stream (capture_error naming `what` and
/// nd::size while capturing).
NDCUDA_INTERNAL [[nodiscard]] index_t count_true(const bool* mask, index_t n, const stream& s, const char* what);
/// out[j] = the j-th position whose flag is true, for j < limit (positions beyond are not written).
NDCUDA_INTERNAL void select_positions(const bool* mask, index_t n, std::int64_t* out, index_t limit, const stream& s);
/// Items (of `itemsize` bytes, contiguous) whose flag mask[i / row] is true, in order, into `out`;
/// at most `limit` items are written.
NDCUDA_INTERNAL void select_items(std::size_t itemsize, const void* items, const bool* mask, index_t n, index_t row,
                                  void* out, index_t limit, const stream& s);

}  // namespace ndcuda::detail

#pragma GCC visibility pop
