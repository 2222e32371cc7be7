// Tier 0 without a GPU: the encoder reads the bodies that real expressions generate into register
// programs, refuses what the interpreter lacks, and its programs compute what the expression does
// (a host evaluation of the steps against the expression written out in C++, on random input).
// The interpreter itself runs in gpu_tier0_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ndcuda/ndcuda.hpp>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "jit/elementwise_state.hpp"
#include "jit/tier0_program.hpp"
#include "ops/ufunc_row_names.hpp"
#include "support/fake_array.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;

namespace {

using nd::testing::fake;

// The state of a new expression, built with tiers on (the default, unless NDCUDA_JIT_TIERED=0).
template <class Out, class X>
const jd::elementwise_state& state_of(const X& x) {
  jd::set_tiered_calls(true);
  const nd::detail::inputs_of<X> in(x);
  return nd::detail::expression_state<Out, X>(in);
}

// One register of the host evaluation: the value and its type code.
union host_value {
  bool b;
  std::int32_t i32;
  std::int64_t i64;
  float f32;
  double f64;
};

template <class T>
T& as(host_value& v) {
  if constexpr (std::is_same_v<T, bool>) return v.b;
  if constexpr (std::is_same_v<T, std::int32_t>) return v.i32;
  if constexpr (std::is_same_v<T, std::int64_t>) return v.i64;
  if constexpr (std::is_same_v<T, float>) return v.f32;
  if constexpr (std::is_same_v<T, double>) return v.f64;
}

template <class F>
void with_type(int code, F&& f) {
  switch (code) {
    case NDCUDA_TIER0_BOOL:
      return f(bool{});
    case NDCUDA_TIER0_INT32:
      return f(std::int32_t{});
    case NDCUDA_TIER0_INT64:
      return f(std::int64_t{});
    case NDCUDA_TIER0_FLOAT32:
      return f(float{});
    default:
      return f(double{});
  }
}

// The steps this test's expressions use, evaluated on the host for element `i` of `inputs` (each
// an array of its input's type, as bytes) with `scalars`: an independent reading of the program.
host_value evaluate(const jd::tier0_program& p, const std::vector<std::vector<unsigned char>>& inputs,
                    const std::vector<host_value>& scalars, std::size_t i) {
  std::vector<host_value> r(NDCUDA_TIER0_REGISTERS);
  for (const ndcuda_tier0_step& s : p.steps) {
    host_value& out = r[s.dst];
    host_value& a = r[s.a];
    host_value& b = r[s.b];
    host_value& c = r[s.c];
    with_type(s.type, [&](auto t) {
      using T = decltype(t);
      switch (s.op) {
        case ndcuda_tier0_load_input:
          std::memcpy(&as<T>(out), inputs[s.aux].data() + i * sizeof(T), sizeof(T));
          break;
        case ndcuda_tier0_load_scalar:
          out = scalars[s.aux];
          break;
        case ndcuda_tier0_cast:
          with_type(s.aux, [&](auto to) { as<decltype(to)>(out) = static_cast<decltype(to)>(as<T>(a)); });
          break;
        case ndcuda_tier0_where:
          as<T>(out) = a.b ? as<T>(b) : as<T>(c);
          break;
        case ndcuda_tier0_logical_not:
          out.b = !a.b;
          break;
        case ndcuda_tier0_add:
          as<T>(out) = static_cast<T>(as<T>(a) + as<T>(b));
          break;
        case ndcuda_tier0_multiply:
          as<T>(out) = static_cast<T>(as<T>(a) * as<T>(b));
          break;
        case ndcuda_tier0_subtract:
          as<T>(out) = static_cast<T>(as<T>(a) - as<T>(b));
          break;
        case ndcuda_tier0_sqrt:
          as<T>(out) = static_cast<T>(std::sqrt(as<T>(a)));
          break;
        case ndcuda_tier0_less:
          out.b = as<T>(a) < as<T>(b);
          break;
        case ndcuda_tier0_logical_and:
          out.b = as<T>(a) && as<T>(b);
          break;
        case ndcuda_tier0_bitwise_and:
          if constexpr (std::is_integral_v<T>) as<T>(out) = static_cast<T>(as<T>(a) & as<T>(b));
          break;
        default:
          ADD_FAILURE() << "the host evaluation lacks opcode " << int(s.op);
      }
    });
  }
  return r[p.steps.back().dst];
}

template <class T>
std::vector<unsigned char> bytes_of(const std::vector<T>& v) {
  std::vector<unsigned char> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

std::vector<std::int32_t> random_ints(std::size_t n) {
  std::uniform_int_distribution<std::int32_t> d(-1000, 1000);
  std::vector<std::int32_t> v(n);
  for (auto& x : v) x = d(nd::testing::rng());
  return v;
}

}  // namespace

TEST(Tier0Encoder, ArithmeticOverTwoArraysAndAScalarReadsEachLeafOnce) {
  const auto a = fake<float>({64}, 0x10000);
  const auto b = fake<float>({64}, 0x20000);
  const auto& state = state_of<float>(a * b + a * 2.5f);
  ASSERT_TRUE(state.tier0.has_value()) << state.body;
  // load a, load b, multiply, load s0, multiply, add: `a` is read once though written twice.
  EXPECT_EQ(state.tier0->steps.size(), 6U) << state.body;
  EXPECT_EQ(state.tier0->out_type, NDCUDA_TIER0_FLOAT32);
  ASSERT_EQ(state.tier0->scalar_bytes.size(), 1U);
  EXPECT_EQ(state.tier0->scalar_bytes[0], sizeof(float));

  const std::size_t n = 257;
  const auto x = nd::testing::uniform_values<float>(n, -4.0, 4.0);
  const auto y = nd::testing::uniform_values<float>(n, -4.0, 4.0);
  host_value s0{};
  s0.f32 = 2.5f;
  for (std::size_t i = 0; i < n; ++i) {
    const float expected = x[i] * y[i] + x[i] * 2.5f;
    EXPECT_EQ(evaluate(*state.tier0, {bytes_of(x), bytes_of(y)}, {s0}, i).f32, expected) << "at " << i;
  }
}

// A tier-0 launch opens an NVTX range named after the kernel it stands in for, so a profile (or a
// --kernel-name filter) shows which expression ran while its kernel compiled.
TEST(Tier0Encoder, ItsLaunchesAreNamedAfterTheKernelTheyStandInFor) {
  const auto a = fake<double>({32}, 0x30000);
  const auto b = fake<double>({32}, 0x40000);
  const auto& state = state_of<double>(a * b - a);
  ASSERT_TRUE(state.tier0.has_value()) << state.body;
  EXPECT_EQ(state.name.rfind("nd_subtract", 0), 0U) << state.name;
  // Registered names are recorded whether or not a tool is attached (the handle is null without
  // one, and the launch then opens no range).
  const std::vector<std::string> names = nd::detail::nvtx_registered_names();
  EXPECT_NE(std::find(names.begin(), names.end(), state.name + " (tier 0)"), names.end()) << state.name;
}

// Whether a new expression gets a tier-0 program when no test has overridden the environment.
// Each build gets an expression no other test builds, so its state is made here.
bool new_expression_gets_tier0(std::uintptr_t address) {
  jd::use_environment_for_tiered_calls();
  const auto a = fake<std::int64_t>({16}, address);
  const auto x = (a - a * 3) * (a + 5);
  using X = std::remove_cvref_t<decltype(x)>;
  const nd::detail::inputs_of<X> in(x);
  return nd::detail::expression_state<std::int64_t, X>(in).tier0.has_value();
}

// Tiers are on by default (docs/jit.md)...
TEST(Tier0Encoder, NewExpressionsGetTier0WhenNdcudaJitTieredIsUnset) {
  if (std::getenv("NDCUDA_JIT_TIERED") != nullptr) {
    GTEST_SKIP() << "NDCUDA_JIT_TIERED is set here; this test checks the default";
  }
  EXPECT_TRUE(jd::tiered_calls_enabled());
  EXPECT_TRUE(new_expression_gets_tier0(0x50000));
}

// ...and NDCUDA_JIT_TIERED=0 turns them off: ctest runs this one with it set
// (ops/Tier0Encoder.NoTier0WhenNdcudaJitTieredIsZero/env0, tests/CMakeLists.txt).
TEST(Tier0Encoder, NoTier0WhenNdcudaJitTieredIsZero) {
  const char* value = std::getenv("NDCUDA_JIT_TIERED");
  if (value == nullptr || std::strcmp(value, "0") != 0) {
    GTEST_SKIP() << "runs under ctest with NDCUDA_JIT_TIERED=0 (its /env0 entry)";
  }
  EXPECT_FALSE(jd::tiered_calls_enabled());
  EXPECT_FALSE(new_expression_gets_tier0(0x60000));
}

TEST(Tier0Encoder, MixedDtypesComparisonsAndWhereEncodeTheirCasts) {
  const auto i = fake<std::int32_t>({64}, 0x10000);
  const auto f = fake<float>({64}, 0x20000);
  // int32 < float32 compares in float64; where picks int64 or float32 as float64; sqrt of it.
  const auto& state = state_of<double>(nd::sqrt(nd::where(i < f, (i + 1).astype<std::int64_t>(), f * f)));
  ASSERT_TRUE(state.tier0.has_value()) << state.body;
  const std::size_t n = 300;
  const auto xi = random_ints(n);
  const auto xf = nd::testing::uniform_values<float>(n, -1000.0, 1000.0);
  ASSERT_EQ(state.tier0->scalar_bytes.size(), 1U);  // the 1 of i + 1, an int32 (weak scalar)
  host_value one{};
  one.i32 = 1;
  for (std::size_t k = 0; k < n; ++k) {
    const double picked = static_cast<double>(xi[k]) < static_cast<double>(xf[k]) ? static_cast<double>(xi[k] + 1)
                                                                                  : static_cast<double>(xf[k] * xf[k]);
    const double expected = std::sqrt(picked);
    const double got = evaluate(*state.tier0, {bytes_of(xi), bytes_of(xf)}, {one}, k).f64;
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(got)) << "at " << k;
    } else {
      EXPECT_EQ(got, expected) << "at " << k << ": " << state.body;
    }
  }
}

