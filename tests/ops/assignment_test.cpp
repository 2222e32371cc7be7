// NumPy's name semantics for ndarray handles: `=` on a named array rebinds it, writes go through
// temporary views, assign() and compound assignment (same_kind casting), expression astype, and
// typed reduction options. Each GPU case is checked against NumPy's behaviour on random input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ndcuda/ndcuda.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "support/error_message.hpp"
#include "support/fake_array.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

// Handles are regular values: containers, swap, sort and optional work on them.
static_assert(std::is_nothrow_move_constructible_v<nd::ndarray<float>>);
static_assert(std::is_nothrow_move_assignable_v<nd::ndarray<float>>);
static_assert(std::is_copy_assignable_v<nd::ndarray<float>>);
static_assert(std::is_swappable_v<nd::ndarray<float>>);
// A named array cannot be filled or converted by `=` (NumPy would rebind); a temporary view can.
static_assert(!std::is_assignable_v<nd::ndarray<float>&, float>);
static_assert(!std::is_assignable_v<nd::ndarray<float>&, nd::ndarray<double>>);
static_assert(std::is_assignable_v<nd::ndarray<float>&&, float>);
static_assert(std::is_assignable_v<nd::ndarray<float>&&, nd::ndarray<double>>);
// Typed options: a bare bool is never keepdims or ddof. It is refused by a static_assert that
// names nd::keepdims (so not detectable from a requires-expression, which it would break): the
// compile-fail cases var_bool_is_not_keepdims and sum_bool_is_not_axis check it.
template <class X>
concept var_takes_typed = requires(const X& x) {
  nd::var(x, 1, nd::ddof(1), nd::keepdims);
};
static_assert(var_takes_typed<nd::ndarray<float>>);
// Compound assignment needs a writable handle.
template <class A>
concept plus_assignable = requires(A a) {
  a += 1;
};
static_assert(plus_assignable<nd::ndarray<float>&> && plus_assignable<nd::ndarray<float>&&>);
static_assert(!plus_assignable<const nd::ndarray<float>&>);
// Expression astype is lazy: still an expression, of the asked dtype.
static_assert(decltype((std::declval<nd::ndarray<float>>() * 2.0f).astype<double>())::type() == nd::dtype::float64);

using nd::testing::fake;

template <class F>
std::string type_error_text(F&& f) {
  return nd::testing::message_of<nd::type_error>(std::forward<F>(f));
}

std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  const std::int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

}  // namespace

// NumPy raises UFuncTypeError (or OverflowError for a Python int) before touching the array: the
// same checks run on the host here, before any launch, so they need no GPU.
TEST(Assignment, CompoundCastingErrorsFollowNumPySameKind) {
  auto i32 = fake<std::int32_t>({4});
  EXPECT_NE(type_error_text([&] { i32 += 1.5; })
                .find("Cannot cast ufunc 'add' output from dtype('float64') to dtype('int32') with casting rule "
                      "'same_kind'"),
            std::string::npos);
  EXPECT_NE(type_error_text([&] { i32 /= 2; }).find("ufunc 'divide' output from dtype('float64')"), std::string::npos);
  auto u8 = fake<std::uint8_t>({4});
  const auto i64 = fake<std::int64_t>({4});
  EXPECT_NE(type_error_text([&] { u8 += i64; }).find("from dtype('int64') to dtype('uint8')"), std::string::npos);
  const auto i8 = fake<std::int8_t>({4});
  EXPECT_NE(type_error_text([&] { u8 -= i8; }).find("'subtract' output from dtype('int16')"), std::string::npos);
  EXPECT_THROW(u8 += 300, nd::error);  // NumPy: OverflowError, Python integer 300 out of bounds for uint8
  EXPECT_THROW(u8 += -1, nd::error);
  auto flags = fake<bool>({4});
  EXPECT_NE(type_error_text([&] { flags += 1; }).find("from dtype('int64') to dtype('bool')"), std::string::npos);
  auto f32 = fake<float>({4});
  EXPECT_NE(type_error_text([&] { f32 *= std::complex<double>(0, 1); }).find("to dtype('float32')"), std::string::npos);
  // On a temporary view too (NumPy's a[1:] += 1.5).
  EXPECT_THROW(i32(nd::slice(1, 4)) += 1.5, nd::type_error);
}

