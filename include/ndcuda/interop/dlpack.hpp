/// @file
/// DLPack on the host: dtype and device mapping, building DLManagedTensors that keep memory alive, and
/// validating imported ones. Builds on core/ and <dlpack/dlpack.h>; interop/dlpack_array.hpp wraps ndarray.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/shape.hpp>
#include <optional>
#include <string>

namespace ndcuda {

/// A DLPack tensor that ndcuda cannot take: wrong dtype, vector lanes, host memory, malformed fields.
class dlpack_error : public error {
 public:
  using error::error;
};

/// kDLBool, added in DLPack 0.8. Spelled as its ABI value because older dlpack.h (Debian 12 ships
/// 0.6) lack the enumerator while producers (PyTorch, CuPy, JAX) already send it.
inline constexpr std::uint8_t dl_bool_code = 6;

/// The DLDataType of a dtype, lanes 1: int/uint/float by bits, bfloat16 as kDLBfloat, complex64 as
/// kDLComplex with 64 bits, bool as kDLBool with 8 bits.
[[nodiscard]] DLDataType to_dl_dtype(dtype t) noexcept;

/// The dtype of a DLDataType; nullopt for vector types (lanes != 1) and types ndcuda lacks.
[[nodiscard]] std::optional<dtype> from_dl_dtype(DLDataType t) noexcept;

/// For messages: the dtype name when there is one, else "type code 8 with 8 bits and 1 lane(s)".
[[nodiscard]] std::string format_dl_dtype(DLDataType t);

/// kDLCUDA with the device ordinal.
[[nodiscard]] DLDevice to_dl_device(int device) noexcept;

/// What an exported tensor describes. `data` is the allocation base and `byte_offset` the distance
/// to the first element; strides are in elements (empty: C-contiguous). `owner` keeps the memory
/// alive until the consumer calls the deleter.
struct dlpack_export {
  void* data = nullptr;               ///< the allocation base
  std::uint64_t byte_offset = 0;      ///< bytes from `data` to the first element
  shape_t shape;                      ///< the extent of each axis
  strides_t strides;                  ///< in elements; empty: C-contiguous
  dtype type = dtype::float32;        ///< the element type
  int device = 0;                     ///< the CUDA device ordinal
  std::shared_ptr<const void> owner;  ///< keeps the memory alive until the consumer calls the deleter
};

/// A new DLManagedTensor (legacy, unversioned ABI that every DLPack consumer reads). Strides are
/// always written, never NULL (DLPack 1.x forbids NULL strides for ndim > 0). Its deleter frees
/// everything this call allocated and releases `owner`; call it exactly once.
[[nodiscard]] DLManagedTensor* make_dl_managed_tensor(dlpack_export e);

/// What an imported tensor holds, checked: `data` points at the first element (byte_offset
/// applied), strides are in elements (C strides when the producer sent NULL). `owner` calls the
/// tensor's deleter exactly once, when its last copy goes.
struct dlpack_import {
  void* data = nullptr;                ///< the first element (byte_offset applied)
  shape_t shape;                       ///< the extent of each axis
  strides_t strides;                   ///< in elements (C strides when the producer sent NULL)
  dtype type = dtype::float32;         ///< the element type
  DLDeviceType device_type = kDLCUDA;  ///< kDLCUDA, kDLCUDAManaged or kDLCUDAHost
  int device = 0;                      ///< the device ordinal
  std::shared_ptr<const void> owner;   ///< calls the tensor's deleter once, when its last copy goes
};

/// Validates `t` without taking it: the fields below, and that the shape and strides describe memory
/// whose every byte offset and address exists (no overflow, at most 64 dimensions). Throws
/// dlpack_error, and only dlpack_error, for a malformed tensor; the tensor stays the caller's. The
/// result's owner is empty. Does not check the device id against the visible devices (from_dlpack
/// does, before it takes the tensor).
[[nodiscard]] dlpack_import check_dl_managed_tensor(const DLManagedTensor* t, dtype expected);

/// Takes ownership of `t`: the returned owner calls its deleter once, when its last copy goes.
/// Throws (std::bad_alloc) only before it has taken the tensor.
[[nodiscard]] std::shared_ptr<const void> adopt_dl_managed_tensor(DLManagedTensor* t);

/// check_dl_managed_tensor, then adopt_dl_managed_tensor: validates `t` and takes ownership of it. Accepts kDLCUDA,
/// kDLCUDAManaged and kDLCUDAHost (pinned host memory the GPU reaches through unified addressing). Throws dlpack_error
/// naming what is wrong when the dtype is not `expected`, lanes != 1, the memory is not CUDA's (kDLCPU, ROCm, ...), the
/// shape or strides are malformed, or the first element is misaligned; the tensor then stays the
/// caller's (its deleter is not called), like a Python capsule that was not consumed.
[[nodiscard]] dlpack_import import_dl_managed_tensor(DLManagedTensor* t, dtype expected);

#if defined(DLPACK_MAJOR_VERSION) && DLPACK_MAJOR_VERSION >= 1
/// The versioned form (DLPack >= 1.0), version set to this header's, flags 0 (or read-only).
[[nodiscard]] DLManagedTensorVersioned* make_dl_managed_tensor_versioned(dlpack_export e, bool read_only = false);

/// As above for a versioned tensor, which is also refused when of another major version or read-only.
[[nodiscard]] dlpack_import check_dl_managed_tensor(const DLManagedTensorVersioned* t, dtype expected);
/// Takes ownership of a versioned tensor: the returned owner calls its deleter once.
[[nodiscard]] std::shared_ptr<const void> adopt_dl_managed_tensor(DLManagedTensorVersioned* t);

/// As above for a versioned tensor. Also refuses another major version (its layout may differ; the
/// caller must then call its deleter, which the DLPack spec guarantees is safe) and read-only
/// tensors, which an ndarray would let the program write to.
[[nodiscard]] dlpack_import import_dl_managed_tensor(DLManagedTensorVersioned* t, dtype expected);
#endif

}  // namespace ndcuda

#pragma GCC visibility pop
