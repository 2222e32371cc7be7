// Helpers of the GPU linalg tests: typed device arrays from host values, values back as
// complex<double>, NumPy-broadcast host matmul, and tolerances per dtype.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <ndcuda/linalg.hpp>
#include <ndcuda/linalg/detail/matmul_plan.hpp>
#include <random>
#include <type_traits>
#include <vector>

#include "support/host_linalg.hpp"

namespace ndcuda::testing {

template <class T>
constexpr bool is_cplx_v = ndcuda::detail::is_std_complex<T>;

template <class T>
T from_cd(cd x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half(static_cast<float>(x.real()));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16(static_cast<float>(x.real()));
  } else if constexpr (is_cplx_v<T>) {
    using R = typename T::value_type;
    return T(static_cast<R>(x.real()), static_cast<R>(x.imag()));
  } else if constexpr (std::is_same_v<T, bool>) {
    return x.real() != 0;
  } else {
    return static_cast<T>(x.real());
  }
}

template <class T>
cd to_cd(const T& x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(x);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(x);
  } else if constexpr (is_cplx_v<T>) {
    return cd(static_cast<double>(x.real()), static_cast<double>(x.imag()));
  } else {
    return static_cast<double>(x);
  }
}

/// Random values of T for `shape`: uniform in [-1, 1) for floats (both parts for complex),
/// integers in [-lo, hi], bool 0/1.
template <class T>
std::vector<T> random_values(index_t count) {
  std::vector<T> v(static_cast<std::size_t>(count));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> small(-9, 9);
  for (std::size_t i = 0; i < v.size(); ++i) {  // by index: vector<bool> has no references
    if constexpr (std::is_same_v<T, bool>) {
      v[i] = small(rng()) > 0;
    } else if constexpr (std::is_integral_v<T>) {
      v[i] = static_cast<T>(std::is_signed_v<T> ? small(rng()) : small(rng()) + 9);
    } else {
      v[i] = from_cd<T>(cd(u(rng()), u(rng())));
    }
  }
  return v;
}

template <class T>
ndcuda::ndarray<T> random_array(const shape_t& shape) {
  return ndcuda::asarray<T>(random_values<T>(shape_size(shape)), shape);
}

template <class T>
std::vector<cd> host_values(const ndcuda::ndarray<T>& a) {
  const std::vector<T> h = a.to_host();
  std::vector<cd> out;
  out.reserve(h.size());
  for (const T& x : h) {
    out.push_back(to_cd(x));
  }
  return out;
}

/// NumPy's matmul on the host in complex<double>, with the scale sum |a||b| of each element.
struct host_product {
  shape_t shape;
  std::vector<cd> value;
  std::vector<double> scale;
};

inline host_product host_matmul_nd(const std::vector<cd>& a, const shape_t& as, const std::vector<cd>& b,
                                   const shape_t& bs) {
  const auto p = ndcuda::linalg::detail::plan_matmul(as, bs);
  // Promoted operand shapes (batch..., rows, cols) and their C strides.
  shape_t a2 = as, b2 = bs;
  if (p.a_vector) {
    a2.insert(a2.begin(), 1);
  }
  if (p.b_vector) {
    b2.push_back(1);
  }
  const auto sa = c_strides(a2), sb = c_strides(b2);
  const std::size_t nb = p.batch.size();
  host_product out;
  out.shape = p.out_shape;
  const index_t count = p.batch_count();
  out.value.assign(static_cast<std::size_t>(count * p.m * p.n), 0);
  out.scale.assign(out.value.size(), 0);
  for (index_t z = 0; z < count; ++z) {
    index_t rest = z, oa = 0, ob = 0;
    for (std::size_t d = nb; d-- > 0;) {
      const index_t c = rest % p.batch[d];
      rest /= p.batch[d];
      const std::ptrdiff_t da =
          static_cast<std::ptrdiff_t>(d) - static_cast<std::ptrdiff_t>(nb) + static_cast<std::ptrdiff_t>(a2.size() - 2);
      const std::ptrdiff_t db =
          static_cast<std::ptrdiff_t>(d) - static_cast<std::ptrdiff_t>(nb) + static_cast<std::ptrdiff_t>(b2.size() - 2);
      if (da >= 0 && a2[static_cast<std::size_t>(da)] != 1) {
        oa += c * sa[static_cast<std::size_t>(da)];
      }
      if (db >= 0 && b2[static_cast<std::size_t>(db)] != 1) {
        ob += c * sb[static_cast<std::size_t>(db)];
      }
    }
    for (index_t i = 0; i < p.m; ++i) {
      for (index_t j = 0; j < p.n; ++j) {
        cd acc = 0;
        double sc = 0;
        for (index_t k = 0; k < p.k; ++k) {
          const cd x = a[static_cast<std::size_t>(oa + i * sa[a2.size() - 2] + k * sa[a2.size() - 1])];
          const cd y = b[static_cast<std::size_t>(ob + k * sb[b2.size() - 2] + j * sb[b2.size() - 1])];
          acc += x * y;
          sc += std::abs(x) * std::abs(y);
        }
        out.value[static_cast<std::size_t>((z * p.m + i) * p.n + j)] = acc;
        out.scale[static_cast<std::size_t>((z * p.m + i) * p.n + j)] = sc;
      }
    }
  }
  return out;
}

