// NumPy's rules for n / s / axes / norm in numpy.fft, with its messages. No device code.
#include <algorithm>
#include <cmath>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/fft/detail/fft_plan.hpp>
#include <string>

namespace ndcuda::fft::detail {

norm_mode parse_norm(std::string_view norm) {
  if (norm == "backward") {
    return norm_mode::backward;
  }
  if (norm == "ortho") {
    return norm_mode::ortho;
  }
  if (norm == "forward") {
    return norm_mode::forward;
  }
  throw error("Invalid norm value " + std::string(norm) + "; should be \"backward\", \"ortho\" or \"forward\".");
}

norm_mode swap_direction(norm_mode m) noexcept {
  return m == norm_mode::backward ? norm_mode::forward : m == norm_mode::forward ? norm_mode::backward : m;
}

double scale_for(norm_mode m, bool inverse, double n) noexcept {
  if (n <= 0) {
    return 1.0;
  }
  switch (m) {
    case norm_mode::ortho:
      return 1.0 / std::sqrt(n);
    case norm_mode::backward:
      return inverse ? 1.0 / n : 1.0;
    case norm_mode::forward:
      return inverse ? 1.0 : 1.0 / n;
  }
  return 1.0;
}

namespace {

void check_length(index_t n, const char* what) {
  if (n < 1) {
    throw shape_error(std::string(what) + ": Invalid number of FFT data points (" + std::to_string(n) + ") specified.");
  }
}

}  // namespace

axes_plan plan_axes(std::span<const index_t> shape, const std::optional<shape_t>& s,
                    const std::optional<std::vector<index_t>>& axes, bool half_last, const char* what) {
  const int nd = static_cast<int>(shape.size());
  axes_plan p;
  if (axes) {
    p.axes = normalize_axes(*axes, nd);
  } else {
    const int count = s ? static_cast<int>(s->size()) : nd;
    if (count > nd) {
      throw shape_error(std::string(what) + ": s has " + std::to_string(count) + " entries but the array has only " +
                        std::to_string(nd) + " dimensions; pass axes as well");
    }
    for (int i = nd - count; i < nd; ++i) {
      p.axes.push_back(i);
    }
  }
  if (s && s->size() != p.axes.size()) {
    throw shape_error(std::string(what) + ": Shape and axes have different lengths (" + std::to_string(s->size()) +
                      " and " + std::to_string(p.axes.size()) + ").");
  }
  if (p.axes.empty() && half_last) {
    throw shape_error(std::string(what) + ": needs at least one axis to transform");
  }
  for (std::size_t i = 0; i < p.axes.size(); ++i) {
    index_t n = 0;
    if (s && (*s)[i] != -1) {
      n = (*s)[i];
    } else {
      n = shape[static_cast<std::size_t>(p.axes[i])];
      if (half_last && i + 1 == p.axes.size()) {
        n = checked_mul(2, n - 1, what);
      }
    }
    check_length(n, what);
    p.lengths.push_back(n);
  }
  return p;
}

axes_plan plan_axis(std::span<const index_t> shape, std::optional<index_t> n, index_t axis, bool half_last,
                    const char* what) {
  if (shape.empty()) {
    throw shape_error(std::string(what) + ": axis " + std::to_string(axis) +
                      " is out of bounds for array of dimension 0");
  }
  // NumPy's n has no "-1 means the input's length" (only fftn's s has): n = -1 is refused.
  if (n) {
    check_length(*n, what);
  }
  const std::optional<shape_t> s = n ? std::optional<shape_t>(shape_t{*n}) : std::nullopt;
  return plan_axes(shape, s, std::vector<index_t>{axis}, half_last, what);
}

}  // namespace ndcuda::fft::detail
