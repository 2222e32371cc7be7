// Every dtype through the fused kernels on the GPU, against host references: a + b, a - b, a * b,
// a < b, a == b, maximum, -a and a * 2 (a weak scalar; the result dtype checked against NumPy 2).
// Tolerances: integers and bool exact, wrapping at the type's width as NumPy and C++ do; float32
// and float64 exact (+ - * of two floats is one IEEE rounding: the host computes the same in T);
// float16/bfloat16 within 1 ulp of the double result rounded to the type (exact is expected:
// float32 intermediates hold 2p+2 bits); complex + - exact, * within 4 eps * |a||b| per part.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ndcuda/ndcuda.hpp>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "support/gpu.hpp"

namespace nd = ndcuda;

namespace {

using bf16 = __nv_bfloat16;

template <class T>
constexpr bool is_cplx = nd::detail::is_std_complex<T>;
template <class T>
constexpr bool is_low = std::is_same_v<T, __half> || std::is_same_v<T, bf16>;
template <class T>
constexpr bool is_int = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <class T>
constexpr bool is_real_float = std::is_floating_point_v<T> || is_low<T>;

// The host value in a wide type: int64/uint64 for integers, double, complex<double>.
template <class T>
auto wide(T x) {
  if constexpr (std::is_same_v<T, bool>) {
    return std::int64_t{x};
  } else if constexpr (is_int<T> && std::is_signed_v<T>) {
    return std::int64_t{x};
  } else if constexpr (is_int<T>) {
    return std::uint64_t{x};
  } else if constexpr (std::is_same_v<T, __half>) {
    return static_cast<double>(__half2float(x));
  } else if constexpr (std::is_same_v<T, bf16>) {
    return static_cast<double>(__bfloat162float(x));
  } else if constexpr (is_cplx<T>) {
    return std::complex<double>(x);
  } else {
    return static_cast<double>(x);
  }
}

// A wide value narrowed to R: integers wrap (C++20 conversions are modular), floats round.
template <class R, class W>
R narrow(W v) {
  if constexpr (std::is_same_v<R, bool>) {
    return v != W(0);
  } else if constexpr (std::is_same_v<R, __half>) {
    return __float2half(static_cast<float>(v));
  } else if constexpr (std::is_same_v<R, bf16>) {
    return __float2bfloat16(static_cast<float>(v));
  } else if constexpr (is_cplx<R>) {
    using P = typename R::value_type;
    return R(static_cast<P>(v.real()), static_cast<P>(v.imag()));
  } else {
    return static_cast<R>(v);
  }
}

template <class T>
std::string show(T x) {
  std::ostringstream os;
  if constexpr (is_cplx<T> || is_int<T> || std::is_same_v<T, bool>) {
    os << +wide(x);
  } else {
    os << wide(x);
  }
  return os.str();
}

// Half and bfloat16 bits as integers ordered like the values (+0 and -0 both 0).
template <class T>
int ordered_bits(T x) {
  std::uint16_t bits = 0;
  std::memcpy(&bits, &x, sizeof(bits));
  return (bits & 0x8000) != 0 ? -(bits & 0x7fff) : bits;
}

// got == want under the tolerance the header states; `scale` is |a||b| for complex products.
template <class R>
bool same_value(R got, R want, double scale) {
  if constexpr (is_low<R>) {
    return std::abs(ordered_bits(got) - ordered_bits(want)) <= 1;
  } else if constexpr (is_cplx<R>) {
    const double tol = 4 * std::numeric_limits<typename R::value_type>::epsilon() * scale;
    return std::abs(double(got.real()) - double(want.real())) <= tol &&
           std::abs(double(got.imag()) - double(want.imag())) <= tol;
  } else {
    return got == want;
  }
}

template <class T>
std::vector<T> random_values(std::size_t n) {
  auto& g = nd::testing::rng();
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      v[i] = std::bernoulli_distribution(0.5)(g);
    } else if constexpr (is_int<T> && sizeof(T) <= 2) {
      // The whole range: sums, differences and products wrap.
      v[i] = static_cast<T>(
          std::uniform_int_distribution<std::int64_t>(std::numeric_limits<T>::min(), std::numeric_limits<T>::max())(g));
    } else if constexpr (is_int<T>) {
      // Small enough that no signed operation overflows (unsigned differences still wrap).
      v[i] = static_cast<T>(std::uniform_int_distribution<std::int64_t>(std::is_signed_v<T> ? -1000 : 0, 1000)(g));
    } else if constexpr (is_cplx<T>) {
      std::uniform_real_distribution<typename T::value_type> d(-4, 4);
      v[i] = T(d(g), d(g));
    } else {
      std::uniform_real_distribution<float> d(-4, 4);
      v[i] = narrow<T>(static_cast<double>(d(g)));
    }
  }
  return v;
}

