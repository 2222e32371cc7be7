// ndcuda: NumPy-like arrays on NVIDIA GPUs for plain C++. Include this one header and link
// ndcuda::ndcuda; no nvcc is needed in user code.
#pragma once

#include <ndcuda/array/creation.hpp>
#include <ndcuda/array/format.hpp>
#include <ndcuda/array/ndarray.hpp>
#include <ndcuda/array/storage.hpp>
#include <ndcuda/array/view_math.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/promotion.hpp>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/enumeration.hpp>
#include <ndcuda/device/event.hpp>
#include <ndcuda/device/limits.hpp>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/device/visible_devices.hpp>
#include <ndcuda/interop/npy.hpp>
#include <ndcuda/jit/cache.hpp>
#include <ndcuda/jit/elementwise_kernel.hpp>
#include <ndcuda/jit/launch.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <ndcuda/memory/async_pool_resource.hpp>
#include <ndcuda/memory/default_resource.hpp>
#include <ndcuda/memory/device_pool_resource.hpp>
#include <ndcuda/memory/host_memory.hpp>
#include <ndcuda/memory/limiting_adaptor.hpp>
#include <ndcuda/memory/logging_adaptor.hpp>
#include <ndcuda/memory/managed_resource.hpp>
#include <ndcuda/memory/memory_resource.hpp>
#include <ndcuda/memory/pinned_pool_resource.hpp>
#include <ndcuda/memory/pool_interfaces.hpp>
#include <ndcuda/memory/statistics_adaptor.hpp>
#include <ndcuda/memory/stats.hpp>
#include <ndcuda/memory/transfer.hpp>
#include <ndcuda/version.hpp>