TEST(Assignment, ScalarFillOfViewsOnZeroSizeArraysLaunchesNothing) {
  auto empty = fake<float>({0, 5});
  EXPECT_NO_THROW(empty(nd::ellipsis) = 2.0f);
  EXPECT_NO_THROW(empty.assign(3));
  EXPECT_NO_THROW(empty += 1.0f);
}

TEST(AssignmentGpu, RebindingLeavesOtherNamesUnchanged) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = 4099;
  const std::vector<float> h = nd::testing::uniform_values<float>(n, -4.0, 4.0, nd::testing::repeat{11});
  auto a = nd::asarray<float>(h, {static_cast<nd::index_t>(n)});
  const auto b = a;  // NumPy: b = a
  a = a + 1.0f;      // NumPy: a = a + 1 (a new array; b still holds the old values)
  const std::vector<float> got_a = a.to_host();
  EXPECT_EQ(b.to_host(), h);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(got_a[i], h[i] + 1.0f) << i;
  }
  EXPECT_NE(a.data(), b.data());
  // The prev/next pattern of iterative solvers.
  auto u = nd::asarray<float>(h, {static_cast<nd::index_t>(n)});
  const auto prev = u;
  u = u * 0.5f + prev;
  const std::vector<float> got_u = u.to_host();
  EXPECT_EQ(prev.to_host(), h);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(got_u[i], h[i] * 0.5f + h[i]) << i;
  }
}

TEST(AssignmentGpu, CompoundAssignmentWritesThroughEverySharingName) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = 1000;
  const std::vector<float> h = nd::testing::uniform_values<float>(n, -4.0, 4.0, nd::testing::repeat{12});
  const std::vector<float> y = nd::testing::uniform_values<float>(n, -4.0, 4.0, nd::testing::repeat{13});
  auto a = nd::asarray<float>(h, {static_cast<nd::index_t>(n)});
  const auto b = a;  // NumPy: b = a; a += y changes b too
  const auto dy = nd::asarray<float>(y, {static_cast<nd::index_t>(n)});
  const float* before = a.data();
  a += dy;
  EXPECT_EQ(a.data(), before) << "+= must not allocate";
  const std::vector<float> got = b.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(got[i], h[i] + y[i]) << i;
  }
  // A temporary view: NumPy's a[::2] *= 3, against the same float32 product on the host.
  a(nd::slice(0, nd::none, 2)) *= 3.0f;
  const std::vector<float> got2 = a.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    const float base = h[i] + y[i];
    ASSERT_EQ(got2[i], i % 2 == 0 ? base * 3.0f : base) << i;
  }
}

