// The host planning of joining, splitting and the view functions (flip, rot90, moveaxis, diagonal,
// atleast_*); see ops/detail/arrange_plan.hpp. Error texts are NumPy 2's.

#include <algorithm>
#include <array>
#include <cstdint>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/ops/detail/arrange_plan.hpp>
#include <string>

namespace ndcuda::detail {
namespace {

index_t positive_mod(index_t a, index_t n) {
  const index_t r = a % n;
  return r < 0 ? r + n : r;
}

// normalize_axis with NumPy's argument-name prefix ("source: axis 5 is out of bounds ...").
int named_axis(index_t axis, int ndim, const char* name) {
  try {
    return normalize_axis(axis, ndim);
  } catch (const shape_error& e) {
    throw shape_error(std::string(name) + ": " + e.what());
  }
}

}  // namespace

shape_t concatenate_shape(std::span<const shape_t> shapes, index_t axis, int* axis_out) {
  if (shapes.empty()) {
    throw shape_error("need at least one array to concatenate");
  }
  const int ndim = static_cast<int>(shapes[0].size());
  if (ndim == 0) {
    throw shape_error("zero-dimensional arrays cannot be concatenated");
  }
  const int ax = normalize_axis(axis, ndim);
  shape_t out = shapes[0];
  for (std::size_t i = 1; i < shapes.size(); ++i) {
    const shape_t& s = shapes[i];
    if (static_cast<int>(s.size()) != ndim) {
      throw shape_error("all the input arrays must have same number of dimensions, but the array at index 0 has " +
                        std::to_string(ndim) + " dimension(s) and the array at index " + std::to_string(i) + " has " +
                        std::to_string(s.size()) + " dimension(s)");
    }
    for (int d = 0; d < ndim; ++d) {
      if (d == ax) {
        index_t sum = 0;
        if (!try_add(out[d], s[d], sum)) {
          throw shape_error("concatenate: the result's extent along axis " + std::to_string(ax) + " overflows int64");
        }
        out[d] = sum;
      } else if (s[d] != shapes[0][d]) {
        throw shape_error(
            "all the input array dimensions except for the concatenation axis must match exactly, but along "
            "dimension " +
            std::to_string(d) + ", the array at index 0 has size " + std::to_string(shapes[0][d]) +
            " and the array at index " + std::to_string(i) + " has size " + std::to_string(s[d]));
      }
    }
  }
  *axis_out = ax;
  return out;
}

void check_stack_shapes(std::span<const shape_t> shapes) {
  if (shapes.empty()) {
    throw shape_error("need at least one array to stack");
  }
  for (const shape_t& s : shapes) {
    if (s != shapes[0]) {
      throw shape_error("all input arrays must have the same shape");
    }
  }
}

std::vector<std::pair<index_t, index_t>> split_sections(index_t n, index_t sections, bool equal) {
  if (sections <= 0) {
    throw shape_error("number sections must be larger than 0.");
  }
  if (equal && n % sections != 0) {
    throw shape_error("array split does not result in an equal division");
  }
  // Each piece becomes an array handle on the host (~200 bytes with its bounds): a count whose
  // handles cannot fit in this machine's memory is refused before any is made (2**40 sections
  // filled memory until allocation failed).
  check_host_fits(sections, 256, "split into " + std::to_string(sections) + " sections (their array handles)");
  const index_t each = n / sections;
  const index_t extras = n % sections;
  std::vector<std::pair<index_t, index_t>> pieces;
  pieces.reserve(static_cast<std::size_t>(sections));
  index_t start = 0;
  for (index_t i = 0; i < sections; ++i) {
    const index_t len = each + (i < extras ? 1 : 0);
    pieces.emplace_back(start, start + len);
    start += len;
  }
  return pieces;
}

std::vector<std::pair<index_t, index_t>> split_indices(index_t n, std::span<const index_t> indices) {
  // Python's a[start:stop] bounds: negative counts from the end, then clamped to [0, n].
  auto bound = [n](index_t i) { return std::clamp<index_t>(i < 0 ? i + n : i, 0, n); };
  std::vector<std::pair<index_t, index_t>> pieces;
  pieces.reserve(indices.size() + 1);
  index_t start = 0;
  for (std::size_t i = 0; i <= indices.size(); ++i) {
    const index_t stop = i < indices.size() ? bound(indices[i]) : n;
    pieces.emplace_back(start, std::max(start, stop));
    start = stop;
  }
  return pieces;
}

view_layout flip_layout(const view_layout& v, std::span<const index_t> axes) {
  const int ndim = static_cast<int>(v.shape.size());
  std::vector<int> which;
  if (axes.empty()) {
    for (int d = 0; d < ndim; ++d) {
      which.push_back(d);
    }
  } else {
    for (index_t a : axes) {
      const int d = normalize_axis(a, ndim);
      if (std::find(which.begin(), which.end(), d) != which.end()) {
        throw shape_error("repeated axis");
      }
      which.push_back(d);
    }
  }
  view_layout out = v;
  for (int d : which) {
    if (out.shape[d] > 0) {
      out.offset += (out.shape[d] - 1) * out.strides[d];
    }
    out.strides[d] = -out.strides[d];
  }
  return out;
}

view_layout rot90_layout(const view_layout& v, index_t k, index_t axis0, index_t axis1) {
  const auto ndim = static_cast<index_t>(v.shape.size());
  if (axis0 == axis1 || (axis0 - axis1 == ndim) || (axis1 - axis0 == ndim)) {
    throw shape_error("Axes must be different.");
  }
  if (axis0 >= ndim || axis0 < -ndim || axis1 >= ndim || axis1 < -ndim) {
    throw shape_error("Axes=(" + std::to_string(axis0) + ", " + std::to_string(axis1) +
                      ") out of range for array of ndim=" + std::to_string(ndim) + ".");
  }
  k = positive_mod(k, 4);
  if (k == 0) {
    return v;
  }
  const std::array<index_t, 1> a0{axis0};
  const std::array<index_t, 1> a1{axis1};
  if (k == 2) {
    return flip_layout(flip_layout(v, a0), a1);
  }
  std::vector<index_t> perm(static_cast<std::size_t>(ndim));
  for (index_t d = 0; d < ndim; ++d) {
    perm[static_cast<std::size_t>(d)] = d;
  }
  std::swap(perm[static_cast<std::size_t>(normalize_axis(axis0, static_cast<int>(ndim)))],
            perm[static_cast<std::size_t>(normalize_axis(axis1, static_cast<int>(ndim)))]);
  if (k == 1) {
    return transpose_layout(flip_layout(v, a1), perm);
  }
  return flip_layout(transpose_layout(v, perm), a1);
}

view_layout moveaxis_layout(const view_layout& v, std::span<const index_t> source,
                            std::span<const index_t> destination) {
  const int ndim = static_cast<int>(v.shape.size());
  auto normalize = [ndim](std::span<const index_t> axes, const char* name) {
    std::vector<int> out;
    for (index_t a : axes) {
      const int d = named_axis(a, ndim, name);
      if (std::find(out.begin(), out.end(), d) != out.end()) {
        throw shape_error(std::string("repeated axis in `") + name + "` argument");
      }
      out.push_back(d);
    }
    return out;
  };
  const std::vector<int> src = normalize(source, "source");
  const std::vector<int> dst = normalize(destination, "destination");
  if (src.size() != dst.size()) {
    throw shape_error("`source` and `destination` arguments must have the same number of elements");
  }
  std::vector<index_t> order;
  for (int d = 0; d < ndim; ++d) {
    if (std::find(src.begin(), src.end(), d) == src.end()) {
      order.push_back(d);
    }
  }
  std::vector<std::pair<int, int>> moves;
  for (std::size_t i = 0; i < src.size(); ++i) {
    moves.emplace_back(dst[i], src[i]);
  }
  std::sort(moves.begin(), moves.end());
  for (const auto& [d, s] : moves) {
    order.insert(order.begin() + d, s);
  }
  return transpose_layout(v, order);
}

view_layout diagonal_layout(const view_layout& v, index_t offset, index_t axis1, index_t axis2) {
  const int ndim = static_cast<int>(v.shape.size());
  if (ndim < 2) {
    throw shape_error("diag requires an array of at least two dimensions");
  }
  const int a1 = named_axis(axis1, ndim, "axis1");
  const int a2 = named_axis(axis2, ndim, "axis2");
  if (a1 == a2) {
    throw shape_error("axis1 and axis2 cannot be the same");
  }
  const index_t n1 = v.shape[a1];
  const index_t n2 = v.shape[a2];
  view_layout out;
  out.offset = v.offset;
  index_t len = 0;
  if (offset >= 0) {
    len = offset < n2 ? std::min(n1, n2 - offset) : 0;
    if (len > 0) {
      out.offset += offset * v.strides[a2];
    }
  } else {
    len = -offset < n1 ? std::min(n1 + offset, n2) : 0;
    if (len > 0) {
      out.offset += -offset * v.strides[a1];
    }
  }
  for (int d = 0; d < ndim; ++d) {
    if (d != a1 && d != a2) {
      out.shape.push_back(v.shape[d]);
      out.strides.push_back(v.strides[d]);
    }
  }
  out.shape.push_back(std::max<index_t>(len, 0));
  out.strides.push_back(v.strides[a1] + v.strides[a2]);
  return out;
}

view_layout atleast_layout(const view_layout& v, int n) {
  const std::size_t ndim = v.shape.size();
  if (ndim >= static_cast<std::size_t>(n)) {
    return v;
  }
  std::vector<index_t> axes;
  if (ndim == 0) {
    for (int d = 0; d < n; ++d) {
      axes.push_back(d);
    }
  } else if (n == 2) {
    axes = {0};  // (n,) -> (1, n)
  } else if (ndim == 1) {
    axes = {0, 2};  // (n,) -> (1, n, 1)
  } else {
    axes = {2};  // (m, n) -> (m, n, 1)
  }
  return expand_dims_layout(v, axes);
}

}  // namespace ndcuda::detail
