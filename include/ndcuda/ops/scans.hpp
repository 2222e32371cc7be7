/// @file
/// NumPy's cumsum and cumprod on arrays and expressions, flattened or along one axis.
/// Builds on ops/detail/device_algorithms.hpp (CUB scans, compiled into the library) and ops/sorting.hpp.
#pragma once

#include <ndcuda/array/creation.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/ops/detail/device_algorithms.hpp>
#include <ndcuda/ops/sorting.hpp>
#include <optional>
#include <type_traits>

namespace ndcuda {

namespace detail {

/// The template argument that asks for NumPy's result dtype (cumsum<default_result>(x) is cumsum(x)).
struct default_result {};

/// NumPy's dtype of cumsum/cumprod without dtype=: bool and signed integers give int64, unsigned
/// ones uint64, floating and complex types keep theirs (float16/bfloat16 accumulate in float32).
constexpr dtype scan_result_type(dtype in) noexcept {
  switch (kind(in)) {
    case dtype_kind::boolean:
    case dtype_kind::signed_integer:
      return dtype::int64;
    case dtype_kind::unsigned_integer:
      return dtype::uint64;
    default:
      return in;
  }
}

template <class R, class T>
using scan_result_t = std::conditional_t<std::is_same_v<R, default_result>, type_of<scan_result_type(dtype_of<T>)>, R>;

template <class R>
concept scan_result_choice = std::is_same_v<R, default_result> || array_element<R>;

/// The type-erased half (src/ops/scans.cpp): `out` is C-contiguous, of x's shape (an axis) or of
/// shape (x.size(),) (no axis, NumPy's axis=None); `axis` is already normalised.
void cumulative_into(scan_op op, dtype result, const leaf_ref& x, std::optional<int> axis, void* out, const stream& s);

template <class R, scan_op Op, class X>
auto cumulative(const X& x, std::optional<index_t> axis, const stream& s) {
  const ndcuda::detail::nvtx_scope nvtx(Op == scan_op::sum ? nvtx_name_of<"nd::cumsum"> : nvtx_name_of<"nd::cumprod">);
  const auto a = as_array(x);
  using T = typename decltype(a)::value_type;
  using out_t = std::remove_cv_t<scan_result_t<R, T>>;
  std::optional<int> ax;
  if (axis) {
    ax = normalize_axis(*axis, a.ndim());
  }
  ndarray<out_t> out = empty<out_t>(ax ? a.shape() : shape_t{a.size()}, s);
  cumulative_into(Op, dtype_of<out_t>, leaf_of(a), ax, out.data(), s);
  return out;
}

}  // namespace detail

/// NumPy's np.cumsum(x, axis, dtype=R): running sums along `axis` (negative allowed), or over the
/// flattened array (C order) when no axis is given, as a new C-contiguous array. Without R the
/// result dtype is NumPy's (scan_result_type); with R (cumsum<double>(x, 0)) the input is
/// converted to R as NumPy does and the sums are of dtype R. Integers wrap around like NumPy's;
/// float16/bfloat16 accumulate in float32. Ordered on `s` (default: x's stream), after x's work.
template <class R = detail::default_result, array_operand X>
requires detail::scan_result_choice<R>
[[nodiscard]] auto cumsum(const X& x, std::optional<index_t> axis, const stream& s) {
  return detail::cumulative<R, detail::scan_op::sum>(x, axis, s);
}
/// cumsum on x's stream.
template <class R = detail::default_result, array_operand X>
requires detail::scan_result_choice<R>
[[nodiscard]] auto cumsum(const X& x, std::optional<index_t> axis = std::nullopt) {
  const auto a = detail::as_array(x);
  return detail::cumulative<R, detail::scan_op::sum>(a, axis, a.stream());
}
/// cumsum over the flattened array, on `s`.
template <class R = detail::default_result, array_operand X>
requires detail::scan_result_choice<R>
[[nodiscard]] auto cumsum(const X& x, const stream& s) {
  return detail::cumulative<R, detail::scan_op::sum>(x, std::nullopt, s);
}

/// NumPy's np.cumprod(x, axis, dtype=R): running products, with cumsum's rules.
template <class R = detail::default_result, array_operand X>
requires detail::scan_result_choice<R>
[[nodiscard]] auto cumprod(const X& x, std::optional<index_t> axis, const stream& s) {
  return detail::cumulative<R, detail::scan_op::prod>(x, axis, s);
}
/// cumprod on x's stream.
template <class R = detail::default_result, array_operand X>
requires detail::scan_result_choice<R>
[[nodiscard]] auto cumprod(const X& x, std::optional<index_t> axis = std::nullopt) {
  const auto a = detail::as_array(x);
  return detail::cumulative<R, detail::scan_op::prod>(a, axis, a.stream());
}
/// cumprod over the flattened array, on `s`.
template <class R = detail::default_result, array_operand X>
requires detail::scan_result_choice<R>
[[nodiscard]] auto cumprod(const X& x, const stream& s) {
  return detail::cumulative<R, detail::scan_op::prod>(x, std::nullopt, s);
}

}  // namespace ndcuda