TEST(Tier0Encoder, LogicalAndBitwiseOperatorsOnBoolsAndIntegers) {
  const auto p = fake<bool>({64}, 0x10000);
  const auto q = fake<bool>({64}, 0x20000);
  const auto m = fake<std::int32_t>({64}, 0x30000);
  const auto& logic = state_of<bool>(nd::logical_and(p, nd::logical_not(q)));
  ASSERT_TRUE(logic.tier0.has_value()) << logic.body;
  const auto& bits = state_of<std::int32_t>(m & 0x5a5);
  ASSERT_TRUE(bits.tier0.has_value()) << bits.body;
  const std::size_t n = 128;
  std::vector<unsigned char> pb(n);
  std::vector<unsigned char> qb(n);
  const auto mv = random_ints(n);
  for (std::size_t k = 0; k < n; ++k) {
    pb[k] = static_cast<unsigned char>(mv[k] & 1);
    qb[k] = static_cast<unsigned char>((mv[k] >> 1) & 1);
  }
  host_value mask{};
  mask.i32 = 0x5a5;
  for (std::size_t k = 0; k < n; ++k) {
    EXPECT_EQ(evaluate(*logic.tier0, {pb, qb}, {}, k).b, pb[k] != 0 && qb[k] == 0) << "at " << k;
    EXPECT_EQ(evaluate(*bits.tier0, {bytes_of(mv)}, {mask}, k).i32, mv[k] & 0x5a5) << "at " << k;
  }
}

