// Allocation and the array layer's kernels; see include/ndcuda/array/storage.hpp. Strided copies
// and casts go through the JIT's elementwise machinery, index-generated values through raw kernels.
#include <cstring>
#include <map>
#include <mutex>
#include <ndcuda/array/storage.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/capture.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/event.hpp>
#include <ndcuda/jit/elementwise_kernel.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <ndcuda/memory/default_resource.hpp>
#include <string>
#include <utility>

namespace ndcuda::detail {
namespace {

struct device_buffer {
  void* data = nullptr;
  std::size_t bytes = 0;
  std::shared_ptr<memory_resource> resource;
  ndcuda::stream release_on;
  unsigned long long capture = 0;  // the capture it was allocated in (graph memory), 0 if none

  device_buffer(std::size_t n, std::shared_ptr<memory_resource> r, ndcuda::stream s, unsigned long long id)
      : bytes(n), resource(std::move(r)), release_on(std::move(s)), capture(id) {
    data = resource->allocate(bytes, release_on);
  }
  ~device_buffer() = default;
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  void release() noexcept {
    // Never throws: the resources already tolerate CUDA's teardown at exit.
    try {
      resource->deallocate(data, bytes, release_on);
    } catch (...) {
    }
  }
};

// The last reference to a buffer went. Freed on its stream at once, unless that stream is now
// capturing a graph the buffer was not allocated in: the free would be recorded into that graph
// (or refused by the pool), so it waits until the capture is over. A buffer allocated inside the
// capture being recorded is freed into it: a graph free node, so replays do not accumulate memory.
struct release_buffer {
  void operator()(device_buffer* b) const noexcept {
    std::unique_ptr<device_buffer> owned(b);
    try {
      // Only while an nd::capture is open: at exit (no capture) no driver call is made here, since
      // the driver may already be unloading.
      if (captures_active() && b->release_on.is_capturing() && capture_id(b->release_on) != b->capture) {
        std::shared_ptr<device_buffer> later(owned.release());
        release_when_not_capturing(later->release_on, [later] { later->release(); });
        return;
      }
    } catch (...) {  // the driver is gone (exit): release as usual, the resource copes
    }
    owned->release();
  }
};

const jit::detail::elementwise_state& cast_state(dtype to, dtype from) {
  static std::mutex mutex;
  static std::map<std::pair<dtype, dtype>, std::shared_ptr<jit::detail::elementwise_state>> states;
  std::lock_guard lock(mutex);
  auto& state = states[{to, from}];
  if (!state) {
    std::string body = to == from ? "out = x" : "out = ndcuda::cast<" + std::string(cuda_type_name(to)) + ">(x)";
    std::string kernel = "ndcuda_astype_" + std::string(ndcuda::name(from)) + "_to_" + std::string(ndcuda::name(to));
    state = jit::detail::make_elementwise_state(std::move(body), std::move(kernel), to, {from});
  }
  return *state;
}

constexpr const char* fill_source = R"(
struct ndcuda_bytes16 { unsigned long long lo, hi; };
template <class U>
__global__ void ndcuda_fill(U* out, U value, long long n, long long stride) {
  for (long long i = blockIdx.x * 1ll * blockDim.x + threadIdx.x; i < n; i += 1ll * gridDim.x * blockDim.x) {
    out[i * stride] = value;
  }
}
)";

constexpr const char* sequence_source = R"(
extern "C" __global__ void ndcuda_sequence_f64(double* out, double start, double step, long long n, int has_last,
                                               double last, int round_down) {
  for (long long i = blockIdx.x * 1ll * blockDim.x + threadIdx.x; i < n; i += 1ll * gridDim.x * blockDim.x) {
    double v = (has_last && i == n - 1) ? last : start + static_cast<double>(i) * step;
    out[i] = round_down ? floor(v) : v;
  }
}
extern "C" __global__ void ndcuda_sequence_i64(long long* out, long long start, long long step, long long n) {
  for (long long i = blockIdx.x * 1ll * blockDim.x + threadIdx.x; i < n; i += 1ll * gridDim.x * blockDim.x) {
    out[i] = start + i * step;
  }
}
)";

