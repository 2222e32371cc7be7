// cumsum/cumprod: host planning (casts, axis innermost, where the scan reads and writes) around
// the nvcc-compiled scan of scan.cu.
#include <ndcuda/array/detail/kernels.hpp>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/promotion.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/ops/scans.hpp>

#include "layout_plan.hpp"

namespace ndcuda::detail {
namespace {

/// Whether the scan kernel of `acc` reads or writes elements of `t` as they are: int64 data is
/// scanned by the uint64 kernel directly (the same bits, the same modular sums and products).
bool same_bits(dtype t, dtype acc) {
  return t == acc || (acc == dtype::uint64 && t == dtype::int64);
}

}  // namespace

void cumulative_into(scan_op op, dtype result, const leaf_ref& x, std::optional<int> axis, void* out, const stream& s) {
  retain_for_capture(s, std::span<const leaf_ref>(&x, 1));  // a graph being captured keeps it alive
  const char* what = op == scan_op::sum ? "cumsum" : "cumprod";
  check_same_device(x, s, what);
  const shape_t& shape = x.layout->shape;
  const index_t n = shape_size(shape);
  if (n == 0) {
    return;
  }
  const dtype acc = scan_kernel_type(result);
  const index_t segment = axis ? shape[static_cast<std::size_t>(*axis)] : n;
  device_guard guard(x.device);
  order_after(s, *x.s);

  axis_last moved = move_axis_last(shape, x.layout->strides, axis);
  leaf_ref source = x;
  view_layout source_layout;
  dense_elements converted;
  // NumPy converts the input to the result dtype before accumulating. Converting straight to the
  // (wider) accumulator gives the same values when that first conversion is exact; when it is not
  // (cumsum<int8> of int32, cumsum<float> of double), it is its own pass.
  if (x.type != result && promote_types(x.type, result) != result) {
    converted = dense_copy(x, moved, result, s);
    source_layout = contiguous_layout(moved.shape);
    source = leaf_ref{converted.data, &source_layout, result, &s, x.device};
    moved.strides = source_layout.strides;
  }

  // The output, seen with the axis last: written directly when that is still C order.
  const strides_t out_strides = axis ? c_strides(shape) : strides_t{1};
  const axis_last out_moved =
      axis ? move_axis_last(shape, out_strides, axis) : axis_last{moved.shape, c_strides(moved.shape)};
  const bool out_direct = same_bits(result, acc) && is_c_contiguous(out_moved.shape, out_moved.strides);
  const bool in_direct = same_bits(source.type, acc) && is_c_contiguous(moved.shape, moved.strides);

  dense_elements work = out_direct ? dense_elements{out, nullptr} : scratch(checked_bytes(n, itemsize(acc)), s);
  void* work_data = const_cast<void*>(work.data);
  const void* scan_in = source.data;
  if (!in_direct) {
    copy_cast(acc, work_data, moved.shape, {}, source.type, source.data, moved.shape, moved.strides, s);
    scan_in = work_data;
  }
  inclusive_scan(acc, op, scan_in, work_data, n, segment, s);
  if (!out_direct) {
    copy_cast(result, out, out_moved.shape, out_moved.strides, acc, work_data, out_moved.shape, {}, s);
  }
}

}  // namespace ndcuda::detail
