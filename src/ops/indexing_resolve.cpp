// Masks to nonzero's arrays, nonzero/argwhere, and mask extraction over leading axes: the parts of
// advanced indexing whose result size is known only on the device. See ops/detail/indexing_entry.hpp.
#include <array>
#include <cstring>
#include <ndcuda/array/detail/kernels.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <ndcuda/memory/detail/buffer.hpp>
#include <ndcuda/ops/detail/indexing_entry.hpp>
#include <string>
#include <vector>

namespace ndcuda::detail {
namespace {

constexpr int max_dims = 24;
// Must match ndcuda::indexing::unravel_params in kernels/indexing.cuh.
struct unravel_params {
  std::array<long long, max_dims> shape{};
  int k = 0;
  long long row = 0;
  long long col = 0;
  long long fill = 0;
};

erased_array allocate(dtype t, shape_t shape, const stream& s) {
  void* p = nullptr;
  auto owner = allocate_buffer(checked_bytes(shape_size(shape), itemsize(t)), s, &p);
  return erased_array{std::move(owner), p, contiguous_layout(std::move(shape)), t, s.device(), s};
}

// flat positions (n of them, -1 for padding) to coordinates of `shape`.
void unravel(const std::int64_t* flat, index_t n, const shape_t& shape, std::int64_t fill, long long row, long long col,
             std::int64_t* out, const stream& s) {
  if (n == 0) {
    return;
  }
  if (shape.size() > static_cast<std::size_t>(max_dims)) {
    throw index_error("nonzero supports arrays of at most " + std::to_string(max_dims) + " dimensions");
  }
  // The same source as the other indexing kernels (indexing.cuh needs numeric.cuh before it).
  static const raw_kernel k(R"(#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "ndcuda/numeric.cuh"
#include "ndcuda/indexing.cuh"
struct ndcuda_bytes16 { unsigned long long lo, hi; };
)",
                            "ndcuda::indexing::unravel");
  unravel_params p;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    p.shape[d] = shape[d];
  }
  p.k = static_cast<int>(shape.size());
  p.row = row;
  p.col = col;
  p.fill = fill;
  k.launch(k.occupancy_config(static_cast<std::size_t>(n), s), s, p, reinterpret_cast<const long long*>(flat),
           static_cast<long long>(n), reinterpret_cast<long long*>(out));
}

// The positions of the true elements of a contiguous bool array (count or size of them, padded -1).
erased_array positions(const erased_array& mask, std::optional<index_t> size, const stream& s, const char* what) {
  const auto* m = static_cast<const bool*>(mask.data());
  const index_t n = mask.size();
  const index_t count = size ? *size : count_true(m, n, s, what);
  if (count < 0) {
    throw shape_error(std::string(what) + ": nd::size(" + std::to_string(count) + ") must not be negative");
  }
  erased_array out = allocate(dtype::int64, {count}, s);
  if (size && count > 0) {
    const std::int64_t minus_one = -1;
    fill_pattern(out.data(), sizeof(std::int64_t), &minus_one, count, 1, s);
  }
  select_positions(m, n, static_cast<std::int64_t*>(out.data()), count, s);
  return out;
}

}  // namespace

erased_array contiguous_as(const erased_array& a, dtype to, const stream& s) {
  order_after(s, a.s);
  if (a.type == to && is_c_contiguous(a.layout.shape, a.layout.strides)) {
    return a;
  }
  erased_array out = allocate(to, a.layout.shape, s);
  retain_for_capture(s, a.owner);
  copy_cast(to, out.data(), out.layout.shape, {}, a.type, a.data(), a.layout.shape, a.layout.strides, s);
  return out;
}

std::vector<erased_array> nonzero_arrays(const erased_array& a, std::optional<index_t> size, std::int64_t fill,
                                         bool as_rows, const stream& s, const char* what) {
  const erased_array mask = contiguous_as(a, dtype::bool_, s);
  const erased_array flat = positions(mask, size, s, what);
  const index_t n = flat.size();
  const shape_t& shape = a.layout.shape;
  const auto k = static_cast<index_t>(shape.size());
  const auto* f = static_cast<const std::int64_t*>(flat.data());
  if (as_rows) {
    erased_array out = allocate(dtype::int64, {n, k}, s);
    unravel(f, n, shape, fill, k, 1, static_cast<std::int64_t*>(out.data()), s);
    return {out};
  }
  if (k == 1 && (!size || fill == -1)) {
    return {flat};
  }
  // One (k, n) buffer; each coordinate array is a row of it.
  erased_array all = allocate(dtype::int64, {k, n}, s);
  unravel(f, n, shape, fill, 1, n, static_cast<std::int64_t*>(all.data()), s);
  std::vector<erased_array> out;
  for (index_t j = 0; j < k; ++j) {
    erased_array row = all;
    row.layout = view_layout{{n}, {1}, j * n};
    out.push_back(row);
  }
  return out;
}

