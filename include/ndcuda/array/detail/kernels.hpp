// The few kernels arrays are built with: strided copy/cast, fill with a pattern, index-generated
// sequences. Builds on jit/ (elementwise and raw kernels over kernels/array.cuh); src/array/kernels.cpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <cstdint>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/stream.hpp>
#include <span>

namespace ndcuda::detail {

/// dst (of `dst_type`, shape `shape`, strides `dst_strides`) = cast(src) elementwise on `s`; src
/// broadcasts to `shape`. Strides in elements; empty strides mean C-contiguous.
void copy_cast(dtype dst_type, void* dst, std::span<const index_t> shape, std::span<const index_t> dst_strides,
               dtype src_type, const void* src, std::span<const index_t> src_shape,
               std::span<const index_t> src_strides, const stream& s);

/// Writes the `itemsize`-byte pattern `value` to n elements, `stride` elements apart.
void fill_pattern(void* dst, std::size_t itemsize, const void* value, index_t n, index_t stride, const stream& s);

/// out[i] = start + i * step in double; with `last` set, out[n - 1] = *last (linspace's endpoint);
/// `floor` rounds each value down (linspace into an integer type, as NumPy 2 does).
void sequence_f64(double* out, double start, double step, index_t n, const double* last, bool floor, const stream& s);
/// out[i] = start + i * step in int64 (arange of integers, exact beyond 2^53).
void sequence_i64(std::int64_t* out, std::int64_t start, std::int64_t step, index_t n, const stream& s);

/// Elements [first, first + n) of sequence_f64's sequence (element `last_index` is `last`, -1 for
/// none), converted to `type` as astype converts and written straight to `out` (n elements of
/// `type`): a block of an arange or linspace made with no temporary, its values those of the same
/// indices of the whole sequence bit for bit (one device function computes both). `type` is a real
/// numeric dtype (not bool, not complex); error otherwise.
void sequence_block_f64(dtype type, void* out, index_t first, index_t n, double start, double step, index_t last_index,
                        double last, bool floor, const stream& s);
/// Elements [first, first + n) of sequence_i64's sequence, converted to `type` as astype converts
/// and written straight to `out`. The caller has checked that start + (first + n - 1) * step fits
/// int64 (arange_int64).
void sequence_block_i64(dtype type, void* out, index_t first, index_t n, std::int64_t start, std::int64_t step,
                        const stream& s);

/// Compiles the fill kernels, the sequence kernels of every real dtype, and the astype kernels
/// between `via` and every dtype (both ways), for `cc` without a device: lets CI check the
/// generated sources with NVRTC alone.
NDCUDA_INTERNAL void compile_array_kernels(compute_capability cc, dtype via = dtype::float64);

}  // namespace ndcuda::detail

#pragma GCC visibility pop
