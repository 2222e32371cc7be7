/// @file
/// NumPy's fft module: fft/ifft/rfft/irfft/hfft/ihfft, their 2-d and n-d forms, fftfreq/rfftfreq
/// and fftshift/ifftshift. Builds on fft/detail/entry_points.hpp (cuFFT with a per-device plan
/// cache, compiled into ndcuda::linalg) and ops/ for conversions and scaling.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <concepts>
#include <initializer_list>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/expr/operand_array.hpp>
#include <ndcuda/fft/detail/entry_points.hpp>
#include <ndcuda/fft/detail/fft_plan.hpp>
#include <ndcuda/ops/elementwise.hpp>
#include <optional>
#include <string_view>
#include <vector>

namespace ndcuda::fft {

namespace detail {

using ndcuda::detail::erase;
using ndcuda::detail::restore;
using ndcuda::detail::to_array;
template <class X>
using value_t = ndcuda::detail::operand_value_t<X>;

/// The complex dtype a transform of input dtype t computes in: complex64 for float32, float16,
/// bfloat16 and complex64; complex128 otherwise (float64, integers, bool), as NumPy 2.
constexpr dtype complex_for(dtype t) noexcept {
  return t == dtype::float32 || t == dtype::float16 || t == dtype::bfloat16 || t == dtype::complex64
             ? dtype::complex64
             : dtype::complex128;
}
constexpr dtype real_for(dtype t) noexcept {
  return complex_for(t) == dtype::complex64 ? dtype::float32 : dtype::float64;
}

template <class E>
void scale_in_place(const ndarray<E>& r, double factor) {
  if (factor != 1.0) {
    using R = type_of<dtype_of<E> == dtype::complex64    ? dtype::float32
                      : dtype_of<E> == dtype::complex128 ? dtype::float64
                                                         : dtype_of<E>>;
    r(ellipsis) = r * static_cast<R>(factor);
  }
}

inline double points(const shape_t& lengths) {
  double n = 1;
  for (index_t l : lengths) {
    n *= static_cast<double>(l);
  }
  return n;
}

template <class X>
auto cfftn(const X& x, const axes_plan& p, bool inverse, norm_mode norm) {
  using C = type_of<complex_for(dtype_of<value_t<X>>)>;
  const auto a = to_array(x);
  ndarray<C> r = restore<C>(c2c(erase(a), dtype_of<C>, p.axes, p.lengths, inverse));
  scale_in_place(r, scale_for(norm, inverse, points(p.lengths)));
  return r;
}

template <class X>
auto rfftn_impl(const X& x, const axes_plan& p, norm_mode norm) {
  static_assert(!is_complex(dtype_of<value_t<X>>),
                "rfft needs real input (NumPy discards the imaginary part with "
                "a warning); take nd::real(x) first");
  using R = type_of<real_for(dtype_of<value_t<X>>)>;
  using C = type_of<complex_for(dtype_of<R>)>;
  const auto a = to_array(x);
  ndarray<C> r = restore<C>(r2c(erase(a), dtype_of<R>, p.axes, p.lengths));
  scale_in_place(r, scale_for(norm, false, points(p.lengths)));
  return r;
}

template <class X>
auto irfftn_impl(const X& x, const axes_plan& p, norm_mode norm) {
  using C = type_of<complex_for(dtype_of<value_t<X>>)>;
  using R = type_of<real_for(dtype_of<C>)>;
  const auto a = to_array(x);
  ndarray<R> r = restore<R>(c2r(erase(a), dtype_of<C>, p.axes, p.lengths));
  scale_in_place(r, scale_for(norm, true, points(p.lengths)));
  return r;
}

}  // namespace detail

// ---- one axis ------------------------------------------------------------------------------------

/// numpy.fft.fft: the discrete Fourier transform along `axis`, cropped or zero-padded to n points.
/// Real input becomes complex (float32 -> complex64, float64 and integers -> complex128).
template <array_operand X>
[[nodiscard]] auto fft(const X& x, std::optional<index_t> n = std::nullopt, index_t axis = -1,
                       std::string_view norm = "backward") {
  const ndcuda::detail::op_range<"nd::fft::fft"> nvtx;
  const auto a = detail::to_array(x);
  return detail::cfftn(a, detail::plan_axis(a.shape(), n, axis, false, "fft"), false, detail::parse_norm(norm));
}
/// numpy.fft.ifft: the inverse of fft along `axis`, cropped or zero-padded to n points.
template <array_operand X>
[[nodiscard]] auto ifft(const X& x, std::optional<index_t> n = std::nullopt, index_t axis = -1,
                        std::string_view norm = "backward") {
  const ndcuda::detail::op_range<"nd::fft::ifft"> nvtx;
  const auto a = detail::to_array(x);
  return detail::cfftn(a, detail::plan_axis(a.shape(), n, axis, false, "ifft"), true, detail::parse_norm(norm));
}
/// numpy.fft.rfft: n real points give n / 2 + 1 complex values.
template <array_operand X>
[[nodiscard]] auto rfft(const X& x, std::optional<index_t> n = std::nullopt, index_t axis = -1,
                        std::string_view norm = "backward") {
  const ndcuda::detail::op_range<"nd::fft::rfft"> nvtx;
  const auto a = detail::to_array(x);
  return detail::rfftn_impl(a, detail::plan_axis(a.shape(), n, axis, false, "rfft"), detail::parse_norm(norm));
}
/// numpy.fft.irfft: n real output points (default 2 * (m - 1)) from m complex values.
template <array_operand X>
[[nodiscard]] auto irfft(const X& x, std::optional<index_t> n = std::nullopt, index_t axis = -1,
                         std::string_view norm = "backward") {
  const ndcuda::detail::op_range<"nd::fft::irfft"> nvtx;
  const auto a = detail::to_array(x);
  return detail::irfftn_impl(a, detail::plan_axis(a.shape(), n, axis, true, "irfft"), detail::parse_norm(norm));
}
/// numpy.fft.hfft: the real spectrum of a Hermitian-symmetric signal (irfft of its conjugate, with
/// the norm directions swapped).
template <array_operand X>
[[nodiscard]] auto hfft(const X& x, std::optional<index_t> n = std::nullopt, index_t axis = -1,
                        std::string_view norm = "backward") {
  const ndcuda::detail::op_range<"nd::fft::hfft"> nvtx;
  const auto a = detail::to_array(x);
  using C = type_of<detail::complex_for(dtype_of<detail::value_t<X>>)>;
  const ndarray<C> c = conj(a.template astype<C>());
  return detail::irfftn_impl(c, detail::plan_axis(c.shape(), n, axis, true, "hfft"),
                             detail::swap_direction(detail::parse_norm(norm)));
}
/// numpy.fft.ihfft: the inverse of hfft (conjugate of rfft with the norm directions swapped).
template <array_operand X>
[[nodiscard]] auto ihfft(const X& x, std::optional<index_t> n = std::nullopt, index_t axis = -1,
                         std::string_view norm = "backward") {
  const ndcuda::detail::op_range<"nd::fft::ihfft"> nvtx;
  const auto a = detail::to_array(x);
  const auto r = detail::rfftn_impl(a, detail::plan_axis(a.shape(), n, axis, false, "ihfft"),
                                    detail::swap_direction(detail::parse_norm(norm)));
  return eval(conj(r));
}

// ---- n axes --------------------------------------------------------------------------------------

/// numpy.fft.fftn: over `axes` (default: the last len(s) axes, or all), each to length s[i].
template <array_operand X>
[[nodiscard]] auto fftn(const X& x, const std::optional<shape_t>& s = std::nullopt,
                        const std::optional<std::vector<index_t>>& axes = std::nullopt,
                        std::string_view norm = "backward") {
  const ndcuda::detail::op_range<"nd::fft::fftn"> nvtx;
  const auto a = detail::to_array(x);
  return detail::cfftn(a, detail::plan_axes(a.shape(), s, axes, false, "fftn"), false, detail::parse_norm(norm));
}
/// numpy.fft.ifftn: the inverse of fftn over `axes`.
template <array_operand X>
[[nodiscard]] auto ifftn(const X& x, const std::optional<shape_t>& s = std::nullopt,
                         const std::optional<std::vector<index_t>>& axes = std::nullopt,
                         std::string_view norm = "backward") {
  const ndcuda::detail::op_range<"nd::fft::ifftn"> nvtx;
  const auto a = detail::to_array(x);
  return detail::cfftn(a, detail::plan_axes(a.shape(), s, axes, false, "ifftn"), true, detail::parse_norm(norm));
}
/// numpy.fft.rfftn: fftn of real input, the last axis of `axes` halved to s[-1] / 2 + 1 points.
template <array_operand X>
[[nodiscard]] auto rfftn(const X& x, const std::optional<shape_t>& s = std::nullopt,
                         const std::optional<std::vector<index_t>>& axes = std::nullopt,
                         std::string_view norm = "backward") {
  const ndcuda::detail::op_range<"nd::fft::rfftn"> nvtx;
  const auto a = detail::to_array(x);
  return detail::rfftn_impl(a, detail::plan_axes(a.shape(), s, axes, false, "rfftn"), detail::parse_norm(norm));
}
/// numpy.fft.irfftn: the inverse of rfftn, a real result (the last axis 2 * (m - 1) points unless s says).
template <array_operand X>
[[nodiscard]] auto irfftn(const X& x, const std::optional<shape_t>& s = std::nullopt,
                          const std::optional<std::vector<index_t>>& axes = std::nullopt,
                          std::string_view norm = "backward") {
  const ndcuda::detail::op_range<"nd::fft::irfftn"> nvtx;
  const auto a = detail::to_array(x);
  return detail::irfftn_impl(a, detail::plan_axes(a.shape(), s, axes, true, "irfftn"), detail::parse_norm(norm));
}

/// The 2-d forms: fftn over axes (-2, -1) by default.
template <array_operand X>
[[nodiscard]] auto fft2(const X& x, const std::optional<shape_t>& s = std::nullopt,
                        const std::vector<index_t>& axes = {-2, -1}, std::string_view norm = "backward") {
  const ndcuda::detail::op_range<"nd::fft::fft2"> nvtx;
  return fftn(x, s, axes, norm);
}
/// numpy.fft.ifft2: ifftn over axes (-2, -1) by default.
template <array_operand X>
[[nodiscard]] auto ifft2(const X& x, const std::optional<shape_t>& s = std::nullopt,
                         const std::vector<index_t>& axes = {-2, -1}, std::string_view norm = "backward") {
  const ndcuda::detail::op_range<"nd::fft::ifft2"> nvtx;
  return ifftn(x, s, axes, norm);
}
/// numpy.fft.rfft2: rfftn over axes (-2, -1) by default.
template <array_operand X>
[[nodiscard]] auto rfft2(const X& x, const std::optional<shape_t>& s = std::nullopt,
                         const std::vector<index_t>& axes = {-2, -1}, std::string_view norm = "backward") {
  const ndcuda::detail::op_range<"nd::fft::rfft2"> nvtx;
  return rfftn(x, s, axes, norm);
}
/// numpy.fft.irfft2: irfftn over axes (-2, -1) by default.
template <array_operand X>
[[nodiscard]] auto irfft2(const X& x, const std::optional<shape_t>& s = std::nullopt,
                          const std::vector<index_t>& axes = {-2, -1}, std::string_view norm = "backward") {
  const ndcuda::detail::op_range<"nd::fft::irfft2"> nvtx;
  return irfftn(x, s, axes, norm);
}

// ---- helpers -------------------------------------------------------------------------------------

/// numpy.fft.fftfreq: [0, 1, ..., (n-1)/2, -(n/2), ..., -1] / (d n), float64 (or T).
template <array_element T = double>
[[nodiscard]] ndarray<T> fftfreq(index_t n, double d = 1.0, std::optional<stream> s = std::nullopt) {
  const ndcuda::detail::op_range<"nd::fft::fftfreq"> nvtx;
  if (n < 1) {
    throw shape_error("fftfreq: n must be positive, got " + std::to_string(n));
  }
  std::vector<T> v(static_cast<std::size_t>(n));
  const index_t positive = (n - 1) / 2 + 1;
  for (index_t i = 0; i < n; ++i) {
    const index_t k = i < positive ? i : i - n;
    v[static_cast<std::size_t>(i)] = static_cast<T>(static_cast<double>(k) / (d * static_cast<double>(n)));
  }
  return asarray<T>(v, shape_t{n}, s);
}
/// numpy.fft.rfftfreq: [0, 1, ..., n/2] / (d n).
template <array_element T = double>
[[nodiscard]] ndarray<T> rfftfreq(index_t n, double d = 1.0, std::optional<stream> s = std::nullopt) {
  const ndcuda::detail::op_range<"nd::fft::rfftfreq"> nvtx;
  if (n < 1) {
    throw shape_error("rfftfreq: n must be positive, got " + std::to_string(n));
  }
  std::vector<T> v(static_cast<std::size_t>(n / 2 + 1));
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<T>(static_cast<double>(i) / (d * static_cast<double>(n)));
  }
  return asarray<T>(v, shape_t{static_cast<index_t>(v.size())}, s);
}

