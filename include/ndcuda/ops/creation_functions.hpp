/// @file
/// NumPy's creation functions that are expressions over arrays: linspace with retstep and with
/// array endpoints, logspace, geomspace, full with an array fill, fromfunction and vander (tri is
/// in rearranging.hpp).
/// Builds on array/creation.hpp (empty, arange, linspace) and the ops layer's expressions, scans
/// and reductions; every result is computed on the device, in double as NumPy computes it.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/core/detail/dependent_type.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/promotion.hpp>
#include <ndcuda/ops/functions.hpp>
#include <ndcuda/ops/operators.hpp>
#include <ndcuda/ops/rearranging_views.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <ndcuda/ops/scans.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace ndcuda {

/// The tag that asks linspace for its step too (NumPy's retstep=True).
struct retstep_t {
  explicit constexpr retstep_t() = default;
};
inline constexpr retstep_t retstep{};  ///< nd::linspace(0.0, 1.0, 5, nd::retstep)

/// linspace's samples and the spacing between them (NaN when num < 2 with the endpoint, or 0).
template <array_element E>
struct linspace_result {
  ndarray<E> samples;  ///< the num values
  double step;         ///< the spacing between them
};

namespace detail {

inline void check_num(index_t num) {
  if (num < 0) {
    throw value_error("Number of samples, " + std::to_string(num) + ", must be non-negative.");
  }
}

template <class E>
constexpr void require_real_creation() {
  static_assert(!is_complex(dtype_of<E>) && dtype_of<E> != dtype::bool_,
                "this creation function makes real numeric types only (NumPy's complex forms are not supported)");
}

/// The dtype fromfunction's index arrays have: E itself for real numbers, int64 for bool, double for complex.
template <class E>
using index_array_t = std::conditional_t<dtype_of<E> == dtype::bool_, std::int64_t,
                                         std::conditional_t<is_complex(dtype_of<E>), double, E>>;

template <array_element E, class F, std::size_t N, std::size_t... I>
ndarray<E> fromfunction_impl(F& f, const std::array<index_t, N>& extents, std::optional<stream> s,
                             std::index_sequence<I...>) {
  using I_t = index_array_t<E>;
  shape_t shape(extents.begin(), extents.end());
  ndarray<E> out = empty<E>(shape, s);
  // Index array k has shape (1, ..., n_k, ..., 1): the expression broadcasts them, so f's body
  // runs as one fused kernel over the full shape and no full-size index array is made.
  auto axis_indices = [&](std::size_t k) {
    shape_t view(N, 1);
    view[k] = extents[k];
    return arange<I_t>(0.0, static_cast<double>(extents[k]), 1.0, out.stream()).reshape(view);
  };
  std::array<ndarray<I_t>, N> idx{axis_indices(I)...};
  if (out.size() > 0) {
    out.assign(f(idx[I]...));
  }
  return out;
}

/// NumPy's complex division (Smith's method, as its divide loop): the signed zeros it gives pick
/// the same branch of log10 in geomspace as NumPy's.
inline std::complex<double> numpy_divide(std::complex<double> x, std::complex<double> y) {
  const double a = x.real();
  const double b = x.imag();
  const double c = y.real();
  const double d = y.imag();
  if (std::fabs(c) >= std::fabs(d)) {
    if (c == 0 && d == 0) {
      return {a / std::fabs(c), b / std::fabs(d)};
    }
    const double rat = d / c;
    const double scl = 1.0 / (c + d * rat);
    return {(a + b * rat) * scl, (b - a * rat) * scl};
  }
  const double rat = c / d;
  const double scl = 1.0 / (d + c * rat);
  return {(a * rat + b) * scl, (b * rat - a) * scl};
}

/// NumPy's log10 of a complex number: clog scaled by log10(e).
inline std::complex<double> numpy_log10(std::complex<double> z) {
  const std::complex<double> l = std::log(z);
  constexpr double log10e = 0.434294481903251827651128918916605082;
  return {l.real() * log10e, l.imag() * log10e};
}

}  // namespace detail

/// NumPy's linspace(start, stop, num, retstep=True): the samples and the step, (stop - start) /
/// (num - 1) (or / num without the endpoint); NaN when there is no interval to divide.
template <array_element E>
linspace_result<E> linspace(double start, double stop, index_t num, retstep_t, std::optional<stream> s = std::nullopt) {
  return linspace<E>(start, stop, num, true, retstep, s);
}
/// NumPy's linspace(start, stop, num, endpoint, retstep=True).
template <array_element E>
linspace_result<E> linspace(double start, double stop, index_t num, bool endpoint, retstep_t,
                            std::optional<stream> s = std::nullopt) {
  detail::check_num(num);
  const index_t div = endpoint ? num - 1 : num;
  const double step = div > 0 ? (stop - start) / static_cast<double>(div) : std::nan("");
  return {linspace<E>(start, stop, num, endpoint, s), step};
}

