/// @file
/// NumPy's bincount, histogram, histogram2d and digitize. Builds on ops/sorting.hpp (searchsorted),
/// ops/reductions.hpp and the counting kernels of ops/detail/counting_kernels.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <array>
#include <cmath>
#include <cstdint>
#include <ndcuda/core/detail/dependent_type.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/ops/counting_support.hpp>
#include <ndcuda/ops/detail/counting_kernels.hpp>
#include <ndcuda/ops/elementwise.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <ndcuda/ops/sorting.hpp>
#include <ndcuda/ops/static_size.hpp>
#include <optional>
#include <string>
#include <type_traits>

namespace ndcuda {

// ---------------------------------------------------------------------------------------------
// bincount

/// NumPy's np.bincount(x, minlength=m): int64 counts of each value of the 1-d, non-negative
/// integer (or bool) array x; length max(x.max() + 1, minlength). The length is known only after
/// reading max(x), so this WAITS for x's stream (and refuses inside a graph capture: use the
/// nd::size(k) overload there).
template <array_operand X>
[[nodiscard]] ndarray<std::int64_t> bincount(const X& x, index_t minlength = 0) {
  const ndcuda::detail::op_range<"nd::bincount"> nvtx;
  const auto a = detail::counting_input(detail::as_array(x));
  const index_t nbins = detail::bincount_length(a, minlength);
  ndarray<std::int64_t> out = zeros<std::int64_t>({nbins}, a.stream());
  detail::bincount_into(a.type(), a.data(), a.size(), dtype::float64, nullptr, nbins, out.data(), nullptr, a.stream());
  return out;
}

/// np.bincount(x, weights, minlength): float64 sums of the weights (any real dtype, cast to
/// float64 as NumPy does) of each value; weights must have x's length.
template <array_operand X, array_operand W>
[[nodiscard]] ndarray<double> bincount(const X& x, const W& weights, index_t minlength = 0) {
  const ndcuda::detail::op_range<"nd::bincount"> nvtx;
  const auto a = detail::counting_input(detail::as_array(x));
  const auto w = detail::bincount_weights(a, detail::as_array(weights));
  const index_t nbins = detail::bincount_length(a, minlength);
  ndarray<double> out = zeros<double>({nbins}, a.stream());
  detail::bincount_into(a.type(), a.data(), a.size(), w.type(), w.data(), nbins, nullptr, out.data(), a.stream());
  return out;
}

/// bincount with a static length (JAX's `length=`): exactly k bins, values outside [0, k)
/// (negative ones included) are ignored rather than checked, so nothing waits for the device and
/// the call can be captured into a graph.
template <array_operand X>
[[nodiscard]] ndarray<std::int64_t> bincount(const X& x, static_size k) {
  const ndcuda::detail::op_range<"nd::bincount"> nvtx;
  const auto a = detail::counting_input(detail::as_array(x));
  detail::check_static_length(k, "bincount");
  ndarray<std::int64_t> out = zeros<std::int64_t>({k.value}, a.stream());
  detail::bincount_into(a.type(), a.data(), a.size(), dtype::float64, nullptr, k.value, out.data(), nullptr,
                        a.stream());
  return out;
}
/// Weighted bincount with exactly k bins: sums of `weights` per value, float64; out-of-range values ignored.
template <array_operand X, array_operand W>
[[nodiscard]] ndarray<double> bincount(const X& x, const W& weights, static_size k) {
  const ndcuda::detail::op_range<"nd::bincount"> nvtx;
  const auto a = detail::counting_input(detail::as_array(x));
  const auto w = detail::bincount_weights(a, detail::as_array(weights));
  detail::check_static_length(k, "bincount");
  ndarray<double> out = zeros<double>({k.value}, a.stream());
  detail::bincount_into(a.type(), a.data(), a.size(), w.type(), w.data(), k.value, nullptr, out.data(), a.stream());
  return out;
}

// ---------------------------------------------------------------------------------------------
// histogram

/// np.histogram's `density=True`: counts / bin width / total, as float64.
struct density_t {
  explicit density_t() = default;
};
/// Pass to histogram for np.histogram's `density=True`.
inline constexpr density_t density{};

/// What np.histogram returns: (hist, bin_edges).
template <class C, class F>
struct histogram_result {
  ndarray<C> counts;  ///< hist: the count (or density) of each bin
  ndarray<F> edges;   ///< bin_edges: bins + 1 edges
};

namespace detail {

template <class... O>
inline constexpr bool has_density = (std::is_same_v<O, density_t> || ...);

/// The weights' dtype among the options (void when there are none).
template <class O>
struct array_element_of {
  using type = void;
};
template <class E>
struct array_element_of<ndarray<E>> {
  using type = E;
};
template <class... O>
struct weights_of {
  using type = void;
};
template <class O, class... Rest>
struct weights_of<O, Rest...> {
  using type =
      std::conditional_t<is_ndarray<O>, typename array_element_of<O>::type, typename weights_of<Rest...>::type>;
};
template <class... O>
using weights_type = typename weights_of<O...>::type;

/// NumPy's hist dtype: int64 counts, the weights' dtype with weights, float64 with density.
template <class... O>
using histogram_count_t =
    std::conditional_t<has_density<O...>, double,
                       std::conditional_t<std::is_void_v<weights_type<O...>>, std::int64_t, weights_type<O...>>>;

/// Collects the options of a histogram call (bin_range, weights array, density) in any order.
struct histogram_options {
  std::optional<bin_range> range;
  std::optional<ndarray<double>> weights;
  bool density = false;
  template <class O>
  void take(const O& o) {
    if constexpr (std::is_same_v<O, bin_range>) {
      range = o;
    } else if constexpr (std::is_same_v<O, density_t>) {
      density = true;
    } else {
      static_assert(is_ndarray<O>, "histogram options are nd::bin_range{lo, hi}, a weights array and nd::density");
      static_assert(!is_complex(dtype_of<typename O::value_type>), "histogram: complex weights are not supported");
      weights = as_element_type<double>(o);
    }
  }
};

/// hist of a's elements among `binned` (the edges as float64) and the options; `edges` are
/// returned as they are. Counts take one fused pass (bin_count_into); weights need each element's
/// bin first.
template <class C, class F, class E>
histogram_result<C, F> finish_histogram(const ndarray<E>& a, const ndarray<double>& binned, const ndarray<F>& edges,
                                        const histogram_options& o) {
  const index_t nbins = edges.size() - 1;
  const stream& s = a.stream();
  ndarray<double> sums;
  ndarray<std::int64_t> counts;
  if (o.weights) {
    const ndarray<std::int64_t> idx = bin_indices(a, binned);
    sums = zeros<double>({nbins}, s);
    bincount_into(dtype::int64, idx.data(), idx.size(), dtype::float64, o.weights->data(), nbins, nullptr, sums.data(),
                  s);
  } else {
    const ndarray<double> e = binned.is_contiguous() ? binned : binned.copy();
    counts = zeros<std::int64_t>({nbins}, s);
    order_after(s, e.stream());
    bin_count_into(dtype_of<E>, a.data(), a.size(), e.data(), e.size(), counts.data(), s);
  }
  if (o.density) {
    // NumPy: n / db / n.sum() with db = diff(edges) as float64.
    using D = dependent_t<double, C>;  // instantiated with the template, not in every includer
    const ndarray<D> n = o.weights ? sums : counts.template astype<double>();
    const ndarray<D> e = edges.template astype<double>();
    const ndarray<D> db = e(slice(1, none)) - e(slice(none, -1));
    ndarray<C> h = (n / db / sum(n)).template astype<C>();  // C is float64 whenever density is given
    return {h, edges};
  } else if constexpr (std::is_same_v<C, std::int64_t>) {
    return {counts, edges};
  } else {
    return {sums.template astype<C>(), edges};
  }
}

}  // namespace detail

/// NumPy's np.histogram(a, bins, range, weights, density) over the flattened a: `bins` equal bins
/// from range (default: a.min() to a.max(), which WAITS for the device; give a range to capture).
/// Options in any order: nd::bin_range{lo, hi}, a weights array of a's shape, nd::density.
/// Edges are float64 for integer input, a's own float dtype otherwise (as NumPy's); counts int64,
/// the weights' dtype with weights, float64 with density. Bins are half open, the last closed.
template <array_operand X, class... O>
[[nodiscard]] auto histogram(const X& x, index_t bins = 10, const O&... options) {
  const ndcuda::detail::op_range<"nd::histogram"> nvtx;
  const auto raw = detail::as_array(x);
  using A = typename decltype(raw)::value_type;
  using F = std::conditional_t<is_floating(dtype_of<A>), A, double>;
  const auto a = detail::histogram_input(raw);
  detail::histogram_options o;
  (o.take(options), ...);
  detail::check_bin_count(bins, "histogram's bins + 1 edges");
  const bin_range r = detail::outer_edges(a, o.range);
  // NumPy's linspace computes in the dtype of its end points: a.min()/a.max() keep a's float type,
  // a given range (Python floats) and integer data give float64.
  const bool in_own_type = !o.range && a.size() > 0 && is_floating(dtype_of<A>);
  const ndarray<F> edges = in_own_type ? detail::equal_edges_in<F>(r, bins, a.stream())
                                       : detail::as_element_type<F>(detail::equal_edges(r, bins, a.stream()));
  detail::check_histogram_weights(a, o);
  return detail::finish_histogram<detail::histogram_count_t<O...>, F>(a, detail::as_element_type<double>(edges), edges,
                                                                      o);
}

/// np.histogram(a, bins=edges, ...): the given, monotonically increasing edges (checked, which
/// WAITS for the device), returned as they are.
template <array_operand X, array_element E, class... O>
[[nodiscard]] auto histogram(const X& x, const ndarray<E>& edges, const O&... options) {
  const ndcuda::detail::op_range<"nd::histogram"> nvtx;
  const auto a = detail::histogram_input(detail::as_array(x));
  detail::histogram_options o;
  (o.take(options), ...);
  const ndarray<double> e = detail::checked_edges(edges);
  detail::check_histogram_weights(a, o);
  return detail::finish_histogram<detail::histogram_count_t<O...>, E>(a, e, edges, o);
}

/// What np.histogram2d returns: (H, xedges, yedges), all float64.
struct histogram2d_result {
  ndarray<double> counts;  ///< H: counts (or densities) of shape (xbins, ybins)
  ndarray<double> xedges;  ///< the xbins + 1 edges along x
  ndarray<double> yedges;  ///< the ybins + 1 edges along y
};

/// NumPy's np.histogram2d(x, y, bins=(nx, ny), range=((xlo, xhi), (ylo, yhi)), weights, density):
/// float64 counts of shape (nx, ny); x and y 1-d of one length. Options: a std::array<bin_range, 2>,
/// a weights array, nd::density. Without a range, min and max are read (a WAIT).
template <array_operand X, array_operand Y, class... O>
[[nodiscard]] histogram2d_result histogram2d(const X& x, const Y& y, std::array<index_t, 2> bins, const O&... options) {
  const ndcuda::detail::op_range<"nd::histogram2d"> nvtx;
  const auto a = detail::histogram_input(detail::as_array(x));
  const auto b = detail::histogram_input(detail::as_array(y));
  detail::histogram_options o;
  std::optional<std::array<bin_range, 2>> ranges;
  const auto take = [&](const auto& opt) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(opt)>, std::array<bin_range, 2>>) {
      ranges = opt;
    } else {
      o.take(opt);
    }
  };
  (take(options), ...);
  if (a.size() != b.size()) {
    throw value_error("x and y must have the same length.");
  }
  if (bins[0] < 1 || bins[1] < 1) {
    throw value_error("histogram2d: `bins` must be positive, got (" + std::to_string(bins[0]) + ", " +
                      std::to_string(bins[1]) + ")");
  }
  // The counts' (nx * ny) and the edges' sizes, checked before anything is made.
  const index_t nbins = checked_mul(bins[0], bins[1], "histogram2d's nx * ny bins");
  (void)checked_bytes(nbins, sizeof(double));
  detail::check_bin_count(bins[0], "histogram2d's x edges");
  detail::check_bin_count(bins[1], "histogram2d's y edges");
  const bin_range rx = detail::outer_edges_dd(a, ranges ? std::optional(ranges->at(0)) : std::nullopt);
  const bin_range ry = detail::outer_edges_dd(b, ranges ? std::optional(ranges->at(1)) : std::nullopt);
  // Locals in types that depend on X: their expressions are instantiated with the template, not in
  // every translation unit that includes this header (core/detail/dependent_type.hpp).
  using I = detail::dependent_t<std::int64_t, X>;
  using F = detail::dependent_t<double, X>;
  const ndarray<F> ex = detail::equal_edges(rx, bins[0], a.stream());
  const ndarray<F> ey = detail::equal_edges(ry, bins[1], a.stream());
  detail::check_histogram_weights(a, o);
  const ndarray<I> ix = detail::bin_indices(a, ex);
  detail::order_after(a.stream(), b.stream());
  const ndarray<I> iy = detail::bin_indices(b.on_stream(a.stream()), ey);
  const ndarray<std::int64_t> flat = where((ix >= 0) & (iy >= 0), ix * bins[1] + iy, std::int64_t{-1});
  ndarray<F> h = zeros<double>({nbins}, a.stream());
  ndarray<std::int64_t> counts;
  if (o.weights) {
    detail::bincount_into(dtype::int64, flat.data(), flat.size(), dtype::float64, o.weights->data(), nbins, nullptr,
                          h.data(), a.stream());
  } else {
    counts = zeros<std::int64_t>({nbins}, a.stream());
    detail::bincount_into(dtype::int64, flat.data(), flat.size(), dtype::float64, nullptr, nbins, counts.data(),
                          nullptr, a.stream());
    h = counts.astype<double>();
  }
  h = h.reshape({bins[0], bins[1]});
  if (o.density) {
    const ndarray<F> dx = ndarray<F>(ex(slice(1, none)) - ex(slice(none, -1))).reshape({bins[0], 1});
    const ndarray<F> dy = ndarray<F>(ey(slice(1, none)) - ey(slice(none, -1))).reshape({1, bins[1]});
    h = h / dx / dy / sum(h);
  }
  return {h, ex, ey};
}
/// np.histogram2d with the same number of bins along x and y.
template <array_operand X, array_operand Y, class... O>
[[nodiscard]] histogram2d_result histogram2d(const X& x, const Y& y, index_t bins = 10, const O&... options) {
  return histogram2d(x, y, std::array<index_t, 2>{bins, bins}, options...);
}