TEST(AssignmentGpu, EveryCompoundOperatorMatchesNumPyOnIntegers) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = 777;
  const std::vector<std::int32_t> x0 =
      nd::testing::uniform_values<std::int32_t>(n, -1000000, 1000000, nd::testing::repeat{21});
  const std::vector<std::int32_t> y0 =
      nd::testing::uniform_values<std::int32_t>(n, 1, 30, nd::testing::repeat{22});  // nonzero, valid shift counts
  const auto y = nd::asarray<std::int32_t>(y0, {static_cast<nd::index_t>(n)});
  // Host reference in int64, wrapped to int32 (NumPy's overflow), % as NumPy's floor modulo.
  struct op_case {
    const char* name;
    void (*apply)(nd::ndarray<std::int32_t>&, const nd::ndarray<std::int32_t>&);
    std::int64_t (*want)(std::int64_t, std::int64_t);
  };
  const op_case cases[] = {
      {"+=", [](auto& a, const auto& b) { a += b; }, [](std::int64_t a, std::int64_t b) { return a + b; }},
      {"-=", [](auto& a, const auto& b) { a -= b; }, [](std::int64_t a, std::int64_t b) { return a - b; }},
      {"*=", [](auto& a, const auto& b) { a *= b; }, [](std::int64_t a, std::int64_t b) { return a * b; }},
      {"%=", [](auto& a, const auto& b) { a %= b; }, [](std::int64_t a, std::int64_t b) { return floor_mod(a, b); }},
      {"&=", [](auto& a, const auto& b) { a &= b; }, [](std::int64_t a, std::int64_t b) { return a & b; }},
      {"|=", [](auto& a, const auto& b) { a |= b; }, [](std::int64_t a, std::int64_t b) { return a | b; }},
      {"^=", [](auto& a, const auto& b) { a ^= b; }, [](std::int64_t a, std::int64_t b) { return a ^ b; }},
      {"<<=", [](auto& a, const auto& b) { a <<= b; },
       [](std::int64_t a, std::int64_t b) {
         return static_cast<std::int64_t>(static_cast<std::uint32_t>(static_cast<std::int32_t>(a)) << b);
       }},
      {">>=", [](auto& a, const auto& b) { a >>= b; }, [](std::int64_t a, std::int64_t b) { return a >> b; }},
  };
  for (const op_case& c : cases) {
    auto x = nd::asarray<std::int32_t>(x0, {static_cast<nd::index_t>(n)});
    c.apply(x, y);
    const std::vector<std::int32_t> got = x.to_host();
    for (std::size_t i = 0; i < n; ++i) {
      const auto want = static_cast<std::int32_t>(static_cast<std::uint32_t>(c.want(x0[i], y0[i])));
      ASSERT_EQ(got[i], want) << c.name << " at " << i << ": " << x0[i] << ", " << y0[i];
    }
  }
  // Same-kind casts that NumPy allows: float32 += float64 array (rounded back), int64 += uint32.
  const std::vector<float> f0 = nd::testing::uniform_values<float>(n, -4.0, 4.0, nd::testing::repeat{23});
  auto f = nd::asarray<float>(f0, {static_cast<nd::index_t>(n)});
  const auto d = nd::full<double>({static_cast<nd::index_t>(n)}, 0.1);
  f += d;
  const std::vector<float> fgot = f.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(fgot[i], static_cast<float>(static_cast<double>(f0[i]) + 0.1)) << i;
  }
}

TEST(AssignmentGpu, OverlappingShiftThroughViewsAndBroadcastWriteRefused) {
  NDCUDA_REQUIRE_GPU();
  const nd::index_t n = 5000;
  const std::vector<float> h =
      nd::testing::uniform_values<float>(static_cast<std::size_t>(n), -4.0, 4.0, nd::testing::repeat{31});
  auto a = nd::asarray<float>(h, {n});
  a(nd::slice(1, n)) = a(nd::slice(0, n - 1));  // NumPy: a[1:] = a[:-1] (reads before it writes)
  const std::vector<float> got = a.to_host();
  EXPECT_EQ(got[0], h[0]);
  for (std::size_t i = 1; i < h.size(); ++i) {
    ASSERT_EQ(got[i], h[i - 1]) << i;
  }
  // d[...] = expression, and m[:, 0] = 3.
  auto m = nd::asarray<float>(nd::testing::uniform_values<float>(12, -4.0, 4.0, nd::testing::repeat{32}), {3, 4});
  m(nd::ellipsis) = m * 2.0f + 1.0f;
  m(nd::all, 0) = 3;
  const std::vector<float> mh = m.to_host();
  const std::vector<float> m0 = nd::testing::uniform_values<float>(12, -4.0, 4.0, nd::testing::repeat{32});
  for (std::size_t i = 0; i < 12; ++i) {
    ASSERT_EQ(mh[i], i % 4 == 0 ? 3.0f : m0[i] * 2.0f + 1.0f) << i;
  }
  // A broadcast view is read-only (NumPy: assignment destination is read-only).
  const auto row = nd::asarray<float>(nd::testing::uniform_values<float>(4, -4.0, 4.0, nd::testing::repeat{33}), {4});
  auto wide = row.broadcast_to({3, 4});
  EXPECT_THROW(wide(nd::ellipsis) = m, nd::error);
  EXPECT_THROW(wide(nd::ellipsis) = m + 1.0f, nd::error);
  EXPECT_THROW(wide += 1.0f, nd::error);
  EXPECT_EQ(row.to_host(), nd::testing::uniform_values<float>(4, -4.0, 4.0, nd::testing::repeat{33}));
  // NumPy's message when the value does not broadcast to the target.
  auto narrow = nd::zeros<float>({3, 1});
  EXPECT_THROW(narrow(nd::ellipsis) = m + 1.0f, nd::shape_error);
}

