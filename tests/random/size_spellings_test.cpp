// NumPy's spellings of a size (issue 36): an integer, a brace list, a shape_t or nd::none, for every
// draw and for choice, and choice's p of any float dtype. Host tests check what nd::size_arg
// holds; GPU tests check that each spelling draws what the long spelling draws from the same
// seed, and that the values are in range (the distributions themselves: gpu_random_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ndcuda/core/size_arg.hpp>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/random.hpp>
#include <random>
#include <set>
#include <vector>

#include "support/gpu.hpp"

namespace nd = ndcuda;

namespace {

nd::size_arg pass(const nd::size_arg& size) {
  return size;
}

TEST(SizeArg, EachNumpySpellingHoldsItsShape) {
  EXPECT_EQ(pass(10).get(), nd::shape_t{10});
  EXPECT_EQ(pass(std::size_t{7}).get(), nd::shape_t{7});
  EXPECT_EQ(pass({4, 5}).get(), (nd::shape_t{4, 5}));
  EXPECT_EQ(pass({1024}).get(), nd::shape_t{1024});  // one extent, not 1024 zeros
  EXPECT_EQ(pass(nd::shape_t{2, 3, 4}).get(), (nd::shape_t{2, 3, 4}));
  EXPECT_FALSE(pass(nd::none).has_value());
  EXPECT_FALSE(pass({}).has_value());
  EXPECT_EQ(pass(nd::none).or_scalar(), nd::shape_t{});
  EXPECT_EQ(pass(std::optional<nd::shape_t>{nd::shape_t{3}}).get(), nd::shape_t{3});
}

TEST(SizeSpellingsGpu, EverySpellingDrawsWhatTheShapeDraws) {
  NDCUDA_REQUIRE_GPU();
  const std::uint64_t seed = std::random_device{}();
  auto a = nd::random::default_rng(seed);
  auto b = nd::random::default_rng(seed);
  // g.integers<std::int64_t>(0, 10, {1024}), the spelling.
  const nd::ndarray<std::int64_t> braces = a.integers<std::int64_t>(0, 10, {1024});
  const nd::ndarray<std::int64_t> shaped = b.integers<std::int64_t>(0, 10, nd::shape_t{1024});
  ASSERT_EQ(braces.shape(), nd::shape_t{1024});
  const std::vector<std::int64_t> got = braces.to_host();
  EXPECT_EQ(got, shaped.to_host());
  EXPECT_TRUE(std::all_of(got.begin(), got.end(), [](std::int64_t v) { return v >= 0 && v < 10; }));
  EXPECT_GT(std::set<std::int64_t>(got.begin(), got.end()).size(), 5U);  // not one value repeated
  // An integer size, and none (one value, 0-d, as NumPy's size=None).
  const nd::ndarray<float> ten = a.normal<float>(10);
  const nd::ndarray<float> ten_shaped = b.normal<float>(nd::shape_t{10});
  EXPECT_EQ(ten.to_host(), ten_shaped.to_host());
  const nd::ndarray<double> one = a.uniform(2.0, 3.0, nd::none);
  const nd::ndarray<double> one_shaped = b.uniform(2.0, 3.0, nd::shape_t{});
  EXPECT_EQ(one.ndim(), 0);
  EXPECT_EQ(one.item(), one_shaped.item());
  EXPECT_GE(one.item(), 2.0);
  EXPECT_LT(one.item(), 3.0);
  const nd::ndarray<std::int64_t> p5 = a.poisson(4.0, 5);
  EXPECT_EQ(p5.shape(), nd::shape_t{5});
  EXPECT_EQ(p5.to_host(), b.poisson(4.0, nd::shape_t{5}).eval().to_host());
}

TEST(SizeSpellingsGpu, ChoiceTakesAnIntegerSizeAndFloatWeightsOfAnyDtype) {
  NDCUDA_REQUIRE_GPU();
  const std::uint64_t seed = std::random_device{}();
  auto g = nd::random::default_rng(seed);
  std::vector<double> values(50);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-5.0, 5.0);
  std::generate(values.begin(), values.end(), [&] { return dist(rng); });
  const nd::ndarray<double> a = nd::asarray(values, {50});
  // g.choice(a, 10, false): ten distinct elements of a.
  const std::vector<double> picked = g.choice(a, 10, false).to_host();
  ASSERT_EQ(picked.size(), 10U);
  EXPECT_EQ(std::set<double>(picked.begin(), picked.end()).size(), 10U);
  for (double v : picked) {
    EXPECT_NE(std::find(values.begin(), values.end(), v), values.end()) << v;
  }
  // p as float32, as float64 and as a lazy value give the same draws from the same seed: NumPy
  // converts p to float64 first. Weights on two entries only, so the draws can be checked.
  std::vector<double> w(50, 0.0);
  w[3] = 0.25;
  w[41] = 0.75;
  const nd::ndarray<double> w64 = nd::asarray(w, {50});
  const nd::ndarray<float> w32 = w64.astype<float>();
  auto g64 = nd::random::default_rng(seed + 1);
  auto g32 = nd::random::default_rng(seed + 1);
  auto glazy = nd::random::default_rng(seed + 1);
  const std::vector<std::int64_t> d64 = g64.choice(50, 2000, true, w64).to_host();
  const std::vector<std::int64_t> d32 = g32.choice(50, 2000, true, w32).to_host();
  const std::vector<std::int64_t> dlazy = glazy.choice(50, 2000, true, w32 * 2.0F / 2.0F).to_host();
  EXPECT_EQ(d32, d64);
  EXPECT_EQ(dlazy, d64);
  const auto threes = std::count(d64.begin(), d64.end(), 3);
  EXPECT_EQ(threes + std::count(d64.begin(), d64.end(), 41), 2000);
  EXPECT_NEAR(static_cast<double>(threes) / 2000.0, 0.25, 0.05);
  // No size: one value, 0-d.
  const nd::ndarray<std::int64_t> single = g.choice(7);
  EXPECT_EQ(single.ndim(), 0);
  EXPECT_GE(single.item(), 0);
  EXPECT_LT(single.item(), 7);
  // permutation(n), as NumPy's.
  std::vector<std::int64_t> perm = g.permutation(100).to_host();
  std::sort(perm.begin(), perm.end());
  for (std::int64_t i = 0; i < 100; ++i) {
    EXPECT_EQ(perm[static_cast<std::size_t>(i)], i);
  }
}

}  // namespace