namespace detail {

/// np.roll of each axis by its shift, into a new array: two block copies per axis.
template <class E>
ndarray<E> roll_axes(const ndarray<E>& x, const std::vector<int>& axes, bool inverse) {
  ndarray<E> cur = x;
  for (int ax : axes) {
    const index_t n = x.shape()[static_cast<std::size_t>(ax)];
    const index_t shift = inverse ? n - n / 2 : n / 2;  // fftshift rolls by n // 2, ifftshift by -(n // 2)
    if (n <= 1 || shift % n == 0) {
      continue;
    }
    ndarray<E> out = empty_like(cur);
    std::vector<index_item> src(static_cast<std::size_t>(x.ndim()), index_item(all)),
        dst(static_cast<std::size_t>(x.ndim()), index_item(all));
    // out[shift:] = cur[:n - shift]; out[:shift] = cur[n - shift:]
    dst[static_cast<std::size_t>(ax)] = index_item(slice(shift, n));
    src[static_cast<std::size_t>(ax)] = index_item(slice(0, n - shift));
    out.index(dst) = cur.index(src);
    dst[static_cast<std::size_t>(ax)] = index_item(slice(0, shift));
    src[static_cast<std::size_t>(ax)] = index_item(slice(n - shift, n));
    out.index(dst) = cur.index(src);
    cur = out;
  }
  return cur.data() == x.data() ? x.copy() : cur;
}

}  // namespace detail

