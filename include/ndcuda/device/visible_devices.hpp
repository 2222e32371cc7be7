/// @file
/// The CUDA_VISIBLE_DEVICES rules of the CUDA driver, as a pure function over a list of GPUs.
/// Builds on the standard library only; enumeration.hpp feeds it NVML's device list.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <span>
#include <string>
#include <vector>

namespace ndcuda {

/// One GPU as NVML lists it, in NVML's order (PCI bus order).
struct physical_device {
  /// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
  std::string uuid;
  /// "MIG-..." of each MIG device on this GPU, in NVML's order. Non-empty only in MIG mode.
  std::vector<std::string> mig_uuids;
  /// MIG mode is on. Implied by a non-empty mig_uuids; set it for a GPU in MIG mode on which no
  /// MIG device has been created yet (CUDA cannot use such a GPU at all).
  bool mig_enabled = false;
};

/// A device CUDA will enumerate, in CUDA's order: the i-th entry is CUDA device i.
struct visible_device {
  /// Index into the physical list.
  int physical_index = -1;
  /// Index into physical_device::mig_uuids, or -1 for the whole GPU.
  int mig_index = -1;
  /// The GPU's or the MIG device's UUID.
  std::string uuid;
};

/// The devices CUDA makes visible when CUDA_VISIBLE_DEVICES is `env` (nullptr: the variable is
/// unset) on a machine whose GPUs are `physical`.
///
/// The driver's rules. Those marked [seen] were read off CUDA 13 drivers (580.159) on machines of
/// one and of two GPUs; tests/device/enumeration_test.cpp checks them against the driver on any
/// GPU machine. The others follow NVIDIA's documentation and PyTorch's _parse_visible_devices.
///  - Unset: every GPU, in order.
///  - Set: the value is split on ','. The first token decides the kind of list [seen]: UUIDs if
///    it starts with "GPU-" or "MIG-" (in capitals), ordinals otherwise. Tokens are then read in
///    turn, and the first that is not a valid name of its list's kind ends the list; the devices
///    read before it stay visible, in order. So "" and "-1" make no device visible, and mixing
///    kinds ("0,GPU-8f9a", "GPU-8f9a,1") keeps only the devices before the switch [seen].
///  - An ordinal is read like strtoul [seen]: leading white space, an optional '+', digits, and
///    whatever follows is ignored ("1gpu" and "1 2" are 1, "0x1" is 0, "-0" is 0). A token with no
///    number ("", "x", " GPU-..."), a negative one, or one not below the number of GPUs ends the list.
///  - A UUID token is "GPU-" or "MIG-" then hex digits [seen]: in either case, with '-' anywhere
///    among them (or nowhere), at least one digit ("GPU-" alone names nothing, even with one GPU),
///    and anything after the 32nd digit ignored. Any other character before the 32nd digit ends
///    the list: no white space around a partial UUID, and " GPU-..." is an ordinal token. The
///    digits select the one device, GPU or MIG device, whose UUID starts with them ("GPU-8f9a"
///    names the GPU whose UUID starts with 8f9a); "MIG-" and "GPU-" are interchangeable [seen for
///    GPUs]. A prefix that matches no device ends the list [seen], and so does one that matches
///    several [not seen: the GPUs at hand shared no prefix].
///  - A device named twice before the list ends, by ordinal or UUID ("0,1,1", "GPU-8f9a,GPU-8f"),
///    makes the whole list empty [seen: cuInit fails with CUDA_ERROR_INVALID_DEVICE]. A
///    duplicate after the end does not ("0,7,0" is 0).
///  - MIG [not seen, no MIG machine was at hand]: a GPU in MIG mode is never visible as a whole;
///    naming it (by ordinal or UUID, or leaving the variable unset) selects its first MIG device,
///    or nothing when it has none. Duplicates are judged on the name as written, so naming a GPU
///    and its first MIG device is not a duplicate. As NVIDIA's MIG guide states for CUDA 11 and
///    12, one process enumerates at most one MIG device: MIG devices after the first are dropped
///    (whole GPUs after them stay). Pre-R470 MIG UUIDs ("MIG-GPU-<uuid>/gi/ci") are not supported.
///
/// Ordinals index `physical` (NVML's PCI bus order). CUDA's default CUDA_DEVICE_ORDER,
/// FASTEST_FIRST, orders unlike GPUs by speed, so on a machine of mixed GPUs an ordinal may name
/// a different GPU than here; how many devices are visible only differs then if the GPUs also
/// differ in MIG mode.
[[nodiscard]] std::vector<visible_device> apply_cuda_visible_devices(const char* env,
                                                                     std::span<const physical_device> physical);

}  // namespace ndcuda

#pragma GCC visibility pop
