// The host planning of the gather kernel's index maps: np.pad's widths and values, pad, roll,
// tile and repeat; see ops/detail/arrange_plan.hpp. Error texts are NumPy 2's.
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

}  // namespace

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

std::vector<std::int64_t> repeat_ends(std::span<const index_t> counts) {
  std::vector<std::int64_t> ends;
  ends.reserve(counts.size());
  index_t total = 0;
  for (index_t c : counts) {
    if (!try_add(total, c, total)) {
      throw shape_error("repeat: the counts sum past int64 (" + std::to_string(counts.size()) +
                        " counts); array is too big");
    }
    ends.push_back(total);
  }
  return ends;
}

void check_repeat_total(double approximate_total) {
  // 2**62 elements is already past every device; below it double's rounding cannot hide a wrap.
  if (!(approximate_total < 0x1p62)) {
    throw shape_error("repeat: the counts sum to about " + std::to_string(approximate_total) +
                      " elements along the axis; array is too big");
  }
}

shape_t remap_shape(std::span<const remap_axis> axes) {
  shape_t s;
  for (const remap_axis& a : axes) {
    s.push_back(a.out_extent);
  }
  return s;
}

}  // namespace ndcuda::detail
