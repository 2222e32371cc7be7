// cumsum and cumprod on the GPU for every dtype, flattened and along every axis of 1-d to 3-d
// arrays and their transposed and reversed-strided views, against host references: integers and
// bool exactly, with NumPy's wraparound (int64 sums/products modulo 2^64, computed in uint64);
// floating and complex types in double, within a bound of the scan's rounding: u_acc * depth * sum|x|
// (sums) or u_acc * depth * |ref| (products), plus the rounding of the result dtype, where depth =
// 32 + len/64 bounds the additions on any path of CUB's tiled scan (u_acc: float32's unit roundoff
// for float16/bfloat16/float32, which accumulate in float32).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <ndcuda/ndcuda.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "support/gpu.hpp"

namespace nd = ndcuda;

namespace {

using bf16 = __nv_bfloat16;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

template <class T>
constexpr bool is_low = std::is_same_v<T, __half> || std::is_same_v<T, bf16>;
template <class T>
constexpr bool is_cplx = nd::detail::is_std_complex<T>;
template <class T>
constexpr bool is_exact = std::is_integral_v<T>;  // bool and integers

template <class T>
c128 wide(T x) {
  if constexpr (std::is_same_v<T, __half>) {
    return static_cast<double>(__half2float(x));
  } else if constexpr (std::is_same_v<T, bf16>) {
    return static_cast<double>(__bfloat162float(x));
  } else if constexpr (is_cplx<T>) {
    return c128(x.real(), x.imag());
  } else {
    return static_cast<double>(x);
  }
}

// The value as NumPy's int64/uint64 accumulator sees it, modulo 2^64.
template <class T>
std::uint64_t modular(T x) {
  if constexpr (std::is_signed_v<T>) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(x));
  } else {
    return static_cast<std::uint64_t>(x);
  }
}

template <class T>
std::vector<T> random_input(std::size_t n, nd::detail::scan_op op) {
  auto& g = nd::testing::rng();
  std::uniform_real_distribution<double> sum_values(-10.0, 10.0);
  std::uniform_real_distribution<double> prod_values(0.6, 1.4);
  std::vector<T> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const bool prod = op == nd::detail::scan_op::prod;
    if constexpr (std::is_same_v<T, bool>) {
      v.push_back(prod ? g() % 8 != 0 : (g() & 1) != 0);
    } else if constexpr (std::is_integral_v<T>) {
      if (prod) {
        v.push_back(static_cast<T>(static_cast<long long>(g() % 4) - (std::is_signed_v<T> ? 1 : 0)));
      } else {
        v.push_back(static_cast<T>(g()));  // full range: int64 sums wrap
      }
    } else {
      auto draw = [&] { return prod ? ((g() & 1) != 0 ? -1.0 : 1.0) * prod_values(g) : sum_values(g); };
      if constexpr (is_cplx<T>) {
        using P = typename T::value_type;
        // A product's modulus must stay near 1: scale the random complex factor.
        const c128 z(draw(), draw());
        const c128 unit = prod ? z / std::abs(z) * std::abs(draw()) : z;
        v.push_back(T(static_cast<P>(unit.real()), static_cast<P>(unit.imag())));
      } else {
        v.push_back(nd::detail::element_from<T>(draw()));
      }
    }
  }
  return v;
}

struct rows_of {
  std::size_t outer = 1, len = 1, inner = 1;
  rows_of(const nd::shape_t& shape, std::optional<int> axis) {
    if (!axis) {
      len = static_cast<std::size_t>(nd::shape_size(shape));
      return;
    }
    for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
      const auto e = static_cast<std::size_t>(shape[static_cast<std::size_t>(d)]);
      (d < *axis ? outer : d == *axis ? len : inner) *= e;
    }
  }
  [[nodiscard]] std::size_t count() const { return outer * inner; }
  [[nodiscard]] std::size_t at(std::size_t row, std::size_t k) const {
    return (row / inner) * len * inner + k * inner + row % inner;
  }
};

