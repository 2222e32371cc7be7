// ndcuda: NumPy-like arrays on NVIDIA GPUs for plain C++. Include this one header and link
// ndcuda::ndcuda; no nvcc is needed in user code.
#pragma once

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
#include <ndcuda/jit/cache.hpp>
#include <ndcuda/jit/elementwise_kernel.hpp>
#include <ndcuda/jit/launch.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <ndcuda/version.hpp>
