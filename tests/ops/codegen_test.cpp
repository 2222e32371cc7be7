// Expression code generation without a GPU: result dtypes (NumPy 2 with weak scalars), the body
// text (scalars as parameters, repeated leaves read once), deep-tree splitting, NVRTC compiles.
#include <gtest/gtest.h>

#include <ndcuda/ops/elementwise.hpp>

#include "jit/elementwise_source.hpp"
#include "jit/elementwise_state.hpp"
#include "support/fake_array.hpp"

namespace nd = ndcuda;

namespace {

using nd::testing::fake;

template <class Out, class X>
std::string body_of(const X& x) {
  const nd::detail::inputs_of<X> in(x);
  nd::detail::emit_context c{in.mapping.data()};
  const nd::detail::node_code root = nd::detail::emitter<X>::emit(c);
  return c.values.body(nd::dtype_of<Out>, root);
}

template <class Out, class X>
const nd::jit::detail::elementwise_state& state_of(const X& x) {
  const nd::detail::inputs_of<X> in(x);
  return nd::detail::expression_state<Out, X>(in);
}

}  // namespace

TEST(OpsDtype, StaticRulesFollowNumPy2WithWeakScalars) {
  const auto f = fake<float>({4});
  const auto i = fake<std::int32_t>({4});
  const auto i8 = fake<std::int8_t>({4});
  const auto h = fake<__half>({4});
  const auto b = fake<bool>({4});
  const auto c = fake<std::complex<float>>({4});
  static_assert(decltype(f * 2.0)::type() == nd::dtype::float32);
  static_assert(decltype(i + f)::type() == nd::dtype::float64);
  static_assert(decltype(i / i)::type() == nd::dtype::float64);
  static_assert(decltype(i8 + 1)::type() == nd::dtype::int8);
  static_assert(decltype(i8 + 1.5)::type() == nd::dtype::float64);
  static_assert(decltype(f < 2.0)::type() == nd::dtype::bool_);
  static_assert(decltype(nd::sin(i8))::type() == nd::dtype::float16);
  static_assert(decltype(nd::sin(i))::type() == nd::dtype::float64);
  static_assert(decltype(nd::sqrt(h))::type() == nd::dtype::float16);
  static_assert(decltype(nd::abs(c))::type() == nd::dtype::float32);
  static_assert(decltype(nd::floor_divide(b, b))::type() == nd::dtype::int8);
  static_assert(decltype(nd::where(b, i8, 0.5f))::type() == nd::dtype::float64);
  static_assert(decltype(nd::where(b, f, 0))::type() == nd::dtype::float32);
  static_assert(decltype(f * 2.0 + c)::type() == nd::dtype::complex64);
  static_assert(std::is_same_v<decltype(nd::eval(f + f)), nd::ndarray<float>>);
  EXPECT_EQ(decltype(i8 * 2 + h)::type(), nd::promote_types(nd::dtype::int8, nd::dtype::float16));
}

TEST(OpsDtype, IntegerScalarOutOfRangeIsAnError) {
  const auto u8 = fake<std::uint8_t>({4});
  EXPECT_THROW((void)(u8 + 300), nd::error);
  EXPECT_THROW((void)(u8 + -1), nd::error);
  EXPECT_NO_THROW((void)(u8 + 255));
}

TEST(OpsCodegen, ScalarValuesAreParametersNotSource) {
  const auto a = fake<float>({8});
  const auto b = fake<float>({8}, 0x20000);
  const std::string two = body_of<float>(a + b * 2.0f);
  const std::string three = body_of<float>(a + b * 3.0f);
  EXPECT_EQ(two, three);
  EXPECT_EQ(two.find('2'), std::string::npos) << two;
  EXPECT_NE(two.find("s0"), std::string::npos) << two;
  EXPECT_EQ(&state_of<float>(a + b * 2.0f), &state_of<float>(a + b * 3.0f));
}