/// Relative error bound of one product element, times its scale sum |a||b|, for T with k terms:
/// a few roundings per term in the accumulation type, plus the rounding of the result to T.
template <class T>
double product_tolerance(index_t k) {
  const double kk = static_cast<double>(std::max<index_t>(k, 1));
  if constexpr (std::is_same_v<T, __half>) {
    return 1e-3 + 4 * kk * 6e-8;  // float32 accumulation, result rounded to 11 bits
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return 8e-3 + 4 * kk * 6e-8;  // result rounded to 8 bits
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, std::complex<float>>) {
    return 4 * kk * 6e-8;  // tight enough to catch TF32 (about 5e-4)
  } else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, std::complex<double>>) {
    return 4 * kk * 1.2e-16;
  } else {
    return 0;  // integers and bool: exact
  }
}

/// Wrap-around of an exact integer result to T, as NumPy's integer matmul gives.
template <class T>
cd wrap_to(cd exact) {
  if constexpr (std::is_same_v<T, bool>) {
    return exact.real() != 0 ? 1.0 : 0.0;
  } else if constexpr (std::is_integral_v<T>) {
    const auto v = static_cast<long long>(std::llround(exact.real()));
    return static_cast<double>(static_cast<T>(static_cast<unsigned long long>(v)));
  } else {
    return exact;
  }
}

/// Checks nd's result of matmul(a, b) against the host reference.
template <class R, class A, class B>
void expect_matmul(const ndcuda::ndarray<R>& got, const ndcuda::ndarray<A>& a, const ndcuda::ndarray<B>& b) {
  const host_product ref = host_matmul_nd(host_values(a), a.shape(), host_values(b), b.shape());
  ASSERT_EQ(got.shape(), ref.shape);
  const std::vector<cd> g = host_values(got);
  const auto p = ndcuda::linalg::detail::plan_matmul(a.shape(), b.shape());
  const double tol = product_tolerance<R>(p.k);
  for (std::size_t i = 0; i < g.size(); ++i) {
    const cd expected = wrap_to<R>(ref.value[i]);
    if constexpr (std::is_integral_v<R>) {
      ASSERT_EQ(g[i], expected) << "element " << i;
    } else {
      ASSERT_LE(std::abs(g[i] - expected), tol * ref.scale[i] + 1e-300) << "element " << i << " of " << g.size();
    }
  }
}
/// The same for the lazy product nd::matmul returns: evaluated once here, then checked.
template <class R, class A, class B>
void expect_matmul(const ndcuda::matmul_expr<R>& got, const ndcuda::ndarray<A>& a, const ndcuda::ndarray<B>& b) {
  expect_matmul(ndcuda::ndarray<R>(got), a, b);
}

}  // namespace ndcuda::testing