template <class R>
double unit_roundoff() {
  if constexpr (std::is_same_v<R, __half>) {
    return std::ldexp(1.0, -11);
  } else if constexpr (std::is_same_v<R, bf16>) {
    return std::ldexp(1.0, -8);
  } else if constexpr (std::is_same_v<R, float> || std::is_same_v<R, c64>) {
    return std::ldexp(1.0, -24);
  } else {
    return std::ldexp(1.0, -53);
  }
}
template <class R>
double smallest_normal() {
  if constexpr (std::is_same_v<R, __half>) {
    return 6.2e-5;
  } else if constexpr (std::is_same_v<R, double> || std::is_same_v<R, c128>) {
    return 1e-300;
  } else {
    return 1.2e-38;
  }
}

// Checks `got` (C order of `shape`, or flattened) against the host scan of `in` (same order).
template <class T, class R>
void check_scan(const std::vector<T>& in, const std::vector<R>& got, const nd::shape_t& shape, std::optional<int> axis,
                nd::detail::scan_op op) {
  ASSERT_EQ(got.size(), in.size());
  const rows_of r(shape, axis);
  const bool prod = op == nd::detail::scan_op::prod;
  using acc_t = std::conditional_t<std::is_same_v<R, __half> || std::is_same_v<R, bf16>, float, R>;
  const double u_acc = unit_roundoff<acc_t>();
  const double depth = 32.0 + static_cast<double>(r.len) / 64.0;
  for (std::size_t row = 0; row < r.count(); ++row) {
    std::uint64_t exact = prod ? 1 : 0;
    c128 ref = prod ? 1.0 : 0.0;
    double magnitude = 0;
    for (std::size_t k = 0; k < r.len; ++k) {
      const std::size_t i = r.at(row, k);
      if constexpr (is_exact<R>) {
        exact = prod ? exact * modular(in[i]) : exact + modular(in[i]);
        ASSERT_EQ(static_cast<std::uint64_t>(got[i]), exact) << "row " << row << " position " << k;
      } else {
        ref = prod ? ref * wide(in[i]) : ref + wide(in[i]);
        magnitude = prod ? std::abs(ref) : magnitude + std::abs(wide(in[i]));
        // A product's rounding grows with every factor (a complex multiply rounds up to ~3 times).
        const double steps = prod ? depth + 4.0 * static_cast<double>(k + 1) : depth;
        const double tolerance =
            u_acc * steps * magnitude + 2 * unit_roundoff<R>() * std::abs(ref) + smallest_normal<R>();
        ASSERT_LE(std::abs(wide(got[i]) - ref), tolerance)
            << "row " << row << " position " << k << ": got " << wide(got[i]) << ", want " << ref;
      }
    }
  }
}

template <class T>
std::vector<std::pair<std::string, nd::ndarray<T>>> views_of(const nd::ndarray<T>& a) {
  std::vector<std::pair<std::string, nd::ndarray<T>>> v;
  v.emplace_back("c-order", a);
  if (a.ndim() > 1) {
    v.emplace_back("transposed", a.T());
  }
  v.emplace_back("reversed step -2", a(nd::slice(nd::none, nd::none, -2)));
  return v;
}

template <class T>
class ScanGpu : public ::testing::Test {};
using all_types = ::testing::Types<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
                                   std::uint16_t, std::uint32_t, std::uint64_t, __half, bf16, float, double, c64, c128>;
TYPED_TEST_SUITE(ScanGpu, all_types);