TEST(Tier0Encoder, RefusesWhatTheInterpreterLacksAndSaysWhy) {
  const auto h = fake<__half>({8}, 0x10000);
  const auto c = fake<std::complex<float>>({8}, 0x20000);
  const auto u = fake<std::uint8_t>({8}, 0x30000);
  const auto f = fake<float>({8}, 0x40000);
  EXPECT_FALSE(state_of<__half>(h + h).tier0.has_value());
  EXPECT_FALSE(state_of<std::complex<float>>(c * c).tier0.has_value());
  EXPECT_FALSE(state_of<std::uint8_t>(u + u).tier0.has_value());
  // float32 computed, stored as float64: the store converts, which the program spells as a cast.
  EXPECT_TRUE(state_of<double>(f + f).tier0.has_value());

  const jd::elementwise_signature sig{nd::dtype::float32, {nd::dtype::float32}};
  std::string why;
  EXPECT_FALSE(jd::encode_tier0("out = in0 * 2.0f", sig, &why).has_value());
  EXPECT_NE(why.find("text after the store"), std::string::npos) << why;
  EXPECT_FALSE(jd::encode_tier0("out = ndcuda::nd_fold(in0)", sig, &why).has_value());
  EXPECT_NE(why.find("nd_fold"), std::string::npos) << why;
  EXPECT_FALSE(jd::encode_tier0("out = in3", sig, &why).has_value());
  const jd::elementwise_signature drawn{nd::dtype::float32, {nd::dtype::float32}, {}, {"ndcuda::philox_source<1, 1>"}};
  EXPECT_FALSE(jd::encode_tier0("out = in0", drawn, &why).has_value());
  EXPECT_NE(why.find("computed"), std::string::npos) << why;
  EXPECT_TRUE(jd::encode_tier0("out = in0", sig, &why).has_value());
}

