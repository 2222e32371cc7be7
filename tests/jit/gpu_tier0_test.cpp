// Tiered first calls on the GPU (docs/jit.md): a new fused expression's first call runs on tier 0,
// the ahead-of-time interpreter, while its kernel compiles in the background; later calls run the
// compiled kernel. Every operation the interpreter has, on every dtype it takes, and float chains
// (generated kernels do not contract a * b + c: --fmad=false) give the same bits on both tiers;
// strided operands, capture and the compile event's report hold.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <mutex>
#include <ndcuda/ndcuda.hpp>
#include <string>
#include <vector>

#include "jit/program_cache.hpp"
#include "jit/tier0_program.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;

namespace {

constexpr std::size_t n = 4099;  // not a multiple of any vector width

// Neither cache may hold a kernel: memory cleared, disk off, for the life of the test process.
void start_cold() {
  jd::global_program_cache().set_disk(nullptr);
  nd::jit::clear_memory_cache();
}

// Tiers are on by default (NDCUDA_JIT_TIERED=0 turns them off); each test says which way it runs. Every test runs in a
// process of its own under ctest, and the expressions each builds are new ones.
void use_tiers(bool on) {
  jd::set_tiered_calls(on);
}

template <class T>
nd::ndarray<T> random_array(std::size_t count) {
  if constexpr (std::is_same_v<T, bool>) {
    const auto bits = nd::testing::uniform_values<std::int32_t>(count, 0, 1);
    std::vector<bool> v(count);
    for (std::size_t i = 0; i < count; ++i) v[i] = bits[i] != 0;
    return nd::asarray<bool>(v);
  } else if constexpr (std::is_integral_v<T>) {
    return nd::asarray<T>(nd::testing::uniform_values<T>(count, -40, 40));
  } else {
    return nd::asarray<T>(nd::testing::uniform_values<T>(count, -3.0, 3.0));
  }
}

// Equal bits, or NaN on both tiers (the same helper may pick another NaN payload; NumPy has none).
template <class R>
bool same_value(R a, R b) {
  if constexpr (std::is_floating_point_v<R>) {
    if (std::isnan(a) && std::isnan(b)) return true;
    return std::memcmp(&a, &b, sizeof a) == 0;
  } else {
    return a == b;
  }
}

// The expression `f` over fresh random operands of type T: first call on tier 0, then (after the
// background compile) on the compiled kernel, compared element by element.
template <int Arity, class T, class F>
void compare_tiers(const char* row, F&& f) {
  const auto a = random_array<T>(n);
  const auto b = random_array<T>(n);
  const auto run = [&] {
    if constexpr (Arity == 1) {
      return nd::eval(f(a));
    } else {
      return nd::eval(f(a, b));
    }
  };
  const std::uint64_t before = jd::tier0_launch_count();
  const auto first = run().to_host();
  // At least one: an array's astype in the expression is a first call of its own.
  const std::uint64_t after_first = jd::tier0_launch_count();
  EXPECT_GT(after_first, before) << row << " on " << nd::name(nd::dtype_of<T>)
                                 << ": the first call did not run on tier 0";
  nd::jit::wait_all();
  const auto later = run().to_host();
  EXPECT_EQ(jd::tier0_launch_count(), after_first) << row << ": a call after the compile ran on tier 0";
  ASSERT_EQ(first.size(), later.size());
  int shown = 0;
  for (std::size_t i = 0; i < first.size(); ++i) {
    using R = typename std::decay_t<decltype(first)>::value_type;
    if (!same_value<R>(first[i], later[i]) && shown++ < 3) {
      ADD_FAILURE() << row << " on " << nd::name(nd::dtype_of<T>) << " at " << i << ": tier 0 gave " << +first[i]
                    << ", the compiled kernel " << +later[i];
    }
  }
}

template <int Arity, int Types, class F>
void compare_row(const char* row, F&& f) {
  if constexpr ((Types & NDCUDA_TIER0_B) != 0) compare_tiers<Arity, bool>(row, f);
  if constexpr ((Types & NDCUDA_TIER0_I) != 0) {
    compare_tiers<Arity, std::int32_t>(row, f);
    compare_tiers<Arity, std::int64_t>(row, f);
  }
  if constexpr ((Types & NDCUDA_TIER0_F) != 0) {
    compare_tiers<Arity, float>(row, f);
    compare_tiers<Arity, double>(row, f);
  }
}

}  // namespace

