// np.concatenate on the device (see ops/detail/arrange_kernels.hpp): each contiguous piece of the
// result's dtype is one cudaMemcpyAsync (axis 0, or one block per outer index through
// cudaMemcpy2DAsync); any other piece is one strided copy (with conversion) into its slot.
#include <cuda_runtime_api.h>

#include <climits>
#include <ndcuda/array/detail/kernels.hpp>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/memory/detail/buffer.hpp>
#include <ndcuda/ops/detail/arrange_kernels.hpp>

namespace ndcuda::detail {

erased_array concatenate_erased(std::span<const erased_array> given, std::optional<index_t> axis, dtype out_type,
                                const stream& s) {
  std::vector<erased_array> pieces(given.begin(), given.end());
  std::vector<shape_t> shapes;
  shapes.reserve(pieces.size());
  for (erased_array& p : pieces) {
    if (!axis) {
      // NumPy's axis=None: flattened as ravel does, a 1-d view where the strides allow one; a
      // piece that has none keeps its shape and is copied in C order into its (contiguous) slot.
      const shape_t flat{p.size()};
      if (auto strides = reshape_strides(p.layout, flat)) {
        p.layout = view_layout{flat, *strides, p.layout.offset};
      }
      shapes.push_back(flat);
    } else {
      shapes.push_back(p.layout.shape);
    }
  }
  int ax = 0;
  const shape_t out_shape = concatenate_shape(shapes, axis.value_or(0), &ax);
  const std::size_t isz = itemsize(out_type);
  void* out = nullptr;
  auto owner = allocate_buffer(checked_nbytes(out_shape, isz), s, &out);
  const strides_t out_strides = c_strides(out_shape);
  index_t outer = 1;
  for (int d = 0; d < ax; ++d) {
    outer *= out_shape[static_cast<std::size_t>(d)];
  }
  index_t inner = 1;
  for (std::size_t d = static_cast<std::size_t>(ax) + 1; d < out_shape.size(); ++d) {
    inner *= out_shape[d];
  }
  const auto row_bytes = static_cast<std::size_t>(out_shape[static_cast<std::size_t>(ax)] * inner) * isz;
  device_guard guard(s.device());
  index_t at = 0;  // where the piece starts along the axis
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const erased_array& p = pieces[i];
    const index_t extent = shapes[i][static_cast<std::size_t>(ax)];
    if (p.size() > 0) {
      order_after(s, p.s);
      retain_for_capture(s, p.owner);
      char* dst = static_cast<char*>(out) + static_cast<std::size_t>(at * inner) * isz;
      const auto piece_row = static_cast<std::size_t>(extent * inner) * isz;
      const bool dense = p.type == out_type && is_c_contiguous(p.layout.shape, p.layout.strides);
      if (dense && outer == 1) {
        check_cuda(cudaMemcpyAsync(dst, p.data(), piece_row, cudaMemcpyDeviceToDevice, s.handle()), "cudaMemcpyAsync");
      } else if (dense && row_bytes <= static_cast<std::size_t>(INT_MAX)) {
        check_cuda(cudaMemcpy2DAsync(dst, row_bytes, p.data(), piece_row, piece_row, static_cast<std::size_t>(outer),
                                     cudaMemcpyDeviceToDevice, s.handle()),
                   "cudaMemcpy2DAsync");
      } else {
        const strides_t dst_strides =
            p.layout.shape.size() == out_shape.size() ? out_strides : c_strides(p.layout.shape);
        copy_cast(out_type, dst, p.layout.shape, dst_strides, p.type, p.data(), p.layout.shape, p.layout.strides, s);
      }
    }
    at += extent;
  }
  return erased_array{std::move(owner), out, contiguous_layout(out_shape), out_type, s.device(), s};
}

}  // namespace ndcuda::detail
