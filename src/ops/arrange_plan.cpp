// The host planning of joining, splitting and rearranging; see ops/detail/arrange_plan.hpp. Error
// texts are NumPy 2's, so that ported code reads the messages its users know.
#include <algorithm>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/ops/detail/arrange_plan.hpp>
#include <string>

namespace ndcuda {
namespace {

// NumPy's compact shape spelling in broadcast messages: (3,2), (3,), ().
std::string compact_shape(std::span<const index_t> shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    s += (i != 0 ? "," : "") + std::to_string(shape[i]);
  }
  return s + (shape.size() == 1 ? ",)" : ")");
}

// np.broadcast_to(x of `from`, (ndim, 2)), the last step of np.pad's _as_pairs.
template <class P>
std::vector<P> broadcast_pairs(const std::vector<P>& pairs, const shape_t& from, int ndim) {
  const bool fits = from.size() == 2 && from[1] == 2 && (from[0] == 1 || from[0] == ndim);
  if (!fits) {
    const shape_t requested{ndim, 2};
    throw shape_error("operands could not be broadcast together with remapped shapes [original->remapped]: " +
                      compact_shape(from) + "  and requested shape " + compact_shape(requested));
  }
  return from[0] == 1 ? std::vector<P>(static_cast<std::size_t>(ndim), pairs.front()) : pairs;
}

}  // namespace

pad_width::pad_width(std::initializer_list<index_t> before_after) : shape_{static_cast<index_t>(before_after.size())} {
  const std::vector<index_t> v(before_after);
  if (v.size() == 1) {
    pairs_ = {{v[0], v[0]}};
    shape_ = {1, 1};
  } else if (v.size() == 2) {
    pairs_ = {{v[0], v[1]}};
    shape_ = {1, 2};
  }
}

std::vector<std::pair<index_t, index_t>> pad_width::resolve(int ndim) const {
  for (const auto& [b, a] : pairs_) {
    if (b < 0 || a < 0) {
      throw shape_error("index can't contain negative values");
    }
  }
  if (shape_ == shape_t{1, 1}) {
    return std::vector<std::pair<index_t, index_t>>(static_cast<std::size_t>(ndim), pairs_.front());
  }
  return broadcast_pairs(pairs_, shape_, ndim);
}

pad_values::pad_values(std::initializer_list<double> before_after) : shape_{static_cast<index_t>(before_after.size())} {
  const std::vector<double> v(before_after);
  if (v.size() == 1) {
    pairs_ = {{v[0], v[0]}};
    shape_ = {1, 1};
  } else if (v.size() == 2) {
    pairs_ = {{v[0], v[1]}};
    shape_ = {1, 2};
  }
}

std::vector<std::pair<double, double>> pad_values::resolve(int ndim) const {
  if (shape_ == shape_t{1, 1}) {
    return std::vector<std::pair<double, double>>(static_cast<std::size_t>(ndim), pairs_.front());
  }
  return broadcast_pairs(pairs_, shape_, ndim);
}

}  // namespace ndcuda

