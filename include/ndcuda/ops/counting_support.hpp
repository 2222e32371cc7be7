// The host checks and conversions behind ops/counting.hpp: NumPy's argument rules and error texts
// for bincount, histogram and digitize, and the host reads they need. Builds on ops/reductions.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/detail/dependent_type.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/ops/detail/counting_kernels.hpp>
#include <ndcuda/ops/elementwise.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <ndcuda/ops/sorting.hpp>
#include <ndcuda/ops/static_size.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ndcuda {

/// np.histogram's `range=(lo, hi)`.
struct bin_range {
  double lo;  ///< the left edge of the first bin
  double hi;  ///< the right edge of the last bin
};

namespace detail {

/// A double as Python prints it in NumPy's messages (repr: 1.0, 0.5, nan, inf).
inline std::string python_float(double v) {
  if (std::isnan(v)) {
    return "nan";
  }
  if (std::isinf(v)) {
    return v > 0 ? "inf" : "-inf";
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  for (int p = 1; p <= 17; ++p) {  // the shortest text that reads back as v
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    if (std::strtod(buf, nullptr) == v) {
      break;
    }
  }
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) {
    s += ".0";
  }
  return s;
}

/// Refuses, before anything is queued, an operation that must read a value on the host while `s`
/// is capturing; `fix` says how to avoid the read.
inline void refuse_in_capture(const stream& s, const std::string& what, const std::string& fix) {
  if (s.is_capturing()) {
    throw capture_error(what +
                        " reads a value computed on the device on the host, but its stream is capturing a CUDA "
                        "graph; " +
                        fix);
  }
}

/// bincount's x: 1-d, of an integer dtype (bool read as uint8), contiguous.
template <class E>
auto counting_input(const ndarray<E>& a) {
  if constexpr (!is_integral(dtype_of<E>) && dtype_of<E> != dtype::bool_) {
    throw type_error("Cannot cast array data from dtype('" + std::string(name(dtype_of<E>)) +
                     "') to dtype('int64') according to the rule 'safe'");
    return ndarray<std::int64_t>();
  } else {
    if (a.ndim() > 1) {
      throw value_error("object too deep for desired array");
    }
    if (a.ndim() == 0) {
      throw value_error("object of too small depth for desired array");
    }
    using U = std::conditional_t<std::is_same_v<E, bool>, std::uint8_t, E>;
    if constexpr (std::is_same_v<E, bool>) {
      return a.template astype<U>();
    } else {
      return a.is_contiguous() ? a : a.copy();
    }
  }
}

/// max(x.max() + 1, minlength) after NumPy's checks; reads min and max on the host.
template <class E>
index_t bincount_length(const ndarray<E>& a, index_t minlength) {
  if (minlength < 0) {
    throw value_error("'minlength' must not be negative");
  }
  if (a.size() == 0) {
    return minlength;
  }
  refuse_in_capture(a.stream(), "bincount",
                    "its length is x.max() + 1; give it a static length with nd::bincount(x, nd::size(k))");
  if constexpr (is_signed(dtype_of<E>)) {
    if (static_cast<std::int64_t>(min(a).item()) < 0) {
      throw value_error("'list' argument must have no negative elements");
    }
  }
  const auto top = max(a).item();
  if constexpr (sizeof(E) == 8) {
    // top + 1 must fit int64 (INT64_MAX itself would wrap to a length of minlength, silently).
    if (top > static_cast<E>(INT64_MAX - 1)) {
      throw value_error("bincount: the largest value, " + std::to_string(top) + ", is too large for a count array");
    }
  }
  const auto need = static_cast<index_t>(top) + 1;
  return need > minlength ? need : minlength;
}

/// bincount's weights, of x's length and contiguous: float32 and float64 as they are (the kernel
/// widens each float32 weight to float64 exactly, as NumPy's cast does), other real dtypes as
/// float64. Reading float32 in place saves a pass that would write twice its bytes.
template <class E, class W>
auto bincount_weights(const ndarray<E>& x, const ndarray<W>& w) {
  if constexpr (is_complex(dtype_of<W>)) {
    throw type_error("Cannot cast array data from dtype('" + std::string(name(dtype_of<W>)) +
                     "') to dtype('float64') according to the rule 'safe'");
  }
  if (w.size() != x.size() || w.ndim() != 1) {
    throw value_error("The weights and list don't have the same length.");
  }
  using D = std::conditional_t<std::is_same_v<W, float> || std::is_same_v<W, double>, W, double>;
  ndarray<D> d = as_element_type<D>(w);
  d = d.is_contiguous() ? d : d.copy();
  order_after(x.stream(), d.stream());  // the counting kernel runs on x's stream
  return d;
}

inline void check_static_length(static_size k, const char* what) {
  if (k.value < 0) {
    throw value_error(std::string(what) + ": nd::size(" + std::to_string(k.value) + ") must not be negative");
  }
}

/// histogram's input, flattened and contiguous; float16/bfloat16 read as float32 (exactly), bool refused.
template <class E>
auto histogram_input(const ndarray<E>& a) {
  static_assert(dtype_of<E> != dtype::bool_ && !is_complex(dtype_of<E>),
                "histogram: real numbers only (NumPy refuses booleans: subtract is not defined for them)");
  if constexpr (dtype_of<E> == dtype::float16 || dtype_of<E> == dtype::bfloat16) {
    return a.template astype<float>().ravel();
  } else {
    return (a.is_contiguous() ? a : a.copy()).ravel();
  }
}

/// NumPy's _get_outer_edges: the range given (checked), or a.min()..a.max() read on the host
/// (0..1 when empty), widened by 0.5 each side when it is a single value.
template <class E>
bin_range outer_edges(const ndarray<E>& a, const std::optional<bin_range>& range) {
  double lo = 0;
  double hi = 1;
  if (range) {
    lo = range->lo;
    hi = range->hi;
    if (lo > hi) {
      throw value_error("max must be larger than min in range parameter.");
    }
    if (!std::isfinite(lo) || !std::isfinite(hi)) {
      throw value_error("supplied range of [" + python_float(lo) + ", " + python_float(hi) + "] is not finite");
    }
  } else if (a.size() > 0) {
    refuse_in_capture(a.stream(), "histogram without a range",
                      "its edges come from a.min() and a.max(); pass nd::bin_range{lo, hi}");
    lo = static_cast<double>(min(a).item());
    hi = static_cast<double>(max(a).item());
    if (!std::isfinite(lo) || !std::isfinite(hi)) {
      throw value_error("autodetected range of [" + python_float(lo) + ", " + python_float(hi) + "] is not finite");
    }
  }
  if (lo == hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  return {lo, hi};
}

/// histogramdd's rule for one dimension (its messages differ a little from histogram's).
template <class E>
bin_range outer_edges_dd(const ndarray<E>& a, const std::optional<bin_range>& range) {
  double lo = 0;
  double hi = 0;
  if (range) {
    lo = range->lo;
    hi = range->hi;
    if (lo > hi) {
      throw value_error("max must be larger than min in range parameter.");
    }
  } else if (a.size() > 0) {
    refuse_in_capture(a.stream(), "histogram2d without a range",
                      "its edges come from the data's min and max; pass std::array<nd::bin_range, 2>");
    lo = static_cast<double>(min(a).item());
    hi = static_cast<double>(max(a).item());
  }
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    throw value_error("range of [" + python_float(lo) + ", " + python_float(hi) + "] is not finite");
  }
  if (lo == hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  return {lo, hi};
}

/// A histogram's integer bin count: NumPy's value_error below 1, then shape_error when its bins + 1
/// edges (8 bytes each, as its counts) would not fit an array (INT64_MAX + 1 wrapped before).
inline void check_bin_count(index_t bins, const char* what) {
  if (bins < 1) {
    throw value_error("`bins` must be positive, when an integer");
  }
  (void)checked_bytes(checked_add(bins, 1, what), sizeof(double));
}

/// bins + 1 equal-width float64 edges over r, as np.linspace makes them.
inline ndarray<double> equal_edges(const bin_range& r, index_t bins, const stream& s) {
  ndarray<double> edges = empty<double>({bins + 1}, s);
  linspace_edges(edges.data(), r.lo, r.hi, bins + 1, s);
  return edges;
}

/// The same edges computed in F's own arithmetic (each operation rounded to F, as np.linspace does
/// for float32 or float16 end points), on the host: only the autodetected range uses it, which has
/// waited for the device already. Each F operation is one double operation rounded to F, which is
/// exact since double has more than twice F's precision plus two bits.
template <class F>
ndarray<F> equal_edges_in(const bin_range& r, index_t bins, const stream& s) {
  const auto rnd = [](double v) { return static_cast<double>(static_cast<F>(v)); };
  const double lo = rnd(r.lo);
  const double hi = rnd(r.hi);
  const double step = rnd(rnd(hi - lo) / static_cast<double>(bins));
  check_host_fits(bins + 1, sizeof(F), "histogram's bin edges, computed on the host");
  std::vector<F> host = checked_host_vector<F>(static_cast<std::size_t>(bins) + 1, "histogram's bin edges");
  for (index_t i = 0; i < bins; ++i) {
    host[static_cast<std::size_t>(i)] = static_cast<F>(rnd(rnd(static_cast<double>(i)) * step) + lo);
  }
  host[static_cast<std::size_t>(bins)] = static_cast<F>(hi);
  return asarray(host, {bins + 1}, s);
}

template <class E, class O>
void check_histogram_weights(const ndarray<E>& a, O& o) {
  if (o.weights) {
    if (o.weights->size() != a.size()) {
      throw value_error("weights should have the same shape as a.");
    }
    ndarray<double> w = o.weights->is_contiguous() ? *o.weights : o.weights->copy();
    order_after(a.stream(), w.stream());  // the counting kernel runs on a's stream
    o.weights = w.ravel().on_stream(a.stream());
  }
}

/// Each element's bin among `edges` (float64), -1 for none.
template <class E>
ndarray<std::int64_t> bin_indices(const ndarray<E>& a, const ndarray<double>& edges) {
  const ndarray<double> e = edges.is_contiguous() ? edges : edges.copy();
  ndarray<std::int64_t> idx = empty<std::int64_t>({a.size()}, a.stream());
  order_after(a.stream(), e.stream());
  bin_index_into(dtype_of<E>, a.data(), a.size(), e.data(), e.size(), idx.data(), a.stream());
  return idx;
}

/// The given edges as float64 after NumPy's checks (1-d, increasing: a host read).
template <class E>
ndarray<double> checked_edges(const ndarray<E>& edges) {
  static_assert(!is_complex(dtype_of<E>) && dtype_of<E> != dtype::bool_, "histogram: real bin edges only");
  if (edges.ndim() != 1) {
    throw value_error("`bins` must be 1d, when an array");
  }
  if (edges.size() < 2) {
    throw value_error("histogram: the bin edges must have at least 2 elements, got " + std::to_string(edges.size()));
  }
  refuse_in_capture(edges.stream(), "histogram with bin edges",
                    "it checks that the edges increase; pass a bin count and nd::bin_range instead");
  const ndarray<dependent_t<double, E>> e = edges.template astype<double>();  // see dependent_t
  const index_t n = e.size();
  if (any(e(slice(none, n - 1)) > e(slice(1, none))).item()) {
    throw value_error("`bins` must increase monotonically, when an array");
  }
  return e;
}

/// NumPy's _monotonicity: 1 increasing (non-strictly), -1 decreasing, 0 neither; a host read.
template <class E>
int monotonicity(const ndarray<E>& bins) {
  const index_t n = bins.size();
  if (n < 2) {
    return 1;
  }
  refuse_in_capture(bins.stream(), "digitize", "it checks that the bins are monotonic; use nd::searchsorted instead");
  const auto lo = bins(slice(none, n - 1));
  const auto hi = bins(slice(1, none));
  if (!any(lo > hi).item()) {
    return 1;
  }
  if (!any(lo < hi).item()) {
    return -1;
  }
  return 0;
}

}  // namespace detail
}  // namespace ndcuda

#pragma GCC visibility pop