TYPED_TEST(ScanGpu, CumsumAndCumprodOnEveryAxisAndView) {
  NDCUDA_REQUIRE_GPU();
  using T = TypeParam;
  using R = nd::detail::scan_result_t<nd::detail::default_result, T>;
  const std::vector<nd::shape_t> shapes = {{1000}, {37, 53}, {5, 7, 11}, {3, 6000}};
  for (nd::detail::scan_op op : {nd::detail::scan_op::sum, nd::detail::scan_op::prod}) {
    const bool prod = op == nd::detail::scan_op::prod;
    for (const nd::shape_t& shape : shapes) {
      const nd::ndarray<T> a = nd::asarray(random_input<T>(static_cast<std::size_t>(nd::shape_size(shape)), op), shape);
      for (const auto& [view_name, x] : views_of(a)) {
        const std::vector<T> logical = x.to_host();
        for (int axis = -2; axis < x.ndim(); ++axis) {
          // -2 stands for no axis (flattened); -1 is the last axis.
          const std::optional<nd::index_t> given = axis == -2 ? std::nullopt : std::optional<nd::index_t>(axis);
          const std::optional<int> ax = given ? std::optional<int>(axis < 0 ? axis + x.ndim() : axis) : std::nullopt;
          SCOPED_TRACE(std::string(prod ? "cumprod" : "cumsum") + " of shape " + nd::format_shape(x.shape()) + ", " +
                       view_name + ", axis " + (given ? std::to_string(axis) : "none"));
          const nd::ndarray<R> out = prod ? nd::cumprod(x, given) : nd::cumsum(x, given);
          ASSERT_EQ(out.shape(), given ? x.shape() : nd::shape_t{x.size()});
          check_scan(logical, out.to_host(), x.shape(), ax, op);
        }
      }
    }
  }
}

TEST(ScanGpuApi, ExplicitResultDtypesConvertFirstAsNumPyDoes) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<std::int32_t> ints = random_input<std::int32_t>(4096, nd::detail::scan_op::sum);
  const nd::ndarray<std::int32_t> a = nd::asarray(ints);
  // dtype=float64: exact here (sums of int32 stay far below 2^53).
  const std::vector<double> d = nd::cumsum<double>(a).to_host();
  // dtype=int8: every element wraps to int8 first, then the sums wrap in int8 (NumPy's answer).
  const std::vector<std::int8_t> i8 = nd::cumsum<std::int8_t>(a).to_host();
  double sum = 0;
  std::uint8_t wrapped = 0;
  for (std::size_t i = 0; i < ints.size(); ++i) {
    sum += ints[i];
    wrapped = static_cast<std::uint8_t>(wrapped + static_cast<std::uint8_t>(ints[i]));
    ASSERT_EQ(d[i], sum) << i;
    ASSERT_EQ(i8[i], static_cast<std::int8_t>(wrapped)) << i;
  }
  // dtype=bool: logical or (sum) and logical and (product) of the elements as bools.
  const nd::ndarray<int> flags = nd::asarray(std::vector<int>{0, 0, 2, 0, -1});
  EXPECT_EQ(nd::cumsum<bool>(flags).to_host(), (std::vector<bool>{false, false, true, true, true}));
  EXPECT_EQ(nd::cumprod<bool>(nd::asarray(std::vector<int>{3, -1, 0, 5})).to_host(),
            (std::vector<bool>{true, true, false, false}));
  // dtype=float32 of float64: the elements are rounded to float32 before summing.
  const nd::ndarray<double> tiny = nd::asarray(std::vector<double>{1.0, 1e-9, 1e-9});
  EXPECT_EQ(nd::cumsum<float>(tiny).to_host(), (std::vector<float>{1.0f, 1.0f, 1.0f}));
}

TEST(ScanGpuApi, ExpressionsAndExplicitStreams) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<float> host = random_input<float>(3 * 500, nd::detail::scan_op::sum);
  const nd::ndarray<float> a = nd::asarray(host, {3, 500});
  nd::stream s;
  const nd::ndarray<float> twice = nd::cumsum(a + a, 1, s);
  EXPECT_EQ(twice.stream(), s);
  const std::vector<float> once = nd::cumsum(a, 1).to_host();
  const std::vector<float> t = twice.to_host();
  for (std::size_t i = 0; i < host.size(); ++i) {
    ASSERT_NEAR(t[i], 2 * once[i], 1e-3 * (1 + std::abs(once[i]))) << i;
  }
  // 0-d input without an axis: NumPy gives a 1-element 1-d array.
  const nd::ndarray<int> scalar = nd::asarray(std::vector<int>{7}, nd::shape_t{});
  const nd::ndarray<std::int64_t> one = nd::cumsum(scalar);
  EXPECT_EQ(one.shape(), (nd::shape_t{1}));
  EXPECT_EQ(one.to_host(), (std::vector<std::int64_t>{7}));
  EXPECT_EQ(nd::cumprod(nd::empty<float>({0, 3}), 0).shape(), (nd::shape_t{0, 3}));
}

}  // namespace
