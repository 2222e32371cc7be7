// The sort family without a GPU: the key transforms against NumPy's order (every float16 and
// bfloat16 pattern, random float32/float64 and integer patterns), key formats, and the errors
// (complex refused, NumPy's AxisError text, searchsorted's 1-d rule) raised before any CUDA call.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <ndcuda/ops/scans.hpp>
#include <ndcuda/ops/sorting.hpp>
#include <vector>

#include "ops/layout_plan.hpp"
#include "ops/sort_codec.hpp"
#include "support/fake_array.hpp"
#include "support/gpu.hpp"

namespace nd = ndcuda;

namespace {

using nd::testing::fake;

// A float pattern's value as a double (NaN stays NaN), by its dtype's layout.
double value_of(std::uint64_t bits, nd::dtype t) {
  switch (t) {
    case nd::dtype::float16: {
      const int e = static_cast<int>(bits >> 10 & 0x1f);
      const double m = static_cast<double>(bits & 0x3ff);
      const double sign = (bits & 0x8000) != 0 ? -1.0 : 1.0;
      if (e == 31) {
        return m != 0 ? std::nan("") : sign * INFINITY;
      }
      return sign * (e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25));
    }
    case nd::dtype::bfloat16: {
      const std::uint32_t f = static_cast<std::uint32_t>(bits) << 16;
      return static_cast<double>(std::bit_cast<float>(f));
    }
    case nd::dtype::float32:
      return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
    default:
      return std::bit_cast<double>(bits);
  }
}

// NumPy's sort order: NaN after everything, NaNs equal to each other, -0.0 == +0.0.
bool numpy_less(double a, double b) {
  if (std::isnan(a)) {
    return false;
  }
  return std::isnan(b) || a < b;
}
bool numpy_equal(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

template <class U>
void check_float_codec(nd::dtype t, const std::vector<std::uint64_t>& patterns) {
  const auto canonical = nd::detail::make_codec<U>(nd::detail::key_format_for(t, true, "test"));
  const auto total = nd::detail::make_codec<U>(nd::detail::key_format_for(t, false, "test"));
  std::vector<std::pair<U, U>> keys;  // (canonical, total) per pattern
  for (std::uint64_t p : patterns) {
    const U x = static_cast<U>(p);
    // float_total is a bijection: decoding gives the very bits back (-0.0, NaN payloads).
    ASSERT_EQ(total.decode(total.encode(x)), x) << std::hex << p;
    keys.emplace_back(canonical.encode(x), total.encode(x));
  }
  for (std::size_t i = 0; i + 1 < patterns.size(); ++i) {
    const std::size_t j = i + 1;
    const double a = value_of(patterns[i], t);
    const double b = value_of(patterns[j], t);
    // Canonical keys order exactly as NumPy compares, equality included.
    EXPECT_EQ(keys[i].first < keys[j].first, numpy_less(a, b)) << std::hex << patterns[i] << " vs " << patterns[j];
    EXPECT_EQ(keys[i].first == keys[j].first, numpy_equal(a, b)) << std::hex << patterns[i] << " vs " << patterns[j];
    // Total keys refine that order: NumPy-smaller stays smaller.
    if (numpy_less(a, b)) {
      EXPECT_LT(keys[i].second, keys[j].second) << std::hex << patterns[i] << " vs " << patterns[j];
    }
    // Canonical keys decode to a value equal to the element (as NumPy compares).
    EXPECT_TRUE(numpy_equal(value_of(canonical.decode(keys[i].first), t), a)) << std::hex << patterns[i];
  }
}

std::vector<std::uint64_t> interesting_and_random(int bits, std::size_t n) {
  std::vector<std::uint64_t> v;
  const std::uint64_t sign = std::uint64_t{1} << (bits - 1);
  const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  for (std::uint64_t base : {std::uint64_t{0}, std::uint64_t{1}, mask >> 1, (mask >> 1) - 1, sign >> 1}) {
    v.push_back(base & mask);
    v.push_back((base | sign) & mask);
  }
  for (std::size_t i = 0; i < n; ++i) {
    v.push_back(nd::testing::rng()() & mask);
  }
  return v;
}

}  // namespace

TEST(SortKeys, Float16EveryPatternPairwiseInOrder) {
  // Adjacent pairs of all 65536 patterns, in a random order so that every kind of neighbour occurs.
  std::vector<std::uint64_t> all(65536);
  for (std::size_t i = 0; i < all.size(); ++i) {
    all[i] = i;
  }
  std::shuffle(all.begin(), all.end(), nd::testing::rng());
  check_float_codec<std::uint16_t>(nd::dtype::float16, all);
  check_float_codec<std::uint16_t>(nd::dtype::bfloat16, all);
}

