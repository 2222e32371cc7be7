/// @file
/// numpy.linalg.norm with axis and keepdims (vector and matrix orders over chosen axes), and
/// NumPy's cov and corrcoef through matmul. Builds on linalg/solvers.hpp (matrix_norm, the SVD),
/// linalg/vector_norm.hpp and linalg/products.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cmath>
#include <complex>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/linalg/products.hpp>
#include <ndcuda/linalg/solvers.hpp>
#include <ndcuda/linalg/vector_norm.hpp>
#include <ndcuda/ops/joining.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ndcuda::linalg {

namespace detail {

/// The matrix norm `ord` over axes (row, col) of `a`, keeping them as 1 under keepdims: the two
/// axes are moved last (as NumPy's moveaxis) and matrix_norm reduces them.
template <class T>
auto matrix_norm_over(const ndarray<T>& a, std::string_view ord, int row, int col, bool keepdims) {
  const int r = normalize_axis(row, a.ndim());
  const int c = normalize_axis(col, a.ndim());
  if (r == c) {
    throw value_error("Duplicate axes given.");
  }
  std::vector<index_t> perm;
  shape_t kept = a.shape();
  for (int d = 0; d < a.ndim(); ++d) {
    if (d != r && d != c) {
      perm.push_back(d);
    }
  }
  perm.push_back(r);
  perm.push_back(c);
  kept[static_cast<std::size_t>(r)] = 1;
  kept[static_cast<std::size_t>(c)] = 1;
  auto out = matrix_norm(a.transpose(perm), ord);
  return keepdims ? decltype(out)(out.reshape(kept)) : out;
}

/// NumPy's names of the numeric matrix orders, or nullptr.
inline const char* matrix_order_name(double ord) {
  if (std::isinf(ord)) {
    return ord > 0 ? "inf" : "-inf";
  }
  return ord == 1 ? "1" : ord == -1 ? "-1" : ord == 2 ? "2" : ord == -2 ? "-2" : nullptr;
}

inline bool keep_of() {
  return false;
}
inline bool keep_of(keepdims_t k) {
  return k.value;
}

// By value: axes::list() returns a fresh optional, which a reference would outlive.
inline std::vector<int> matrix_axes(const axes& ax) {
  std::vector<int> list = ax.list().value_or(std::vector<int>{});
  if (list.size() != 2) {
    throw value_error("Improper number of dimensions to norm.");
  }
  return list;
}

}  // namespace detail

/// numpy.linalg.norm(x, ord, axis, keepdims) with a numeric ord: one axis (or a 1-d x with every
/// axis) is a vector norm (any ord, vector_norm), two axes (or a 2-d x) a matrix norm (1, -1, 2,
/// -2, inf, -inf). nd::linalg::norm(x, 2, {0, 1}, nd::keepdims).
template <array_operand X, class... K>
requires(std::is_same_v<std::remove_cvref_t<K>, keepdims_t>&&...)
    [[nodiscard]] auto norm(const X& x, double ord, const axes& ax, K... k) {
  static_assert(sizeof...(K) <= 1, "norm takes one nd::keepdims");
  const ndcuda::detail::op_range<"nd::linalg::norm"> nvtx;
  using C = detail::solver_t<detail::value_t<X>>;
  using R = detail::real_t<C>;
  const ndarray<C> a = detail::as_type<C>(detail::to_array(x));
  const bool keep = detail::keep_of(k...);
  std::optional<std::vector<int>> list = ax.list();
  if (!list) {
    if (a.ndim() == 1) {
      return ndarray<R>(vector_norm(a, ord, ax, keepdims(keep)));
    }
    if (a.ndim() != 2) {
      throw value_error("Improper number of dimensions to norm.");
    }
    list = std::vector<int>{0, 1};
  }
  if (list->size() == 1) {
    return ndarray<R>(vector_norm(a, ord, ax, keepdims(keep)));
  }
  const std::vector<int> pair = detail::matrix_axes(axes(*list));
  const char* name = detail::matrix_order_name(ord);
  if (name == nullptr) {
    throw value_error("Invalid norm order for matrices.");
  }
  return ndarray<R>(detail::matrix_norm_over(a, name, pair[0], pair[1], keep));
}