template <class T>
nd::ndarray<T> device(const std::vector<T>& h) {
  return nd::asarray(h, {static_cast<nd::index_t>(h.size())});
}

// Evaluates `x` on the GPU and compares it, element by element, with ref(i).
template <class R, class X, class F>
void expect_elements(const char* what, const X& x, std::size_t n, F ref, const std::vector<double>& scale = {}) {
  static_assert(std::is_same_v<typename X::value_type, R>, "unexpected result dtype");
  const nd::ndarray<R> d = nd::eval(x);
  ASSERT_EQ(d.size(), static_cast<nd::index_t>(n));
  const auto got = d.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    const R want = ref(i);
    if (!same_value<R>(got[i], want, scale.empty() ? 0.0 : scale[i])) {
      ADD_FAILURE() << what << " at " << i << ": got " << show<R>(got[i]) << ", want " << show<R>(want);
      return;
    }
  }
}

template <class T>
class OpsGpuTyped : public ::testing::Test {};

using AllTypes = ::testing::Types<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
                                  std::uint16_t, std::uint32_t, std::uint64_t, __half, bf16, float, double,
                                  std::complex<float>, std::complex<double>>;

// gtest names the instantiations by dtype.
struct dtype_names {
  template <class T>
  static std::string GetName(int) {
    return std::string(nd::name(nd::dtype_of<T>));
  }
};

}  // namespace

TYPED_TEST_SUITE(OpsGpuTyped, AllTypes, dtype_names);

TYPED_TEST(OpsGpuTyped, ArithmeticComparisonsAndScalarAgainstHost) {
  using T = TypeParam;
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = 10007;
  const std::vector<T> ha = random_values<T>(n);
  std::vector<T> hb = random_values<T>(n);
  for (std::size_t i = 0; i < n; i += 4) {
    hb[i] = ha[i];  // so that == is sometimes true
  }
  const auto a = device(ha);
  const auto b = device(hb);
  const auto x = [&](std::size_t i) { return wide<T>(ha[i]); };
  const auto y = [&](std::size_t i) { return wide<T>(hb[i]); };

  // Exact per-part products for complex tolerances.
  std::vector<double> scale;
  if constexpr (is_cplx<T>) {
    for (std::size_t i = 0; i < n; ++i) {
      scale.push_back(std::abs(x(i)) * std::abs(y(i)));
    }
  }

  if constexpr (std::is_same_v<T, bool>) {
    // NumPy: bool + bool is logical or, bool * bool logical and; bool - bool is an error.
    expect_elements<bool>("a + b", a + b, n, [&](std::size_t i) { return ha[i] || hb[i]; });
    expect_elements<bool>("a * b", a * b, n, [&](std::size_t i) { return ha[i] && hb[i]; });
  } else if constexpr (std::is_floating_point_v<T> || (is_cplx<T>)) {
    // One IEEE operation in T on the host is the exact reference (per part for complex + -).
    expect_elements<T>("a + b", a + b, n, [&](std::size_t i) { return T(ha[i] + hb[i]); });
    expect_elements<T>("a - b", a - b, n, [&](std::size_t i) { return T(ha[i] - hb[i]); });
    expect_elements<T>(
        "a * b", a * b, n, [&](std::size_t i) { return narrow<T>(x(i) * y(i)); }, scale);
  } else {
    expect_elements<T>("a + b", a + b, n, [&](std::size_t i) { return narrow<T>(x(i) + y(i)); });
    expect_elements<T>("a - b", a - b, n, [&](std::size_t i) { return narrow<T>(x(i) - y(i)); });
    expect_elements<T>("a * b", a * b, n, [&](std::size_t i) { return narrow<T>(x(i) * y(i)); });
  }

  expect_elements<bool>("a == b", a == b, n, [&](std::size_t i) { return x(i) == y(i); });
  if constexpr (!is_cplx<T>) {
    expect_elements<bool>("a < b", a < b, n, [&](std::size_t i) { return x(i) < y(i); });
    expect_elements<T>("maximum(a, b)", nd::maximum(a, b), n,
                       [&](std::size_t i) { return narrow<T>(x(i) < y(i) ? y(i) : x(i)); });
  }
  if constexpr (is_cplx<T> || is_real_float<T> || (is_int<T> && std::is_signed_v<T>)) {
    expect_elements<T>("-a", -a, n, [&](std::size_t i) { return narrow<T>(-x(i)); });
  }

  // a * 2, 2 weak: the array's dtype, except bool * int, which NumPy 2 makes int64.
  using scaled = std::conditional_t<std::is_same_v<T, bool>, std::int64_t, T>;
  static_assert(std::is_same_v<typename decltype(a * 2)::value_type, scaled>);
  EXPECT_EQ(decltype(a * 2)::type(), nd::promote_with_scalar(nd::dtype_of<T>, nd::scalar_kind_of<int>));
  expect_elements<scaled>("a * 2", a * 2, n, [&](std::size_t i) { return narrow<scaled>(x(i) * decltype(x(i))(2)); });
}

