// The device-side primitives arrays are built from: a refcounted allocation and the few kernels
// (strided copy/cast, fill, index-generated values) that creation and views need. Builds on
// memory/ (resources) and jit/ (elementwise and raw kernels); typed wrappers live in ndarray.hpp.
#pragma once

#include <cstddef>
#include <memory>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/stream.hpp>
#include <span>

namespace ndcuda::detail {

/// Allocates `bytes` from default_resource(s.device()) on `s` (from capture_resource(s.device())
/// while `s` is capturing a graph: graph memory). The returned owner gives the memory
/// back to that same resource, on `s`, when the last array (or owner copy) using it goes: stream
/// ordering makes this safe for work queued on `s`; work on other streams must be ordered before
/// the last reference is dropped (as in CuPy).
[[nodiscard]] std::shared_ptr<const void> allocate_buffer(std::size_t bytes, const stream& s, void** data);

/// dst (of `dst_type`, shape `shape`, strides `dst_strides`) = cast(src) elementwise on `s`; src
/// broadcasts to `shape`. Strides in elements; empty strides mean C-contiguous.
void copy_cast(dtype dst_type, void* dst, std::span<const index_t> shape, std::span<const index_t> dst_strides,
               dtype src_type, const void* src, std::span<const index_t> src_shape,
               std::span<const index_t> src_strides, const stream& s);

/// The stream of a default-constructed (placeholder) array: device 0's per-thread stream, made
/// without any CUDA call so that placeholders can exist on machines without a GPU.
[[nodiscard]] inline const stream& placeholder_stream() {
  static const stream s = stream::wrap(cudaStreamPerThread, 0);
  return s;
}

/// Writes the `itemsize`-byte pattern `value` to n elements, `stride` elements apart.
void fill_pattern(void* dst, std::size_t itemsize, const void* value, index_t n, index_t stride, const stream& s);

/// out[i] = start + i * step in double; with `last` set, out[n - 1] = *last (linspace's endpoint);
/// `floor` rounds each value down (linspace into an integer type, as NumPy 2 does).
void sequence_f64(double* out, double start, double step, index_t n, const double* last, bool floor, const stream& s);
/// out[i] = start + i * step in int64 (arange of integers, exact beyond 2^53).
void sequence_i64(std::int64_t* out, std::int64_t start, std::int64_t step, index_t n, const stream& s);

/// Throws capture_error, before CUDA is called, when `s` is capturing: `what` (an operation that
/// needs the data on the host) cannot be recorded into a graph.
void refuse_host_wait(const stream& s, const char* what);

/// Blocks the host until `s` has run its work, refusing (capture_error) while `s` is capturing;
/// `what` names the operation in the message.
void synchronize_for(const stream& s, const char* what);

/// Orders work queued later on `later` after the work queued so far on `earlier` (an event), when
/// they differ. Throws capture_error when that would cross a capture's boundary (one of them
/// capturing, the other not or into another graph).
void order_after(const stream& later, const stream& earlier);

/// Compiles the fill and sequence kernels, and the astype kernels between `via` and every dtype
/// (both ways), for `cc` without a device: lets CI check the generated sources with NVRTC alone.
void compile_array_kernels(compute_capability cc, dtype via = dtype::float64);

}  // namespace ndcuda::detail