resolved_index resolve_index(const erased_array& src, std::span<const index_arg> args, const stream& s) {
  std::vector<index_entry> entries;
  std::vector<std::vector<erased_array>> mask_arrays(args.size());
  for (const index_arg& a : args) {
    entries.push_back(a.entry);
  }
  // Masks become nonzero's arrays first (a wait for each count); the plan below then reports the
  // shape errors with NumPy's texts.
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (entries[i].k == index_entry::kind::bool_array) {
      const bool zero_d = entries[i].shape.empty();  // a[np.array(True)]: a new axis of 1 or 0
      mask_arrays[i] = nonzero_arrays(args[i].array, std::nullopt, 0, zero_d, s, "indexing with a boolean mask");
      entries[i].count = zero_d ? mask_arrays[i][0].layout.shape[0] : mask_arrays[i][0].size();
    }
  }
  resolved_index r;
  r.plan = plan_index(src.layout, entries);
  r.unique = true;
  for (const advanced_source& a : r.plan.arrays) {
    const auto i = static_cast<std::size_t>(a.entry);
    if (a.mask) {
      r.arrays.push_back(mask_arrays[i][static_cast<std::size_t>(a.part)]);
    } else {
      r.arrays.push_back(args[i].array);
      r.unique = false;
    }
  }
  return r;
}

erased_array extract_rows(const erased_array& a, const erased_array& mask, std::optional<index_t> size,
                          const void* fill, const stream& s, const char* what) {
  if (size && *size < 0) {
    throw shape_error(std::string(what) + ": nd::size(" + std::to_string(*size) + ") must not be negative");
  }
  const std::size_t k = mask.layout.shape.size();
  const bool empty_1d = k == 1 && mask.layout.shape[0] == 0;  // matches any axis (NumPy)
  if (empty_1d && !a.layout.shape.empty()) {                  // nothing selected: no rows, or nd::size's k rows of fill
    shape_t shape = a.layout.shape;
    shape[0] = size.value_or(0);
    erased_array out = allocate(a.type, shape, s);
    if (out.size() > 0) {
      fill_pattern(out.data(), itemsize(a.type), fill, out.size(), 1, s);
    }
    return out;
  }
  for (std::size_t j = 0; j < k; ++j) {
    if (j >= a.layout.shape.size() || mask.layout.shape[j] != a.layout.shape[j]) {
      if (j >= a.layout.shape.size()) {
        throw index_error("too many indices for array: array is " + std::to_string(a.layout.shape.size()) +
                          "-dimensional, but " + std::to_string(k) + " were indexed");
      }
      throw index_error("boolean index did not match indexed array along axis " + std::to_string(j) +
                        "; size of axis is " + std::to_string(a.layout.shape[j]) +
                        " but size of corresponding boolean axis is " + std::to_string(mask.layout.shape[j]));
    }
  }
  const erased_array m = contiguous_as(mask, dtype::bool_, s);
  const erased_array items = contiguous_as(a, a.type, s);
  const index_t rows = m.size();
  const index_t row = rows == 0 ? 0 : (items.size() / (rows == 0 ? 1 : rows));
  const auto* flags = static_cast<const bool*>(m.data());
  const index_t count = size ? *size : count_true(flags, rows, s, what);
  shape_t shape{count};
  shape.insert(shape.end(), a.layout.shape.begin() + static_cast<std::ptrdiff_t>(k), a.layout.shape.end());
  erased_array out = allocate(a.type, shape, s);
  const index_t total = count * row;
  if (size && total > 0) {
    fill_pattern(out.data(), itemsize(a.type), fill, total, 1, s);
  }
  if (row > 0) {
    select_items(itemsize(a.type), items.data(), flags, items.size(), row, out.data(), total, s);
  }
  return out;
}

}  // namespace ndcuda::detail
