// The gather kernel behind pad, roll, tile, repeat, tril/triu and tri (see
// ops/detail/arrange_kernels.hpp): one pass that reads each output element's source by index
// arithmetic, compiled by NVRTC per element size.
#include <algorithm>
#include <cstring>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/jit/detail/kernels_by_itemsize.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <ndcuda/ops/detail/arrange_kernels.hpp>
#include <string>

namespace ndcuda::detail {
namespace {

// Rows (every axis but the last) go along y, columns along x, so that the outer coordinates are
// decoded once per row, not per element; each thread keeps four loads in flight. The map is
// remap_source's (arrange_plan.cpp), with the periodic modes dividing only when a coordinate is
// more than one period away.
constexpr const char* remap_source_text = R"(
struct ndcuda_bytes16 { unsigned long long lo, hi; };
struct ndcuda_remap_axis {
  long long out_extent, in_extent, in_stride, mode, before;
  unsigned long long before_value[2], after_value[2];
};
struct ndcuda_remap_params {
  long long ndim, triangle, k;
  const long long* table;
  ndcuda_remap_axis ax[32];
};

// The map takes scalars, never a reference into the parameter struct: the fields are read
// straight from the parameter bank (register-indexed), so no thread copies the struct.
__device__ __forceinline__ long long ndcuda_remap_map(long long o, long long mode, long long n, long long before,
                                                      const long long* table) {
  long long c = o - before;
  switch (mode) {
    case 0: return o;
    case 1: return (c >= 0 && c < n) ? c : -1;
    case 2: return c < 0 ? 0 : (c >= n ? n - 1 : c);
    case 3: {
      if (n == 1) return 0;
      const long long p = 2 * (n - 1);
      if (c < 0 || c >= p) { c %= p; if (c < 0) c += p; }
      return c >= n ? p - c : c;
    }
    case 4: {
      const long long p = 2 * n;
      if (c < 0 || c >= p) { c %= p; if (c < 0) c += p; }
      return c >= n ? p - 1 - c : c;
    }
    case 5:
      if (c < 0) { c += n; if (c < 0) { c %= n; if (c < 0) c += n; } }
      else if (c >= n) { c %= n; }
      return c;
    case 6: return o / before;
    default: return table[o];
  }
}

template <class U>
__device__ __forceinline__ U ndcuda_remap_bits(unsigned long long lo, unsigned long long hi) {
  const unsigned long long b[2] = {lo, hi};
  U v;
  memcpy(&v, b, sizeof(U));
  return v;
}

// The innermost axis' map with its mode fixed at compile time and in index type I (int when the
// row's offsets fit, so the per-element work is a few 32-bit operations, not a 64-bit switch).
// c mod p in [0, p), out of line: only coordinates more than one period away take it, and inlined
// its division was computed on every element (predicated), which halved the kernel's bandwidth.
template <class I>
__device__ __noinline__ I ndcuda_remap_mod(I c, I p) {
  c %= p;
  return c < 0 ? c + p : c;
}

template <int Mode, class I>
__device__ __forceinline__ I ndcuda_remap_inner(I o, I n, I before, const long long* table) {
  I c = o - before;
  if constexpr (Mode == 0) {
    return o;
  } else if constexpr (Mode == 1) {
    return (c >= 0 && c < n) ? c : I(-1);
  } else if constexpr (Mode == 2) {
    return c < 0 ? I(0) : (c >= n ? n - 1 : c);
  } else if constexpr (Mode == 3) {
    if (n == 1) return 0;
    const I p = 2 * (n - 1);
    if (c < 0 || c >= p) c = ndcuda_remap_mod(c, p);
    return c >= n ? p - c : c;
  } else if constexpr (Mode == 4) {
    const I p = 2 * n;
    if (c < 0 || c >= p) c = ndcuda_remap_mod(c, p);
    return c >= n ? p - 1 - c : c;
  } else if constexpr (Mode == 5) {
    if (c < 0) {
      c += n;
      if (c < 0) c = ndcuda_remap_mod(c, n);
    } else if (c >= n) {
      c -= n;
      if (c >= n) c = ndcuda_remap_mod(c, n);
    }
    return c;
  } else if constexpr (Mode == 6) {
    return o / before;
  } else {
    return static_cast<I>(table[o]);
  }
}

// Four consecutive elements, aligned so that they move as one vector store.
template <class U>
struct alignas(4 * sizeof(U) > 16 ? 16 : 4 * sizeof(U)) ndcuda_remap_quad {
  U v[4];
};

// One row per blockIdx.y step (its outer coordinates decoded once per thread, in 64 bits); each
// thread moves groups of four consecutive elements along the row, four loads in flight per group. The innermost mode and the index type are
// template arguments: a general per-element switch in 64-bit arithmetic held this kernel to half
// the copy bandwidth (62 registers, 50% occupancy on an H100).
template <class U, int InnerMode, class I>
__global__ void ndcuda_remap(U* __restrict__ out, const U* __restrict__ in, const ndcuda_remap_params p,
                             long long rows, I cols) {
  const int last = static_cast<int>(p.ndim) - 1;
  const I inner_n = static_cast<I>(p.ax[last].in_extent);
  const I inner_before = static_cast<I>(p.ax[last].before);
  const I inner_stride = static_cast<I>(p.ax[last].in_stride);
  const long long triangle = p.triangle;
  const long long k = p.k;
  const U before_value = ndcuda_remap_bits<U>(p.ax[last].before_value[0], p.ax[last].before_value[1]);
  const U after_value = ndcuda_remap_bits<U>(p.ax[last].after_value[0], p.ax[last].after_value[1]);
  for (long long row = blockIdx.y * 1ll * blockDim.y + threadIdx.y; row < rows; row += 1ll * gridDim.y * blockDim.y) {
    long long src = 0;
    long long r = row;
    long long i = 0;       // the row's coordinate along the next-to-last axis (tril/triu)
    int fill_axis = -1;    // the last outer axis out of range: its constant fills the row
    bool fill_after = false;
    for (int d = last - 1; d >= 0; --d) {
      // The outermost axis needs no division: what is left of the row index is its coordinate.
      long long o = r;
      if (d > 0) {
        const long long extent = p.ax[d].out_extent;
        o = r % extent;
        r /= extent;
      }
      if (d == last - 1) i = o;
      const long long before = p.ax[d].before;
      const long long c = ndcuda_remap_map(o, p.ax[d].mode, p.ax[d].in_extent, before, p.table);
      if (c < 0) {
        if (fill_axis < 0) { fill_axis = d; fill_after = o >= before; }
      } else {
        src += c * p.ax[d].in_stride;
      }
    }
    U row_value{};
    if (fill_axis >= 0) {
      row_value = fill_after ? ndcuda_remap_bits<U>(p.ax[fill_axis].after_value[0], p.ax[fill_axis].after_value[1])
                             : ndcuda_remap_bits<U>(p.ax[fill_axis].before_value[0], p.ax[fill_axis].before_value[1]);
    }
    U* __restrict__ orow = out + row * static_cast<long long>(cols);
    const U* __restrict__ irow = in + src;
    const I group_stride = 4 * static_cast<I>(blockDim.x) * static_cast<I>(gridDim.x);
    for (I j0 = 4 * (static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x));
         j0 < cols; j0 += group_stride) {
      ndcuda_remap_quad<U> q;
      // Every mode's map steps by +1, 0, -1 or a wrap below zero (a table only rises), so when the
      // group's last source is three past its first, all four are consecutive: the common case of
      // a row's interior, mapped twice per group instead of four times.
      const I c0 = ndcuda_remap_inner<InnerMode, I>(j0, inner_n, inner_before, p.table);
      const bool whole = j0 + 3 < cols;
      const bool straight = InnerMode != 6 && InnerMode != 7 && whole && fill_axis < 0 && c0 >= 0 &&
                            ndcuda_remap_inner<InnerMode, I>(j0 + 3, inner_n, inner_before, p.table) == c0 + 3;
      if (straight) {
#pragma unroll
        for (int u = 0; u < 4; ++u) q.v[u] = irow[(c0 + u) * inner_stride];
      } else {
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          const I j = j0 + u;
          if (j < cols) {
            const I c = u == 0 ? c0 : ndcuda_remap_inner<InnerMode, I>(j, inner_n, inner_before, p.table);
            if (InnerMode == 1 && c < 0) {
              q.v[u] = j < inner_before ? before_value : after_value;
            } else if (fill_axis >= 0) {
              q.v[u] = row_value;
            } else {
              q.v[u] = irow[c * inner_stride];
            }
          }
        }
      }
      if (triangle != 0) {
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          const long long j = j0 + u;
          if (!(triangle == 1 ? (j - i <= k) : (j - i >= k))) q.v[u] = U{};
        }
      }
      U* at = orow + j0;
      if (whole && reinterpret_cast<unsigned long long>(at) % sizeof(q) == 0) {
        *reinterpret_cast<ndcuda_remap_quad<U>*>(at) = q;  // one vector store where aligned
      } else {
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          if (j0 + u < cols) at[u] = q.v[u];
        }
      }
    }
  }
}
)";

