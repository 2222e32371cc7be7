// NumPy's view rules on plain (shape, strides, offset) values; see include/ndcuda/array/view_math.hpp.
#include <algorithm>
#include <ndcuda/array/view_math.hpp>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/error.hpp>
#include <string>
#include <utility>

namespace ndcuda {
namespace {

struct resolved_slice {
  index_t start;
  index_t length;
};

// Python's slice.indices(n) followed by the length computation, so the view matches a[start:stop:step].
resolved_slice resolve_slice(const slice& s, index_t n) {
  if (s.step == 0) {
    throw shape_error("slice step cannot be zero");
  }
  const bool down = s.step < 0;
  const index_t lower = down ? -1 : 0;
  const index_t upper = down ? n - 1 : n;
  const auto clamp = [&](std::optional<index_t> bound, index_t fallback) {
    if (!bound) {
      return fallback;
    }
    index_t b = *bound;
    if (b < 0) {
      b += n;
      return std::max(b, lower);
    }
    return std::min(b, upper);
  };
  const index_t start = clamp(s.start, down ? upper : lower);
  const index_t stop = clamp(s.stop, down ? lower : upper);
  // ceil(distance / |step|), written so that no step (INT64_MIN included) can overflow.
  index_t length = 0;
  if (!down && stop > start) {
    length = (stop - start - 1) / s.step + 1;
  } else if (down && start > stop) {
    length = 1 - (start - stop - 1) / s.step;
  }
  return {start, length};
}

int consumed_axes(const index_item& item) {
  return std::holds_alternative<index_t>(item) || std::holds_alternative<slice>(item) ||
                 std::holds_alternative<all_t>(item)
             ? 1
             : 0;
}

}  // namespace

view_layout contiguous_layout(shape_t shape) {
  strides_t strides = c_strides(shape);
  return {std::move(shape), std::move(strides), 0};
}

view_layout apply_index(const view_layout& v, std::span<const index_item> index) {
  const int ndim = static_cast<int>(v.shape.size());
  int used = 0;
  int ellipses = 0;
  for (const index_item& item : index) {
    used += consumed_axes(item);
    ellipses += std::holds_alternative<ellipsis_t>(item) ? 1 : 0;
  }
  if (ellipses > 1) {
    throw shape_error("an index can only have a single ellipsis ('...')");
  }
  if (used > ndim) {
    throw shape_error("too many indices for array: array is " + std::to_string(ndim) + "-dimensional, but " +
                      std::to_string(used) + " were indexed");
  }
  view_layout out;
  out.offset = v.offset;
  int axis = 0;
  const auto keep_rest = [&](int count) {
    for (int i = 0; i < count; ++i, ++axis) {
      out.shape.push_back(v.shape[static_cast<std::size_t>(axis)]);
      out.strides.push_back(v.strides[static_cast<std::size_t>(axis)]);
    }
  };
  for (const index_item& item : index) {
    const auto a = static_cast<std::size_t>(axis);
    if (const auto* i = std::get_if<index_t>(&item)) {
      const index_t n = v.shape[a];
      const index_t k = *i < 0 ? *i + n : *i;
      if (k < 0 || k >= n) {
        throw shape_error("index " + std::to_string(*i) + " is out of bounds for axis " + std::to_string(axis) +
                          " with size " + std::to_string(n));
      }
      out.offset = checked_add(out.offset, checked_mul(k, v.strides[a], "index offset"), "index offset");
      ++axis;
    } else if (const auto* s = std::get_if<slice>(&item)) {
      const resolved_slice r = resolve_slice(*s, v.shape[a]);
      if (r.length > 0) {
        out.offset = checked_add(out.offset, checked_mul(r.start, v.strides[a], "slice offset"), "slice offset");
      }
      // A step beyond the extent leaves at most one element, whose stride is never used (NumPy
      // gives 0 there too); only then may stride * step overflow.
      index_t stride = 0;
      if (!try_mul(v.strides[a], s->step, stride)) {
        stride = r.length <= 1 ? 0 : checked_mul(v.strides[a], s->step, "slice stride");
      }
      out.shape.push_back(r.length);
      out.strides.push_back(stride);
      ++axis;
    } else if (std::holds_alternative<all_t>(item)) {
      keep_rest(1);
    } else if (std::holds_alternative<newaxis_t>(item)) {
      out.shape.push_back(1);
      out.strides.push_back(0);
    } else {
      keep_rest(ndim - used);
    }
  }
  keep_rest(ndim - axis);
  return out;
}

shape_t resolve_reshape(index_t size, std::span<const index_t> requested) {
  shape_t shape(requested.begin(), requested.end());
  int unknown = -1;
  index_t known = 1;
  bool overflow = false;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (unknown >= 0) {
        throw shape_error("can only specify one unknown dimension");
      }
      unknown = static_cast<int>(i);
    } else if (shape[i] < 0) {
      throw shape_error("negative dimensions not allowed");
    } else if (!overflow && !try_mul(known, shape[i], known)) {
      overflow = true;  // more elements than any array has: a mismatch, reported below
    }
  }
  const auto mismatch = [&] {
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
      text += (i > 0 ? "," : "") + (shape[i] == -1 ? std::string("newaxis") : std::to_string(shape[i]));
    }
    text += shape.size() == 1 ? ",)" : ")";
    return shape_error("cannot reshape array of size " + std::to_string(size) + " into shape " + text);
  };
  if (size < 0) {
    throw shape_error("cannot reshape array of negative size " + std::to_string(size));
  }
  if (unknown >= 0) {
    if (overflow || known == 0 || size % known != 0) {
      throw mismatch();
    }
    shape[static_cast<std::size_t>(unknown)] = size / known;
  } else if (overflow || known != size) {
    throw mismatch();
  }
  return shape;
}

