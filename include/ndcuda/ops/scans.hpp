/// @file
/// NumPy's cumsum and cumprod on arrays and expressions, flattened or along one axis.
/// Builds on ops/detail/device_algorithms.hpp (CUB scans, compiled into the library) and ops/sorting.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/array/creation.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/expr/expression.hpp>
#include <ndcuda/expr/lazy_array.hpp>
#include <ndcuda/expr/leaf_ref.hpp>
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
auto cumulative(const X& x, std::optional<index_t> axis, const stream& s);

}  // namespace detail

/// What cumsum/cumprod give: the scan of an array, not run yet. It is a lazy value like an
/// expression (nd::lazy_array: shape, item, to_host, indexing, reshape, a braced-list entry) and an
/// operand of expressions and of every function; `nd::ndarray<R> c = nd::cumsum(x);` and
/// nd::eval run it. Written into an array, `c(nd::ellipsis) = nd::cumsum(x, 1)`, the scan writes
/// straight into c when c is C-contiguous, of the scan's shape and dtype and shares no buffer with
/// x; any other target (broadcast, converted, strided, overlapping) takes the scan, then a copy.
/// Like an expression it reads x when its value is asked for.
template <array_element R, array_element T>
class [[nodiscard]] scan_value : public lazy_array<scan_value<R, T>, R> {
 public:
  /// Marks the type as an ndcuda lazy value (array_expression).
  using is_ndcuda_expression = void;
  /// As an expression operand it is computed at once into an array leaf (expr's as_node).
  using gathered_when_used = void;
  /// The element type of the running sums or products.
  using value_type = R;
  /// As an operand it reads like one array (its result).
  static constexpr int arrays = 1;
  /// It adds no scalar parameter to an enclosing kernel.
  static constexpr int scalars = 0;

  /// The running sums or products (`op`) of `x` along `axis` (normalised; none: flattened), run on
  /// `s`; made by cumsum/cumprod. One type for both, so `prod ? cumprod(x) : cumsum(x)` compiles.
  scan_value(detail::scan_op op, ndarray<T> x, std::optional<int> axis, const ndcuda::stream& s)
      : op_(op), x_(std::move(x)), axis_(axis), stream_(s) {}

  /// The result's dtype.
  [[nodiscard]] static constexpr dtype type() noexcept { return dtype_of<R>; }
  /// x's shape along an axis, (x.size(),) flattened: known without running anything.
  [[nodiscard]] shape_t shape() const { return axis_ ? x_.shape() : shape_t{x_.size()}; }
  /// x's device.
  [[nodiscard]] int device() const noexcept { return x_.device(); }
  /// The stream the scan runs on.
  [[nodiscard]] const ndcuda::stream& stream() const noexcept { return stream_; }

  /// The scan as a new C-contiguous array of dtype U (converted as astype converts).
  template <array_element U>
  [[nodiscard]] ndarray<U> evaluate() const {
    ndarray<R> out = empty<R>(shape(), stream_);
    run(out.data());
    if constexpr (std::is_same_v<std::remove_cv_t<U>, R>) {
      return out;
    } else {
      return out.template astype<U>();
    }
  }
  /// `out(...) = nd::cumsum(x)`: see the class comment for when nothing is allocated.
  template <array_element U>
  void assign_to(const ndarray<U>& out) const {
    if constexpr (std::is_same_v<std::remove_cv_t<U>, R>) {
      if (out.shape() == shape() && out.is_contiguous() && (out.owner() == nullptr || out.owner() != x_.owner())) {
        // The scan runs on its stream, after earlier work on out (its reads) and before later work.
        ndcuda::detail::order_after(stream_, out.stream());
        ndcuda::detail::retain_for_capture(stream_, out.owner());
        run(const_cast<R*>(out.data()));
        ndcuda::detail::order_after(out.stream(), stream_);
        return;
      }
    }
    out.assign(evaluate<R>());
  }
  /// The scan converted to U (NumPy's cumsum(x).astype(U)).
  template <array_element U>
  [[nodiscard]] ndarray<U> astype() const {
    return evaluate<U>();
  }

 private:
  void run(R* out) const {
    const ndcuda::detail::nvtx_scope nvtx(op_ == detail::scan_op::sum ? ndcuda::detail::nvtx_name_of<"nd::cumsum">
                                                                      : ndcuda::detail::nvtx_name_of<"nd::cumprod">);
    detail::cumulative_into(op_, dtype_of<R>, detail::leaf_of(x_), axis_, out, stream_);
  }

  detail::scan_op op_;
  ndarray<T> x_;
  std::optional<int> axis_;
  ndcuda::stream stream_;
};

namespace detail {

/// A scan is a lazy value: operators, reductions and functions take it (an array leaf of its
/// result, expr/expression.hpp's as_node).
template <array_element R, array_element T>
inline constexpr bool is_expr<scan_value<R, T>> = true;

template <class R, scan_op Op, class X>
auto cumulative(const X& x, std::optional<index_t> axis, const stream& s) {
  // The call's range, open while its arguments are checked; the scan has its own when it runs.
  const ndcuda::detail::nvtx_scope nvtx(Op == scan_op::sum ? nvtx_name_of<"nd::cumsum"> : nvtx_name_of<"nd::cumprod">);
  auto a = as_array(x);
  using T = typename decltype(a)::value_type;
  using out_t = std::remove_cv_t<scan_result_t<R, T>>;
  std::optional<int> ax;
  if (axis) {
    ax = normalize_axis(*axis, a.ndim());
  }
  return scan_value<out_t, T>(Op, std::move(a), ax, s);
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

#pragma GCC visibility pop
