// DLPack export and import: the only place that allocates or frees DLPack structs.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/device/enumeration.hpp>
#include <ndcuda/interop/dlpack.hpp>
#include <ndcuda/interop/dlpack_array.hpp>
#include <string>
#include <unordered_set>
#include <utility>

#include "device/driver_api.hpp"

namespace ndcuda {
namespace {

// A complex number is aligned like one of its halves; everything else like itself.
std::size_t element_alignment(dtype t) noexcept {
  return is_complex(t) ? itemsize(t) / 2 : itemsize(t);
}

// The storage behind an exported tensor: one allocation whose address is manager_ctx, so the
// deleter frees shape, strides and the tensor struct together and then releases the owner.
template <class Managed>
struct export_holder {
  Managed managed{};
  shape_t shape;
  strides_t strides;
  std::shared_ptr<const void> owner;
};

template <class Managed>
void delete_holder(Managed* self) {
  if (self != nullptr) {
    delete static_cast<export_holder<Managed>*>(self->manager_ctx);
  }
}

template <class Managed>
Managed* make_managed(dlpack_export e) {
  if (e.strides.empty()) {
    e.strides = c_strides(e.shape);
  }
  if (e.strides.size() != e.shape.size()) {
    throw dlpack_error("DLPack export: " + std::to_string(e.strides.size()) + " strides for shape " +
                       format_shape(e.shape) + "; give one stride per dimension, or none for C order");
  }
  (void)shape_size(e.shape);  // rejects negative extents and overflow before anything is handed out
  auto holder = std::make_unique<export_holder<Managed>>();
  holder->shape = std::move(e.shape);
  holder->strides = std::move(e.strides);
  holder->owner = std::move(e.owner);
  DLTensor& t = holder->managed.dl_tensor;
  t.data = e.data;
  t.device = to_dl_device(e.device);
  t.ndim = static_cast<std::int32_t>(holder->shape.size());
  t.dtype = to_dl_dtype(e.type);
  t.shape = holder->shape.data();
  t.strides = holder->strides.data();
  t.byte_offset = e.byte_offset;
  holder->managed.manager_ctx = holder.get();
  holder->managed.deleter = &delete_holder<Managed>;
  return &holder.release()->managed;
}

std::string detail_format_address(std::uintptr_t address) {
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "0x%llx", static_cast<unsigned long long>(address));
  return text.data();
}

[[noreturn]] void refuse(const std::string& what) {
  throw dlpack_error("cannot import the DLPack tensor: " + what);
}

// NumPy's limit (NPY_MAXDIMS): also keeps a lying ndim from making the import read or allocate
// billions of extents.
constexpr std::int32_t max_import_ndim = 64;

// Checks everything an ndarray relies on, before anything is allocated or consumed. Every refusal
// is a dlpack_error, whatever check finds it.
dlpack_import check_tensor(const DLTensor& t, dtype expected) {
  const DLDataType dt = t.dtype;
  if (dt.lanes != 1) {
    refuse("it holds " + format_dl_dtype(dt) + ", a vector type; ndcuda arrays hold one value per element");
  }
  const std::optional<dtype> held = from_dl_dtype(dt);
  if (!held) {
    refuse("it holds " + format_dl_dtype(dt) + ", which no ndcuda dtype matches");
  }
  if (*held != expected) {
    refuse("it holds " + std::string(name(*held)) + " but " + std::string(name(expected)) +
           " was asked for; import it as from_dlpack<" + std::string(cpp_type_name(*held)) +
           ">, or convert it in the producer first");
  }
  switch (t.device.device_type) {
    case kDLCUDA:
    case kDLCUDAManaged:
    case kDLCUDAHost:
      break;
    case kDLCPU:
      refuse(
          "it lives in host memory (kDLCPU) and ndcuda arrays live on a CUDA device; copy it with "
          "asarray(std::span) instead, or export it from the producer's CUDA device");
    default:
      refuse("its memory is on DLPack device type " + std::to_string(static_cast<int>(t.device.device_type)) +
             ", not CUDA (kDLCUDA, kDLCUDAManaged or kDLCUDAHost)");
  }
  if (t.device.device_id < 0) {
    refuse("its device id is " + std::to_string(t.device.device_id));
  }
  if (t.ndim < 0 || (t.ndim > 0 && t.shape == nullptr)) {
    refuse("it has " + std::to_string(t.ndim) + " dimensions and " + (t.shape ? "a" : "no") + " shape");
  }
  if (t.ndim > max_import_ndim) {
    refuse("it has " + std::to_string(t.ndim) + " dimensions, more than the " + std::to_string(max_import_ndim) +
           " NumPy allows");
  }
  dlpack_import out;
  out.type = *held;
  out.device_type = t.device.device_type;
  out.device = t.device.device_id;
  out.shape.assign(t.shape, t.shape + t.ndim);
  for (index_t extent : out.shape) {
    if (extent < 0) {
      refuse("its shape " + format_shape(out.shape) + " has a negative extent");
    }
  }
  const std::size_t item = itemsize(*held);
  std::size_t bytes = 0;
  element_reach reach;
  try {
    bytes = checked_nbytes(out.shape, item);
    // NULL strides meant C order before DLPack 1.0 (PyTorch still sends them for contiguous tensors).
    out.strides = t.strides != nullptr ? strides_t(t.strides, t.strides + t.ndim) : c_strides(out.shape);
    check_view(out.shape, out.strides, 0, item, "DLPack tensor");
    reach = checked_reach(out.shape, out.strides);
  } catch (const shape_error& e) {
    refuse(std::string("its shape and strides do not describe real memory: ") + e.what());
  }
  if (t.data == nullptr && bytes != 0) {
    refuse("its data pointer is NULL but its shape " + format_shape(out.shape) + " has elements");
  }
  const auto base = reinterpret_cast<std::uintptr_t>(t.data);
  std::uintptr_t first = 0;
  if (__builtin_add_overflow(base, t.byte_offset, &first)) {
    refuse("data + byte_offset (" + std::to_string(t.byte_offset) + ") is beyond the address space");
  }
  if (bytes != 0) {
    if (first % element_alignment(*held) != 0) {
      refuse("its first element (data + byte_offset " + std::to_string(t.byte_offset) + ") is not aligned to " +
             std::to_string(element_alignment(*held)) + " bytes, as " + std::string(name(*held)) + " needs");
    }
    // Every element's address must exist: check_view bounded the byte offsets by 2^63.
    const auto below = static_cast<std::uintptr_t>(-reach.low) * item;
    std::uintptr_t end = 0;
    if (below > first || __builtin_add_overflow(first, (static_cast<std::uintptr_t>(reach.high) + 1) * item, &end)) {
      refuse("its strides " + format_shape(out.strides) + " reach addresses outside the address space from " +
             detail_format_address(first));
    }
  }
  // By pointer arithmetic, not from the integer, so the address keeps its provenance. A NULL data
  // (only an empty tensor has one) stays NULL whatever byte_offset says: nothing lies there.
  out.data = t.data == nullptr ? nullptr : static_cast<std::byte*>(t.data) + t.byte_offset;
  return out;
}

// Owns the tensor from its construction on: made before anything else, so that nothing that can
// fail comes between taking the tensor and handing it to a shared_ptr (whose constructor would run
// the deleter on failure, consuming a tensor the caller still owns).
// The managed tensors adopted and not yet deleted: a DLPack tensor is consumed once, and a second
// import of the same one would run its deleter twice (a double free in the producer).
struct adopted_tensors {
  std::mutex mutex;
  std::unordered_set<const void*> live;
};

adopted_tensors& adopted() {
  static adopted_tensors* registry = new adopted_tensors;  // never destroyed: owners may outlive statics
  return *registry;
}

template <class Managed>
struct tensor_owner {
  Managed* tensor = nullptr;
  tensor_owner() = default;
  tensor_owner(const tensor_owner&) = delete;
  tensor_owner& operator=(const tensor_owner&) = delete;
  ~tensor_owner() {
    if (tensor == nullptr) {
      return;
    }
    {
      adopted_tensors& registry = adopted();
      const std::lock_guard lock(registry.mutex);
      registry.live.erase(tensor);
    }
    if (tensor->deleter != nullptr) {
      tensor->deleter(tensor);
    }
  }
};

template <class Managed>
std::shared_ptr<const void> adopt(Managed* t) {
  // The deleter runs once, when the last ndarray sharing the memory goes. make_shared allocates
  // before the tensor is taken: if it throws, the tensor is still the caller's.
  auto owner = std::make_shared<tensor_owner<Managed>>();
  {
    adopted_tensors& registry = adopted();
    const std::lock_guard lock(registry.mutex);
    if (!registry.live.insert(t).second) {
      refuse(
          "this managed tensor was already imported and is still owned by the arrays made from it; a DLPack "
          "tensor is consumed by one import: share the first ndarray, or export the tensor again");
    }
  }
  owner->tensor = t;
  return std::shared_ptr<const void>(owner, t);
}

}  // namespace