TEST(Tier0, EveryInterpreterRowGivesTheCompiledKernelsBitsOnEveryDtype) {
  NDCUDA_REQUIRE_GPU();
  use_tiers(true);
  start_cold();
#define NDCUDA_TEST_TIER0_ROW(tag, arity, types, predicate) \
  compare_row<arity, types>(#tag, [](const auto&... x) { return nd::tag(x...); });
#define NDCUDA_TEST_TIER0_OPERATOR(tag, op, types, predicate) \
  compare_row<2, types>(#tag, [](const auto& x, const auto& y) { return nd::tag(x, y); });
  NDCUDA_TIER0_CALLS(NDCUDA_TEST_TIER0_ROW)
  NDCUDA_TIER0_INFIX(NDCUDA_TEST_TIER0_OPERATOR)
#undef NDCUDA_TEST_TIER0_ROW
#undef NDCUDA_TEST_TIER0_OPERATOR
  // The forms that are not rows: a conversion, a where, a logical not, a mixed-dtype promotion.
  compare_tiers<2, float>("astype",
                          [](const auto& x, const auto& y) { return (x * y).template astype<std::int32_t>(); });
  compare_tiers<2, std::int32_t>("where", [](const auto& x, const auto& y) { return nd::where(x < y, x, y * 3); });
  compare_tiers<1, bool>("logical_not", [](const auto& x) { return nd::logical_not(x); });
  compare_tiers<2, std::int64_t>("promotion",
                                 [](const auto& x, const auto& y) { return x.template astype<float>() * y + 0.5; });
}

TEST(Tier0, FloatChainsGiveTheSameBitsOnBothTiers) {
  NDCUDA_REQUIRE_GPU();
  use_tiers(true);
  start_cold();
  const auto x = nd::testing::uniform_values<float>(n, -8.0, 8.0);
  const auto y = nd::testing::uniform_values<float>(n, -8.0, 8.0);
  const auto z = nd::testing::uniform_values<float>(n, -8.0, 8.0);
  const auto a = nd::asarray<float>(x);
  const auto b = nd::asarray<float>(y);
  const auto c = nd::asarray<float>(z);
  const auto run = [&] { return nd::eval(a * b + c * 0.75f - nd::tanh(a)).to_host(); };
  const auto first = run();
  nd::jit::wait_all();
  const auto later = run();
  for (std::size_t i = 0; i < n; ++i) {
    // Generated kernels are compiled with --fmad=false: both tiers round every product as NumPy
    // does, so the first call and the compiled kernel agree to the bit...
    ASSERT_EQ(first[i], later[i]) << "at " << i << ": the tiers differ";
    // ...and each product is NumPy's float32 product, not an FMA's exact one.
    const float products = x[i] * y[i] + z[i] * 0.75f;
    const double reference = static_cast<double>(products) - std::tanh(static_cast<double>(x[i]));
    EXPECT_NEAR(first[i], reference, 0x1p-22 * (std::abs(products) + 1.0)) << "at " << i;
  }
}

TEST(Tier0, StridedAndBroadcastOperandsMatchTheCompiledKernel) {
  NDCUDA_REQUIRE_GPU();
  use_tiers(true);
  start_cold();
  const nd::index_t rows = 67;
  const nd::index_t cols = 129;
  const auto x = nd::testing::uniform_values<double>(static_cast<std::size_t>(rows * cols), -5.0, 5.0);
  const auto r = nd::testing::uniform_values<double>(static_cast<std::size_t>(rows), -5.0, 5.0);
  const auto a = nd::asarray<double>(x, {cols, rows});  // read transposed: a.T() is (rows, cols)
  const auto row = nd::asarray<double>(r, {rows, 1});
  const std::uint64_t before = jd::tier0_launch_count();
  const auto first = nd::eval(nd::maximum(a.T() * 2.0, row) - row).to_host();
  EXPECT_EQ(jd::tier0_launch_count(), before + 1);
  nd::jit::wait_all();
  const auto later = nd::eval(nd::maximum(a.T() * 2.0, row) - row).to_host();
  for (nd::index_t i = 0; i < rows; ++i) {
    for (nd::index_t j = 0; j < cols; ++j) {
      const auto k = static_cast<std::size_t>(i * cols + j);
      const double expected = std::max(x[static_cast<std::size_t>(j * rows + i)] * 2.0, r[i]) - r[i];
      ASSERT_EQ(first[k], expected) << "tier 0 at (" << i << ", " << j << ")";
      ASSERT_EQ(later[k], expected) << "compiled at (" << i << ", " << j << ")";
    }
  }
}

TEST(Tier0, AGraphCapturedOnTheFirstCallKeepsTheInterpreterAndReplaysRight) {
  NDCUDA_REQUIRE_GPU();
  use_tiers(true);
  start_cold();
  nd::stream s(0);
  auto x = nd::testing::uniform_values<float>(n, -2.0, 2.0);
  auto a = nd::asarray<float>(x, {static_cast<nd::index_t>(n)}, s);
  auto out = nd::empty<float>({static_cast<nd::index_t>(n)}, s);
  const std::uint64_t before = jd::tier0_launch_count();
  nd::graph g = nd::capture(s, [&] { out(nd::ellipsis) = a * a - 1.25f; });
  EXPECT_EQ(jd::tier0_launch_count(), before + 1) << "the captured first call did not run on tier 0";
  nd::jit::wait_all();
  for (int round = 0; round < 2; ++round) {
    x = nd::testing::uniform_values<float>(n, -2.0, 2.0);
    nd::copyto(a, nd::asarray<float>(x, {static_cast<nd::index_t>(n)}, s));
    g.launch(s);
    const auto got = out.to_host();
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], x[i] * x[i] - 1.25f) << "round " << round << " at " << i;
  }
}

