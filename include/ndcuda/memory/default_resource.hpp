/// @file
/// The per-device default resources: what arrays allocate from when given no resource.
/// Builds on device_pool_resource.hpp (each device's default) and pinned_pool_resource.hpp (the host's).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <memory>
#include <ndcuda/memory/memory_resource.hpp>
#include <ndcuda/memory/pinned_pool_resource.hpp>

namespace ndcuda {

/// The resource `device` allocates from by default: a device_pool_resource created on first use
/// (nothing touches the device before that), or what set_default_resource installed.
/// host_device: the host's default, nd::default_pinned_pool() unless replaced.
/// Throws device_error for a device that does not exist.
[[nodiscard]] std::shared_ptr<memory_resource> default_resource(int device);
/// The default resource of the calling thread's current device.
[[nodiscard]] std::shared_ptr<memory_resource> default_resource();

/// Installs `resource` as the default of `device` (host_device for the host) and returns the one
/// it replaces (nullptr when none had been created yet). nullptr restores the built-in default.
/// Arrays already allocated keep the resource they were allocated from. The resource must belong
/// to `device` (resource->device() == device), and a host default must be host-accessible (kind
/// pinned_host or managed); error otherwise.
///
/// Installed resources live until the process ends and are never destroyed: releasing GPU memory
/// from static destructors would race CUDA's own teardown, and the driver reclaims everything at
/// exit anyway.
std::shared_ptr<memory_resource> set_default_resource(int device, std::shared_ptr<memory_resource> resource);

/// The resource arrays allocate from while their stream is capturing a CUDA graph: a stream-ordered
/// async_pool_resource (cudaMallocAsync) of `device`, created on first use, so that allocations
/// inside a capture become graph memory nodes (allocated and freed by each launch). The default
/// device pool cannot serve a capture (a cached block would be baked into the graph).
[[nodiscard]] std::shared_ptr<memory_resource> capture_resource(int device);
/// Installs `resource` as what arrays on `device` allocate from during capture and returns the
/// previous one; nullptr restores the built-in async pool. A resource that refuses capture (the
/// device pool, managed memory) makes every allocation inside a capture throw capture_error.
std::shared_ptr<memory_resource> set_capture_resource(int device, std::shared_ptr<memory_resource> resource);

/// The library's pinned pool: the host's default resource unless replaced, and the staging pool of
/// the default transfer engine (whatever the host's default is).
[[nodiscard]] std::shared_ptr<pinned_pool_resource> default_pinned_pool();

}  // namespace ndcuda

#pragma GCC visibility pop
