// Gathers, scatters and accumulations of advanced indexing; see ops/detail/indexing_entry.hpp. The
// kernels are templates in kernels/indexing.cuh, compiled by NVRTC per (element width, result
// rank, number of index arrays); the last-write-wins scatter sorts positions with CUB (sorting).
#include <cuda_runtime_api.h>

#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <ndcuda/array/detail/kernels.hpp>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <ndcuda/memory/detail/buffer.hpp>
#include <ndcuda/ops/detail/device_algorithms.hpp>
#include <ndcuda/ops/detail/indexing_entry.hpp>
#include <string>
#include <vector>

namespace ndcuda::detail {
namespace {

// Must match ndcuda::indexing::params in kernels/indexing.cuh byte for byte.
constexpr int max_dims = 24;
constexpr int max_arrays = 8;
struct index_params {
  long long n = 0;
  long long offset = 0;
  std::array<long long, max_dims> shape{};
  std::array<long long, max_dims> strides{};
  std::array<std::array<long long, max_dims>, max_arrays> index_strides{};
  std::array<const void*, max_arrays> index{};
  std::array<long long, max_arrays> extent{};
  std::array<long long, max_arrays> axis_stride{};
  std::array<int, max_arrays> wide{};
  int mode = 0;  // take_mode: 0 raise, 1 wrap, 2 clip
  unsigned long long* error = nullptr;
};
static_assert(sizeof(index_params) ==
              8 * (2 + 2 * max_dims + max_arrays * max_dims + 3 * max_arrays) + 4 * max_arrays + 16);

constexpr const char* source_text = R"(#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "ndcuda/numeric.cuh"
#include "ndcuda/indexing.cuh"
struct ndcuda_bytes16 { unsigned long long lo, hi; };
)";

const raw_kernel& kernel(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<raw_kernel>> kernels;
  std::lock_guard lock(mutex);
  auto& k = kernels[name];
  if (!k) {
    k = std::make_unique<raw_kernel>(source_text, name);
  }
  return *k;
}

const char* bits_type(std::size_t itemsize) {
  switch (itemsize) {
    case 1:
      return "unsigned char";
    case 2:
      return "unsigned short";
    case 4:
      return "unsigned int";
    case 8:
      return "unsigned long long";
    case 16:
      return "ndcuda_bytes16";
    default:
      throw error("indexing: no element type of " + std::to_string(itemsize) + " bytes");
  }
}

std::string dims_args(const index_plan& plan) {
  return std::to_string(plan.shape.size()) + ", " + std::to_string(plan.arrays.size());
}

template <class... A>
void launch(const std::string& name, index_t n, const stream& s, const A&... args) {
  const raw_kernel& k = kernel(name);
  k.launch(k.occupancy_config(static_cast<std::size_t>(n), s), s, args...);
}

// One thread per result element, a full grid: a gather's random reads then follow the index
// arrays' order, which measured 3% faster on an H100 than an occupancy-sized grid-stride loop
// (2^26 random floats from 2^28: 2.41 against 2.49 ms).
template <class... A>
void launch_full_grid(const std::string& name, index_t n, const stream& s, const A&... args) {
  const raw_kernel& k = kernel(name);
  constexpr index_t block = 256;
  launch_config config;
  config.block = dim3(block, 1, 1);
  config.grid = dim3(static_cast<unsigned>(std::min<index_t>((n + block - 1) / block, 0x7fffffff)), 1, 1);
  k.launch(config, s, args...);
}

// The parameters of a plan over `src`, and the buffer of per-array error positions.
struct prepared {
  index_params p;
  std::shared_ptr<const void> error_owner;
  bool check = false;
};

prepared prepare(const erased_array& src, const index_plan& plan, std::span<const erased_array> arrays, const stream& s,
                 take_mode mode = take_mode::raise) {
  if (plan.shape.size() > static_cast<std::size_t>(max_dims) ||
      plan.arrays.size() > static_cast<std::size_t>(max_arrays)) {
    throw index_error("advanced indexing supports results of at most " + std::to_string(max_dims) +
                      " dimensions and at most " + std::to_string(max_arrays) + " index arrays (this index gives " +
                      std::to_string(plan.shape.size()) + " and " + std::to_string(plan.arrays.size()) + ")");
  }
  if (arrays.size() != plan.arrays.size()) {
    throw error("ndcuda internal error: " + std::to_string(arrays.size()) + " index arrays for a plan of " +
                std::to_string(plan.arrays.size()));
  }
  prepared out;
  index_params& p = out.p;
  p.n = shape_size(plan.shape);
  p.offset = plan.offset;
  for (std::size_t d = 0; d < plan.shape.size(); ++d) {
    p.shape[d] = plan.shape[d];
    p.strides[d] = plan.strides[d];
  }
  order_after(s, src.s);
  retain_for_capture(s, src.owner);
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    const erased_array& a = arrays[k];
    if (a.type != dtype::int64 && a.type != dtype::int32) {
      throw error("ndcuda internal error: a " + std::string(name(a.type)) + " index array reached the gather");
    }
    const strides_t st = index_array_strides(plan, a.layout);
    for (std::size_t d = 0; d < st.size(); ++d) {
      p.index_strides[k][d] = st[d];
    }
    p.index[k] = a.data();
    p.wide[k] = a.type == dtype::int64 ? 1 : 0;
    p.extent[k] = plan.arrays[k].extent;
    p.axis_stride[k] = plan.arrays[k].stride;
    out.check = out.check || !plan.arrays[k].mask;
    order_after(s, a.s);
    retain_for_capture(s, a.owner);
  }
  p.mode = static_cast<int>(mode);
  if (mode != take_mode::raise) {
    // Every index is mapped into range: no flags to clear, check or wait for.
    for (std::size_t k = 0; k < arrays.size(); ++k) {
      if (plan.arrays[k].extent == 0) {
        throw index_error("cannot do a non-empty take from an empty axes.");
      }
    }
    out.check = false;
    return out;
  }
  void* e = nullptr;
  out.error_owner = allocate_buffer(sizeof(unsigned long long) * max_arrays, s, &e);
  const device_guard guard(s.device());  // the runtime works on the current device: the stream's
  check_cuda(cudaMemsetAsync(e, 0xff, sizeof(unsigned long long) * max_arrays, s.handle()),
             "cudaMemsetAsync(index error flags)");
  p.error = static_cast<unsigned long long*>(e);
  return out;
}

