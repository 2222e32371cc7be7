// NVTX ranges (core/detail/nvtx.hpp): names registered once, ops naming their range as the user
// wrote the call, fused expressions labelled "elementwise a*b+c". Host-only except the last test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ndcuda/ndcuda.hpp>
#include <string>
#include <vector>

#include "jit/elementwise_state.hpp"
#include "support/fake_array.hpp"
#include "support/gpu.hpp"
#include "support/nvtx_names.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

using nd::testing::fake;

using nd::testing::nvtx_name_registered;

std::size_t times_registered(const std::string& name) {
  const std::vector<std::string> names = nd::detail::nvtx_registered_names();
  return static_cast<std::size_t>(std::count(names.begin(), names.end(), name));
}

// The range name of expression x's fused kernel (built as evaluation builds it; no device).
template <class Out, class X>
std::string range_of(const X& x) {
  const nd::detail::inputs_of<X> in(x);
  const auto& state = nd::detail::expression_state<Out, X>(in);
  (void)state;  // its nvtx handle is null without a profiler attached: the name log says what it registered
  const std::vector<std::string> names = nd::detail::nvtx_registered_names();
  for (auto it = names.rbegin(); it != names.rend(); ++it) {
    if (it->rfind("elementwise ", 0) == 0) {
      return *it;
    }
  }
  return {};
}

template <class F>
void expect_throws_after_range(F&& f) {
  EXPECT_THROW(f(), nd::error);
}

}  // namespace

TEST(Nvtx, NameRegistersOnceAndKeepsItsHandle) {
  static constinit nd::detail::nvtx_name name{"test::registered_once"};
  EXPECT_FALSE(nvtx_name_registered("test::registered_once"));
  void* first = name.handle();
  void* second = name.handle();
  EXPECT_EQ(first, second);
  EXPECT_EQ(times_registered("test::registered_once"), 1u);
  EXPECT_STREQ(name.text(), "test::registered_once");
}

TEST(Nvtx, ScopesNestWithoutATool) {
  {
    const nd::detail::op_range<"test::outer"> outer;
    const nd::detail::op_range<"test::inner"> inner;
  }
  {
    const nd::detail::op_range<"test::outer"> again;  // the same name: no second registration
  }
  EXPECT_EQ(times_registered("test::outer"), 1u);
  EXPECT_EQ(times_registered("test::inner"), 1u);
}

TEST(Nvtx, OpsOpenTheirRangeBeforeCheckingArguments) {
  // Each call fails its argument checks before any CUDA work (fake arrays), but after its range
  // opened: the range name is registered as the user wrote the call.
  const auto x = fake<float>({4, 5});
  expect_throws_after_range([&] { (void)nd::sum(x, 7); });
  expect_throws_after_range([&] { (void)nd::var(x, 3, nd::ddof(1)); });
  expect_throws_after_range([&] { (void)nd::argmax(x, 9); });
  expect_throws_after_range([&] { (void)nd::cumsum(x, 4); });
  expect_throws_after_range([&] { (void)nd::sort(x, 5); });
  expect_throws_after_range([&] { (void)nd::argsort(x, -3); });
  expect_throws_after_range([&] { (void)nd::topk(x, 9); });
  expect_throws_after_range([&] { (void)nd::searchsorted(x, x); });
  expect_throws_after_range([&] { (void)nd::concatenate({x, fake<float>({6})}, 5); });
  for (const char* name : {"nd::sum", "nd::var", "nd::argmax", "nd::cumsum", "nd::sort", "nd::argsort", "nd::topk",
                           "nd::searchsorted", "nd::concatenate"}) {
    EXPECT_TRUE(nvtx_name_registered(name)) << name;
  }
}