DLDataType to_dl_dtype(dtype t) noexcept {
  const auto bits = static_cast<std::uint8_t>(itemsize(t) * 8);
  std::uint8_t code = kDLFloat;
  switch (kind(t)) {
    case dtype_kind::boolean:
      code = dl_bool_code;
      break;
    case dtype_kind::signed_integer:
      code = kDLInt;
      break;
    case dtype_kind::unsigned_integer:
      code = kDLUInt;
      break;
    case dtype_kind::floating:
      code = t == dtype::bfloat16 ? static_cast<std::uint8_t>(kDLBfloat) : static_cast<std::uint8_t>(kDLFloat);
      break;
    case dtype_kind::complex:
      code = kDLComplex;
      break;
  }
  return DLDataType{code, bits, 1};
}

std::optional<dtype> from_dl_dtype(DLDataType t) noexcept {
  if (t.lanes != 1) {
    return std::nullopt;
  }
  for (dtype d : all_dtypes) {
    const DLDataType candidate = to_dl_dtype(d);
    if (candidate.code == t.code && candidate.bits == t.bits) {
      return d;
    }
  }
  return std::nullopt;
}

std::string format_dl_dtype(DLDataType t) {
  if (const auto d = from_dl_dtype(t)) {
    return std::string(name(*d));
  }
  return "type code " + std::to_string(t.code) + " with " + std::to_string(t.bits) + " bits and " +
         std::to_string(t.lanes) + " lane(s)";
}