// NumPy raises IndexError for an index out of range: read the flags back (a wait) and report the
// first bad index of the first array that has one. Not while capturing (nothing may wait). The
// writers call it between the offsets pass and the write, so a failed write changes nothing.
void report_out_of_range(const prepared& pr, const index_plan& plan, std::span<const erased_array> arrays,
                         const stream& s) {
  if (!pr.check || pr.p.n == 0 || s.is_capturing()) {
    return;
  }
  std::array<unsigned long long, max_arrays> first{};
  const device_guard guard(s.device());  // the runtime works on the current device: the stream's
  check_cuda(cudaMemcpyAsync(first.data(), pr.p.error, sizeof(first), cudaMemcpyDeviceToHost, s.handle()),
             "cudaMemcpyAsync(index error flags)");
  synchronize_for(s, "advanced indexing");
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    if (first[k] == ~0ull) {
      continue;
    }
    // The index array's element that result position first[k] read.
    auto rest = static_cast<index_t>(first[k]);
    index_t at = 0;
    for (std::size_t d = plan.shape.size(); d-- > 0;) {
      at += (rest % plan.shape[d]) * pr.p.index_strides[k][d];
      rest /= plan.shape[d];
    }
    long long value = 0;
    const std::size_t width = itemsize(arrays[k].type);
    int narrow = 0;
    void* dst = width == 8 ? static_cast<void*>(&value) : static_cast<void*>(&narrow);
    check_cuda(cudaMemcpyAsync(dst, static_cast<const char*>(arrays[k].data()) + at * static_cast<index_t>(width),
                               width, cudaMemcpyDeviceToHost, s.handle()),
               "cudaMemcpyAsync(out-of-range index)");
    synchronize_for(s, "advanced indexing");
    if (width != 8) {
      value = narrow;
    }
    throw index_error("index " + std::to_string(value) + " is out of bounds for axis " +
                      std::to_string(plan.arrays[k].axis) + " with size " + std::to_string(plan.arrays[k].extent));
  }
}