/// NumPy's linspace with array endpoints: `start` and `stop` broadcast together, and the `num`
/// samples run along a new axis at `axis` (0: first; negative counts from the end of the result),
/// computed in double as NumPy does (start + i * step, the last one exactly stop); integer types
/// round down.
template <array_element E, array_element A, array_element B>
ndarray<E> linspace(const ndarray<A>& start, const ndarray<B>& stop, index_t num, bool endpoint = true,
                    index_t axis = 0, std::optional<stream> s = std::nullopt) {
  detail::require_real_creation<E>();
  detail::check_num(num);
  const stream st = s ? *s : start.stream();
  using F = detail::dependent_t<double, E>;  // instantiated with the template, not in every includer
  const ndarray<F> lo = start.template astype<double>();
  const ndarray<F> hi = stop.template astype<double>();
  const shape_t base = broadcast_shapes(lo.shape(), hi.shape());
  const auto ndim = static_cast<index_t>(base.size()) + 1;
  if (axis < -ndim || axis >= ndim) {
    throw index_error("linspace: axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                      std::to_string(ndim));
  }
  shape_t seq_shape(base.size() + 1, 1);
  seq_shape[0] = num;
  const ndarray<F> seq = arange<double>(0.0, static_cast<double>(num), 1.0, st).reshape(seq_shape);
  const ndarray<F> delta = hi - lo;
  const index_t div = endpoint ? num - 1 : num;
  ndarray<F> y;
  if (div > 0) {
    const ndarray<F> step = delta / static_cast<double>(div);
    // NumPy divides the sequence first where a step underflows to 0, so tiny intervals keep their values.
    if (step.size() > 0 && any(step == 0.0).item()) {
      y = (seq / static_cast<double>(div)) * delta + lo;
    } else {
      y = seq * step + lo;
    }
  } else {
    y = seq * delta + lo;
  }
  if (endpoint && num > 1) {
    y(num - 1) = hi;
  }
  if constexpr (is_integral(dtype_of<E>)) {
    y = floor(y);
  }
  ndarray<E> out = y.template astype<E>();
  return axis == 0 || axis == -ndim ? out : moveaxis(out, 0, axis);
}

/// NumPy's logspace: base ** linspace(start, stop, num, endpoint), computed in double, then
/// converted to E (integers truncate, as NumPy's astype).
template <array_element E>
ndarray<E> logspace(double start, double stop, index_t num = 50, bool endpoint = true, double base = 10.0,
                    std::optional<stream> s = std::nullopt) {
  detail::require_real_creation<E>();
  detail::check_num(num);
  const ndarray<detail::dependent_t<double, E>> y = linspace<double>(start, stop, num, endpoint, s);
  return power(base, y).template astype<E>();
}

/// geomspace with complex endpoints: NumPy's path, rotating between the endpoints' angles.
template <array_element E>
requires(is_complex(dtype_of<E>)) ndarray<E> geomspace(std::complex<double> start, std::complex<double> stop,
                                                       index_t num = 50, bool endpoint = true,
                                                       std::optional<stream> s = std::nullopt);

/// NumPy's geomspace: `num` samples evenly spaced on a log scale from start to stop, with both
/// ends exact. Negative ranges keep their sign; value_error when either end is 0; a range that
/// crosses zero gives NaN, as NumPy's (which also warns). A complex E takes the complex path above.
template <array_element E>
ndarray<E> geomspace(double start, double stop, index_t num = 50, bool endpoint = true,
                     std::optional<stream> s = std::nullopt) {
  if constexpr (is_complex(dtype_of<E>)) {
    return geomspace<E>(std::complex<double>(start), std::complex<double>(stop), num, endpoint, s);
  } else {
    detail::require_real_creation<E>();
    if (start == 0 || stop == 0) {
      throw value_error("Geometric sequence cannot include zero");
    }
    detail::check_num(num);
    const double sign = start < 0 ? -1.0 : (start > 0 ? 1.0 : start);  // NumPy's sign(start) (NaN stays NaN)
    const double lo = start / sign;
    const double hi = stop / sign;
    const ndarray<detail::dependent_t<double, E>> ends =
        linspace<double>(std::log10(lo), std::log10(hi), num, endpoint, s);
    ndarray<detail::dependent_t<double, E>> y = power(10.0, ends);
    if (num > 0) {
      y(0) = lo;
      if (num > 1 && endpoint) {
        y(num - 1) = hi;
      }
    }
    return (y * sign).template astype<E>();
  }
}

/// NumPy's geomspace between complex numbers: start is rotated onto the positive real axis
/// (divided by sign(start) = start / |start|), the samples are 10 ** a complex linspace between
/// the rotated ends' log10, and the rotation is undone; both ends are exact up to that rotation.
/// Computed in complex128 as NumPy does, then converted to E.
template <array_element E>
requires(is_complex(dtype_of<E>)) ndarray<E> geomspace(std::complex<double> start, std::complex<double> stop,
                                                       index_t num, bool endpoint, std::optional<stream> s) {
  using c128 = std::complex<double>;
  if (start == 0.0 || stop == 0.0) {
    throw value_error("Geometric sequence cannot include zero");
  }
  detail::check_num(num);
  const double magnitude = std::hypot(start.real(), start.imag());
  const c128 sign{start.real() / magnitude, start.imag() / magnitude};
  const c128 lo = detail::numpy_divide(start, sign);
  const c128 hi = detail::numpy_divide(stop, sign);
  const c128 log_lo = detail::numpy_log10(lo);
  const c128 log_hi = detail::numpy_log10(hi);
  // NumPy's linspace in complex128: start + i * (delta / div), or (i / div) * delta when that step is 0.
  const index_t div = endpoint ? num - 1 : num;
  const c128 delta = log_hi - log_lo;
  const ndarray<detail::dependent_t<double, E>> t = arange<double>(0.0, static_cast<double>(num), 1.0, s);
  ndarray<detail::dependent_t<c128, E>> y;
  if (div > 0) {
    const c128 step = detail::numpy_divide(delta, c128(static_cast<double>(div)));
    if (step == 0.0) {
      y = power(10.0, (t / static_cast<double>(div)) * delta + log_lo);
    } else {
      y = power(10.0, t * step + log_lo);
    }
  } else {
    y = power(10.0, t * delta + log_lo);
  }
  if (num > 0) {
    y(0) = lo;
    if (num > 1 && endpoint) {
      y(num - 1) = hi;
    }
  }
  return (y * sign).template astype<E>();
}

/// NumPy's full(shape, fill) with an array fill: `fill` broadcast to `shape` and converted to E
/// (as astype converts); shape_error when it does not broadcast. E defaults to fill's dtype.
template <class E = void, array_element F>
requires(std::is_void_v<E> || array_element<E>) ndarray<std::conditional_t<std::is_void_v<E>, F, E>> full(
    shape_t shape, const ndarray<F>& fill, std::optional<stream> s = std::nullopt) {
  using T = std::conditional_t<std::is_void_v<E>, F, E>;
  ndarray<T> a = empty<T>(std::move(shape), s ? *s : fill.stream());
  a.assign(fill);
  return a;
}

/// NumPy's fromfunction(f, shape, dtype=E): f is called once with one index array per axis (of
/// dtype E; int64 for bool, double for complex) and its result, an expression, is evaluated
/// into a new array of `shape` in one fused kernel: `fromfunction<float>([](auto i, auto j) {
/// return i * 10 + j; }, {3, 4})`. Unlike NumPy the result always has `shape` (f's result is
/// broadcast to it) and dtype E.
template <array_element E, class F, std::size_t N>
ndarray<E> fromfunction(F&& f, const index_t (&shape)[N], std::optional<stream> s = std::nullopt) {
  std::array<index_t, N> extents{};
  for (std::size_t k = 0; k < N; ++k) {
    extents[k] = shape[k];
  }
  return detail::fromfunction_impl<E>(f, extents, s, std::make_index_sequence<N>{});
}
/// fromfunction with the shape as a std::array.
template <array_element E, class F, std::size_t N>
ndarray<E> fromfunction(F&& f, const std::array<index_t, N>& shape, std::optional<stream> s = std::nullopt) {
  return detail::fromfunction_impl<E>(f, shape, s, std::make_index_sequence<N>{});
}

/// NumPy's vander(x, N, increasing): columns x**(N-1), ..., x**0 (or x**0, ..., x**(N-1) when
/// increasing), N = len(x) by default, built by repeated multiplication as NumPy does. The dtype is
/// NumPy's promote_types(x.dtype, int64): int64 for bool and integers up to int64, float64 for
/// uint64 and real floats, complex128 for complex. value_error unless x is 1-d.
template <array_element X>
auto vander(const ndarray<X>& x, std::optional<index_t> n = std::nullopt, bool increasing = false,
            std::optional<stream> s = std::nullopt) {
  using R = promote_t<X, std::int64_t>;
  if (x.ndim() != 1) {
    throw value_error("x must be a one-dimensional array or sequence.");
  }
  const index_t len = x.shape()[0];
  const index_t cols = n.value_or(len);
  if (cols < 0) {
    throw value_error("vander: N must be non-negative (got " + std::to_string(cols) + ")");
  }
  ndarray<R> v = empty<R>({len, cols}, s ? *s : x.stream());
  if (v.size() == 0) {
    return v;
  }
  const ndarray<R> tmp = increasing ? v : v(all, slice(none, none, -1));
  tmp(all, 0) = 1;
  if (cols > 1) {
    const ndarray<R> base = x.template astype<R>().reshape({len, 1}).broadcast_to({len, cols - 1}).copy();
    tmp(all, slice(1, none)) = cumprod<R>(base, 1, v.stream());
  }
  return v;
}

}  // namespace ndcuda

#pragma GCC visibility pop