TEST(SortKeys, Float32AndFloat64RandomPatternsInOrder) {
  check_float_codec<std::uint32_t>(nd::dtype::float32, interesting_and_random(32, 200000));
  check_float_codec<std::uint64_t>(nd::dtype::float64, interesting_and_random(64, 200000));
}

TEST(SortKeys, FloatKeysPutEveryNanLastAndZerosTogether) {
  const auto f = nd::detail::key_format_for(nd::dtype::float32, true, "test");
  const auto c = nd::detail::make_codec<std::uint32_t>(f);
  const std::uint32_t neg_nan = 0xffc00001u;
  const std::uint32_t pos_nan = 0x7fc00000u;
  const std::uint32_t inf = 0x7f800000u;
  EXPECT_GT(c.encode(neg_nan), c.encode(inf));
  EXPECT_EQ(c.encode(neg_nan), c.encode(pos_nan));
  EXPECT_EQ(c.encode(0x80000000u), c.encode(0u));
  const auto t = nd::detail::make_codec<std::uint32_t>(nd::detail::key_format_for(nd::dtype::float32, false, "x"));
  EXPECT_GT(t.encode(neg_nan), t.encode(inf));
  EXPECT_GT(t.encode(pos_nan), t.encode(inf));
  EXPECT_LT(t.encode(0xff800000u), t.encode(0x80000001u));  // -inf below the tiniest negative
}

TEST(SortKeys, IntegerKeysOrderAsSignedOrUnsigned) {
  const auto s8 = nd::detail::make_codec<std::uint8_t>(nd::detail::key_format_for(nd::dtype::int8, true, "t"));
  for (int a = -128; a < 127; ++a) {
    EXPECT_LT(s8.encode(static_cast<std::uint8_t>(a)), s8.encode(static_cast<std::uint8_t>(a + 1)));
    EXPECT_EQ(s8.decode(s8.encode(static_cast<std::uint8_t>(a))), static_cast<std::uint8_t>(a));
  }
  const auto s64 = nd::detail::make_codec<std::uint64_t>(nd::detail::key_format_for(nd::dtype::int64, false, "t"));
  for (int i = 0; i < 10000; ++i) {
    const auto a = static_cast<std::int64_t>(nd::testing::rng()());
    const auto b = static_cast<std::int64_t>(nd::testing::rng()());
    EXPECT_EQ(s64.encode(static_cast<std::uint64_t>(a)) < s64.encode(static_cast<std::uint64_t>(b)), a < b);
  }
}

TEST(SortKeys, FormatsUseTheElementWidth) {
  using nd::detail::key_mode;
  const struct {
    nd::dtype t;
    std::size_t bytes;
    key_mode mode;
  } cases[] = {
      {nd::dtype::bool_, 1, key_mode::identity},           {nd::dtype::int8, 1, key_mode::flip_sign},
      {nd::dtype::uint16, 2, key_mode::identity},          {nd::dtype::int32, 4, key_mode::flip_sign},
      {nd::dtype::uint64, 8, key_mode::identity},          {nd::dtype::float16, 2, key_mode::float_canonical},
      {nd::dtype::bfloat16, 2, key_mode::float_canonical}, {nd::dtype::float64, 8, key_mode::float_canonical},
  };
  for (const auto& c : cases) {
    const auto f = nd::detail::key_format_for(c.t, true, "test");
    EXPECT_EQ(f.bytes, c.bytes) << c.t;
    EXPECT_EQ(f.mode, c.mode) << c.t;
  }
  EXPECT_EQ(nd::detail::key_format_for(nd::dtype::float32, false, "t").mode, key_mode::float_total);
}

