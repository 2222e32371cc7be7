/// @file
/// to_dlpack/from_dlpack: share an ndarray's GPU memory with PyTorch, CuPy, JAX and other DLPack
/// users without a copy. Builds on interop/dlpack.hpp and array/ (ndarray, from_device).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/array/creation.hpp>
#include <ndcuda/array/ndarray.hpp>
#include <ndcuda/interop/dlpack.hpp>
#include <optional>
#include <type_traits>

namespace ndcuda {

/// A DLManagedTensor viewing `a`'s memory (shape, strides and device as they are, views included).
/// It keeps the memory alive until the consumer calls its deleter, once. No synchronisation: work
/// queued on a.stream() may still be running, so the consumer orders its work after that stream
/// (a.stream().synchronize(), or an event it waits on), as DLPack's C interface leaves to the caller.
template <array_element T>
[[nodiscard]] DLManagedTensor* to_dlpack(const ndarray<T>& a) {
  // data is the first element and byte_offset 0, as PyTorch and CuPy export: views do not know
  // their allocation's base, and consumers handle both forms.
  return make_dl_managed_tensor(
      {const_cast<std::remove_cv_t<T>*>(a.data()), 0, a.shape(), a.strides(), dtype_of<T>, a.device(), a.owner()});
}

#if defined(DLPACK_MAJOR_VERSION) && DLPACK_MAJOR_VERSION >= 1
/// The versioned form (DLPack >= 1.0), for consumers that ask for it.
template <array_element T>
[[nodiscard]] DLManagedTensorVersioned* to_dlpack_versioned(const ndarray<T>& a) {
  return make_dl_managed_tensor_versioned(
      {const_cast<std::remove_cv_t<T>*>(a.data()), 0, a.shape(), a.strides(), dtype_of<T>, a.device(), a.owner()});
}
#endif

namespace detail {

/// The stream an imported tensor's array orders its work on: `s`, or the default stream of the
/// tensor's device. Throws dlpack_error when the device is not one this process sees (device 99,
/// or any device where none is visible), when `s` belongs to another device, or when the driver
/// says the tensor's first or last byte is not the memory it claims (kDLCUDA over pageable host
/// memory or another device's memory, kDLCUDAManaged over unmanaged memory, kDLCUDAHost over
/// unpinned memory).
[[nodiscard]] stream dlpack_import_stream(const dlpack_import& in, const std::optional<stream>& s);

// Everything is checked, and the stream found, before the tensor is taken: a refused tensor (and
// one whose default stream cannot be had) stays the caller's, its deleter not called.
template <class V, class Managed>
ndarray<V> array_from_dlpack(Managed* t, const std::optional<stream>& s) {
  dlpack_import in = check_dl_managed_tensor(t, dtype_of<V>);
  stream st = dlpack_import_stream(in, s);
  view_layout layout{std::move(in.shape), std::move(in.strides), 0};
  std::shared_ptr<const void> owner = adopt_dl_managed_tensor(t);
  return ndarray<V>(std::move(owner), static_cast<V*>(in.data), std::move(layout), in.device, std::move(st));
}

}  // namespace detail

/// An ndarray<T> viewing a DLPack tensor's memory without a copy; the tensor's deleter runs once,
/// when the last array sharing the memory goes. The tensor must hold T on a CUDA device this
/// process sees (see check_dl_managed_tensor), and `s`, when given, must belong to that device.
/// Everything is checked before the tensor is taken: when it is refused, dlpack_error is thrown and
/// the tensor stays the caller's (its deleter is not called). `s` orders later work; the producer's
/// pending work must be finished or ordered before it, as with any DLPack exchange.
template <array_element T>
[[nodiscard]] ndarray<std::remove_cv_t<T>> from_dlpack(DLManagedTensor* t, std::optional<stream> s = {}) {
  return detail::array_from_dlpack<std::remove_cv_t<T>>(t, s);
}

#if defined(DLPACK_MAJOR_VERSION) && DLPACK_MAJOR_VERSION >= 1
/// from_dlpack for a versioned tensor (DLPack >= 1.0), which is also refused when read-only or of another major
/// version.
template <array_element T>
[[nodiscard]] ndarray<std::remove_cv_t<T>> from_dlpack(DLManagedTensorVersioned* t, std::optional<stream> s = {}) {
  return detail::array_from_dlpack<std::remove_cv_t<T>>(t, s);
}
#endif

}  // namespace ndcuda

#pragma GCC visibility pop
