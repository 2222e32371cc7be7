/// @file
/// NumPy's order statistics: quantile, percentile, median and their nan* forms, with every NumPy
/// method, axes and keepdims. Sorts the reduced axes as rows (ops/sorting.hpp), then one generated
/// kernel reads every quantile of every row (ops/detail/quantile_rows.hpp, src/ops/quantile.cpp).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/ops/detail/quantile_rows.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <ndcuda/ops/sorting.hpp>
#include <type_traits>
#include <utility>
#include <vector>

namespace ndcuda {

/// What a quantile takes after its axes, in any order: nd::keepdims and the stream to run on.
template <class O>
concept quantile_option =
    std::is_same_v<std::remove_cvref_t<O>, keepdims_t> || std::is_same_v<std::remove_cvref_t<O>, stream>;

namespace detail {

/// The element type rows are sorted and read in: float16/bfloat16 as float32, bool as uint8.
template <class T>
using quantile_element_t =
    std::conditional_t<std::is_same_v<T, bool>, std::uint8_t,
                       std::conditional_t<kind(dtype_of<T>) == dtype_kind::floating && sizeof(T) == 2, float, T>>;

/// NumPy's result dtype, and the dtype its _lerp computes in. A C++ scalar q is weak (NumPy's
/// Python float): floats keep their dtype. A list of q is float64 (strong), so interpolating
/// methods give float64. Discrete methods keep the input's dtype; median is a mean.
template <class T, quantile_method M, bool Median, bool Weak>
struct quantile_types {
  static constexpr bool floating = kind(dtype_of<T>) == dtype_kind::floating;
  static constexpr bool keeps = (!Median && is_discrete(M)) || (floating && (Weak || Median));
  using result = std::conditional_t<keeps, T, double>;
  using lerp = std::conditional_t<floating && (Weak || Median) && sizeof(T) <= 4, float, double>;
  /// What the kernel writes (result, with float16/bfloat16 as float32 and bool as uint8).
  using stored = std::conditional_t<keeps, quantile_element_t<T>, double>;
};

/// The options of one call, parsed from its trailing arguments.
struct quantile_options {
  bool keepdims = false;
  const stream* s = nullptr;
  template <quantile_option... O>
  explicit quantile_options(const O&... o) {
    (set(o), ...);
  }