std::optional<strides_t> reshape_strides(const view_layout& v, std::span<const index_t> new_shape) {
  const index_t size = shape_size(v.shape);
  if (shape_size(new_shape) != size) {  // the walk below relies on equal sizes to stay in bounds
    throw shape_error("reshape_strides: shape " + format_shape(new_shape) + " does not have the " +
                      std::to_string(size) + " elements of shape " + format_shape(v.shape) +
                      "; resolve it with resolve_reshape first");
  }
  if (is_c_contiguous(v.shape, v.strides) || size == 0) {
    return c_strides(new_shape);
  }
  // Extent-1 axes are dropped first: their strides say nothing about the layout.
  shape_t old_dims;
  strides_t old_strides;
  for (std::size_t i = 0; i < v.shape.size(); ++i) {
    if (v.shape[i] != 1) {
      old_dims.push_back(v.shape[i]);
      old_strides.push_back(v.strides[i]);
    }
  }
  const std::size_t old_nd = old_dims.size();
  const std::size_t new_nd = new_shape.size();
  strides_t out(new_nd, 0);
  std::size_t oi = 0;
  std::size_t oj = 1;
  std::size_t ni = 0;
  std::size_t nj = 1;
  while (ni < new_nd && oi < old_nd) {
    index_t np = new_shape[ni];
    index_t op = old_dims[oi];
    while (np != op) {
      if (np < op) {
        np *= new_shape[nj++];
      } else {
        op *= old_dims[oj++];
      }
    }
    for (std::size_t ok = oi; ok + 1 < oj; ++ok) {
      index_t merged = 0;
      if (__builtin_mul_overflow(old_dims[ok + 1], old_strides[ok + 1], &merged) || old_strides[ok] != merged) {
        return std::nullopt;
      }
    }
    out[nj - 1] = old_strides[oj - 1];
    for (std::size_t nk = nj - 1; nk > ni; --nk) {
      // Strides that do not fit int64 have no view: the caller copies instead.
      if (__builtin_mul_overflow(out[nk], new_shape[nk], &out[nk - 1])) {
        return std::nullopt;
      }
    }
    ni = nj++;
    oi = oj++;
  }
  const index_t last = ni >= 1 ? out[ni - 1] : 1;
  for (std::size_t nk = ni; nk < new_nd; ++nk) {
    out[nk] = last;
  }
  return out;
}

view_layout transpose_layout(const view_layout& v, std::span<const index_t> axes) {
  const int ndim = static_cast<int>(v.shape.size());
  std::vector<int> order;
  if (axes.empty()) {
    for (int i = ndim; i-- > 0;) {
      order.push_back(i);
    }
  } else {
    if (static_cast<int>(axes.size()) != ndim) {
      throw shape_error("axes don't match array");
    }
    for (index_t a : axes) {
      order.push_back(normalize_axis(a, ndim));
    }
    std::vector<bool> seen(static_cast<std::size_t>(ndim), false);
    for (int a : order) {
      if (seen[static_cast<std::size_t>(a)]) {
        throw shape_error("repeated axis in transpose");
      }
      seen[static_cast<std::size_t>(a)] = true;
    }
  }
  view_layout out{{}, {}, v.offset};
  for (int a : order) {
    out.shape.push_back(v.shape[static_cast<std::size_t>(a)]);
    out.strides.push_back(v.strides[static_cast<std::size_t>(a)]);
  }
  return out;
}