TEST(Tier0Encoder, AProgramOverTheStepLimitIsRefused) {
  const jd::elementwise_signature sig{nd::dtype::float32, {nd::dtype::float32}};
  std::string text = "in0";
  for (int k = 0; k < NDCUDA_TIER0_MAX_STEPS; ++k) {
    text = "ndcuda::nd_sin(" + text + ")";
  }
  std::string why;
  EXPECT_FALSE(jd::encode_tier0("out = " + text, sig, &why).has_value());
  EXPECT_NE(why.find("steps"), std::string::npos) << why;
}

TEST(Tier0Encoder, RegistersAreReusedAndTooManyLiveValuesAreRefused) {
  std::vector<nd::dtype> ten(10, nd::dtype::float32);
  const jd::elementwise_signature sig{nd::dtype::float32, ten};
  // Left-nested: each sum ends its operands' lives, so two registers hold any number of inputs.
  std::string left = "in0";
  // Right-nested: every input is loaded before the first add, ten values live at once.
  std::string right = "in9";
  for (int k = 1; k < 10; ++k) {
    left = "ndcuda::nd_add(" + left + ", in" + std::to_string(k) + ")";
    right = "ndcuda::nd_add(in" + std::to_string(9 - k) + ", " + right + ")";
  }
  const auto chained = jd::encode_tier0("out = " + left, sig);
  ASSERT_TRUE(chained.has_value());
  EXPECT_EQ(chained->steps.size(), 19U);
  int highest = 0;
  for (const auto& s : chained->steps) highest = std::max<int>(highest, s.dst);
  EXPECT_LE(highest, 1) << "a left-nested sum needs two registers";
  std::string why;
  EXPECT_FALSE(jd::encode_tier0("out = " + right, sig, &why).has_value());
  EXPECT_NE(why.find("live at once"), std::string::npos) << why;
}

TEST(Tier0Encoder, EveryInterpreterOperationIsAUfuncRow) {
  // The interpreter's list (kernels/tier0_program.cuh) is checked against the table's rows, so
  // it can name no helper that no row spells.
  std::set<std::string> rows;
  for (const auto& row : ufunc_rows::all()) rows.insert(row.name);
#define NDCUDA_TEST_TIER0_NAME(tag, ...) EXPECT_TRUE(rows.count(#tag) == 1) << #tag " is not a ufunc row";
  NDCUDA_TIER0_CALLS(NDCUDA_TEST_TIER0_NAME)
  NDCUDA_TIER0_INFIX(NDCUDA_TEST_TIER0_NAME)
#undef NDCUDA_TEST_TIER0_NAME
}