 private:
  void set(const keepdims_t& k) { keepdims = k.value; }
  void set(const stream& st) { s = &st; }
};

/// What is asked: the q values (already divided by 100 for percentiles) and the shape they had.
struct quantile_ask {
  std::vector<double> q;
  shape_t q_shape;
  bool skip_nan = false;
};

template <quantile_method M, bool Median, bool Weak, class X>
auto quantile_of(const X& x, const quantile_ask& ask, const axes& ax, const quantile_options& opt) {
  const auto a = as_array(x);
  using T = typename decltype(a)::value_type;
  using types = quantile_types<T, M, Median, Weak>;
  using R = typename types::result;
  using K = quantile_element_t<T>;
  using S = typename types::stored;
  if constexpr (kind(dtype_of<T>) == dtype_kind::complex) {
    throw type_error("a must be an array of real numbers");
    return ndarray<R>();  // the call's type, for callers that dispatch over dtypes
  } else if constexpr (std::is_same_v<T, bool> && !Median && !is_discrete(M)) {
    throw type_error(
        "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the "
        "logical_xor function instead.");
    return ndarray<R>();
  } else {
    const stream& s = opt.s != nullptr ? *opt.s : a.stream();
    const quantile_plan plan = plan_quantile(a.shape(), ax.list(), opt.keepdims);
    // NumPy's quantile reads arr[-1] of an empty row; median and the nan forms give NaN instead.
    constexpr bool nan_result = kind(dtype_of<R>) == dtype_kind::floating;
    if (plan.length == 0 && !(Median || (ask.skip_nan && nan_result))) {
      throw index_error("index -1 is out of bounds for axis 0 with size 0");
    }
    const auto nq = static_cast<index_t>(ask.q.size());
    ndarray<S> out = empty<S>({nq * plan.rows}, s);
    if (out.size() > 0) {
      const ndarray<K> rows = as_element_type<K>(a).transpose(plan.perm).reshape({plan.rows, plan.length});
      const ndarray<K> sorted = plan.length > 0 ? sort(rows, -1, s) : rows;
      const ndarray<double> qd = asarray(ask.q, {nq}, s);
      quantile_request r;
      r.sorted = sorted.data();
      r.element = dtype_of<K>;
      r.rows = plan.rows;
      r.length = plan.length;
      r.q = qd.data();
      r.nq = nq;
      r.method = M;
      r.median = Median;
      r.skip_nan = ask.skip_nan && kind(dtype_of<T>) == dtype_kind::floating;
      r.lerp = dtype_of<typename types::lerp>;
      r.result = dtype_of<S>;
      r.out = out.data();
      quantile_rows(r, s);
    }
    shape_t shape = ask.q_shape;
    shape.insert(shape.end(), plan.result_shape.begin(), plan.result_shape.end());
    return ndarray<R>(as_element_type<R>(out).reshape(shape));
  }
}

inline quantile_ask ask_for(std::vector<double> q, shape_t q_shape, bool percent, bool skip_nan) {
  check_quantiles(q, percent);
  if (percent) {
    for (double& v : q) {
      v /= 100.0;  // NumPy: np.true_divide(q, 100)
    }
  }
  return quantile_ask{std::move(q), std::move(q_shape), skip_nan};
}

}  // namespace detail

// f(x, q [, axes] [, nd::keepdims] [, stream]) with the method as a template argument (it decides
// the result dtype, as in NumPy): nd::quantile<nd::quantile_method::lower>(x, 0.25, 1). q is one
// C++ number (weak: float32 data gives float32), a std::vector<double> (a 1-d q, float64 as
// NumPy's list) or an ndarray (its shape goes in front; read to the host to check its range).
#define NDCUDA_QUANTILE(fn, percent, skip_nan)                                                                   \
  template <quantile_method M = quantile_method::linear, array_operand X, quantile_option... O>                  \
  [[nodiscard]] auto fn(const X& x, double q, const axes& ax, const O&... o) {                                   \
    const detail::op_range<"nd::" #fn> nvtx;                                                                     \
    return detail::quantile_of<M, false, true>(x, detail::ask_for({q}, {}, percent, skip_nan), ax,               \
                                               detail::quantile_options(o...));                                  \
  }                                                                                                              \
  template <quantile_method M = quantile_method::linear, array_operand X, quantile_option... O>                  \
  [[nodiscard]] auto fn(const X& x, double q, const O&... o) {                                                   \
    return fn<M>(x, q, axes{}, o...);                                                                            \
  }                                                                                                              \
  template <quantile_method M = quantile_method::linear, array_operand X, quantile_option... O>                  \
  [[nodiscard]] auto fn(const X& x, const std::vector<double>& q, const axes& ax, const O&... o) {               \
    const detail::op_range<"nd::" #fn> nvtx;                                                                     \
    return detail::quantile_of<M, false, false>(                                                                 \
        x, detail::ask_for(q, {static_cast<index_t>(q.size())}, percent, skip_nan), ax,                          \
        detail::quantile_options(o...));                                                                         \
  }                                                                                                              \
  template <quantile_method M = quantile_method::linear, array_operand X, quantile_option... O>                  \
  [[nodiscard]] auto fn(const X& x, const std::vector<double>& q, const O&... o) {                               \
    return fn<M>(x, q, axes{}, o...);                                                                            \
  }                                                                                                              \
  template <quantile_method M = quantile_method::linear, array_operand X, array_element Q, quantile_option... O> \
  [[nodiscard]] auto fn(const X& x, const ndarray<Q>& q, const axes& ax, const O&... o) {                        \
    const detail::op_range<"nd::" #fn> nvtx;                                                                     \
    return detail::quantile_of<M, false, false>(                                                                 \
        x, detail::ask_for(q.template astype<double>().to_host(), q.shape(), percent, skip_nan), ax,             \
        detail::quantile_options(o...));                                                                         \
  }                                                                                                              \
  template <quantile_method M = quantile_method::linear, array_operand X, array_element Q, quantile_option... O> \
  [[nodiscard]] auto fn(const X& x, const ndarray<Q>& q, const O&... o) {                                        \
    return fn<M>(x, q, axes{}, o...);                                                                            \
  }

/// NumPy's quantile(a, q, axis, method, keepdims): q in [0, 1]; NaN in a row gives NaN. @{
NDCUDA_QUANTILE(quantile, false, false)
/// @}
/// NumPy's percentile: quantile with q in [0, 100]. @{
NDCUDA_QUANTILE(percentile, true, false)
/// @}
/// NumPy's nanquantile: quantile of the elements that are not NaN (an all-NaN row gives NaN). @{
NDCUDA_QUANTILE(nanquantile, false, true)
/// @}
/// NumPy's nanpercentile: nanquantile with q in [0, 100]. @{
NDCUDA_QUANTILE(nanpercentile, true, true)
/// @}

#undef NDCUDA_QUANTILE

/// NumPy's median over `axes` (every axis by default): the middle element, or the mean of the
/// middle two; NaN propagates; an empty row gives NaN. Integers and bool give float64.
template <array_operand X, quantile_option... O>
[[nodiscard]] auto median(const X& x, const axes& ax, const O&... o) {
  const detail::op_range<"nd::median"> nvtx;
  return detail::quantile_of<quantile_method::linear, true, true>(x, detail::quantile_ask{{0.5}, {}, false}, ax,
                                                                  detail::quantile_options(o...));
}
/// np.median over every axis.
template <array_operand X, quantile_option... O>
[[nodiscard]] auto median(const X& x, const O&... o) {
  return median(x, axes{}, o...);
}
/// NumPy's nanmedian: the median of the elements that are not NaN (an all-NaN row gives NaN).
template <array_operand X, quantile_option... O>
[[nodiscard]] auto nanmedian(const X& x, const axes& ax, const O&... o) {
  const detail::op_range<"nd::nanmedian"> nvtx;
  return detail::quantile_of<quantile_method::linear, true, true>(x, detail::quantile_ask{{0.5}, {}, true}, ax,
                                                                  detail::quantile_options(o...));
}
/// np.nanmedian over every axis.
template <array_operand X, quantile_option... O>
[[nodiscard]] auto nanmedian(const X& x, const O&... o) {
  return nanmedian(x, axes{}, o...);
}

}  // namespace ndcuda

#pragma GCC visibility pop
