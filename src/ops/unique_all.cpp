// unique with first indices, inverse and counts (np.unique's return_*, the Array API's unique_all),
// and unique with a static size: a stable argsort of the keys, group starts flagged and scanned,
// then one scatter kernel. NVRTC kernels; the sort and the scan are the CUB ones of sort_*.cu.
#include <map>
#include <mutex>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/jit/detail/kernels_by_itemsize.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <ndcuda/memory/transfer.hpp>
#include <ndcuda/ops/detail/counting_kernels.hpp>
#include <ndcuda/ops/detail/device_algorithms.hpp>
#include <string>

#include "layout_plan.hpp"

namespace ndcuda::detail {
namespace {

constexpr const char* unique_source = R"(
// flags[i] = 1 where a group of equal sorted keys starts; with distinct NaNs (the Array API's
// equal_nan=False) every NaN key (above `nan_above`) starts its own group.
template <class U>
__global__ void nd_unique_flags(const U* keys, unsigned long long n, U nan_above, int distinct_nans,
                                long long* flags) {
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n;
       i += 1ull * gridDim.x * blockDim.x) {
    const U k = keys[i];
    flags[i] = (i == 0 || k != keys[i - 1] || (distinct_nans && k > nan_above)) ? 1 : 0;
  }
}

// From the flags, their inclusive scan (group + 1) and the stable sort's permutation: each group's
// start in sorted order, its first index (and value) in the input, and every element's group.
// Groups at or beyond `cap` are not written (unique with a static size). Null outputs are skipped.
template <class V>
__global__ void nd_unique_scatter(const long long* flags, const long long* group, const long long* perm,
                                  unsigned long long n, long long cap, const V* flat, V* values, long long* starts,
                                  long long* index, long long* inverse) {
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n;
       i += 1ull * gridDim.x * blockDim.x) {
    const long long g = group[i] - 1;
    const long long p = perm[i];
    if (inverse) inverse[p] = g;
    if (flags[i] && g < cap) {
      if (starts) starts[g] = (long long)i;
      if (index) index[g] = p;
      if (values) values[g] = flat[p];
    }
  }
}

extern "C" __global__ void nd_unique_counts(const long long* starts, const long long* group, unsigned long long n,
                                            long long* counts, long long cap) {
  const long long groups = group[n - 1];
  const long long m = groups < cap ? groups : cap;
  for (long long g = blockIdx.x * 1ll * blockDim.x + threadIdx.x; g < m; g += 1ll * gridDim.x * blockDim.x)
    counts[g] = (g + 1 < groups ? starts[g + 1] : (long long)n) - starts[g];
}
)";

const raw_kernel& kernel(const std::string& name) {
  static const jit::detail::kernel_family family(unique_source);
  return family.get(name);
}

std::string instance(const char* name, std::size_t bytes) {
  return std::string(name) + "<" + jit::detail::unsigned_type_name(bytes) + ">";
}

/// The sorted groups of x's flattened elements, up to the scan; everything on `s`.
struct grouping {
  index_t n = 0;
  key_format f;
  dense_elements flat;
  dense_elements perm;
  dense_elements flags;
  dense_elements group;
};

grouping group_elements(const leaf_ref& x, bool equal_nan, const stream& s) {
  grouping g;
  g.f = key_format_for(x.type, true, "unique");
  g.n = shape_size(x.layout->shape);
  if (g.n == 0) {
    return g;
  }
  order_after(s, *x.s);
  const index_t n = g.n;
  const axis_last flat = move_axis_last(x.layout->shape, x.layout->strides, std::nullopt);
  g.flat = dense_copy(x, flat, x.type, s);
  const dense_elements keys = scratch(checked_bytes(n, g.f.bytes), s);
  const dense_elements iota = scratch(checked_bytes(n, sizeof(std::int64_t)), s);
  encode_keys(g.f, g.flat.data, keys.writable(), static_cast<std::int64_t*>(iota.writable()), n, n, s);
  const dense_elements sorted = scratch(checked_bytes(n, g.f.bytes), s);
  g.perm = scratch(checked_bytes(n, sizeof(std::int64_t)), s);
  sort_pairs(g.f.bytes, keys.data, sorted.writable(), static_cast<const std::int64_t*>(iota.data),
             static_cast<std::int64_t*>(g.perm.writable()), n, n, s);
  if (n == 1) {  // sort_pairs leaves the keys alone for one element
    check_cuda(cudaMemcpyAsync(sorted.writable(), keys.data, g.f.bytes, cudaMemcpyDeviceToDevice, s.handle()),
               "unique: one key");
  }
  g.flags = scratch(checked_bytes(n, sizeof(std::int64_t)), s);
  const bool distinct_nans = !equal_nan && g.f.mode == key_mode::float_canonical;
  const std::uint64_t nan_above = distinct_nans ? (g.f.inf_bits | g.f.sign_bit) : ~0ull;
  const auto un = static_cast<unsigned long long>(n);
  const raw_kernel& fk = kernel(instance("nd_unique_flags", g.f.bytes));
  const auto launch_flags = [&](auto threshold) {
    fk.launch(fk.occupancy_config(static_cast<std::size_t>(n), s), s, sorted.data, un, threshold, distinct_nans ? 1 : 0,
              g.flags.writable());
  };
  switch (g.f.bytes) {
    case 1:
      launch_flags(static_cast<std::uint8_t>(nan_above));
      break;
    case 2:
      launch_flags(static_cast<std::uint16_t>(nan_above));
      break;
    case 4:
      launch_flags(static_cast<std::uint32_t>(nan_above));
      break;
    default:
      launch_flags(static_cast<std::uint64_t>(nan_above));
      break;
  }
  g.group = scratch(checked_bytes(n, sizeof(std::int64_t)), s);
  inclusive_scan(dtype::uint64, scan_op::sum, g.flags.data, g.group.writable(), n, n, s);
  return g;
}