namespace ndcuda::detail {
namespace {

index_t checked_product(index_t a, index_t b) {
  index_t out = 0;
  if (!try_mul(a, b, out)) {
    throw shape_error("array is too big: " + std::to_string(a) + " x " + std::to_string(b) +
                      " elements along one axis overflow int64");
  }
  return out;
}

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
  const index_t each = n / sections;
  const index_t extras = n % sections;
  std::vector<std::pair<index_t, index_t>> pieces;
  pieces.reserve(static_cast<std::size_t>(std::min<index_t>(sections, 1 << 20)));
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

index_t remap_source(index_t o, const remap_axis& axis, const index_t* table) {
  const index_t n = axis.in_extent;
  const index_t c = o - axis.before;
  switch (axis.mode) {
    case remap_mode::identity:
      return o;
    case remap_mode::constant:
      return c >= 0 && c < n ? c : -1;
    case remap_mode::edge:
      return std::clamp<index_t>(c, 0, n - 1);
    case remap_mode::reflect: {
      if (n == 1) {
        return 0;
      }
      const index_t r = positive_mod(c, 2 * (n - 1));
      return r >= n ? 2 * (n - 1) - r : r;
    }
    case remap_mode::symmetric: {
      const index_t r = positive_mod(c, 2 * n);
      return r >= n ? 2 * n - 1 - r : r;
    }
    case remap_mode::wrap:
      return positive_mod(c, n);
    case remap_mode::divide:
      return o / axis.before;
    case remap_mode::table:
      return table[o];
  }
  return o;
}

std::vector<remap_axis> pad_plan(std::span<const index_t> shape, std::span<const std::pair<index_t, index_t>> widths,
                                 pad_mode mode) {
  std::vector<remap_axis> axes;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const index_t n = shape[d];
    const auto [before, after] = widths[d];
    remap_axis a;
    a.in_extent = n;
    index_t out = 0;
    if (!try_add(n, before, out) || !try_add(out, after, out)) {
      throw shape_error("pad: the padded extent of axis " + std::to_string(d) + " overflows int64");
    }
    a.out_extent = out;
    if (before == 0 && after == 0) {
      axes.push_back(a);  // identity
      continue;
    }
    if (n == 0 && mode != pad_mode::constant) {
      throw shape_error("can't extend empty axis " + std::to_string(d) +
                        " using modes other than 'constant' or 'empty'");
    }
    // The periodic modes keep `before` within one period, so the kernel's common case (an output
    // coordinate at most one period away) needs no division.
    switch (mode) {
      case pad_mode::constant:
        a.mode = remap_mode::constant;
        a.before = before;
        break;
      case pad_mode::edge:
        a.mode = remap_mode::edge;
        a.before = before;
        break;
      case pad_mode::reflect:
        a.mode = remap_mode::reflect;
        a.before = n == 1 ? 0 : before % (2 * (n - 1));
        break;
      case pad_mode::symmetric:
        a.mode = remap_mode::symmetric;
        a.before = before % (2 * n);
        break;
      case pad_mode::wrap:
        a.mode = remap_mode::wrap;
        a.before = before % n;
        break;
    }
    axes.push_back(a);
  }
  return axes;
}

std::vector<remap_axis> roll_plan(std::span<const index_t> shape, std::span<const index_t> shifts,
                                  std::span<const index_t> axes_in) {
  const int ndim = static_cast<int>(shape.size());
  std::vector<index_t> net(shape.size(), 0);
  if (shifts.size() != axes_in.size() && shifts.size() != 1 && axes_in.size() != 1) {
    const shape_t s0{static_cast<index_t>(shifts.size())};
    const shape_t s1{static_cast<index_t>(axes_in.size())};
    throw shape_error(
        "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape " +
        compact_shape(s0) + " and arg 1 with shape " + compact_shape(s1) + ".");
  }
  const std::size_t count = std::max(shifts.size(), axes_in.size());
  std::vector<int> axes;
  for (index_t a : axes_in) {
    axes.push_back(normalize_axis(a, ndim));
  }
  for (std::size_t i = 0; i < count; ++i) {
    const index_t sh = shifts[shifts.size() == 1 ? 0 : i];
    const int ax = axes[axes.size() == 1 ? 0 : i];
    const index_t n = shape[static_cast<std::size_t>(ax)];
    if (n > 0) {
      net[static_cast<std::size_t>(ax)] = positive_mod(net[static_cast<std::size_t>(ax)] + positive_mod(sh, n), n);
    }
  }
  std::vector<remap_axis> plan;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    remap_axis a{shape[d], shape[d], remap_mode::identity, 0};
    if (net[d] != 0) {
      a.mode = remap_mode::wrap;
      a.before = net[d];
    }
    plan.push_back(a);
  }
  return plan;
}

tile_plan_t tile_plan(std::span<const index_t> shape, std::span<const index_t> reps_in) {
  for (index_t r : reps_in) {
    if (r < 0) {
      throw shape_error("negative dimensions are not allowed");
    }
  }
  tile_plan_t plan;
  const std::size_t nd = std::max(shape.size(), reps_in.size());
  plan.in_shape.assign(nd - shape.size(), 1);
  plan.in_shape.insert(plan.in_shape.end(), shape.begin(), shape.end());
  std::vector<index_t> reps(nd - reps_in.size(), 1);
  reps.insert(reps.end(), reps_in.begin(), reps_in.end());
  for (std::size_t d = 0; d < nd; ++d) {
    const index_t n = plan.in_shape[d];
    remap_axis a{checked_product(n, reps[d]), n, remap_mode::identity, 0};
    if (reps[d] != 1 && n > 0) {
      a.mode = remap_mode::wrap;
    }
    plan.axes.push_back(a);
  }
  return plan;
}

std::vector<remap_axis> repeat_plan(std::span<const index_t> shape, int axis, index_t count) {
  if (count < 0) {
    throw shape_error("negative dimensions are not allowed");
  }
  std::vector<remap_axis> plan;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    remap_axis a{shape[d], shape[d], remap_mode::identity, 0};
    if (static_cast<int>(d) == axis && count != 1) {
      a.out_extent = checked_product(shape[d], count);
      a.mode = remap_mode::divide;
      a.before = count;
    }
    plan.push_back(a);
  }
  return plan;
}

void check_repeat_count_size(index_t extent, index_t count_size) {
  if (count_size != extent && count_size != 1) {
    throw shape_error("operands could not be broadcast together with shape (" + std::to_string(extent) + ",) (" +
                      std::to_string(count_size) + ",)");
  }
}

void check_repeat_counts(index_t extent, std::span<const index_t> counts) {
  check_repeat_count_size(extent, static_cast<index_t>(counts.size()));
  for (index_t c : counts) {
    if (c < 0) {
      throw shape_error("repeats may not contain negative values.");
    }
  }
}

std::vector<std::int64_t> repeat_table(std::span<const index_t> counts) {
  index_t total = 0;
  for (index_t c : counts) {
    if (!try_add(total, c, total)) {
      throw shape_error("repeat: the total count overflows int64");
    }
  }
  std::vector<std::int64_t> table;
  table.reserve(static_cast<std::size_t>(total));
  for (std::size_t j = 0; j < counts.size(); ++j) {
    table.insert(table.end(), static_cast<std::size_t>(counts[j]), static_cast<std::int64_t>(j));
  }
  return table;
}

shape_t remap_shape(std::span<const remap_axis> axes) {
  shape_t s;
  for (const remap_axis& a : axes) {
    s.push_back(a.out_extent);
  }
  return s;
}

}  // namespace ndcuda::detail