// sort, argsort, unique and searchsorted order complex numbers (tests/ops/sets_gpu_test.cpp);
// partition and topk do not yet.
TEST(SortErrors, PartitionOfComplexIsRefusedWithAClearMessage) {
  const auto z = fake<std::complex<float>>({8});
  try {
    (void)nd::partition(z, 2);
    FAIL() << "partition of complex64 did not throw";
  } catch (const nd::error& e) {
    EXPECT_NE(std::string(e.what()).find("of complex64 is not supported yet"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)nd::topk(z, 2), nd::error);
}

TEST(SortErrors, AxisOutOfBoundsHasNumPysText) {
  const auto a = fake<float>({3, 4});
  try {
    (void)nd::sort(a, 2);
    FAIL() << "sort along axis 2 of a 2-d array did not throw";
  } catch (const nd::shape_error& e) {
    EXPECT_NE(std::string(e.what()).find("axis 2 is out of bounds for array of dimension 2"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)nd::argsort(a, -3), nd::shape_error);
  EXPECT_THROW((void)nd::sort(fake<int>({})), nd::shape_error);  // 0-d: NumPy's AxisError too
}

TEST(SortErrors, SearchsortedNeedsAOneDimensionalSortedArray) {
  try {
    (void)nd::searchsorted(fake<double>({3, 4}), fake<double>({5}));
    FAIL() << "a 2-d sorted array was accepted";
  } catch (const nd::shape_error& e) {
    EXPECT_NE(std::string(e.what()).find("must be 1-d, but it has shape (3, 4)"), std::string::npos) << e.what();
  }
}

TEST(ScanPlan, ResultTypesFollowNumPy) {
  using nd::dtype;
  using nd::detail::scan_result_type;
  EXPECT_EQ(scan_result_type(dtype::bool_), dtype::int64);
  EXPECT_EQ(scan_result_type(dtype::int8), dtype::int64);
  EXPECT_EQ(scan_result_type(dtype::int32), dtype::int64);
  EXPECT_EQ(scan_result_type(dtype::uint8), dtype::uint64);
  EXPECT_EQ(scan_result_type(dtype::uint32), dtype::uint64);
  EXPECT_EQ(scan_result_type(dtype::float16), dtype::float16);
  EXPECT_EQ(scan_result_type(dtype::bfloat16), dtype::bfloat16);
  EXPECT_EQ(scan_result_type(dtype::float32), dtype::float32);
  EXPECT_EQ(scan_result_type(dtype::complex64), dtype::complex64);
  static_assert(std::is_same_v<decltype(nd::cumsum(fake<std::int8_t>({2})))::value_type, std::int64_t>);
  static_assert(std::is_same_v<decltype(nd::cumprod(fake<std::uint16_t>({2})))::value_type, std::uint64_t>);
  static_assert(std::is_same_v<decltype(nd::cumsum<double>(fake<int>({2}), 0))::value_type, double>);
  static_assert(std::is_same_v<decltype(nd::cumsum(fake<__half>({2})))::value_type, __half>);
}

TEST(ScanPlan, AccumulatorsAreFewAndWideEnough) {
  using nd::dtype;
  using nd::detail::scan_kernel_type;
  EXPECT_EQ(scan_kernel_type(dtype::int64), dtype::uint64);
  EXPECT_EQ(scan_kernel_type(dtype::int8), dtype::uint64);
  EXPECT_EQ(scan_kernel_type(dtype::bool_), dtype::uint64);
  EXPECT_EQ(scan_kernel_type(dtype::float16), dtype::float32);
  EXPECT_EQ(scan_kernel_type(dtype::bfloat16), dtype::float32);
  EXPECT_EQ(scan_kernel_type(dtype::float64), dtype::float64);
  EXPECT_EQ(scan_kernel_type(dtype::complex128), dtype::complex128);
}

TEST(ScanPlan, AxisErrorsHaveNumPysText) {
  const auto a = fake<float>({3, 4});
  try {
    (void)nd::cumsum(a, 2);
    FAIL() << "cumsum along axis 2 of a 2-d array did not throw";
  } catch (const nd::shape_error& e) {
    EXPECT_NE(std::string(e.what()).find("axis 2 is out of bounds for array of dimension 2"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)nd::cumprod(a, -3), nd::shape_error);
  EXPECT_THROW((void)nd::cumsum(fake<float>({}), 0), nd::shape_error);
}

TEST(ScanPlan, MovingAnAxisLastKeepsTheOtherOrder) {
  const auto m = nd::detail::move_axis_last(nd::shape_t{2, 3, 4}, nd::strides_t{12, 4, 1}, 0);
  EXPECT_EQ(m.shape, (nd::shape_t{3, 4, 2}));
  EXPECT_EQ(m.strides, (nd::strides_t{4, 1, 12}));
  const auto same = nd::detail::move_axis_last(nd::shape_t{2, 3}, nd::strides_t{3, 1}, 1);
  EXPECT_EQ(same.strides, (nd::strides_t{3, 1}));
  const auto flat = nd::detail::move_axis_last(nd::shape_t{2, 3}, nd::strides_t{1, 2}, std::nullopt);
  EXPECT_EQ(flat.strides, (nd::strides_t{1, 2}));
}