// ---------------------------------------------------------------------------------------------
// digitize

/// NumPy's np.digitize(x, bins, right): int64 indices i of the bins each x falls in, for 1-d bins
/// that increase or decrease monotonically (checked on the host, a WAIT). Increasing bins:
/// bins[i-1] <= x < bins[i] (right: bins[i-1] < x <= bins[i]); decreasing the mirror image.
template <array_operand X, array_element E>
[[nodiscard]] ndarray<std::int64_t> digitize(const X& x, const ndarray<E>& bins, bool right = false) {
  const ndcuda::detail::op_range<"nd::digitize"> nvtx;
  const auto v = detail::as_array(x);
  if (bins.ndim() > 1) {
    throw value_error("object too deep for desired array");
  }
  if (bins.ndim() == 0) {
    throw value_error("object of too small depth for desired array");
  }
  const side which = right ? side::left : side::right;
  const int mono = detail::monotonicity(bins);
  if (mono == 0) {
    throw value_error("bins must be monotonically increasing or decreasing");
  }
  if (mono > 0) {
    return searchsorted(bins, v, which, v.stream());
  }
  const ndarray<std::int64_t> pos = searchsorted(bins(slice(none, none, -1)), v, which, v.stream());
  return ndarray<std::int64_t>(bins.size() - pos);
}

}  // namespace ndcuda

#pragma GCC visibility pop
