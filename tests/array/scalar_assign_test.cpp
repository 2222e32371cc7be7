// Scalar assignment (`d(nd::ellipsis) = 3`, NumPy's `d[...] = 3`): the conversion rules and errors on the host,
// and the fill on the GPU for several dtypes, contiguous and strided views, on the array's stream.
#include <gtest/gtest.h>

#include <bit>
#include <complex>
#include <cstdint>
#include <cstring>
#include <ndcuda/ndcuda.hpp>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "support/fake_array.hpp"
#include "support/gpu.hpp"

namespace nd = ndcuda;

namespace {

using nd::testing::fake;

}  // namespace

// NumPy: a complex scalar into a real array is a TypeError; every other weak scalar converts. The
// write is spelled on a temporary view (`a(nd::ellipsis) = 3`, an rvalue); `a = 3` on a named
// array would rebind it in NumPy, so it does not compile.
static_assert(std::is_assignable_v<nd::ndarray<float>&&, int>);
static_assert(std::is_assignable_v<nd::ndarray<std::uint8_t>&&, double>);
static_assert(std::is_assignable_v<nd::ndarray<bool>&&, int>);
static_assert(std::is_assignable_v<nd::ndarray<__half>&&, float>);
static_assert(std::is_assignable_v<nd::ndarray<std::complex<float>>&&, std::complex<double>>);
static_assert(!std::is_assignable_v<nd::ndarray<float>&&, std::complex<double>>);
static_assert(!std::is_assignable_v<nd::ndarray<std::int32_t>&&, std::complex<float>>);
static_assert(!std::is_assignable_v<nd::ndarray<float>&, int>);
static_assert(!std::is_assignable_v<nd::ndarray<float>&, nd::ndarray<double>>);

TEST(ArrayScalarAssign, IntegerOutOfRangeThrowsBeforeAnyLaunch) {
  auto u8 = fake<std::uint8_t>({4});
  EXPECT_THROW(u8.assign(300), nd::error);
  EXPECT_THROW(u8.assign(-1), nd::error);
  auto i8 = fake<std::int8_t>({4});
  EXPECT_THROW(i8.assign(128), nd::error);
  EXPECT_THROW(i8.assign(-129), nd::error);
  auto u64 = fake<std::uint64_t>({4});
  EXPECT_THROW(u64.assign(-1), nd::error);
  // A zero-size array launches nothing, so the in-range cases run here too.
  auto empty = fake<std::uint8_t>({0, 3});
  EXPECT_NO_THROW(empty.assign(255));
  EXPECT_NO_THROW(empty.assign(0));
  EXPECT_THROW(empty.assign(256), nd::error);
}

TEST(ArrayScalarAssign, ConversionFollowsExpressionScalars) {
  EXPECT_EQ(nd::detail::scalar_as<std::int32_t>(3.9), 3);
  EXPECT_EQ(nd::detail::scalar_as<std::int32_t>(-3.9), -3);
  EXPECT_TRUE(nd::detail::scalar_as<bool>(3));
  EXPECT_FALSE(nd::detail::scalar_as<bool>(0.0));
  EXPECT_EQ(__half2float(nd::detail::scalar_as<__half>(7)), 7.0f);
  EXPECT_EQ(nd::detail::scalar_as<std::complex<float>>(2), std::complex<float>(2, 0));
}

namespace {

template <class T>
double as_double(T v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else if constexpr (nd::detail::is_std_complex<T>) {
    return static_cast<double>(v.real()) + 1000.0 * static_cast<double>(v.imag());
  } else {
    return static_cast<double>(v);
  }
}

// Contiguous 2-d, then every other column (a 2-d strided view: the broadcast copy), then every
// third element of a row (a 1-d strided view: the strided fill).
template <class T, class S>
void check_fill(S value, double want) {
  SCOPED_TRACE(std::string(nd::name(nd::dtype_of<T>)));
  const nd::index_t m = 37, n = 130;
  nd::ndarray<T> a = nd::empty<T>({m, n});
  a(nd::ellipsis) = 0;
  for (const T& x : a.to_host()) {
    ASSERT_EQ(as_double<T>(x), 0.0);
  }
  a(nd::ellipsis) = value;
  for (const T& x : a.to_host()) {
    ASSERT_EQ(as_double<T>(x), want);
  }
  a(nd::ellipsis) = 0;
  a(nd::all, nd::slice(0, n, 2)) = value;
  auto h = a.to_host();
  for (nd::index_t i = 0; i < m; ++i) {
    for (nd::index_t j = 0; j < n; ++j) {
      ASSERT_EQ(as_double<T>(h[static_cast<std::size_t>(i * n + j)]), j % 2 == 0 ? want : 0.0) << i << "," << j;
    }
  }
  a(nd::ellipsis) = 0;
  a(5, nd::slice(nd::none, nd::none, -3)) = value;
  h = a.to_host();
  for (nd::index_t i = 0; i < m; ++i) {
    for (nd::index_t j = 0; j < n; ++j) {
      const bool hit = i == 5 && (n - 1 - j) % 3 == 0;
      ASSERT_EQ(as_double<T>(h[static_cast<std::size_t>(i * n + j)]), hit ? want : 0.0) << i << "," << j;
    }
  }
}

}  // namespace