// offsets[r] = the destination of result element r (-1 when out of range).
std::shared_ptr<const void> compute_offsets(const prepared& pr, const index_plan& plan, const erased_array& dst,
                                            const stream& s, long long** offsets) {
  void* o = nullptr;
  auto owner = allocate_buffer(checked_bytes(pr.p.n, sizeof(long long)), s, &o);
  *offsets = static_cast<long long*>(o);
  (void)dst;
  launch("ndcuda::indexing::offsets<" + dims_args(plan) + ">", pr.p.n, s, pr.p, *offsets);
  return owner;
}

char* base_of(const erased_array& a) {
  return static_cast<char*>(a.base);
}

// add_at into a small dense destination with many values per element (k-means' centres: 2^24
// values into 256): per-block copies in shared memory (kernels/indexing.cuh, add_private), then
// one pass that adds them into dst. No offsets buffer, and global atomics on a few hot addresses
// become shared ones. false when the destination is too large or sparse, or the dtype has no
// hardware atomic add; the caller then takes the general path.
bool add_privately(const prepared& pr, const index_plan& plan, std::span<const erased_array> arrays,
                   const erased_array& dst, const void* values, const stream& s) {
  constexpr index_t max_private_bytes = index_t{32} * 1024;  // with several blocks per SM
  constexpr index_t min_values_per_element = 16;             // fewer: plain atomics rarely collide
  const dtype t = dst.type;
  const bool native = t == dtype::float32 || t == dtype::float64 || t == dtype::int32 || t == dtype::uint32 ||
                      t == dtype::int64 || t == dtype::uint64;
  const index_t span = dst.size();
  const index_t bytes = span * static_cast<index_t>(itemsize(t));
  if (!native || span == 0 || bytes > max_private_bytes || pr.p.n < min_values_per_element * span ||
      !is_c_contiguous(dst.layout.shape, dst.layout.strides)) {
    return false;
  }
  const std::string type(cuda_type_name(t));
  const raw_kernel& k = kernel("ndcuda::indexing::add_private<" + type + ", " + dims_args(plan) + ">");
  // The fold compiles on a background thread while add_private compiles here, on a first call.
  const raw_kernel& fold = kernel("ndcuda::indexing::add_partials<" + type + ">");
  fold.start_compile(s);
  const launch_config config = k.occupancy_config(static_cast<std::size_t>(pr.p.n), s, static_cast<std::size_t>(bytes));
  const auto blocks = static_cast<index_t>(config.grid.x);
  void* partials = nullptr;
  const auto owner =
      allocate_buffer(checked_bytes(checked_mul(blocks, span, "add_at's per-block copies"), itemsize(t)), s, &partials);
  k.launch(config, s, pr.p, values, static_cast<long long>(dst.layout.offset), static_cast<long long>(span), partials);
  report_out_of_range(pr, plan, arrays, s);  // dst is still untouched
  // 32 warps per block, each block 32 destination elements (see add_partials).
  launch_config fold_config;
  fold_config.block = dim3(1024, 1, 1);
  fold_config.grid = dim3(static_cast<unsigned>(std::min<index_t>((span + 31) / 32, 65535)), 1, 1);
  fold.launch(fold_config, s, static_cast<const void*>(partials), static_cast<int>(blocks),
              static_cast<long long>(span), dst.data());
  return true;
}

}  // namespace

void gather_into(const erased_array& src, const index_plan& plan, std::span<const erased_array> arrays, void* out,
                 const stream& s, take_mode mode) {
  if (shape_size(plan.shape) == 0) {
    return;
  }
  const prepared pr = prepare(src, plan, arrays, s, mode);
  launch_full_grid(
      "ndcuda::indexing::gather<" + std::string(bits_type(itemsize(src.type))) + ", " + dims_args(plan) + ">", pr.p.n,
      s, pr.p, static_cast<const void*>(base_of(src)), out);
  report_out_of_range(pr, plan, arrays, s);
}