namespace detail {

/// fftshift (inverse false) or ifftshift of `x` over `axes` (nullopt: every axis).
template <class X>
auto shift_axes(const X& x, const std::optional<std::vector<index_t>>& axes, bool inverse) {
  const auto a = to_array(x);
  std::vector<int> ax;
  if (axes) {
    ax = normalize_axes(*axes, a.ndim());
  } else {
    for (int i = 0; i < a.ndim(); ++i) {
      ax.push_back(i);
    }
  }
  return roll_axes(a, ax, inverse);
}

}  // namespace detail

/// numpy.fft.fftshift: the zero frequency moved to the centre of each axis in `axes` (all by
/// default). The axes as NumPy takes them: one (`fftshift(x, 1)`), a list (`fftshift(x, {0, 1})`)
/// or a vector.
template <array_operand X>
[[nodiscard]] auto fftshift(const X& x, const std::optional<std::vector<index_t>>& axes = std::nullopt) {
  const ndcuda::detail::op_range<"nd::fft::fftshift"> nvtx;
  return detail::shift_axes(x, axes, false);
}
/// fftshift over the axes of a brace list: `fftshift(x, {1})`.
template <array_operand X>
[[nodiscard]] auto fftshift(const X& x, std::initializer_list<index_t> axes) {
  return fftshift(x, std::optional<std::vector<index_t>>(std::vector<index_t>(axes)));
}
/// fftshift over one axis: `fftshift(x, 1)`.
template <array_operand X, std::integral I>
requires(!std::is_same_v<I, bool>) [[nodiscard]] auto fftshift(const X& x, I axis) {
  return fftshift(x, {static_cast<index_t>(axis)});
}
/// numpy.fft.ifftshift: the inverse of fftshift (differs for odd lengths); axes as fftshift's.
template <array_operand X>
[[nodiscard]] auto ifftshift(const X& x, const std::optional<std::vector<index_t>>& axes = std::nullopt) {
  const ndcuda::detail::op_range<"nd::fft::ifftshift"> nvtx;
  return detail::shift_axes(x, axes, true);
}
/// ifftshift over the axes of a brace list: `ifftshift(x, {1})`.
template <array_operand X>
[[nodiscard]] auto ifftshift(const X& x, std::initializer_list<index_t> axes) {
  return ifftshift(x, std::optional<std::vector<index_t>>(std::vector<index_t>(axes)));
}
/// ifftshift over one axis: `ifftshift(x, 1)`.
template <array_operand X, std::integral I>
requires(!std::is_same_v<I, bool>) [[nodiscard]] auto ifftshift(const X& x, I axis) {
  return ifftshift(x, {static_cast<index_t>(axis)});
}

}  // namespace ndcuda::fft

#pragma GCC visibility pop