// np.repeat's table from the running sums of the counts: element j fills [ends[j-1], ends[j]).
constexpr const char* repeat_table_source = R"(
extern "C" __global__ void ndcuda_repeat_table(const long long* ends, long long n, long long* table) {
  for (long long j = blockIdx.x * 1ll * blockDim.x + threadIdx.x; j < n; j += 1ll * gridDim.x * blockDim.x) {
    const long long start = j == 0 ? 0 : ends[j - 1];
    for (long long o = start; o < ends[j]; ++o) table[o] = j;
  }
}
)";

const raw_kernel& repeat_table_kernel() {
  static const raw_kernel k(repeat_table_source, "ndcuda_repeat_table");
  return k;
}

// The host mirror of the kernel's parameters: the same fields, all 8-byte, in the same order.
struct remap_axis_params {
  long long out_extent, in_extent, in_stride, mode, before;
  unsigned long long before_value[2], after_value[2];
};
struct remap_params {
  long long ndim, triangle, k;
  const long long* table;
  remap_axis_params ax[remap_max_dims];
};
static_assert(sizeof(remap_axis_params) == 72 && sizeof(remap_params) == 32 + 72 * remap_max_dims);

// One kernel per element size, innermost mode and index type, made on first use.
const raw_kernel& remap_kernel(std::size_t itemsize, remap_mode inner, bool wide_index) {
  static const jit::detail::kernel_family kernels(remap_source_text);
  if (itemsize != 1 && itemsize != 2 && itemsize != 4 && itemsize != 8 && itemsize != 16) {
    throw error("rearranging: unsupported element size " + std::to_string(itemsize));
  }
  const std::string type = itemsize == 16 ? "ndcuda_bytes16" : jit::detail::unsigned_type_name(itemsize);
  return kernels.get("ndcuda_remap<" + type + ", " + std::to_string(static_cast<int>(inner)) + ", " +
                     (wide_index ? "long long" : "int") + ">");
}

