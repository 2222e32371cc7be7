/// @file
/// NumPy's products: dot, vdot, inner, outer, tensordot, kron (namespace nd::) and
/// linalg::multi_dot, linalg::matrix_power (matmul: linalg/matmul_expr.hpp). Builds on linalg/detail/entry_points.hpp
/// (cuBLAS and the exact integer kernel, compiled into ndcuda::linalg) and ops/ for the elementwise parts.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <algorithm>
#include <limits>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/linalg/detail/entry_points.hpp>
#include <ndcuda/linalg/detail/operands.hpp>
#include <ndcuda/linalg/linalg_error.hpp>
#include <ndcuda/linalg/matmul_expr.hpp>
#include <ndcuda/ops/elementwise.hpp>
#include <string>
#include <vector>

namespace ndcuda {

/// numpy.tensordot over explicit axis lists: sums a's axes_a against b's axes_b (pairwise equal
/// extents); the result has a's remaining axes, then b's.
template <array_operand X, array_operand Y>
[[nodiscard]] auto tensordot(const X& x, const Y& y, const std::vector<index_t>& axes_a,
                             const std::vector<index_t>& axes_b) {
  const auto a = linalg::detail::to_array(x);
  const auto b = linalg::detail::to_array(y);
  if (axes_a.size() != axes_b.size()) {
    throw shape_error("tensordot: shape-mismatch for sum: " + std::to_string(axes_a.size()) + " axes of a against " +
                      std::to_string(axes_b.size()) + " axes of b");
  }
  const std::vector<int> ca = normalize_axes(axes_a, a.ndim());
  const std::vector<int> cb = normalize_axes(axes_b, b.ndim());
  index_t k = 1;
  for (std::size_t i = 0; i < ca.size(); ++i) {
    const index_t ea = a.shape()[static_cast<std::size_t>(ca[i])];
    const index_t eb = b.shape()[static_cast<std::size_t>(cb[i])];
    if (ea != eb) {
      throw shape_error("tensordot: shape-mismatch for sum: axis " + std::to_string(ca[i]) + " of a has " +
                        std::to_string(ea) + " elements, axis " + std::to_string(cb[i]) + " of b has " +
                        std::to_string(eb));
    }
    k *= ea;
  }
  std::vector<index_t> perm_a, perm_b;
  shape_t out_shape;
  index_t m = 1, n = 1;
  for (int i = 0; i < a.ndim(); ++i) {
    if (std::find(ca.begin(), ca.end(), i) == ca.end()) {
      perm_a.push_back(i);
      out_shape.push_back(a.shape()[static_cast<std::size_t>(i)]);
      m *= a.shape()[static_cast<std::size_t>(i)];
    }
  }
  perm_a.insert(perm_a.end(), ca.begin(), ca.end());
  perm_b.assign(cb.begin(), cb.end());
  for (int i = 0; i < b.ndim(); ++i) {
    if (std::find(cb.begin(), cb.end(), i) == cb.end()) {
      perm_b.push_back(i);
      out_shape.push_back(b.shape()[static_cast<std::size_t>(i)]);
      n *= b.shape()[static_cast<std::size_t>(i)];
    }
  }
  // A permuted view reshaped to a matrix stays a view whenever the strides allow (transposes do).
  const auto a2 = a.transpose(perm_a).reshape({m, k});
  const auto b2 = b.transpose(perm_b).reshape({k, n});
  using R = promote_t<linalg::detail::value_t<X>, linalg::detail::value_t<Y>>;
  const ndarray<R> product = matmul(a2, b2);
  return product.reshape(out_shape);
}

/// numpy.tensordot(a, b, axes=n): the last n axes of a against the first n of b.
template <array_operand X, array_operand Y>
[[nodiscard]] auto tensordot(const X& x, const Y& y, int n = 2) {
  const ndcuda::detail::op_range<"nd::tensordot"> nvtx;
  const auto a = linalg::detail::to_array(x);
  const auto b = linalg::detail::to_array(y);
  if (n < 0 || n > a.ndim() || n > b.ndim()) {
    throw shape_error("tensordot: axes=" + std::to_string(n) + " needs at least that many axes in both operands (" +
                      std::to_string(a.ndim()) + " and " + std::to_string(b.ndim()) + ")");
  }
  std::vector<index_t> axes_a, axes_b;
  for (int i = 0; i < n; ++i) {
    axes_a.push_back(a.ndim() - n + i);
    axes_b.push_back(i);
  }
  return tensordot(a, b, axes_a, axes_b);
}

/// numpy.dot: matmul for 1-d and 2-d operands and for a vector b; a product for 0-d operands;
/// otherwise the sum over a's last axis and b's second to last (dot(a, b)[i,j,k,m] =
/// sum(a[i,j,:] * b[k,:,m])), which differs from matmul's batch broadcasting.
template <array_operand X, array_operand Y>
[[nodiscard]] auto dot(const X& x, const Y& y) {
  const ndcuda::detail::op_range<"nd::dot"> nvtx;
  const auto a = linalg::detail::to_array(x);
  const auto b = linalg::detail::to_array(y);
  using R = promote_t<linalg::detail::value_t<X>, linalg::detail::value_t<Y>>;
  if (a.ndim() == 0 || b.ndim() == 0) {
    return ndarray<R>(a * b);
  }
  if (b.ndim() == 1 || (a.ndim() <= 2 && b.ndim() <= 2)) {
    return ndarray<R>(matmul(a, b));
  }
  return ndarray<R>(tensordot(a, b, {a.ndim() - 1}, {b.ndim() - 2}));
}

/// numpy.vdot: the dot product of the flattened operands, the first one conjugated.
template <array_operand X, array_operand Y>
[[nodiscard]] auto vdot(const X& x, const Y& y) {
  const ndcuda::detail::op_range<"nd::vdot"> nvtx;
  const auto a = linalg::detail::to_array(x);
  const auto b = linalg::detail::to_array(y);
  if (a.size() != b.size()) {
    throw shape_error("vdot: cannot take the dot product of " + std::to_string(a.size()) + " and " +
                      std::to_string(b.size()) + " elements (vectors must have the same size)");
  }
  if constexpr (is_complex(dtype_of<linalg::detail::value_t<X>>)) {
    const auto ca = eval(conj(a.ravel()));
    return eval(matmul(ca, b.ravel()));
  } else {
    return eval(matmul(a.ravel(), b.ravel()));
  }
}

/// numpy.inner: the sum over the last axes of both (a product for 0-d operands).
template <array_operand X, array_operand Y>
[[nodiscard]] auto inner(const X& x, const Y& y) {
  const ndcuda::detail::op_range<"nd::inner"> nvtx;
  const auto a = linalg::detail::to_array(x);
  const auto b = linalg::detail::to_array(y);
  using R = promote_t<linalg::detail::value_t<X>, linalg::detail::value_t<Y>>;
  if (a.ndim() == 0 || b.ndim() == 0) {
    return ndarray<R>(a * b);
  }
  return ndarray<R>(tensordot(a, b, {-1}, {-1}));
}

/// numpy.outer: out[i, j] = a.ravel()[i] * b.ravel()[j], one fused elementwise kernel.
template <array_operand X, array_operand Y>
[[nodiscard]] auto outer(const X& x, const Y& y) {
  const ndcuda::detail::op_range<"nd::outer"> nvtx;
  const auto a = linalg::detail::to_array(x);
  const auto b = linalg::detail::to_array(y);
  return eval(a.ravel().reshape({-1, 1}) * b.ravel().reshape({1, -1}));
}

/// numpy.kron: the block product, one fused elementwise kernel over interleaved axes.
template <array_operand X, array_operand Y>
[[nodiscard]] auto kron(const X& x, const Y& y) {
  const ndcuda::detail::op_range<"nd::kron"> nvtx;
  auto a = linalg::detail::to_array(x);
  auto b = linalg::detail::to_array(y);
  const int nd = std::max(a.ndim(), b.ndim());
  shape_t sa(static_cast<std::size_t>(nd - a.ndim()), 1), sb(static_cast<std::size_t>(nd - b.ndim()), 1);
  sa.insert(sa.end(), a.shape().begin(), a.shape().end());
  sb.insert(sb.end(), b.shape().begin(), b.shape().end());
  shape_t ia, ib, out;
  for (std::size_t i = 0; i < static_cast<std::size_t>(nd); ++i) {
    ia.push_back(sa[i]);
    ia.push_back(1);
    ib.push_back(1);
    ib.push_back(sb[i]);
    out.push_back(sa[i] * sb[i]);
  }
  const auto product = eval(a.reshape(ia) * b.reshape(ib));
  return product.reshape(out);
}

namespace linalg {

namespace detail {

/// What matmul_epilogue does when cuBLASLt has no fused kernel: the same values, composed.
template <class R, class A, class B, class C>
ndarray<R> compose_epilogue(const ndarray<A>& a, const ndarray<B>& b, const ndarray<C>* bias, activation act) {
  ndarray<R> p = ndcuda::matmul(a, b);
  if (bias != nullptr) {
    p(ellipsis) = p + *bias;
  }
  if (act == activation::relu) {
    p(ellipsis) = maximum(p, 0);
  } else if (act == activation::gelu) {
    p(ellipsis) = 0.5 * p * (1 + tanh(0.7978845608028654 * (p + 0.044715 * p * p * p)));
  }
  return p;
}

}  // namespace detail

/// act(a @ b + bias) for 2-d a (m, k), b (k, n) and bias (n,) (one value per column), as ONE
/// cuBLASLt call whose epilogue adds the bias and applies the activation while the product is
/// still in registers: no extra pass over the (m, n) result. float16, bfloat16 (float32
/// accumulation), float32 (TF32 per set_allow_tf32) and float64.
template <array_operand X, array_operand Y, array_operand B>
[[nodiscard]] auto matmul_epilogue(const X& x, const Y& y, const B& bias, activation act) {
  const ndcuda::detail::op_range<"nd::linalg::matmul_epilogue"> nvtx;
  const auto a = detail::to_array(x);
  const auto b = detail::to_array(y);
  const auto c = detail::to_array(bias);
  using R = promote_t<detail::value_t<X>, detail::value_t<Y>>;
  const detail::erased_array ec = detail::erase(c);
  detail::erased_array r =
      detail::matmul_epilogue(detail::erase(a), detail::erase(b), &ec, dtype_of<R>, static_cast<int>(act));
  if (r.base == nullptr && r.owner == nullptr && a.shape()[0] * b.shape()[1] > 0) {
    return detail::compose_epilogue<R>(a, b, &c, act);
  }
  return detail::restore<R>(std::move(r));
}
/// act(a @ b) without a bias.
template <array_operand X, array_operand Y>
[[nodiscard]] auto matmul_epilogue(const X& x, const Y& y, activation act) {
  const ndcuda::detail::op_range<"nd::linalg::matmul_epilogue"> nvtx;
  const auto a = detail::to_array(x);
  const auto b = detail::to_array(y);
  using R = promote_t<detail::value_t<X>, detail::value_t<Y>>;
  detail::erased_array r =
      detail::matmul_epilogue(detail::erase(a), detail::erase(b), nullptr, dtype_of<R>, static_cast<int>(act));
  if (r.base == nullptr && r.owner == nullptr && a.shape()[0] * b.shape()[1] > 0) {
    return detail::compose_epilogue<R, typename decltype(a)::value_type, typename decltype(b)::value_type, R>(
        a, b, nullptr, act);
  }
  return detail::restore<R>(std::move(r));
}

/// numpy.linalg.multi_dot: the product of a chain in the cheapest association order (NumPy's
/// dynamic programme on the shapes); the first and last operands may be 1-d.
template <array_element E>
[[nodiscard]] ndarray<E> multi_dot(const std::vector<ndarray<E>>& arrays) {
  const ndcuda::detail::op_range<"nd::linalg::multi_dot"> nvtx;
  const std::size_t n = arrays.size();
  if (n < 2) {
    throw shape_error("multi_dot: expecting at least two arrays");
  }
  if (n == 2) {
    return ndarray<E>(matmul(arrays[0], arrays[1]));
  }
  std::vector<ndarray<E>> m = arrays;
  const bool first_vector = m.front().ndim() == 1;
  const bool last_vector = m.back().ndim() == 1;
  if (first_vector) {
    m.front() = m.front().reshape({1, -1});
  }
  if (last_vector) {
    m.back() = m.back().reshape({-1, 1});
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (m[i].ndim() != 2) {
      throw shape_error("multi_dot: array " + std::to_string(i) + " has " + std::to_string(m[i].ndim()) +
                        " dimensions; only the first and last may be 1-d, the others must be 2-d");
    }
  }
  // p[i], p[i + 1]: the shape of matrix i; cost[i][j] and split[i][j] as in NumPy's
  // _multi_dot_matrix_chain_order.
  std::vector<double> p(n + 1);
  for (std::size_t i = 0; i < n; ++i) {
    p[i] = static_cast<double>(m[i].shape()[0]);
  }
  p[n] = static_cast<double>(m[n - 1].shape()[1]);
  std::vector<std::vector<double>> cost(n, std::vector<double>(n, 0.0));
  std::vector<std::vector<std::size_t>> split(n, std::vector<std::size_t>(n, 0));
  for (std::size_t len = 1; len < n; ++len) {
    for (std::size_t i = 0; i + len < n; ++i) {
      const std::size_t j = i + len;
      cost[i][j] = std::numeric_limits<double>::infinity();
      for (std::size_t k = i; k < j; ++k) {
        const double c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1];
        if (c < cost[i][j]) {
          cost[i][j] = c;
          split[i][j] = k;
        }
      }
    }
  }
  const auto chain = [&](const auto& self, std::size_t i, std::size_t j) -> ndarray<E> {
    if (i == j) {
      return m[i];
    }
    return ndarray<E>(matmul(self(self, i, split[i][j]), self(self, split[i][j] + 1, j)));
  };
  ndarray<E> r = chain(chain, 0, n - 1);
  if (first_vector && last_vector) {
    return r.reshape({});
  }
  if (first_vector) {
    return r.reshape({-1});
  }
  if (last_vector) {
    return r.reshape({-1});
  }
  return r;
}

template <array_operand X>
[[nodiscard]] auto inv(const X& x);

/// numpy.linalg.matrix_power: a @ a @ ... (n times) by repeated squaring; n = 0 gives identity
/// matrices, n < 0 powers the inverse (float and complex only).
template <array_operand X>
[[nodiscard]] auto matrix_power(const X& x, long long n) {
  const ndcuda::detail::op_range<"nd::linalg::matrix_power"> nvtx;
  using E = linalg::detail::value_t<X>;
  const ndarray<E> a = linalg::detail::to_array(x);
  if (a.ndim() < 2 ||
      a.shape()[static_cast<std::size_t>(a.ndim() - 1)] != a.shape()[static_cast<std::size_t>(a.ndim() - 2)]) {
    throw linalg_error("matrix_power: Last 2 dimensions of the array must be square (shape " + format_shape(a.shape()) +
                       ")");
  }
  if (n == 0) {
    const index_t size = a.shape().back();
    const ndarray<E> eye_n = eye<E>(size, size, 0, a.stream());
    return eye_n.broadcast_to(a.shape()).copy();
  }
  ndarray<E> base = a;
  if (n < 0) {
    if constexpr (is_integral(dtype_of<E>) || dtype_of<E> == dtype::bool_) {
      throw linalg_error(
          "matrix_power: negative powers need a float or complex matrix (integer matrices are not "
          "invertible in general); convert with astype<double>() first");
    } else {
      base = ndarray<E>(inv(a));
      n = -n;
    }
  }
  std::optional<ndarray<E>> result;
  while (true) {
    if ((n & 1) != 0) {
      if (result) {
        *result = ndarray<E>(matmul(*result, base));
      } else {
        result.emplace(base);
      }
    }
    n >>= 1;
    if (n == 0) {
      break;
    }
    base = ndarray<E>(matmul(base, base));
  }
  return result->copy();
}

}  // namespace linalg
}  // namespace ndcuda

#pragma GCC visibility pop