// Array leaves are listed with an empty source each, which must not read as a computed input: such
// kernels would loop over four waves of blocks, 4-5% slower for streaming than a full grid.
TEST(OpsCodegen, ExpressionsOfArraysComputeNoInputs) {
  const auto a = fake<float>({64});
  const auto b = fake<float>({64});
  const auto& state = state_of<float>(a + b);
  EXPECT_FALSE(state.signature.sources.empty());
  EXPECT_FALSE(state.signature.computes_inputs());
  EXPECT_FALSE(state.computes_inputs);
}

TEST(OpsCodegen, RepeatedLeavesAreOneInput) {
  const auto a = fake<float>({8});
  const auto b = fake<float>({8}, 0x20000);
  const auto x = a * b + a * 2 + b;
  const nd::detail::inputs_of<decltype(x)> in(x);
  EXPECT_EQ(in.count, 2U);
  const std::string body = body_of<float>(x);
  EXPECT_EQ(body.find("in2"), std::string::npos) << body;
  // A view of the same buffer with another layout is another input.
  const auto t = fake<float>({4, 2});
  const nd::detail::inputs_of<decltype(t + t.T().T())> same(t + t.T().T());
  EXPECT_EQ(same.count, 1U);
  const nd::detail::inputs_of<decltype(t + t(nd::slice(nd::none, nd::none, -1)))> other(
      t + t(nd::slice(nd::none, nd::none, -1)));
  EXPECT_EQ(other.count, 2U);
}

TEST(OpsCodegen, NarrowIntegersWrapAndHalfComputesInFloat) {
  const auto i8 = fake<std::int8_t>({8});
  const auto h = fake<__half>({8});
  EXPECT_NE(body_of<std::int8_t>((i8 & i8) + 1).find("((signed char)("), std::string::npos);
  const std::string half = body_of<__half>(nd::sin(h) * 2.0f);
  EXPECT_NE(half.find("ndcuda::cast<float>(in0)"), std::string::npos) << half;
  EXPECT_NE(half.find("out = ndcuda::cast<__half>("), std::string::npos) << half;
}

TEST(OpsCodegen, RepeatedArraysDoNotCountTowardTheFusionLimit) {
  // 40 leaves over one array: one input, so one kernel (below 24 leaves it used to split).
  const auto a = fake<float>({8});
  auto x = a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a +
           a + a + a + a + a + a + a + a + a + a + a + a + a + 1.0f;
  using X = decltype(x);
  static_assert(X::arrays == 40 && X::arrays + X::scalars <= nd::detail::max_fused_leaves);
  const nd::detail::inputs_of<X> in(x);
  EXPECT_EQ(in.count, 1U);
  // Past the leaf limit a tree splits at compile time into temporaries of its multi-leaf children.
  auto y = x + x + x;
  static_assert(decltype(y)::arrays + decltype(y)::scalars > nd::detail::max_fused_leaves);
  using split_t = decltype(nd::detail::split(y));
  static_assert(split_t::arrays + split_t::scalars <= 2);
}

TEST(OpsCodegen, IdenticalSubtreesAreComputedOnce) {
  const auto a = fake<float>({8});
  const auto b = fake<float>({8});
  const auto t = nd::exp(a * b) + 1.0f;
  // t named three times. Each copy's scalar is its own parameter (s0, s1, s2), so the additions
  // differ; exp(a*b) is the same in all three: one local, read three times.
  const std::string body = body_of<float>(t * t + nd::sqrt(t));
  const auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = body.find(what); at != std::string::npos; at = body.find(what, at + 1)) {
      ++n;
    }
    return n;
  };
  EXPECT_EQ(count("exp("), 1U) << body;
  EXPECT_EQ(count("const float ndcuda_v"), 1U) << body;
  EXPECT_EQ(count("ndcuda_v"), 4U) << body;         // declared once, used three times
  EXPECT_EQ(count("nd_multiply(in0"), 1U) << body;  // a * b (one fake buffer: in0 twice)
  // A tree without repeats reads as before: no locals.
  const std::string plain = body_of<float>(nd::exp(a * b) + 1.0f);
  EXPECT_EQ(plain.find("ndcuda_v"), std::string::npos) << plain;
  EXPECT_EQ(plain.rfind("out = ", 0), 0U) << plain;
}