TEST(ArrayScalarAssignGpu, FillsEveryElementOfContiguousAndStridedViews) {
  NDCUDA_REQUIRE_GPU();
  check_fill<float>(7, 7.0);
  check_fill<double>(-2.5, -2.5);
  check_fill<std::int8_t>(-7, -7.0);
  check_fill<std::uint8_t>(255, 255.0);
  check_fill<std::int64_t>(3.9, 3.0);  // truncates toward zero, as astype
  check_fill<std::uint16_t>(true, 1.0);
  check_fill<bool>(5, 1.0);
  check_fill<__half>(0.5f, 0.5);
  check_fill<__nv_bfloat16>(3, 3.0);
  check_fill<std::complex<float>>(std::complex<double>(1, 2), 2001.0);
  check_fill<std::complex<double>>(4, 4.0);
}

namespace {

// A contiguous fill whose element repeats a 1-, 2- or 4-byte word is a driver memset
// (src/array/kernels.cpp); any other, a kernel. The view starts three elements in and ends five
// before the end of random bytes: the filled elements must equal `value` bit for bit, and their
// neighbours must keep their bytes.
template <class T>
void check_fill_inside_random_bytes(T value, unsigned seed) {
  SCOPED_TRACE(std::string(nd::name(nd::dtype_of<T>)) + ", seed " + std::to_string(seed));
  constexpr nd::index_t n = 1001;
  std::mt19937 g(seed);
  std::vector<unsigned char> bytes(static_cast<std::size_t>(n) * sizeof(T));
  for (unsigned char& b : bytes) {
    b = static_cast<unsigned char>(g());
  }
  std::vector<T> host(static_cast<std::size_t>(n));
  std::memcpy(host.data(), bytes.data(), bytes.size());
  nd::ndarray<T> a = nd::asarray<T>(host);
  if constexpr (std::is_same_v<T, __half>) {
    a(nd::slice(3, n - 5)) = __half2float(value);  // a half is assigned from a float
  } else {
    a(nd::slice(3, n - 5)) = value;
  }
  const std::vector<T> back = a.to_host();
  for (nd::index_t i = 0; i < n; ++i) {
    const T& want = i >= 3 && i < n - 5 ? value : host[static_cast<std::size_t>(i)];
    ASSERT_EQ(std::memcmp(&back[static_cast<std::size_t>(i)], &want, sizeof(T)), 0) << "element " << i;
  }
}

}  // namespace

TEST(ArrayScalarAssignGpu, FillsThatRepeatAByteOrAWordKeepTheirNeighbours) {
  NDCUDA_REQUIRE_GPU();
  check_fill_inside_random_bytes<std::int64_t>(-1, 1);                                      // a byte, 8-byte elements
  check_fill_inside_random_bytes<std::uint16_t>(0x3a3a, 2);                                 // a byte
  check_fill_inside_random_bytes<std::int32_t>(0x00070007, 3);                              // a 2-byte word
  check_fill_inside_random_bytes<__half>(__float2half(1.0f), 4);                            // a 2-byte element
  check_fill_inside_random_bytes<float>(1.0f, 5);                                           // a 4-byte word
  check_fill_inside_random_bytes<double>(std::bit_cast<double>(0x3f8000003f800000ULL), 6);  // 4 bytes twice
  check_fill_inside_random_bytes<std::complex<float>>({1.5f, 1.5f}, 7);                     // 4 bytes twice
  check_fill_inside_random_bytes<std::complex<double>>({0.0, 0.0}, 8);                      // a byte, 16 bytes
  check_fill_inside_random_bytes<double>(-2.5, 9);                                          // no repeat: the kernel
  check_fill_inside_random_bytes<std::complex<double>>({1.0, -2.0}, 10);                    // no repeat: the kernel
}

TEST(ArrayScalarAssignGpu, BroadcastViewIsReadOnlyAndOtherStream) {
  NDCUDA_REQUIRE_GPU();
  // NumPy's broadcast_to views are read-only ("assignment destination is read-only"): writing
  // into a zero-stride view is refused before anything is launched, and the data is untouched.
  nd::ndarray<float> a = nd::full<float>({4}, 1.5f);
  nd::ndarray<float> b = a.broadcast_to({3, 4});
  EXPECT_THROW(b(nd::all, nd::slice(1, 3)) = 9.0f, nd::error);
  EXPECT_EQ(a.to_host(), (std::vector<float>{1.5f, 1.5f, 1.5f, 1.5f}));
  // The fill is ordered on the array's own stream.
  const nd::stream s(0);
  nd::ndarray<std::int32_t> c = nd::zeros<std::int32_t>({1 << 20}, s);
  c(nd::ellipsis) = 42;
  c(nd::slice(0, 10)) = -1;
  const auto h = c.to_host();
  for (std::size_t i = 0; i < h.size(); ++i) {
    ASSERT_EQ(h[i], i < 10 ? -1 : 42) << i;
  }
}