void scatter(const grouping& g, index_t cap, void* values, std::int64_t* starts, std::int64_t* index,
             std::int64_t* inverse, const stream& s) {
  const raw_kernel& k = kernel(instance("nd_unique_scatter", g.f.bytes));
  k.launch(k.occupancy_config(static_cast<std::size_t>(g.n), s), s, g.flags.data, g.group.data, g.perm.data,
           static_cast<unsigned long long>(g.n), static_cast<long long>(cap), g.flat.data, values, starts, index,
           inverse);
}

}  // namespace

unique_parts unique_all_into(const leaf_ref& x, bool equal_nan, bool want_index, bool want_inverse, bool want_counts,
                             const stream& s) {
  check_same_device(x, s, "unique");
  if (s.is_capturing()) {
    throw capture_error(
        "unique: the number of distinct elements is known only on the device, so unique waits for its stream, but "
        "the stream is capturing a CUDA graph; call it before or after the capture, or give the result a static "
        "size with nd::unique(x, nd::size(k), fill)");
  }
  retain_for_capture(s, std::span<const leaf_ref>(&x, 1));
  device_guard guard(x.device);
  unique_parts out;
  const grouping g = group_elements(x, equal_nan, s);
  const index_t n = g.n;
  if (n > 0) {
    std::int64_t found = 0;
    copy_to_host(&found, static_cast<const std::int64_t*>(g.group.data) + (n - 1), sizeof(found), s);
    synchronize_for(s, "unique");
    out.count = found;
  }
  const index_t m = out.count;
  const std::size_t item_bytes = itemsize(x.type);
  const auto make = [&](std::size_t bytes, std::shared_ptr<const void>* owner) {
    dense_elements d = scratch(bytes, s);
    *owner = d.owner;
    return d.writable();
  };
  out.values = make(checked_bytes(m, item_bytes), &out.values_owner);
  out.index = want_index ? static_cast<std::int64_t*>(make(checked_bytes(m, 8), &out.index_owner)) : nullptr;
  out.inverse = want_inverse ? static_cast<std::int64_t*>(make(checked_bytes(n, 8), &out.inverse_owner)) : nullptr;
  out.counts = want_counts ? static_cast<std::int64_t*>(make(checked_bytes(m, 8), &out.counts_owner)) : nullptr;
  if (n == 0) {
    return out;
  }
  const dense_elements starts = want_counts ? scratch(checked_bytes(m, 8), s) : dense_elements{};
  auto* starts_data = static_cast<std::int64_t*>(starts.writable());
  scatter(g, m, out.values, starts_data, out.index, out.inverse, s);
  if (want_counts && m > 0) {
    const raw_kernel& k = kernel("nd_unique_counts");
    k.launch(k.occupancy_config(static_cast<std::size_t>(m), s), s, static_cast<const long long*>(starts.data),
             static_cast<const long long*>(g.group.data), static_cast<unsigned long long>(n),
             reinterpret_cast<long long*>(out.counts), static_cast<long long>(m));
  }
  return out;
}

void unique_sized_into(const leaf_ref& x, index_t k, void* values, const stream& s) {
  check_same_device(x, s, "unique");
  retain_for_capture(s, std::span<const leaf_ref>(&x, 1));
  device_guard guard(x.device);
  const grouping g = group_elements(x, true, s);
  if (g.n == 0 || k == 0) {
    return;
  }
  scatter(g, k, values, nullptr, nullptr, nullptr, s);
}

void compile_unique_kernels(compute_capability cc) {
  kernel("nd_unique_counts").compile(cc);
  for (std::size_t bytes : {1, 2, 4, 8}) {
    kernel(instance("nd_unique_flags", bytes)).compile(cc);
    kernel(instance("nd_unique_scatter", bytes)).compile(cc);
  }
}

}  // namespace ndcuda::detail
