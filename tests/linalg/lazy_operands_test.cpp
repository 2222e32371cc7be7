// (In tests/linalg/: its rows reach linalg and fft, which ops_tests does not link.)
// Every public function that takes an array takes a lazy value too (issue 36): each row of the
// table calls one function with an array, an expression and a reduction node of the same values
// and requires the three results to be equal element for element. The array forms are checked
// against NumPy by their own tests; here the lazy forms must not differ from them.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <ndcuda/fft.hpp>
#include <ndcuda/linalg.hpp>
#include <ndcuda/ndcuda.hpp>
#include <string>
#include <vector>

#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

constexpr nd::index_t rows = 6;
constexpr nd::index_t cols = 10;

// One value three ways: a + b as an array, as an expression, and as sum(stack([a, b]), 0), whose
// two-element float sums round exactly as a + b does.
struct three_ways {
  nd::ndarray<float> a;
  nd::ndarray<float> b;
  nd::ndarray<float> stacked;
  nd::ndarray<float> array;
};

three_ways make_inputs() {
  const std::vector<float> ha = nd::testing::uniform_values<float>(rows * cols, -4.0, 4.0);
  const std::vector<float> hb = nd::testing::uniform_values<float>(rows * cols, -4.0, 4.0);
  three_ways t;
  t.a = nd::asarray(ha, {rows, cols});
  t.b = nd::asarray(hb, {rows, cols});
  t.stacked = nd::stack({t.a, t.b}, 0);
  t.array = t.a + t.b;
  return t;
}

// Each result as host values; a function of several arrays (split) joins them.
template <class R>
auto host_values(const R& r) {
  if constexpr (requires { r.to_host(); }) {
    return r.to_host();
  } else {  // std::vector of arrays
    std::vector<typename R::value_type::value_type> all;
    for (const auto& part : r) {
      const auto h = part.to_host();
      all.insert(all.end(), h.begin(), h.end());
    }
    return all;
  }
}

// Calls `f` with the array, the expression and the reduction node, and compares.
template <class F>
void expect_lazy_forms_agree(const std::string& name, const three_ways& t, F&& f) {
  SCOPED_TRACE(name);
  const auto want = host_values(f(t.array));
  EXPECT_EQ(host_values(f(t.a + t.b)), want) << name << " of an expression";
  EXPECT_EQ(host_values(f(nd::sum(t.stacked, 0))), want) << name << " of a reduction";
}

}  // namespace

TEST(LazyOperandsGpu, EveryFunctionTakesExpressionsAndReductionsAsItTakesArrays) {
  NDCUDA_REQUIRE_GPU();
  const three_ways t = make_inputs();
  const nd::ndarray<std::int64_t> picks = nd::asarray(std::vector<std::int64_t>{3, 0, 7, 7, 59}, {5});
  // Rearranging and views.
  expect_lazy_forms_agree("flip", t, [](const auto& v) { return nd::flip(v); });
  expect_lazy_forms_agree("flip axis", t, [](const auto& v) { return nd::flip(v, 1); });
  expect_lazy_forms_agree("fliplr", t, [](const auto& v) { return nd::fliplr(v); });
  expect_lazy_forms_agree("flipud", t, [](const auto& v) { return nd::flipud(v); });
  expect_lazy_forms_agree("rot90", t, [](const auto& v) { return nd::rot90(v); });
  expect_lazy_forms_agree("moveaxis", t, [](const auto& v) { return nd::moveaxis(v, 0, 1).copy(); });
  expect_lazy_forms_agree("swapaxes", t, [](const auto& v) { return nd::swapaxes(v, 0, 1).copy(); });
  expect_lazy_forms_agree("transpose", t, [](const auto& v) { return nd::transpose(v).copy(); });
  expect_lazy_forms_agree("reshape", t, [](const auto& v) { return nd::reshape(v, {cols, rows}); });
  expect_lazy_forms_agree("ravel", t, [](const auto& v) { return nd::ravel(v); });
  expect_lazy_forms_agree("expand_dims", t, [](const auto& v) { return nd::expand_dims(v, 0); });
  expect_lazy_forms_agree("squeeze", t, [](const auto& v) { return nd::squeeze(nd::expand_dims(v, 1)); });
  expect_lazy_forms_agree("broadcast_to", t, [](const auto& v) { return nd::broadcast_to(v, {2, rows, cols}).copy(); });
  expect_lazy_forms_agree("diagonal", t, [](const auto& v) { return nd::diagonal(v, 1).copy(); });
  expect_lazy_forms_agree("pad", t, [](const auto& v) { return nd::pad(v, 2); });
  expect_lazy_forms_agree("roll", t, [](const auto& v) { return nd::roll(v, 7); });
  expect_lazy_forms_agree("roll axes", t, [](const auto& v) { return nd::roll(v, {2, -3}, {0, 1}); });
  expect_lazy_forms_agree("tile", t, [](const auto& v) { return nd::tile(v, {2, 1}); });
  expect_lazy_forms_agree("repeat", t, [](const auto& v) { return nd::repeat(v, 2, 1); });
  expect_lazy_forms_agree("split", t, [](const auto& v) { return nd::split(v, 2, 1); });
  expect_lazy_forms_agree("take", t, [&](const auto& v) { return nd::take(v, picks); });
  expect_lazy_forms_agree("diff", t, [](const auto& v) { return nd::diff(v); });
  // Sorting, counting and sets.
  expect_lazy_forms_agree("sort", t, [](const auto& v) { return nd::sort(v); });
  expect_lazy_forms_agree("argsort", t, [](const auto& v) { return nd::argsort(v, 0); });
  expect_lazy_forms_agree("unique", t, [](const auto& v) { return nd::unique(v); });
  expect_lazy_forms_agree("cumsum", t, [](const auto& v) { return nd::cumsum(v, 1); });
  expect_lazy_forms_agree("count_nonzero", t, [](const auto& v) { return nd::count_nonzero(v > 0.0F); });
  expect_lazy_forms_agree("isin", t, [&](const auto& v) { return nd::isin(v, t.a); });
  expect_lazy_forms_agree("searchsorted", t, [](const auto& v) { return nd::searchsorted(nd::sort(nd::ravel(v)), v); });
  // Elementwise and statistics.
  expect_lazy_forms_agree("clip", t, [](const auto& v) { return nd::clip(v, -1.0F, 1.0F); });
  expect_lazy_forms_agree("where", t, [](const auto& v) { return nd::where(v > 0.0F, v, 0.0F); });
  expect_lazy_forms_agree("quantile", t, [](const auto& v) { return nd::quantile(v, 0.25); });
  // Linear algebra and FFT.
  expect_lazy_forms_agree("matmul", t, [](const auto& v) { return nd::matmul(v, nd::transpose(v)); });
  expect_lazy_forms_agree("norm", t, [](const auto& v) { return nd::linalg::norm(v); });
  expect_lazy_forms_agree("fft", t, [](const auto& v) { return nd::fft::fft(v); });
}
