// sort, argsort, unique and searchsorted: host planning (axis innermost, key formats, buffers)
// around the nvcc-compiled device algorithms of sort_*.cu.
#include <array>
#include <ndcuda/array/detail/kernels.hpp>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/memory/transfer.hpp>
#include <ndcuda/ops/sorting.hpp>
#include <string>

#include "layout_plan.hpp"
#include "sort_complex.hpp"

namespace ndcuda::detail {

void check_sortable(dtype t, const char* what) {
  if (is_complex(t)) {
    throw error(std::string(what) + " of " + std::string(name(t)) +
                " is not supported yet (NumPy orders complex numbers by real part, then imaginary part, as nd::sort "
                "does); sort with nd::sort / nd::argsort, or use nd::real(x) or nd::abs(x)");
  }
}

key_format key_format_for(dtype t, bool canonical, const char* what) {
  if (is_complex(t)) {  // complex numbers take the paths of sort_complex.cu
    throw error(std::string(what) + ": complex " + std::string(name(t)) + " has no single key format");
  }
  key_format f;
  f.bytes = itemsize(t);
  f.sign_bit = std::uint64_t{1} << (8 * f.bytes - 1);
  switch (t) {
    case dtype::float16:
      f.inf_bits = 0x7c00;
      break;
    case dtype::bfloat16:
      f.inf_bits = 0x7f80;
      break;
    case dtype::float32:
      f.inf_bits = 0x7f800000;
      break;
    case dtype::float64:
      f.inf_bits = 0x7ff0000000000000;
      break;
    default:
      break;
  }
  if (is_floating(t)) {
    f.mode = canonical ? key_mode::float_canonical : key_mode::float_total;
  } else if (kind(t) == dtype_kind::signed_integer) {
    f.mode = key_mode::flip_sign;
  } else {
    f.mode = key_mode::identity;
  }
  return f;
}

namespace {

/// Keys of `x`'s elements in the C order of `moved`: encoded in place in a copy when one was
/// needed anyway, else into a new buffer (or x's own memory, for identity keys without indices).
dense_elements keys_of(const leaf_ref& x, const axis_last& moved, const key_format& f, index_t segment,
                       std::int64_t* row_index, const stream& s) {
  const index_t n = shape_size(moved.shape);
  dense_elements d = dense_copy(x, moved, x.type, s);
  if (f.mode == key_mode::identity && row_index == nullptr) {
    return d;
  }
  dense_elements keys = d.owner ? d : scratch(static_cast<std::size_t>(n) * f.bytes, s);
  encode_keys(f, d.data, keys.writable(), row_index, n, segment, s);
  return keys;
}

/// Where a result in the C order of the moved layout goes: straight into `out` (C-contiguous, of
/// the unmoved shape) when moving the axis changes nothing, else a buffer copied in afterwards.
struct result_target {
  axis_last out_moved;
  bool direct = false;
};
result_target target_for(std::span<const index_t> shape, int axis) {
  const strides_t out_strides = c_strides(shape);
  axis_last m = move_axis_last(shape, out_strides, axis);
  const bool direct = is_c_contiguous(m.shape, m.strides);
  return {std::move(m), direct};
}

}  // namespace

/// sort (sorted) or argsort (positions) of complex x along `axis`: the sort permutation from the
/// keys of sort_complex.cu, then the elements (bit for bit) or the positions gathered through it.
static void complex_sort_into(const leaf_ref& x, int axis, void* sorted, std::int64_t* positions, const stream& s) {
  const shape_t& shape = x.layout->shape;
  const index_t n = shape_size(shape);
  if (n == 0) {
    return;
  }
  const bool wide = x.type == dtype::complex128;
  const index_t segment = shape[static_cast<std::size_t>(axis)];
  device_guard guard(x.device);
  order_after(s, *x.s);
  const axis_last moved = move_axis_last(shape, x.layout->strides, axis);
  const dense_elements elements = dense_copy(x, moved, x.type, s);
  const dense_elements order = scratch(checked_bytes(n, sizeof(std::int64_t)), s);
  auto* order_data = static_cast<std::int64_t*>(order.writable());
  complex_sort_indices(wide, elements.data, order_data, n, segment, s);
  const result_target target = target_for(shape, axis);
  const dtype result_type = sorted != nullptr ? x.type : dtype::int64;
  void* const out = sorted != nullptr ? sorted : static_cast<void*>(positions);
  const dense_elements result =
      target.direct ? dense_elements{out, nullptr} : scratch(checked_bytes(n, itemsize(result_type)), s);
  void* result_data = const_cast<void*>(result.data);
  complex_gather_sorted(wide, elements.data, order_data, sorted != nullptr ? result_data : nullptr,
                        sorted != nullptr ? nullptr : static_cast<std::int64_t*>(result_data), n, segment, s);
  if (!target.direct) {
    copy_cast(result_type, out, target.out_moved.shape, target.out_moved.strides, result_type, result_data,
              target.out_moved.shape, {}, s);
  }
}

void sort_into(const leaf_ref& x, int axis, void* out, const stream& s) {
  retain_for_capture(s, std::span<const leaf_ref>(&x, 1));  // a graph being captured keeps it alive
  if (is_complex(x.type)) {
    check_same_device(x, s, "sort");
    return complex_sort_into(x, axis, out, nullptr, s);
  }
  const key_format f = key_format_for(x.type, false, "sort");
  check_same_device(x, s, "sort");
  const shape_t& shape = x.layout->shape;
  const index_t n = shape_size(shape);
  if (n == 0) {
    return;
  }
  const index_t segment = shape[static_cast<std::size_t>(axis)];
  device_guard guard(x.device);
  order_after(s, *x.s);
  const axis_last moved = move_axis_last(shape, x.layout->strides, axis);
  const dense_elements keys = keys_of(x, moved, f, segment, nullptr, s);
  const result_target target = target_for(shape, axis);
  const dense_elements sorted =
      target.direct ? dense_elements{out, nullptr} : scratch(static_cast<std::size_t>(n) * f.bytes, s);
  void* sorted_data = const_cast<void*>(sorted.data);
  sort_keys(f.bytes, keys.data, sorted_data, n, segment, s);
  if (f.mode != key_mode::identity) {
    decode_keys(f, sorted_data, sorted_data, n, s);
  }
  if (!target.direct) {
    copy_cast(x.type, out, target.out_moved.shape, target.out_moved.strides, x.type, sorted_data,
              target.out_moved.shape, {}, s);
  }
}

void argsort_into(const leaf_ref& x, int axis, std::int64_t* out, const stream& s) {
  retain_for_capture(s, std::span<const leaf_ref>(&x, 1));  // a graph being captured keeps it alive
  if (is_complex(x.type)) {
    check_same_device(x, s, "argsort");
    return complex_sort_into(x, axis, nullptr, out, s);
  }
  const key_format f = key_format_for(x.type, true, "argsort");
  check_same_device(x, s, "argsort");
  const shape_t& shape = x.layout->shape;
  const index_t n = shape_size(shape);
  if (n == 0) {
    return;
  }
  const index_t segment = shape[static_cast<std::size_t>(axis)];
  device_guard guard(x.device);
  order_after(s, *x.s);
  const dense_elements indices = scratch(checked_bytes(n, sizeof(std::int64_t)), s);
  auto* index_data = static_cast<std::int64_t*>(indices.writable());
  const axis_last moved = move_axis_last(shape, x.layout->strides, axis);
  const dense_elements keys = keys_of(x, moved, f, segment, index_data, s);
  const dense_elements sorted_keys = scratch(checked_bytes(n, f.bytes), s);
  const result_target target = target_for(shape, axis);
  const dense_elements result =
      target.direct ? dense_elements{out, nullptr} : scratch(checked_bytes(n, sizeof(std::int64_t)), s);
  auto* result_data = static_cast<std::int64_t*>(const_cast<void*>(result.data));
  sort_pairs(f.bytes, keys.data, sorted_keys.writable(), index_data, result_data, n, segment, s);
  if (!target.direct) {
    copy_cast(dtype::int64, out, target.out_moved.shape, target.out_moved.strides, dtype::int64, result_data,
              target.out_moved.shape, {}, s);
  }
}

index_t unique_into(const leaf_ref& x, const stream& s, std::shared_ptr<const void>* owner, void** data) {
  check_same_device(x, s, "unique");
  // Refused before anything is queued, so that the capture stays valid.
  if (s.is_capturing()) {
    throw capture_error(
        "unique: the number of distinct elements is known only on the device, so unique waits for its stream, but "
        "the stream is capturing a CUDA graph; call unique before or after the capture (inside one, nd::sort "
        "captures fine and leaves equal elements next to each other)");
  }
  const index_t n = shape_size(x.layout->shape);
  device_guard guard(x.device);
  if (n == 0) {
    dense_elements none = scratch(0, s);
    *data = const_cast<void*>(none.data);
    *owner = std::move(none.owner);
    return 0;
  }
  order_after(s, *x.s);
  const axis_last flat = move_axis_last(x.layout->shape, x.layout->strides, std::nullopt);
  if (is_complex(x.type)) {
    // Sorted in NumPy's order, then the first of each run of equal elements (all NaNs one run).
    const bool wide = x.type == dtype::complex128;
    const dense_elements elements = dense_copy(x, flat, x.type, s);
    const dense_elements order = scratch(checked_bytes(n, sizeof(std::int64_t)), s);
    auto* order_data = static_cast<std::int64_t*>(order.writable());
    complex_sort_indices(wide, elements.data, order_data, n, n, s);
    const dense_elements sorted = scratch(checked_bytes(n, itemsize(x.type)), s);
    complex_gather_sorted(wide, elements.data, order_data, sorted.writable(), nullptr, n, n, s);
    dense_elements distinct = scratch(checked_bytes(n, itemsize(x.type)), s);
    const index_t found = complex_unique_sorted(wide, sorted.data, distinct.writable(), n, s);
    *data = distinct.writable();
    *owner = std::move(distinct.owner);
    return found;
  }
  const key_format f = key_format_for(x.type, true, "unique");
  const dense_elements keys = keys_of(x, flat, f, n, nullptr, s);
  const dense_elements sorted = scratch(checked_bytes(n, f.bytes), s);
  sort_keys(f.bytes, keys.data, sorted.writable(), n, n, s);
  const dense_elements distinct = scratch(checked_bytes(n, f.bytes), s);
  const dense_elements device_count = scratch(sizeof(std::int64_t), s);
  unique_keys(f.bytes, sorted.data, distinct.writable(), static_cast<std::int64_t*>(device_count.writable()), n, s);
  std::int64_t found = 0;
  copy_to_host(&found, device_count.data, sizeof(found), s);
  synchronize_for(s, "unique");
  dense_elements result = scratch(static_cast<std::size_t>(found) * f.bytes, s);
  decode_keys(f, distinct.data, result.writable(), found, s);
  *data = result.writable();
  *owner = std::move(result.owner);
  return found;
}

void searchsorted_into(const leaf_ref& sorted, const leaf_ref& values, side which, std::int64_t* out, const stream& s) {
  retain_for_capture(s, std::array<leaf_ref, 2>{sorted, values});  // a graph being captured keeps them alive
  if (sorted.type != values.type) {
    throw error("searchsorted: the operands must have one dtype here (the typed API promotes them), got " +
                std::string(name(sorted.type)) + " and " + std::string(name(values.type)));
  }
  if (sorted.layout->shape.size() != 1) {
    throw shape_error("searchsorted: the sorted array must be 1-d, but it has shape " +
                      format_shape(sorted.layout->shape));
  }
  check_same_device(sorted, s, "searchsorted");
  check_same_device(values, s, "searchsorted");
  const index_t m = sorted.layout->shape[0];
  const index_t n = shape_size(values.layout->shape);
  if (n == 0) {
    return;
  }
  device_guard guard(sorted.device);
  order_after(s, *sorted.s);
  order_after(s, *values.s);
  const axis_last a_flat = move_axis_last(sorted.layout->shape, sorted.layout->strides, std::nullopt);
  const axis_last v_flat = move_axis_last(values.layout->shape, values.layout->strides, std::nullopt);
  if (is_complex(sorted.type)) {
    const dense_elements a_elements = dense_copy(sorted, a_flat, sorted.type, s);
    const dense_elements v_elements = dense_copy(values, v_flat, values.type, s);
    complex_search(sorted.type == dtype::complex128, a_elements.data, m, v_elements.data, out, n, which == side::right,
                   s);
    return;
  }
  const key_format f = key_format_for(sorted.type, true, "searchsorted");
  const dense_elements a_keys = keys_of(sorted, a_flat, f, m, nullptr, s);
  const dense_elements v_keys = keys_of(values, v_flat, f, n, nullptr, s);
  search_keys(f.bytes, a_keys.data, m, v_keys.data, out, n, which == side::right, s);
}

}  // namespace ndcuda::detail
