// Host planning shared by the scan and sort ops; see layout_plan.hpp.
#include "layout_plan.hpp"

#include <ndcuda/array/detail/kernels.hpp>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/memory/detail/buffer.hpp>
#include <string>

namespace ndcuda::detail {

axis_last move_axis_last(std::span<const index_t> shape, std::span<const index_t> strides, std::optional<int> axis) {
  axis_last m{shape_t(shape.begin(), shape.end()), strides_t(strides.begin(), strides.end())};
  if (axis && *axis != static_cast<int>(shape.size()) - 1) {
    const auto a = static_cast<std::size_t>(*axis);
    m.shape.erase(m.shape.begin() + static_cast<std::ptrdiff_t>(a));
    m.strides.erase(m.strides.begin() + static_cast<std::ptrdiff_t>(a));
    m.shape.push_back(shape[a]);
    m.strides.push_back(strides[a]);
  }
  return m;
}

dense_elements dense_copy(const leaf_ref& x, const axis_last& moved, dtype as, const stream& s) {
  if (as == x.type && is_c_contiguous(moved.shape, moved.strides)) {
    return {x.data, nullptr};
  }
  dense_elements d = scratch(checked_nbytes(moved.shape, itemsize(as)), s);
  copy_cast(as, d.writable(), moved.shape, {}, x.type, x.data, moved.shape, moved.strides, s);
  return d;
}

dense_elements scratch(std::size_t bytes, const stream& s) {
  void* p = nullptr;
  auto owner = allocate_buffer(bytes == 0 ? 1 : bytes, s, &p);
  return {p, std::move(owner)};
}

void check_same_device(const leaf_ref& x, const stream& s, const char* what) {
  if (s.device() != x.device) {
    throw device_error(std::string(what) + ": the array is on device " + std::to_string(x.device) +
                       " but the stream given is on device " + std::to_string(s.device()) +
                       "; pass a stream of the array's device (or move the array there first)");
  }
}

}  // namespace ndcuda::detail