TEST(OpsCodegen, GeneratedKernelsCompileWithNvrtc) {
  const nd::compute_capability sm90{9, 0};
  const auto f = fake<float>({8});
  const auto d = fake<double>({8});
  const auto i = fake<std::int32_t>({8});
  const auto u = fake<std::uint16_t>({8});
  const auto i8 = fake<std::int8_t>({8});
  const auto h = fake<__half>({8});
  const auto bf = fake<__nv_bfloat16>({8});
  const auto b = fake<bool>({8});
  const auto c = fake<std::complex<float>>({8});
  const auto z = fake<std::complex<double>>({8});
  EXPECT_NO_THROW(nd::detail::compile_expression(state_of<float>(f + f * 2.0f), sm90));
  EXPECT_NO_THROW(nd::detail::compile_expression(
      state_of<double>(nd::floor_divide(i, 3) + i % 7 + nd::power(i, 2) + (i << 2) - (~i >> 1) + i / 2), sm90));
  EXPECT_NO_THROW(nd::detail::compile_expression(
      state_of<std::uint16_t>(nd::floor_divide(u, u) + u % u + nd::maximum(u, 3) + nd::abs(u)), sm90));
  EXPECT_NO_THROW(nd::detail::compile_expression(
      state_of<std::int8_t>((i8 & i8) | (i8 ^ 3) + nd::floor_divide(i8, i8) + nd::sign(i8)), sm90));
  EXPECT_NO_THROW(nd::detail::compile_expression(
      state_of<__half>(nd::sin(h) * 2.0f + nd::sqrt(nd::abs(h)) + nd::where(h > 0, h, -h) + nd::floor(h)), sm90));
  EXPECT_NO_THROW(nd::detail::compile_expression(
      state_of<__nv_bfloat16>(nd::exp(bf) + nd::clip(bf, -1.0f, 1.0f) + nd::power(bf, 2.0f)), sm90));
  EXPECT_NO_THROW(nd::detail::compile_expression(
      state_of<bool>(nd::where(nd::logical_and(b, f > 0), nd::logical_xor(b, nd::isnan(f)), nd::logical_not(b))),
      sm90));
  EXPECT_NO_THROW(nd::detail::compile_expression(
      state_of<double>(nd::arctan2(d, d) + nd::cbrt(d) + nd::exp2(d) + nd::expm1(d) + nd::log2(d) + nd::log1p(d) +
                       nd::log10(d) + nd::tan(d) + nd::arcsin(d) + nd::arccos(d) + nd::arctan(d) + nd::sinh(d) +
                       nd::cosh(d) + nd::tanh(d) + nd::ceil(d) + nd::trunc(d) + nd::rint(d) + nd::round(d)),
      sm90));
  EXPECT_NO_THROW(nd::detail::compile_expression(
      state_of<float>(nd::fmax(f, d) + nd::fmin(f, 1.0) + nd::minimum(f, f) + nd::isinf(f) + nd::isfinite(i) +
                      f % 2.0f + nd::floor_divide(f, 0.5f) + nd::power(f, f)),
      sm90));
  EXPECT_NO_THROW(nd::detail::compile_expression(
      state_of<std::complex<float>>(c * std::complex<float>(1, 2) + nd::exp(c) + nd::sqrt(c) + nd::conj(c) +
                                    nd::real(c) + nd::imag(c) + nd::abs(c) + nd::power(c, c) + (c == c) + nd::sin(c)),
      sm90));
  EXPECT_NO_THROW(nd::detail::compile_expression(
      state_of<double>(nd::abs(z) + nd::real(z) + nd::isnan(z) + (z != 1.0) + nd::real(nd::log(z))), sm90));
  // astype inside a tree whose leaves and output never name the target type: its header must
  // still be included (float16 and bfloat16 rounding in a float32 computation).
  EXPECT_NO_THROW(nd::detail::compile_expression(
      state_of<float>(f - (f * 2.0f).astype<__half>() + (f + 1.0f).astype<__nv_bfloat16>() +
                      (f * 3.0f).astype<std::int8_t>() + (f > 0.0f).astype<double>()),
      sm90));
}