const raw_kernel& fill_kernel(std::size_t itemsize) {
  static const raw_kernel k1(fill_source, "ndcuda_fill<unsigned char>");
  static const raw_kernel k2(fill_source, "ndcuda_fill<unsigned short>");
  static const raw_kernel k4(fill_source, "ndcuda_fill<unsigned int>");
  static const raw_kernel k8(fill_source, "ndcuda_fill<unsigned long long>");
  static const raw_kernel k16(fill_source, "ndcuda_fill<ndcuda_bytes16>");
  switch (itemsize) {
    case 1:
      return k1;
    case 2:
      return k2;
    case 4:
      return k4;
    case 8:
      return k8;
    case 16:
      return k16;
    default:
      throw error("fill: unsupported element size " + std::to_string(itemsize));
  }
}

struct bytes16 {
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

}  // namespace

std::shared_ptr<const void> allocate_buffer(std::size_t bytes, const stream& s, void** data) {
  // Inside a capture the default pool cannot serve (its blocks would be baked into the graph):
  // the stream-ordered capture resource makes the buffer graph memory instead.
  const unsigned long long id = capture_id(s);
  auto resource = id != 0 ? capture_resource(s.device()) : default_resource(s.device());
  std::shared_ptr<device_buffer> buffer(new device_buffer(bytes, std::move(resource), s, id), release_buffer{});
  if (id != 0) {
    note_capture_allocation(id, buffer.get());
  }
  *data = buffer->data;
  return buffer;
}

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
  const jit::detail::operand out{dst, shape, dense_dst};
  const jit::detail::operand in{src, src_shape, dense_src};
  jit::detail::launch_elementwise(cast_state(dst_type, src_type), out, std::span<const jit::detail::operand>(&in, 1),
                                  s);
}

void fill_pattern(void* dst, std::size_t itemsize, const void* value, index_t n, index_t stride, const stream& s) {
  if (n <= 0) {
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
  if (n <= 0) {
    return;
  }
  static const raw_kernel k(sequence_source, "ndcuda_sequence_f64");
  const launch_config config = k.occupancy_config(static_cast<std::size_t>(n), s);
  k.launch(config, s, out, start, step, static_cast<long long>(n), last != nullptr ? 1 : 0,
           last != nullptr ? *last : 0.0, floor ? 1 : 0);
}

void sequence_i64(std::int64_t* out, std::int64_t start, std::int64_t step, index_t n, const stream& s) {
  if (n <= 0) {
    return;
  }
  static const raw_kernel k(sequence_source, "ndcuda_sequence_i64");
  const launch_config config = k.occupancy_config(static_cast<std::size_t>(n), s);
  k.launch(config, s, reinterpret_cast<long long*>(out), static_cast<long long>(start), static_cast<long long>(step),
           static_cast<long long>(n));
}

void refuse_host_wait(const stream& s, const char* what) {
  if (s.is_capturing()) {
    throw capture_error(std::string(what) +
                        " waits for the array's data on the host, but its stream is capturing a CUDA graph; call it "
                        "after the capture ends (or copy into pinned memory with copy_to_host inside the capture)");
  }
}

void synchronize_for(const stream& s, const char* what) {
  refuse_host_wait(s, what);
  s.synchronize();
}

void order_after(const stream& later, const stream& earlier) {
  if (later == earlier) {
    return;
  }
  // An event wait that crosses a capture's boundary fails in CUDA (and invalidates the capture),
  // or silently pulls the other stream into it: refuse before CUDA is called.
  if (later.is_capturing() || earlier.is_capturing()) {
    const unsigned long long a = capture_id(later);
    const unsigned long long b = capture_id(earlier);
    if (a != b) {
      throw capture_error(
          "an operation on a stream that is capturing a CUDA graph uses an array ordered on another stream that is " +
          std::string(a != 0 && b != 0 ? "capturing a different graph" : "not capturing") +
          ": the dependency cannot cross the capture's boundary. Create the arrays a capture uses on the capture "
          "stream (e.g. nd::zeros<float>(shape, s)), or before the capture begins order that stream after the "
          "array's stream and use a.on_stream(s)");
    }
  }
  event e(earlier.device(), false);
  e.record(earlier);
  later.wait(e);
}

void compile_array_kernels(compute_capability cc, dtype via) {
  for (std::size_t size : {1, 2, 4, 8, 16}) {
    fill_kernel(size).compile(cc);
  }
  raw_kernel(sequence_source, "ndcuda_sequence_f64").compile(cc);
  raw_kernel(sequence_source, "ndcuda_sequence_i64").compile(cc);
  for (dtype t : all_dtypes) {
    jit::detail::compile_elementwise(cast_state(t, via), cc);
    jit::detail::compile_elementwise(cast_state(via, t), cc);
  }
}

}  // namespace ndcuda::detail