/// numpy.linalg.norm(x, ord, axis, keepdims) with "fro" or "nuc": a matrix norm over two axes (or
/// a 2-d x); a vector gives NumPy's ValueError.
template <array_operand X, class... K>
requires(std::is_same_v<std::remove_cvref_t<K>, keepdims_t>&&...)
    [[nodiscard]] auto norm(const X& x, std::string_view ord, const axes& ax, K... k) {
  static_assert(sizeof...(K) <= 1, "norm takes one nd::keepdims");
  const ndcuda::detail::op_range<"nd::linalg::norm"> nvtx;
  using C = detail::solver_t<detail::value_t<X>>;
  using R = detail::real_t<C>;
  const ndarray<C> a = detail::as_type<C>(detail::to_array(x));
  const auto& list = ax.list();
  if ((list && list->size() == 1) || (!list && a.ndim() == 1)) {
    throw value_error("Invalid norm order '" + std::string(ord) + "' for vectors");
  }
  if (!list && a.ndim() != 2) {
    throw value_error("Improper number of dimensions to norm.");
  }
  if (ord != "fro" && ord != "nuc") {
    throw value_error("Invalid norm order '" + std::string(ord) + "' for matrices");
  }
  const std::vector<int> pair = list ? detail::matrix_axes(ax) : std::vector<int>{0, 1};
  return ndarray<R>(detail::matrix_norm_over(a, ord, pair[0], pair[1], detail::keep_of(k...)));
}

/// numpy.linalg.norm(x, None, axis, keepdims): every axis (ax = {}): the 2-norm of x flattened;
/// one axis: the vector 2-norm; two: the Frobenius norm. nd::linalg::norm(x, nd::none, 1).
template <array_operand X, class... K>
requires(std::is_same_v<std::remove_cvref_t<K>, keepdims_t>&&...)
    [[nodiscard]] auto norm(const X& x, std::nullopt_t, const axes& ax, K... k) {
  const auto& list = ax.list();
  if (list && list->size() == 2) {
    return norm(x, std::string_view("fro"), ax, k...);
  }
  if (list && list->size() > 2) {
    throw value_error("Improper number of dimensions to norm.");
  }
  using R = detail::real_t<detail::solver_t<detail::value_t<X>>>;
  return ndarray<R>(vector_norm(x, 2.0, ax, keepdims(detail::keep_of(k...))));
}

// ---------------------------------------------------------------------------------------------
// cov, corrcoef

/// cov's options, NumPy's keywords: nd::linalg::cov(m, {.rowvar = false, .ddof = 0}).
struct cov_options {
  bool rowvar = true;                             ///< each row a variable (false: each column)
  bool bias = false;                              ///< normalise by N (true) or N - 1
  std::optional<int> ddof{};                      ///< overrides bias: divide by N - ddof
  std::optional<std::vector<double>> fweights{};  ///< integer frequency weights, one per observation
  std::optional<std::vector<double>> aweights{};  ///< observation weights, one per observation
};

namespace detail {

/// NumPy's checks of fweights/aweights against `n` observations; returns their product (or nothing).
std::optional<std::vector<double>> cov_weights(const cov_options& o, index_t n);
/// NumPy's `fact`: the divisor of cov, from the weights, their sum and ddof (0 when not positive).
double cov_divisor(const cov_options& o, const std::optional<std::vector<double>>& w, index_t n);

/// An operand as the 2-d (variables, observations) float64/complex128 array cov works on.
template <class C, class E>
ndarray<C> cov_rows(const ndarray<E>& a, bool rowvar, bool is_y, const char* name) {
  if (a.ndim() > 2) {
    throw value_error(std::string(name) + " has more than 2 dimensions");
  }
  ndarray<C> x = as_type<C>(a);
  const bool one_d = a.ndim() < 2;
  x = x.reshape(one_d ? shape_t{1, a.size()} : a.shape());
  const bool transpose = is_y ? (!rowvar && x.shape()[0] != 1) : (!rowvar && !one_d);
  return transpose ? x.T() : x;
}

template <class C>
ndarray<C> cov_of(ndarray<C> x, const cov_options& o) {
  if (x.shape()[0] == 0) {
    return empty<C>({0, 0});
  }
  const index_t n = x.shape()[1];
  const auto w = cov_weights(o, n);
  const double fact = cov_divisor(o, w, n);
  ndarray<C> centred;
  ndarray<C> weighted_t;
  if (w) {
    double w_sum = 0;
    for (double v : *w) {
      w_sum += v;
    }
    const ndarray<double> wd = asarray(*w, {1, n});
    const ndarray<C> avg = ndarray<C>(ndcuda::sum(x * wd, 1, keepdims) / w_sum);
    centred = x - avg;
    weighted_t = ndarray<C>(centred * wd).T();
  } else {
    centred = x - ndarray<C>(ndcuda::mean(x, 1, keepdims));
    weighted_t = centred.T();
  }
  ndarray<C> c;
  if constexpr (std::is_same_v<C, double>) {
    c = ndcuda::matmul(centred, weighted_t);
  } else {
    c = ndcuda::matmul(centred, ndarray<C>(conj(weighted_t)));
  }
  return ndarray<C>(c * (1.0 / fact)).squeeze();
}

template <class X>
using cov_t = std::conditional_t<kind(dtype_of<value_t<X>>) == dtype_kind::complex, std::complex<double>, double>;

}  // namespace detail