DLDevice to_dl_device(int device) noexcept {
  return DLDevice{kDLCUDA, device};
}

DLManagedTensor* make_dl_managed_tensor(dlpack_export e) {
  return make_managed<DLManagedTensor>(std::move(e));
}

dlpack_import check_dl_managed_tensor(const DLManagedTensor* t, dtype expected) {
  if (t == nullptr) {
    refuse("the DLManagedTensor pointer is NULL");
  }
  return check_tensor(t->dl_tensor, expected);
}

std::shared_ptr<const void> adopt_dl_managed_tensor(DLManagedTensor* t) {
  return adopt(t);
}

dlpack_import import_dl_managed_tensor(DLManagedTensor* t, dtype expected) {
  dlpack_import out = check_dl_managed_tensor(t, expected);
  out.owner = adopt(t);
  return out;
}

#if defined(DLPACK_MAJOR_VERSION) && DLPACK_MAJOR_VERSION >= 1
DLManagedTensorVersioned* make_dl_managed_tensor_versioned(dlpack_export e, bool read_only) {
  DLManagedTensorVersioned* t = make_managed<DLManagedTensorVersioned>(std::move(e));
  t->version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  t->flags = read_only ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
  return t;
}

dlpack_import check_dl_managed_tensor(const DLManagedTensorVersioned* t, dtype expected) {
  if (t == nullptr) {
    refuse("the DLManagedTensorVersioned pointer is NULL");
  }
  if (t->version.major != DLPACK_MAJOR_VERSION) {
    refuse("it is DLPack version " + std::to_string(t->version.major) + "." + std::to_string(t->version.minor) +
           " and ndcuda was built with " + std::to_string(DLPACK_MAJOR_VERSION) + ".x, whose layout differs");
  }
  if ((t->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0) {
    refuse("it is read-only and an ndarray is writable; copy it in the producer first");
  }
  return check_tensor(t->dl_tensor, expected);
}

std::shared_ptr<const void> adopt_dl_managed_tensor(DLManagedTensorVersioned* t) {
  return adopt(t);
}

dlpack_import import_dl_managed_tensor(DLManagedTensorVersioned* t, dtype expected) {
  dlpack_import out = check_dl_managed_tensor(t, expected);
  out.owner = adopt(t);
  return out;
}
#endif

namespace detail {
namespace {

// What the driver says of the byte at `address`, against what the tensor claims; "" when they agree.
std::string memory_mismatch(const driver_api& drv, const dlpack_import& in, std::uintptr_t address) {
  const auto at = static_cast<CUdeviceptr>(address);
  unsigned int type = 0;
  if (drv.pointer_get_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, at) != CUDA_SUCCESS) {
    return "the driver does not know its memory at " + detail_format_address(address) +
           ": it is pageable host memory, freed, or not memory at all";
  }
  unsigned int managed = 0;
  if (drv.pointer_get_attribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, at) != CUDA_SUCCESS) {
    managed = 0;
  }
  switch (in.device_type) {
    case kDLCUDAManaged:
      return managed != 0 ? "" : "its memory at " + detail_format_address(address) + " is not managed memory";
    case kDLCUDAHost:
      return type == CU_MEMORYTYPE_HOST && managed == 0
                 ? ""
                 : "its memory at " + detail_format_address(address) + " is not pinned host memory";
    default:
      break;
  }
  if (managed != 0) {
    return "";  // managed memory is reachable from every device
  }
  if (type != CU_MEMORYTYPE_DEVICE) {
    return "its memory at " + detail_format_address(address) + " is pinned host memory, not device memory";
  }
  int ordinal = -1;
  if (drv.pointer_get_attribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, at) == CUDA_SUCCESS &&
      ordinal != in.device) {
    return "its memory at " + detail_format_address(address) + " is on CUDA device " + std::to_string(ordinal);
  }
  return "";
}