struct bytes16 {
  unsigned long long lo;
  unsigned long long hi;
};

template <class U>
void launch_remap(const raw_kernel& k, void* out, const void* in, const remap_params& p, index_t rows, index_t cols,
                  bool wide_index, const stream& s) {
  // Columns: 128 threads when rows are long, else the next warp multiple; rows fill the rest of
  // the block. Sixteen columns per thread, in four groups of four: the row's decoding and the
  // parameter reads are per thread, and over four columns they made the kernel ALU-bound.
  const index_t bx = cols >= 128 ? 128 : std::max<index_t>(32, (cols + 31) / 32 * 32);
  const index_t by = 128 / bx;
  launch_config config;
  config.block = dim3(static_cast<unsigned>(bx), static_cast<unsigned>(by), 1);
  const index_t gx = (cols + 16 * bx - 1) / (16 * bx);
  const index_t gy = std::min<index_t>((rows + by - 1) / by, 65535);
  config.grid = dim3(static_cast<unsigned>(std::min<index_t>(gx, 0x7fffffff)), static_cast<unsigned>(gy), 1);
  if (wide_index) {
    k.launch(config, s, static_cast<U*>(out), static_cast<const U*>(in), p, static_cast<long long>(rows),
             static_cast<long long>(cols));
  } else {
    k.launch(config, s, static_cast<U*>(out), static_cast<const U*>(in), p, static_cast<long long>(rows),
             static_cast<int>(cols));
  }
}

}  // namespace