TEST(AssignmentGpu, ContainersSwapSortAndOptionalMoveHandles) {
  NDCUDA_REQUIRE_GPU();
  std::vector<nd::ndarray<std::uint8_t>> slots(4);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    slots[i] = nd::full<std::uint8_t>({static_cast<nd::index_t>(100 + i)}, static_cast<int>(i * 10));
  }
  slots.erase(slots.begin() + 1);
  ASSERT_EQ(slots.size(), 3U);
  EXPECT_EQ(slots[0].size(), 100);
  EXPECT_EQ(slots[1].size(), 102);
  EXPECT_EQ(slots[1].to_host(), std::vector<std::uint8_t>(102, 20));
  slots.push_back(slots[0]);  // a second name for the same buffer
  EXPECT_EQ(slots[3].data(), slots[0].data());

  auto u = nd::asarray<float>(nd::testing::uniform_values<float>(7, -4.0, 4.0, nd::testing::repeat{41}), {7});
  auto v = nd::asarray<float>(nd::testing::uniform_values<float>(9, -4.0, 4.0, nd::testing::repeat{42}), {9});
  const float* pu = u.data();
  const float* pv = v.data();
  std::swap(u, v);
  EXPECT_EQ(u.data(), pv);
  EXPECT_EQ(v.data(), pu);
  EXPECT_EQ(u.to_host(), nd::testing::uniform_values<float>(9, -4.0, 4.0, nd::testing::repeat{42}));
  EXPECT_EQ(v.to_host(), nd::testing::uniform_values<float>(7, -4.0, 4.0, nd::testing::repeat{41}));

  // Sort handles by their first element: the handles move, the data does not.
  std::vector<nd::ndarray<float>> arrays;
  std::vector<float> firsts;
  for (std::uint32_t seed = 50; seed < 58; ++seed) {
    const std::vector<float> h = nd::testing::uniform_values<float>(16, -4.0, 4.0, nd::testing::repeat{seed});
    arrays.push_back(nd::asarray<float>(h, {16}));
    firsts.push_back(h[0]);
  }
  std::sort(arrays.begin(), arrays.end(), [](const auto& x, const auto& y) { return x(0).item() < y(0).item(); });
  std::sort(firsts.begin(), firsts.end());
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    EXPECT_EQ(arrays[i](0).item(), firsts[i]) << i;
  }
  std::optional<nd::ndarray<float>> maybe;
  maybe = arrays[0];
  EXPECT_EQ(maybe->data(), arrays[0].data());
}

TEST(AssignmentGpu, CompoundAssignmentReplaysInAGraphWithoutAllocating) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  const std::size_t n = 1 << 16;
  const std::vector<std::int32_t> x0 =
      nd::testing::uniform_values<std::int32_t>(n, -1000, 1000, nd::testing::repeat{61});
  const std::vector<std::int32_t> y0 = nd::testing::uniform_values<std::int32_t>(n, -50, 50, nd::testing::repeat{62});
  auto x = nd::asarray<std::int32_t>(x0, {static_cast<nd::index_t>(n)}, s);
  const auto y = nd::asarray<std::int32_t>(y0, {static_cast<nd::index_t>(n)}, s);
  auto total = nd::zeros<std::int64_t>(nd::shape_t{}, s);
  x += y;  // compiled outside the capture
  x -= y;
  const std::int32_t* before = x.data();
  nd::graph g = nd::capture(s, [&] {
    x += y;
    total(nd::ellipsis) = nd::sum(x);  // reads what += wrote
  });
  for (int i = 0; i < 100; ++i) {
    g.launch(s);
  }
  EXPECT_EQ(x.data(), before);
  const std::vector<std::int32_t> got = x.to_host();
  std::int64_t want_total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t want = x0[i] + 100 * y0[i];
    ASSERT_EQ(got[i], want) << i;
    want_total += want;
  }
  EXPECT_EQ(total.item(), want_total);
}