void scatter_into(const erased_array& dst, const index_plan& plan, std::span<const erased_array> arrays,
                  const void* values, bool unique, const stream& s) {
  if (shape_size(plan.shape) == 0) {
    return;
  }
  const prepared pr = prepare(dst, plan, arrays, s);
  long long* offsets = nullptr;
  const auto offsets_owner = compute_offsets(pr, plan, dst, s, &offsets);
  // NumPy checks every index before it writes: the offsets pass has flagged any out-of-range
  // index, so throw now (one wait) and leave dst untouched.
  report_out_of_range(pr, plan, arrays, s);
  const std::string type = bits_type(itemsize(dst.type));
  const index_t n = pr.p.n;
  if (unique) {
    launch("ndcuda::indexing::scatter_unique<" + type + ">", n, s, static_cast<const long long*>(offsets),
           static_cast<long long>(n), values, static_cast<void*>(base_of(dst)));
  } else {
    // A stable sort of the positions puts each destination's writers in index order: the last wins.
    void* buffer = nullptr;
    const auto owner =
        allocate_buffer(checked_bytes(checked_mul(n, 3, "the index sort's buffer"), sizeof(long long)), s, &buffer);
    auto* keys = static_cast<std::int64_t*>(buffer);
    auto* iota = keys + n;
    auto* order = iota + n;
    sequence_i64(iota, 0, 1, n, s);
    sort_pairs(8, offsets, keys, iota, order, n, n, s);
    launch("ndcuda::indexing::scatter_last<" + type + ">", n, s, static_cast<const void*>(keys),
           static_cast<const void*>(order), static_cast<long long>(n), values, static_cast<void*>(base_of(dst)));
  }
}

void accumulate_into(accumulate_op op, const erased_array& dst, const index_plan& plan,
                     std::span<const erased_array> arrays, const void* values, const stream& s) {
  static constexpr std::array<const char*, 5> names = {"add", "subtract", "multiply", "maximum", "minimum"};
  const auto which = static_cast<std::size_t>(op);
  if ((op == accumulate_op::subtract && dst.type == dtype::bool_) ||
      (is_complex(dst.type) && (op == accumulate_op::maximum || op == accumulate_op::minimum)) ||
      (dst.type == dtype::complex128 && op == accumulate_op::multiply)) {
    throw type_error(std::string(names[which]) + "_at is not supported for " + std::string(name(dst.type)) + " arrays" +
                     (dst.type == dtype::bool_ ? " (NumPy: the numpy boolean subtract is not supported, use ^)"
                                               : " (no atomic update exists for it; see docs/indexing.md)"));
  }
  if (shape_size(plan.shape) == 0) {
    return;
  }
  const prepared pr = prepare(dst, plan, arrays, s);
  if (op == accumulate_op::add && add_privately(pr, plan, arrays, dst, values, s)) {
    return;
  }
  long long* offsets = nullptr;
  const auto offsets_owner = compute_offsets(pr, plan, dst, s, &offsets);
  report_out_of_range(pr, plan, arrays, s);  // before any update, as in scatter_into
  launch("ndcuda::indexing::accumulate<" + std::string(cuda_type_name(dst.type)) + ", " + std::to_string(which) + ">",
         pr.p.n, s, static_cast<const long long*>(offsets), static_cast<long long>(pr.p.n), values,
         static_cast<void*>(base_of(dst)));
}

void compile_indexing_kernels(compute_capability cc) {
  kernel("ndcuda::indexing::gather<unsigned int, 1, 1>").compile(cc);
  kernel("ndcuda::indexing::gather<ndcuda_bytes16, 3, 2>").compile(cc);
  kernel("ndcuda::indexing::offsets<2, 1>").compile(cc);
  kernel("ndcuda::indexing::scatter_last<unsigned short>").compile(cc);
  kernel("ndcuda::indexing::scatter_unique<unsigned char>").compile(cc);
  kernel("ndcuda::indexing::unravel").compile(cc);
  // add for every dtype; the other operations on the types whose paths differ (CAS loops on a
  // shared word, bool's logic, complex parts, NaN rules).
  for (dtype t : all_dtypes) {
    kernel("ndcuda::indexing::accumulate<" + std::string(cuda_type_name(t)) + ", 0>").compile(cc);
  }
  for (const char* t : {"__half", "__nv_bfloat16", "signed char", "bool", "float", "double", "long long"}) {
    for (int op = 1; op < 5; ++op) {
      if (op != 1 || std::string(t) != "bool") {
        kernel("ndcuda::indexing::accumulate<" + std::string(t) + ", " + std::to_string(op) + ">").compile(cc);
      }
    }
  }
  kernel("ndcuda::indexing::accumulate<ndcuda::complex<float>, 2>").compile(cc);
  kernel("ndcuda::indexing::add_private<float, 2, 1>").compile(cc);
  kernel("ndcuda::indexing::add_partials<long long>").compile(cc);
  kernel("ndcuda::indexing::accumulate<ndcuda::complex<double>, 1>").compile(cc);
}

}  // namespace ndcuda::detail