void remap_copy(const erased_array& in, void* out, const remap_request& r, const stream& s) {
  const auto ndim = static_cast<int>(r.axes.size());
  if (ndim > remap_max_dims) {
    throw shape_error("rearranging: arrays of " + std::to_string(ndim) + " dimensions are not supported (at most " +
                      std::to_string(remap_max_dims) + ")");
  }
  if (in.ndim() != ndim) {
    throw error("ndcuda internal error: a gather of " + std::to_string(ndim) + " axes was given an input of " +
                std::to_string(in.ndim()));
  }
  const shape_t out_shape = remap_shape(r.axes);
  const index_t total = shape_size(out_shape);
  if (total == 0) {
    return;
  }
  remap_params p{};
  p.ndim = ndim;
  p.triangle = r.triangle;
  p.k = r.k;
  p.table = reinterpret_cast<const long long*>(r.table);
  for (int d = 0; d < ndim; ++d) {
    const remap_axis& a = r.axes[static_cast<std::size_t>(d)];
    remap_axis_params& q = p.ax[d];
    q.out_extent = a.out_extent;
    q.in_extent = a.in_extent;
    q.in_stride = in.layout.strides[static_cast<std::size_t>(d)];
    q.mode = static_cast<long long>(a.mode);
    q.before = a.before;
    if (!r.before_values.empty()) {
      std::memcpy(q.before_value, r.before_values[static_cast<std::size_t>(d)].data(), 16);
      std::memcpy(q.after_value, r.after_values[static_cast<std::size_t>(d)].data(), 16);
    }
  }
  index_t cols = 1;
  if (ndim == 0) {
    // A 0-d array: one element, a 1-d identity map of extent 1.
    p.ndim = 1;
    p.ax[0] = remap_axis_params{1, 1, 0, 0, 0, {0, 0}, {0, 0}};
  } else {
    cols = out_shape.back();
  }
  const index_t rows = total / cols;
  const remap_axis_params& inner = p.ax[p.ndim - 1];
  // 32-bit offsets along a row when every column, input coordinate and offset fits.
  constexpr index_t int_limit = index_t{1} << 30;
  const bool wide_index = cols >= int_limit || inner.in_extent >= int_limit ||
                          (inner.before < 0 ? -inner.before : inner.before) >= int_limit ||
                          inner.in_extent * (inner.in_stride < 0 ? -inner.in_stride : inner.in_stride) >= int_limit;
  const std::size_t size = itemsize(in.type);
  const raw_kernel& k = remap_kernel(size, static_cast<remap_mode>(inner.mode), wide_index);
  const void* src = in.data();
  switch (size) {
    case 1:
      return launch_remap<unsigned char>(k, out, src, p, rows, cols, wide_index, s);
    case 2:
      return launch_remap<unsigned short>(k, out, src, p, rows, cols, wide_index, s);
    case 4:
      return launch_remap<unsigned int>(k, out, src, p, rows, cols, wide_index, s);
    case 8:
      return launch_remap<unsigned long long>(k, out, src, p, rows, cols, wide_index, s);
    default:
      return launch_remap<bytes16>(k, out, src, p, rows, cols, wide_index, s);
  }
}

void repeat_table_device(const std::int64_t* ends, index_t n, std::int64_t* table, const stream& s) {
  if (n <= 0) {
    return;
  }
  const raw_kernel& k = repeat_table_kernel();
  const launch_config config = k.occupancy_config(static_cast<std::size_t>(n), s);
  k.launch(config, s, reinterpret_cast<const long long*>(ends), static_cast<long long>(n),
           reinterpret_cast<long long*>(table));
}

void compile_arrange_kernels(compute_capability cc) {
  repeat_table_kernel().compile(cc);
  // Every innermost mode at one size, every size at one mode, and the 64-bit index form.
  for (int mode = 0; mode <= static_cast<int>(remap_mode::table); ++mode) {
    remap_kernel(4, static_cast<remap_mode>(mode), false).compile(cc);
  }
  for (std::size_t size : {1, 2, 8, 16}) {
    remap_kernel(size, remap_mode::constant, false).compile(cc);
  }
  remap_kernel(16, remap_mode::table, true).compile(cc);
}

}  // namespace ndcuda::detail