TEST(AssignmentGpu, ExpressionAstypeConvertsInsideTheKernel) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = 3001;
  const std::vector<float> h = nd::testing::uniform_values<float>(n, -4.0, 4.0, nd::testing::repeat{71});
  const auto a = nd::asarray<float>(h, {static_cast<nd::index_t>(n)});
  // Truncation toward zero, as astype.
  const nd::ndarray<std::int32_t> t = (a * 10.0f).astype<std::int32_t>();
  const std::vector<std::int32_t> th = t.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(th[i], static_cast<std::int32_t>(h[i] * 10.0f)) << i;
  }
  // Rounding to float16 in the middle of a float32 computation: x - float(half(x)) is the error.
  const nd::ndarray<float> err = a - a.astype<__half>().astype<float>();  // array astype (a copy)
  const nd::ndarray<float> fused = a - (a * 1.0f).astype<__half>();       // expression astype (fused)
  const std::vector<float> eh = err.to_host();
  const std::vector<float> fh = fused.to_host();
  bool some_nonzero = false;
  for (std::size_t i = 0; i < n; ++i) {
    const float want = h[i] - __half2float(__float2half_rn(h[i]));
    ASSERT_EQ(eh[i], want) << i;
    ASSERT_EQ(fh[i], want) << i;
    some_nonzero = some_nonzero || want != 0.0f;
  }
  EXPECT_TRUE(some_nonzero);
  // Into a reduction: the sum accumulates the float64 values.
  double want_sum = 0;
  for (float x : h) {
    want_sum += static_cast<double>(x) * static_cast<double>(x);
  }
  EXPECT_NEAR(nd::sum((a.astype<double>() * a).astype<double>()).item(), want_sum, 1e-9 * want_sum);
}

TEST(AssignmentGpu, TypedReductionOptions) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<float> h = nd::testing::uniform_values<float>(6 * 50, -4.0, 4.0, nd::testing::repeat{81});
  const auto x = nd::asarray<float>(h, {6, 50});
  const auto kept = nd::var(x, 1, nd::ddof(1), nd::keepdims);
  EXPECT_EQ(kept.shape(), (nd::shape_t{6, 1}));
  const auto flat = nd::var(x, 1, nd::ddof(1));
  EXPECT_EQ(flat.shape(), (nd::shape_t{6}));
  const std::vector<float> got = flat.to_host();
  for (int r = 0; r < 6; ++r) {
    double mean = 0;
    for (int c = 0; c < 50; ++c) {
      mean += h[static_cast<std::size_t>(r * 50 + c)];
    }
    mean /= 50;
    double ss = 0;
    for (int c = 0; c < 50; ++c) {
      const double d = h[static_cast<std::size_t>(r * 50 + c)] - mean;
      ss += d * d;
    }
    EXPECT_NEAR(got[static_cast<std::size_t>(r)], ss / 49, 1e-4 * ss / 49) << r;
  }
  EXPECT_EQ(nd::sum(x, nd::keepdims).shape(), (nd::shape_t{1, 1}));
  EXPECT_EQ(nd::max(x, 0, nd::keepdims(false)).shape(), (nd::shape_t{50}));
  EXPECT_EQ(nd::argmax(x, 1, nd::keepdims).shape(), (nd::shape_t{6, 1}));
  EXPECT_EQ(nd::all(x > 0.0f, {0, 1}, nd::keepdims).shape(), (nd::shape_t{1, 1}));
}
