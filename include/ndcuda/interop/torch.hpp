// from_torch/to_torch and stream helpers: share GPU memory and CUDA streams with libtorch (at::Tensor) without a
// copy. Builds on interop/dlpack_array.hpp and libtorch's ATen/DLConvertor.h; only usable where Torch is found.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

// libtorch's headers come first: ATen/dlpack.h and <dlpack/dlpack.h> share one include guard, so the first one
// wins, and libtorch's own declarations need its copy (DLPack 1.x). The legacy DLManagedTensor that ndcuda
// exchanges has the same layout in every DLPack version, so a library built with an older dlpack.h still fits.
#if defined(DLPACK_DLPACK_H_) && (!defined(DLPACK_MAJOR_VERSION) || DLPACK_MAJOR_VERSION < 1)
#error "include <ndcuda/interop/torch.hpp> before <dlpack/dlpack.h> older than 1.0: libtorch needs its own"
#endif
#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <ndcuda/array/ndarray.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/interop/dlpack_array.hpp>
#include <optional>
#include <string>
#include <type_traits>

namespace ndcuda {

/// An ndcuda stream for a torch CUDA stream (at::cuda::getCurrentCUDAStream(), a pool stream), without taking it
/// over: torch keeps owning it. Throws error for torch's default stream, the legacy NULL stream that ndcuda never
/// uses; give torch a stream of its own first (at::cuda::CUDAStreamGuard with at::cuda::getStreamFromPool()), or
/// run torch on an ndcuda stream (to_torch_stream).
[[nodiscard]] inline stream from_torch_stream(const c10::cuda::CUDAStream& s) {
  if (s.stream() == nullptr) {
    throw error("from_torch_stream was given torch's default stream of cuda:" + std::to_string(s.device_index()) +
                ", which is CUDA's legacy NULL stream: ndcuda never uses it (it serialises with every blocking stream "
                "and cannot be captured into a graph). Make torch use a stream of its own first, e.g. "
                "at::cuda::CUDAStreamGuard guard(at::cuda::getStreamFromPool()), or run torch on an ndcuda stream "
                "with at::cuda::CUDAStreamGuard guard(nd::to_torch_stream(s))");
  }
  return stream::wrap(s.stream(), s.device_index());
}

/// A torch stream for an ndcuda stream (c10::cuda::getStreamFromExternal): torch work queued under
/// at::cuda::CUDAStreamGuard guard(nd::to_torch_stream(s)) runs on `s`. Torch does not own it: `s` (a copy of the
/// stream handle) must outlive the torch work queued on it.
[[nodiscard]] inline c10::cuda::CUDAStream to_torch_stream(const stream& s) {
  return c10::cuda::getStreamFromExternal(s.handle(), static_cast<c10::DeviceIndex>(s.device()));
}

namespace detail {

/// A torch stream handle as CUDA reads it: torch's default stream (nullptr) is the legacy stream, whatever this
/// translation unit's default-stream mode is.
[[nodiscard]] inline cudaStream_t torch_cuda_stream(const c10::cuda::CUDAStream& s) noexcept {
  return s.stream() == nullptr ? cudaStreamLegacy : s.stream();
}

/// Orders all later work on `waiter` after the work queued on `producer` so far (an event, no host blocking).
/// Nothing to do when both are the same stream. Works on torch's legacy default stream too.
inline void order_stream_after(cudaStream_t waiter, cudaStream_t producer, int device) {
  if (waiter == producer) {
    return;
  }
  const device_guard on(device);
  // An event cannot join a capturing stream and a non-capturing one: CUDA would invalidate the capture. Refuse first.
  cudaStreamCaptureStatus waiter_capture = cudaStreamCaptureStatusNone;
  cudaStreamCaptureStatus producer_capture = cudaStreamCaptureStatusNone;
  check_cuda(cudaStreamIsCapturing(waiter, &waiter_capture), "cudaStreamIsCapturing (torch interop)");
  check_cuda(cudaStreamIsCapturing(producer, &producer_capture), "cudaStreamIsCapturing (torch interop)");
  if ((waiter_capture == cudaStreamCaptureStatusNone) != (producer_capture == cudaStreamCaptureStatusNone)) {
    throw capture_error(
        "ordering torch's stream and ndcuda's: one of them is capturing a CUDA graph and the other is not, and an "
        "event between them would invalidate the capture; hand arrays and tensors over before capturing, or use "
        "the capturing stream on both sides (from_torch(t, s), at::cuda::CUDAStreamGuard with to_torch_stream(s))");
  }
  cudaEvent_t e = nullptr;
  check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags (torch interop)");
  cudaError_t status = cudaEventRecord(e, producer);
  if (status == cudaSuccess) {
    status = cudaStreamWaitEvent(waiter, e, 0);
  }
  // Destroying an event whose record is still pending is allowed: CUDA frees it once the record completes.
  (void)cudaEventDestroy(e);
  check_cuda(status, "cudaEventRecord + cudaStreamWaitEvent (ordering torch's and ndcuda's streams)");
}

/// torch's name of a tensor's dtype for messages: "Half (torch.float16)".
[[nodiscard]] inline std::string torch_dtype_name(const at::Tensor& t) {
  return std::string(c10::toString(t.scalar_type())) + " (torch." + c10::getDtypeNames(t.scalar_type()).first + ")";
}

/// Everything from_torch refuses before it exports anything, so a refused tensor is left untouched.
template <class T>
void check_torch_import(const at::Tensor& t) {
  if (!t.defined()) {
    throw dlpack_error("from_torch was given an undefined at::Tensor (a default-constructed one); pass a tensor");
  }
  if (!t.is_cuda()) {
    throw dlpack_error("from_torch was given a tensor on " + t.device().str() +
                       ", but an ndarray views GPU memory; move it first (t.to(torch::kCUDA)) or copy its host "
                       "values with nd::asarray");
  }
  if (t.layout() != at::kStrided) {
    throw dlpack_error("from_torch was given a tensor of layout " + std::string(c10::toString(t.layout())) +
                       ", but an ndarray is dense and strided; convert it first (t.to_dense())");
  }
  if (t.is_conj() || t.is_neg()) {
    throw dlpack_error(
        "from_torch was given a tensor with torch's lazy conjugate or negative bit set, which its "
        "memory does not show; materialise it first (t.resolve_conj().resolve_neg())");
  }
  if (t.requires_grad()) {
    throw dlpack_error(
        "from_torch was given a tensor that requires grad, and ndcuda does not track gradients (as "
        "torch's t.numpy() refuses); pass t.detach()");
  }
  std::optional<dtype> held;
  try {
    held = from_dl_dtype(at::getDLDataType(t));
  } catch (const c10::Error&) {
    // Torch dtypes without a DLPack code (float8, quantized, ...): none in ndcuda either.
  }
  if (held != dtype_of<T>) {
    throw dlpack_error("from_torch<" + std::string(name(dtype_of<T>)) + "> was given a tensor of dtype " +
                       torch_dtype_name(t) +
                       (held ? ", which is " + std::string(name(*held)) + " in ndcuda; ask for that element type"
                             : ", which ndcuda has no dtype for") +
                       ", or convert the tensor first (t.to(...))");
  }
}

}  // namespace detail

/// An ndarray<T> viewing a CUDA tensor's memory: no copy, shape and strides as the tensor's (views and storage
/// offsets included; torch writes strides of length-1 dimensions as 1). The tensor's storage stays alive until the
/// last ndarray sharing it goes, and is released exactly once.
///
/// Streams: the array orders its work on `s`, or on the default stream of the tensor's device. Work torch queued
/// so far on its current stream of that device is ordered before it (an event, no host blocking). Torch's caching
/// allocator does not hand the memory out again before the array's work has run: the storage is marked as used on
/// a torch pool stream (Tensor::record_stream), which is made to wait for the array's stream when the last array
/// goes. (Marking the array's own stream would leave torch recording an event on it later, when it may be gone.)
///
/// Throws dlpack_error, touching nothing, for an undefined, non-CUDA, sparse, conjugate/negative-bit or
/// requires-grad tensor, or one whose dtype is not T's (torch.float16 is __half, torch.bfloat16 __nv_bfloat16,
/// torch.complex64 std::complex<float>).
template <array_element T>
[[nodiscard]] ndarray<std::remove_cv_t<T>> from_torch(const at::Tensor& t, std::optional<stream> s = {}) {
  using value_type = std::remove_cv_t<T>;
  detail::check_torch_import<value_type>(t);
  const int device = t.device().index();
  const stream target = s ? *s : default_stream(device);
  if (target.device() != device) {
    throw dlpack_error("from_torch was given a tensor on cuda:" + std::to_string(device) + " and a stream of device " +
                       std::to_string(target.device()) + "; pass a stream of the tensor's device");
  }
  const auto torch_device = static_cast<c10::DeviceIndex>(device);
  detail::order_stream_after(target.handle(), detail::torch_cuda_stream(c10::cuda::getCurrentCUDAStream(torch_device)),
                             device);
  // Pool streams live as long as the process, so torch may record events on this one whenever it frees.
  const c10::cuda::CUDAStream keeper = c10::cuda::getStreamFromPool(false, torch_device);
  if (t.numel() != 0) {
    t.record_stream(keeper);
  }

  DLManagedTensor* exported = at::toDLPack(t);
  dlpack_import in;
  std::shared_ptr<const void> adopted;
  try {
    in = check_dl_managed_tensor(exported, dtype_of<value_type>);
    (void)detail::dlpack_import_stream(in, target);
    adopted = adopt_dl_managed_tensor(exported);
  } catch (...) {
    // Refused or not taken: the exported tensor is still ours, so torch's reference is released here.
    if (exported->deleter != nullptr) {
      exported->deleter(exported);
    }
    throw;
  }
  // The owner keeps the array's stream alive and, when the last array goes, orders the keeper after it before
  // torch's reference is dropped. Should this allocation fail, shared_ptr runs the deleter at once: still correct.
  std::shared_ptr<const void> owner(adopted.get(), [adopted, target, keeper, device](const void*) mutable noexcept {
    try {
      detail::order_stream_after(keeper.stream(), target.handle(), device);
    } catch (...) {
      // At exit CUDA may be unloading already; nothing is left to protect then.
    }
    adopted.reset();
  });
  view_layout layout{std::move(in.shape), std::move(in.strides), 0};
  return ndarray<value_type>(std::move(owner), static_cast<value_type*>(in.data), std::move(layout), device, target);
}

/// A torch tensor viewing `a`'s memory: no copy, shape and strides as `a`'s (views included, the first element
/// as the tensor's data pointer). `a`'s memory stays alive until torch frees the tensor, and is released exactly
/// once (through DLPack's deleter).
///
/// Streams: torch's current stream on a's device is ordered after the work queued on a.stream() so far (an
/// event, no host blocking), so torch ops issued next see a's values. When torch frees the tensor, `a`'s memory
/// goes back to its resource on the stream it was allocated with; torch work still queued on another stream that
/// uses it must be ordered before that stream, or finished, by then (keep an ndarray alive, or synchronise).
///
/// Throws dlpack_error for negative strides (nd::flip, slices with negative steps), which torch tensors cannot
/// have (copy() the view first), and for a dtype torch lacks.
template <array_element T>
[[nodiscard]] at::Tensor to_torch(const ndarray<T>& a) {
  for (const index_t stride : a.strides()) {
    if (stride < 0) {
      throw dlpack_error(
          "to_torch: at least one stride of the array is negative, and torch tensors with negative "
          "strides are not supported. (You can probably work around this by making a copy of your "
          "array with a.copy().)");
    }
  }
  const DLDataType code = to_dl_dtype(dtype_of<T>);
  try {
    (void)at::toScalarType(code);  // before anything is exported: a refusal here leaks nothing
  } catch (const c10::Error&) {
    throw dlpack_error("to_torch: torch has no dtype for " + std::string(name(dtype_of<T>)) +
                       "; convert the array first (nd::astype)");
  }
  const c10::cuda::CUDAStream torch_current =
      c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(a.device()));
  detail::order_stream_after(detail::torch_cuda_stream(torch_current), a.stream().handle(), a.device());
  const at::TensorOptions options =
      at::TensorOptions().dtype(at::toScalarType(code)).device(at::kCUDA, static_cast<c10::DeviceIndex>(a.device()));
  if (a.size() == 0) {
    // Nothing to share; torch refuses a NULL data pointer on a CUDA device.
    return at::empty(at::IntArrayRef(a.shape().data(), a.shape().size()), options);
  }
  return at::fromDLPack(to_dlpack(a));
}

}  // namespace ndcuda

#pragma GCC visibility pop