/// NumPy's cov(m, rowvar, bias, ddof, fweights, aweights): the covariance matrix of the variables
/// in m's rows (columns with rowvar = false), float64 (complex128 for complex input), through
/// matmul; squeezed as NumPy does (one variable gives a 0-d array).
template <array_operand X>
[[nodiscard]] auto cov(const X& m, const cov_options& o = {}) {
  const ndcuda::detail::op_range<"nd::linalg::cov"> nvtx;
  using C = detail::cov_t<X>;
  return detail::cov_of<C>(detail::cov_rows<C>(detail::to_array(m), o.rowvar, false, "m"), o);
}
/// np.cov(m, y, ...): y's variables are appended to m's.
template <array_operand X, array_operand Y>
[[nodiscard]] auto cov(const X& m, const Y& y, const cov_options& o = {}) {
  const ndcuda::detail::op_range<"nd::linalg::cov"> nvtx;
  using C = std::conditional_t<std::is_same_v<detail::cov_t<X>, double>, detail::cov_t<Y>, detail::cov_t<X>>;
  const ndarray<C> a = detail::cov_rows<C>(detail::to_array(m), o.rowvar, false, "m");
  const ndarray<C> b = detail::cov_rows<C>(detail::to_array(y), o.rowvar, true, "y");
  if (a.shape()[0] == 0) {
    return empty<C>({0, 0});
  }
  return detail::cov_of<C>(concatenate({a, b}, 0), o);
}

namespace detail {
template <class C>
ndarray<C> corrcoef_of(const ndarray<C>& c) {
  if (c.ndim() < 2) {
    return ndarray<C>(c / c);  // NumPy: diag() of a 0-d array fails, so c / c
  }
  const index_t p = c.shape()[0];
  using R = real_t<C>;
  const ndarray<C> d = c.reshape({p * p})(slice(0, p * p, p + 1));
  const ndarray<R> stddev = sqrt(real(d));
  const ndarray<C> scaled = c / stddev.reshape({p, 1}) / stddev.reshape({1, p});
  if constexpr (std::is_same_v<C, R>) {
    return ndarray<C>(clip(scaled, R{-1}, R{1}));
  } else {
    return ndarray<C>(clip(real(scaled), R{-1}, R{1}) + clip(imag(scaled), R{-1}, R{1}) * C(0, 1));
  }
}
}  // namespace detail

/// NumPy's corrcoef(x, rowvar): the Pearson correlation coefficients, cov / (s_i s_j), clipped
/// to [-1, 1] (real and imaginary parts alike).
template <array_operand X>
[[nodiscard]] auto corrcoef(const X& x, bool rowvar = true) {
  const ndcuda::detail::op_range<"nd::linalg::corrcoef"> nvtx;
  return detail::corrcoef_of(cov(x, cov_options{.rowvar = rowvar}));
}
/// np.corrcoef(x, y, rowvar): y's variables appended to x's.
template <array_operand X, array_operand Y>
[[nodiscard]] auto corrcoef(const X& x, const Y& y, bool rowvar = true) {
  const ndcuda::detail::op_range<"nd::linalg::corrcoef"> nvtx;
  return detail::corrcoef_of(cov(x, y, cov_options{.rowvar = rowvar}));
}

}  // namespace ndcuda::linalg

#pragma GCC visibility pop