// A tensor's claimed device type and ordinal checked against the driver's view of its first and
// last bytes: a kDLCUDA tensor over pageable host memory would be an illegal address at the first
// read, which loses the context.
void check_claimed_memory(const dlpack_import& in) {
  if (in.data == nullptr || shape_size(in.shape) == 0) {
    return;
  }
  const element_reach reach = checked_reach(in.shape, in.strides);
  const std::size_t item = itemsize(in.type);
  const auto first = reinterpret_cast<std::uintptr_t>(in.data);
  const std::uintptr_t lowest = first - static_cast<std::uintptr_t>(-reach.low) * item;
  const std::uintptr_t highest = first + (static_cast<std::uintptr_t>(reach.high) + 1) * item - 1;
  const driver_api& drv = driver();
  for (const std::uintptr_t address : {lowest, highest}) {
    if (std::string why = memory_mismatch(drv, in, address); !why.empty()) {
      refuse("it claims " +
             std::string(in.device_type == kDLCUDAManaged ? "managed memory (kDLCUDAManaged)"
                         : in.device_type == kDLCUDAHost  ? "pinned host memory (kDLCUDAHost)"
                                                          : "device memory (kDLCUDA)") +
             " of CUDA device " + std::to_string(in.device) + " but " + why +
             "; export it from the framework that owns the memory, with its true device");
    }
  }
}

}  // namespace

stream dlpack_import_stream(const dlpack_import& in, const std::optional<stream>& s) {
  const int count = device_count();
  if (in.device >= count) {
    refuse("it is on CUDA device " + std::to_string(in.device) + " but " +
           (count == 0 ? "no CUDA device is visible (" + device_unavailable_reason() + ")"
                       : "only " + std::to_string(count) + " CUDA device(s) are visible (ordinals 0.." +
                             std::to_string(count - 1) + ")") +
           "; export it from a device this process sees, or check CUDA_VISIBLE_DEVICES");
  }
  if (s && s->device() != in.device) {
    refuse("it is on CUDA device " + std::to_string(in.device) + " but the stream given is on device " +
           std::to_string(s->device()) + "; pass a stream of device " + std::to_string(in.device) +
           " (or none, for that device's default stream)");
  }
  check_claimed_memory(in);
  return s ? *s : default_stream(in.device);
}

}  // namespace detail
}  // namespace ndcuda
