/// @file
/// ndcuda: NumPy-like arrays on NVIDIA GPUs for plain C++. Include this one header and link
/// ndcuda::ndcuda; no nvcc is needed in user code. File I/O (.npy, .npz, text) is
/// <ndcuda/io.hpp>; linear algebra and FFT are <ndcuda/linalg.hpp> and <ndcuda/fft.hpp>.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/array/creation.hpp>
#include <ndcuda/array/format.hpp>
#include <ndcuda/array/ndarray.hpp>
#include <ndcuda/array/view_math.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/promotion.hpp>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/enumeration.hpp>
#include <ndcuda/device/event.hpp>
#include <ndcuda/device/graph.hpp>
#include <ndcuda/device/limits.hpp>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/device/visible_devices.hpp>
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
#include <ndcuda/ops/closeness.hpp>
#include <ndcuda/ops/counting.hpp>
#include <ndcuda/ops/creation_functions.hpp>
#include <ndcuda/ops/deterministic.hpp>
#include <ndcuda/ops/differences.hpp>
#include <ndcuda/ops/elementwise.hpp>
#include <ndcuda/ops/float_parts.hpp>
#include <ndcuda/ops/gradient.hpp>
#include <ndcuda/ops/indexing.hpp>
#include <ndcuda/ops/indexing_functions.hpp>
#include <ndcuda/ops/joining.hpp>
#include <ndcuda/ops/quantile.hpp>
#include <ndcuda/ops/rearranging.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <ndcuda/ops/scans.hpp>
#include <ndcuda/ops/selection.hpp>
#include <ndcuda/ops/sets.hpp>
#include <ndcuda/ops/sorting.hpp>
#include <ndcuda/ops/statistics.hpp>
#include <ndcuda/random.hpp>
#include <ndcuda/version.hpp>

#pragma GCC visibility pop
