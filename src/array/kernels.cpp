// The array layer's kernels; see include/ndcuda/array/detail/kernels.hpp. Strided copies and casts go
// through the JIT's elementwise machinery, fills and sequences through raw kernels (kernels/array.cuh).
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <ndcuda/array/detail/kernels.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/jit/detail/kernels_by_itemsize.hpp>
#include <ndcuda/jit/elementwise_kernel.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <optional>
#include <string>
#include <utility>

#include "device/driver_api.hpp"
#include "jit/elementwise_state.hpp"

namespace ndcuda::detail {
namespace {

/// Contiguous same-type copies of at least this many bytes go to cudaMemcpyAsync.
constexpr std::size_t memcpy_copy_bytes = std::size_t{1} << 20;

const jit::detail::elementwise_state& cast_state(dtype to, dtype from) {
  static std::mutex mutex;
  static std::map<std::pair<dtype, dtype>, std::shared_ptr<jit::detail::elementwise_state>> states;
  std::lock_guard lock(mutex);
  auto& state = states[{to, from}];
  if (!state) {
    // Spelled as the expression engine spells bodies (in0), so tier 0 runs first calls too.
    std::string body = to == from ? "out = in0" : "out = ndcuda::cast<" + std::string(cuda_type_name(to)) + ">(in0)";
    std::string kernel = "ndcuda_astype_" + std::string(ndcuda::name(from)) + "_to_" + std::string(ndcuda::name(to));
    state = jit::detail::make_elementwise_state(std::move(body), std::move(kernel), to, {from});
    jit::detail::attach_tier0(*state);
  }
  return *state;
}

// The kernels of kernels/array.cuh (embedded in the library, so no text lives here).
constexpr const char* array_source = "#include \"ndcuda/array.cuh\"\n";

const raw_kernel& fill_kernel(std::size_t itemsize) {
  static const jit::detail::kernels_by_itemsize kernels(array_source, "ndcuda::fill_kernel<{T}>", "ndcuda::bytes16");
  return kernels.get(itemsize, "fill");
}

// The sequence kernels of kernels/array.cuh, one per real dtype: `i64` picks sequence_i64_kernel
// (integer dtypes only), else sequence_f64_kernel. Made once (a raw_kernel compiles on its first
// launch on each device); cuda_fp16.h and cuda_bf16.h cost NVRTC 10 to 20 ms each, so only the
// kernels of those types parse them.
const raw_kernel& sequence_kernel(bool i64, dtype type) {
  using table = std::array<std::optional<raw_kernel>, dtype_count>;
  static const std::array<table, 2> kernels = [] {
    std::array<table, 2> k;
    for (dtype t : all_dtypes) {
      if (is_complex(t) || t == dtype::bool_) {
        continue;
      }
      const std::string source = (t == dtype::float16    ? std::string("#include <cuda_fp16.h>\n")
                                  : t == dtype::bfloat16 ? std::string("#include <cuda_bf16.h>\n")
                                                         : std::string()) +
                                 array_source;
      const std::string type_name(cuda_type_name(t));
      k[0][static_cast<std::size_t>(t)].emplace(source, "ndcuda::sequence_f64_kernel<" + type_name + ">");
      if (is_integral(t)) {
        k[1][static_cast<std::size_t>(t)].emplace(source, "ndcuda::sequence_i64_kernel<" + type_name + ">");
      }
    }
    return k;
  }();
  const std::optional<raw_kernel>& k = kernels[i64 ? 1 : 0][static_cast<std::size_t>(type)];
  if (!k) {
    throw error(std::string(i64 ? "arange" : "arange/linspace") + ": no sequence of dtype " +
                std::string(ndcuda::name(type)) + (i64 ? "; integer types only" : "; real numeric types only"));
  }
  return *k;
}

struct bytes16 {  // kernels/array.cuh's ndcuda::bytes16
  unsigned long long lo;
  unsigned long long hi;
};

template <class U>
void launch_fill(void* dst, const void* value, index_t n, index_t stride, const stream& s) {
  U v{};
  std::memcpy(&v, value, sizeof(U));
  const raw_kernel& k = fill_kernel(sizeof(U));
  const launch_config config = k.occupancy_config(static_cast<std::size_t>(n), s);
  k.launch(config, s, static_cast<U*>(dst), v, static_cast<long long>(n), static_cast<long long>(stride));
}

// A contiguous fill whose element repeats a 1-, 2- or 4-byte word (zeros and -1 of every type,
// ones of most) as a driver memset: as fast as the fill kernel, and no kernel to compile, which a
// program's first zeros() would otherwise wait for (75 ms of NVRTC on an H200 host, k-means' first
// iteration meets two). false when the pattern or the alignment does not allow it.
bool fill_by_memset(void* dst, std::size_t itemsize, const void* value, index_t n, const stream& s) {
  const auto* bytes = static_cast<const unsigned char*>(value);
  for (const std::size_t word : {std::size_t{1}, std::size_t{2}, std::size_t{4}}) {
    if (word > itemsize || itemsize % word != 0 || reinterpret_cast<std::uintptr_t>(dst) % word != 0) {
      continue;
    }
    bool repeats = true;
    for (std::size_t i = word; i < itemsize && repeats; ++i) {
      repeats = bytes[i] == bytes[i % word];
    }
    if (!repeats) {
      continue;
    }
    const auto at = reinterpret_cast<CUdeviceptr>(dst);
    const std::size_t count = static_cast<std::size_t>(n) * (itemsize / word);
    const auto on = static_cast<CUstream>(s.handle());
    const driver_api& api = driver();
    device_guard guard(s.device());  // the driver's memset runs in the current context
    if (word == 1) {
      NDCUDA_DRIVER_CHECK(api.memset_d8_async(at, bytes[0], count, on));
    } else if (word == 2) {
      std::uint16_t pattern = 0;
      std::memcpy(&pattern, bytes, sizeof(pattern));
      NDCUDA_DRIVER_CHECK(api.memset_d16_async(at, pattern, count, on));
    } else {
      std::uint32_t pattern = 0;
      std::memcpy(&pattern, bytes, sizeof(pattern));
      NDCUDA_DRIVER_CHECK(api.memset_d32_async(at, pattern, count, on));
    }
    return true;
  }
  return false;
}

}  // namespace

void copy_cast(dtype dst_type, void* dst, std::span<const index_t> shape, std::span<const index_t> dst_strides,
               dtype src_type, const void* src, std::span<const index_t> src_shape,
               std::span<const index_t> src_strides, const stream& s) {
  if (shape_size(shape) == 0) {
    return;
  }
  const strides_t dense_dst =
      dst_strides.empty() ? c_strides(shape) : strides_t(dst_strides.begin(), dst_strides.end());
  const strides_t dense_src =
      src_strides.empty() ? c_strides(src_shape) : strides_t(src_strides.begin(), src_strides.end());
  const std::size_t bytes = static_cast<std::size_t>(shape_size(shape)) * itemsize(dst_type);
  if (dst_type == src_type && bytes >= memcpy_copy_bytes && std::ranges::equal(shape, src_shape) &&
      is_c_contiguous(shape, dense_dst) && is_c_contiguous(src_shape, dense_src)) {
    // A plain copy of one contiguous block: the copy engine's path is the ceiling the kernel can
    // only tie (issue 20 measured it 2.4% short at 64 MiB). Below the threshold a kernel launch
    // costs less host time than cudaMemcpyAsync.
    if (dst != src) {  // the same block onto itself is already done; memcpy must not overlap
      device_guard guard(s.device());
      NDCUDA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s.handle()));
    }
    return;
  }
  const jit::detail::operand out{dst, shape, dense_dst};
  const jit::detail::operand in{src, src_shape, dense_src};
  jit::detail::launch_elementwise(cast_state(dst_type, src_type), out, std::span<const jit::detail::operand>(&in, 1),
                                  s);
}