view_layout swapaxes_layout(const view_layout& v, index_t a, index_t b) {
  const int ndim = static_cast<int>(v.shape.size());
  const auto i = static_cast<std::size_t>(normalize_axis(a, ndim));
  const auto j = static_cast<std::size_t>(normalize_axis(b, ndim));
  view_layout out = v;
  std::swap(out.shape[i], out.shape[j]);
  std::swap(out.strides[i], out.strides[j]);
  return out;
}

view_layout squeeze_layout(const view_layout& v, std::span<const index_t> axes) {
  const int ndim = static_cast<int>(v.shape.size());
  std::vector<bool> drop(static_cast<std::size_t>(ndim), axes.empty());
  if (axes.empty()) {
    for (std::size_t i = 0; i < v.shape.size(); ++i) {
      drop[i] = v.shape[i] == 1;
    }
  }
  for (int a : normalize_axes(axes, ndim)) {
    if (v.shape[static_cast<std::size_t>(a)] != 1) {
      throw shape_error("cannot select an axis to squeeze out which has size not equal to one");
    }
    drop[static_cast<std::size_t>(a)] = true;
  }
  view_layout out{{}, {}, v.offset};
  for (std::size_t i = 0; i < v.shape.size(); ++i) {
    if (!drop[i]) {
      out.shape.push_back(v.shape[i]);
      out.strides.push_back(v.strides[i]);
    }
  }
  return out;
}

view_layout expand_dims_layout(const view_layout& v, std::span<const index_t> axes) {
  const int out_ndim = static_cast<int>(v.shape.size() + axes.size());
  std::vector<bool> is_new(static_cast<std::size_t>(out_ndim), false);
  for (int a : normalize_axes(axes, out_ndim)) {
    is_new[static_cast<std::size_t>(a)] = true;
  }
  view_layout out{{}, {}, v.offset};
  std::size_t k = 0;
  for (std::size_t i = 0; i < is_new.size(); ++i) {
    if (is_new[i]) {
      out.shape.push_back(1);
      out.strides.push_back(0);
    } else {
      out.shape.push_back(v.shape[k]);
      out.strides.push_back(v.strides[k]);
      ++k;
    }
  }
  return out;
}

view_layout broadcast_layout(const view_layout& v, std::span<const index_t> target) {
  return {shape_t(target.begin(), target.end()), broadcast_strides(v.shape, v.strides, target), v.offset};
}

namespace {

// [first byte, one past the last byte] an array touches; empty when it has no elements.
std::pair<std::uintptr_t, std::uintptr_t> byte_range(std::uintptr_t data, std::size_t itemsize,
                                                     std::span<const index_t> shape, std::span<const index_t> strides) {
  const element_reach reach = checked_reach(shape, strides);
  if (shape_size(shape) == 0) {
    return {data, data};
  }
  // Unsigned arithmetic: addresses wrap like pointers would, without signed overflow.
  const auto size = static_cast<std::uintptr_t>(itemsize);
  return {data + static_cast<std::uintptr_t>(reach.low) * size,
          data + (static_cast<std::uintptr_t>(reach.high) + 1) * size};
}

}  // namespace

bool needs_temporary(std::uintptr_t out_data, std::size_t out_itemsize, std::span<const index_t> out_shape,
                     std::span<const index_t> out_strides, std::uintptr_t in_data, std::size_t in_itemsize,
                     std::span<const index_t> in_shape, std::span<const index_t> in_strides) {
  const auto [out_lo, out_hi] = byte_range(out_data, out_itemsize, out_shape, out_strides);
  const auto [in_lo, in_hi] = byte_range(in_data, in_itemsize, in_shape, in_strides);
  if (out_lo == out_hi || in_lo == in_hi || out_hi <= in_lo || in_hi <= out_lo) {
    return false;
  }
  if (out_data != in_data || out_itemsize != in_itemsize) {
    return true;
  }
  const strides_t seen = broadcast_strides(in_shape, in_strides, out_shape);
  for (std::size_t d = 0; d < out_shape.size(); ++d) {
    if (out_shape[d] != 1 && seen[d] != out_strides[d]) {
      return true;
    }
  }
  return false;
}

}  // namespace ndcuda