TEST(Tier0, TheCompileEventSaysTheKernelWasCompiledInTheBackground) {
  NDCUDA_REQUIRE_GPU();
  use_tiers(true);
  start_cold();
  std::mutex mutex;
  std::vector<nd::jit::compile_event> events;
  const auto previous = nd::jit::set_compile_listener([&](const nd::jit::compile_event& e) {
    std::lock_guard lock(mutex);
    events.push_back(e);
  });
  const auto a = random_array<std::int64_t>(n);
  const auto got = nd::eval(nd::abs(a) * 3 + 1).to_host();
  nd::jit::wait_all();
  nd::jit::set_compile_listener(previous);
  const auto host = a.to_host();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], std::abs(host[i]) * 3 + 1) << "at " << i;
  std::lock_guard lock(mutex);
  ASSERT_FALSE(events.empty());
  EXPECT_TRUE(events.back().background);
  EXPECT_EQ(events.back().from, nd::jit::compile_event::origin::compiled);
}

TEST(Tier0, WithTiersOffTheFirstCallWaitsForItsKernel) {
  NDCUDA_REQUIRE_GPU();
  use_tiers(false);
  start_cold();
  const auto a = random_array<float>(n);
  const std::uint64_t before = jd::tier0_launch_count();
  const std::uint64_t compiles = nd::jit::status().compiles;
  const auto got = nd::eval(a * 2.0f + 1.0f).to_host();
  EXPECT_EQ(jd::tier0_launch_count(), before);
  EXPECT_EQ(nd::jit::status().compiles, compiles + 1) << "the first call did not compile its kernel itself";
  const auto host = a.to_host();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], host[i] * 2.0f + 1.0f) << "at " << i;
}

namespace {

// Events of the kernel named `name` while `run` runs (and the background compiles it started end).
template <class F>
std::vector<nd::jit::compile_event> events_of(const std::string& name, F&& run) {
  std::mutex mutex;
  std::vector<nd::jit::compile_event> events;
  const auto previous = nd::jit::set_compile_listener([&](const nd::jit::compile_event& e) {
    std::lock_guard lock(mutex);
    if (e.kernel == name) events.push_back(e);
  });
  run();
  nd::jit::wait_all();
  nd::jit::set_compile_listener(previous);
  std::lock_guard lock(mutex);
  return events;
}

// raw_kernel::start_compile with tiers on or off, then a launch: p[i] *= a over random doubles.
void start_compile_then_launch(bool tiers, std::vector<nd::jit::compile_event>* started,
                               std::vector<nd::jit::compile_event>* launched) {
  use_tiers(tiers);
  start_cold();
  const nd::raw_kernel scale(
      "template <class T> __global__ void scale(T* p, T a, int n) {"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] *= a; }",
      "scale<double>");
  const nd::stream s(0);
  *started = events_of(scale.name(), [&] { scale.start_compile(s); });
  const auto host = nd::testing::uniform_values<double>(n, -3.0, 3.0);
  nd::ndarray<double> p = nd::asarray<double>(host, {static_cast<nd::index_t>(n)}, s);
  *launched = events_of(scale.name(),
                        [&] { scale(dim3((n + 255) / 256), dim3(256), 0, s, p.data(), -1.75, static_cast<int>(n)); });
  const auto got = p.to_host();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], host[i] * -1.75) << "at " << i;
}

}  // namespace

TEST(Tier0, StartCompileCompilesARawKernelInTheBackgroundAndTheLaunchUsesIt) {
  NDCUDA_REQUIRE_GPU();
  std::vector<nd::jit::compile_event> started;
  std::vector<nd::jit::compile_event> launched;
  start_compile_then_launch(true, &started, &launched);
  ASSERT_EQ(started.size(), 1U);
  EXPECT_TRUE(started[0].background);
  EXPECT_EQ(started[0].from, nd::jit::compile_event::origin::compiled);
  for (const auto& e : launched) {
    EXPECT_NE(e.from, nd::jit::compile_event::origin::compiled) << "the launch compiled the kernel again";
  }
}

TEST(Tier0, StartCompileLeavesTheCompileToTheLaunchWithTiersOff) {
  NDCUDA_REQUIRE_GPU();
  std::vector<nd::jit::compile_event> started;
  std::vector<nd::jit::compile_event> launched;
  start_compile_then_launch(false, &started, &launched);
  EXPECT_TRUE(started.empty()) << "NDCUDA_JIT_TIERED=0 compiles on the caller's thread only";
  ASSERT_EQ(launched.size(), 1U);
  EXPECT_FALSE(launched[0].background);
  EXPECT_EQ(launched[0].from, nd::jit::compile_event::origin::compiled);
}