void fill_pattern(void* dst, std::size_t itemsize, const void* value, index_t n, index_t stride, const stream& s) {
  if (n <= 0 || (stride == 1 && fill_by_memset(dst, itemsize, value, n, s))) {
    return;
  }
  switch (itemsize) {
    case 1:
      return launch_fill<unsigned char>(dst, value, n, stride, s);
    case 2:
      return launch_fill<unsigned short>(dst, value, n, stride, s);
    case 4:
      return launch_fill<unsigned int>(dst, value, n, stride, s);
    case 8:
      return launch_fill<unsigned long long>(dst, value, n, stride, s);
    case 16:
      return launch_fill<bytes16>(dst, value, n, stride, s);
    default:
      throw error("fill: unsupported element size " + std::to_string(itemsize));
  }
}

void sequence_f64(double* out, double start, double step, index_t n, const double* last, bool floor, const stream& s) {
  sequence_block_f64(dtype::float64, out, 0, n, start, step, last != nullptr ? n - 1 : -1,
                     last != nullptr ? *last : 0.0, floor, s);
}

void sequence_i64(std::int64_t* out, std::int64_t start, std::int64_t step, index_t n, const stream& s) {
  sequence_block_i64(dtype::int64, out, 0, n, start, step, s);
}

void sequence_block_f64(dtype type, void* out, index_t first, index_t n, double start, double step, index_t last_index,
                        double last, bool floor, const stream& s) {
  if (n <= 0) {
    return;
  }
  const raw_kernel& k = sequence_kernel(false, type);
  const launch_config config = k.occupancy_config(static_cast<std::size_t>(n), s);
  k.launch(config, s, out, static_cast<long long>(first), static_cast<long long>(n), start, step,
           static_cast<long long>(last_index), last, floor ? 1 : 0);
}

void sequence_block_i64(dtype type, void* out, index_t first, index_t n, std::int64_t start, std::int64_t step,
                        const stream& s) {
  if (n <= 0) {
    return;
  }
  const raw_kernel& k = sequence_kernel(true, type);
  const launch_config config = k.occupancy_config(static_cast<std::size_t>(n), s);
  k.launch(config, s, out, static_cast<long long>(first), static_cast<long long>(n), static_cast<long long>(start),
           static_cast<long long>(step));
}

void compile_array_kernels(compute_capability cc, dtype via) {
  for (std::size_t size : {1, 2, 4, 8, 16}) {
    fill_kernel(size).compile(cc);
  }
  for (dtype t : all_dtypes) {
    if (!is_complex(t) && t != dtype::bool_) {
      sequence_kernel(false, t).compile(cc);  // arange of floats, every linspace
      if (is_integral(t)) {
        sequence_kernel(true, t).compile(cc);  // arange of integers
      }
    }
  }
  for (dtype t : all_dtypes) {
    jit::detail::compile_elementwise(cast_state(t, via), cc);
    jit::detail::compile_elementwise(cast_state(via, t), cc);
  }
}

}  // namespace ndcuda::detail