TEST(Nvtx, ExpressionRangesSpellTheExpression) {
  const auto a = fake<float>({8}, 0x10000);
  const auto b = fake<float>({8}, 0x20000);
  const auto c = fake<float>({8}, 0x30000);
  const auto d = fake<double>({8}, 0x40000);
  EXPECT_EQ(range_of<float>(a * b + c), "elementwise a*b+c");
  EXPECT_EQ(range_of<float>((a + b) * c), "elementwise (a+b)*c");
  EXPECT_EQ(range_of<float>(a - (b - c)), "elementwise a-(b-c)");
  EXPECT_EQ(range_of<float>(a - b - c), "elementwise a-b-c");
  EXPECT_EQ(range_of<float>(-(-a)), "elementwise -(-a)");
  EXPECT_EQ(range_of<float>(a + 2.0f * nd::sin(b)), "elementwise a+s0*sin(b)");
  EXPECT_EQ(range_of<float>(a * a + b), "elementwise a*a+b");  // one input read twice: one letter
  EXPECT_EQ(range_of<bool>(a < b), "elementwise a<b");
  EXPECT_EQ(range_of<float>(nd::where(a > b, a, c)), "elementwise where(a>b, a, c)");
  EXPECT_EQ(range_of<double>((a * b).astype<double>() + d), "elementwise (a*b).astype<float64>()+c");
  EXPECT_EQ(range_of<float>(nd::maximum(a, b) / c), "elementwise maximum(a, b)/c");
}

TEST(Nvtx, LongExpressionLabelsAreClipped) {
  const auto a = fake<float>({8});
  const auto x = a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a;
  const auto e = nd::sin(nd::cos(nd::tan(nd::sin(nd::cos(nd::tan(nd::sin(nd::cos(nd::tan(x)))))))));
  const auto f = nd::exp(nd::log(nd::exp(nd::log(nd::exp(nd::log(nd::sqrt(nd::abs(e))))))));
  const auto g = nd::sin(nd::cos(nd::tan(nd::sin(nd::cos(nd::tan(nd::sin(nd::cos(nd::tan(f)))))))));
  const std::string name = range_of<float>(g);
  EXPECT_LE(name.size(), std::string("elementwise ").size() + 160);
  EXPECT_EQ(name.substr(name.size() - 3), "...");
}

TEST(Nvtx, SwitchReportsTheBuild) {
#ifdef NDCUDA_TEST_NVTX_OFF
  EXPECT_FALSE(nd::detail::nvtx_enabled());
#else
  EXPECT_TRUE(nd::detail::nvtx_enabled());
#endif
}

TEST(NvtxGpu, OpsRunInsideTheirRanges) {
  NDCUDA_REQUIRE_GPU();
  constexpr int n = 1000;
  const std::vector<float> ha = nd::testing::uniform_values<float>(n, -1.0, 1.0);
  const std::vector<float> hb = nd::testing::uniform_values<float>(n, -1.0, 1.0);
  const std::vector<float> hc = nd::testing::uniform_values<float>(n, -1.0, 1.0);
  const auto a = nd::asarray(ha, {n});
  const auto b = nd::asarray(hb, {n});
  const auto c = nd::asarray(hc, {n});
  const nd::ndarray<float> r = a * b + c;
  const std::vector<float> got = r.to_host();
  double total = 0;
  for (int k = 0; k < n; ++k) {
    const double want = static_cast<double>(ha[k]) * hb[k] + hc[k];
    ASSERT_NEAR(got[k], want, 1e-5) << "at " << k;
    total += want;
  }
  EXPECT_NEAR(nd::sum(r.astype<double>()).item(), total, 1e-6 * n);
  const std::vector<float> sorted = nd::sort(r).to_host();
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
  for (const char* name : {"nd::asarray", "elementwise a*b+c", "ndarray::to_host", "nd::sum", "ndarray::astype",
                           "ndarray::item", "nd::sort"}) {
    EXPECT_TRUE(nvtx_name_registered(name)) << name;
  }
  // The kernel launch inside is its own range, named after the generated kernel (what ncu's
  // --kernel-name matches).
  const std::vector<std::string> names = nd::detail::nvtx_registered_names();
  EXPECT_TRUE(std::any_of(names.begin(), names.end(), [](const std::string& s) { return s.rfind("nd_add", 0) == 0; }));
}