namespace {

template <class T>
class OpsGpuTypedFloat : public ::testing::Test {};
using FloatTypes = ::testing::Types<__half, bf16, float, double>;

template <class R>
bool same_special(R got, double want, bool check_sign) {
  const double g = wide<R>(got);
  if (std::isnan(want)) {
    return std::isnan(g);
  }
  return g == want && (!check_sign || std::signbit(g) == std::signbit(want));
}

}  // namespace

TYPED_TEST_SUITE(OpsGpuTypedFloat, FloatTypes, dtype_names);

// NaN, infinities and signed zeros: IEEE results (computed in double on the host, exact in every
// float type for these operands); maximum propagates NaN; the sign of zero is checked for + - *
// and negation, not for maximum (NumPy leaves maximum(+0, -0) unspecified).
TYPED_TEST(OpsGpuTypedFloat, NanInfinityAndSignedZero) {
  using T = TypeParam;
  NDCUDA_REQUIRE_GPU();
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> va = {nan, 1, inf, -inf, 0.0, -0.0, nan, 2, -0.0, inf, -1, 0.0};
  const std::vector<double> vb = {1, nan, 1, inf, -0.0, 0.0, nan, -inf, -0.0, inf, -inf, 3};
  std::vector<T> ha, hb;
  for (std::size_t i = 0; i < va.size(); ++i) {
    ha.push_back(narrow<T>(va[i]));
    hb.push_back(narrow<T>(vb[i]));
  }
  const auto a = device(ha);
  const auto b = device(hb);
  const auto check = [&](const char* what, const auto& x, auto ref, bool sign) {
    using R = typename std::remove_cvref_t<decltype(x)>::value_type;
    const auto got = nd::eval(x).to_host();
    ASSERT_EQ(got.size(), va.size());
    for (std::size_t i = 0; i < va.size(); ++i) {
      const double want = ref(va[i], vb[i]);
      if constexpr (std::is_same_v<R, bool>) {
        EXPECT_EQ(static_cast<bool>(got[i]), want != 0) << what << " at " << i;
      } else {
        EXPECT_TRUE(same_special<R>(got[i], want, sign))
            << what << " at " << i << ": got " << show<R>(got[i]) << ", want " << want;
      }
    }
  };
  check(
      "a + b", a + b, [](double p, double q) { return p + q; }, true);
  check(
      "a - b", a - b, [](double p, double q) { return p - q; }, true);
  check(
      "a * b", a * b, [](double p, double q) { return p * q; }, true);
  check(
      "a * 2", a * 2, [](double p, double) { return p * 2; }, true);
  check(
      "-a", -a, [](double p, double) { return -p; }, true);
  check(
      "maximum(a, b)", nd::maximum(a, b),
      [](double p, double q) {
        return std::isnan(p) || std::isnan(q) ? std::numeric_limits<double>::quiet_NaN() : std::max(p, q);
      },
      false);
  check(
      "a == b", a == b, [](double p, double q) { return p == q ? 1.0 : 0.0; }, false);
  check(
      "a < b", a < b, [](double p, double q) { return p < q ? 1.0 : 0.0; }, false);
  // -(+0) is -0 and -(-0) is +0.
  const auto neg = nd::eval(-a).to_host();
  EXPECT_TRUE(std::signbit(wide<T>(neg[4])));
  EXPECT_FALSE(std::signbit(wide<T>(neg[5])));
}
