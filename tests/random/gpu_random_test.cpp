// Random numbers on the GPU: every distribution and dtype equal to the host reference bit for bit
// (fresh seeds), fused draws equal to materialised ones under broadcasting, other output layouts
// and reductions, the offset the generator advances by, stream independence, graph replays that
// draw anew, and the shuffling methods.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/random.hpp>
#include <ndcuda/random/detail/host_reference.hpp>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
namespace host = ndcuda::random::host;

namespace {

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T, class V>
T to_storage(V v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

template <class T>
double as_double(const T& v) {
  if constexpr (std::is_same_v<T, __half>) {
    return static_cast<double>(__half2float(v));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return static_cast<double>(__bfloat162float(v));
  } else {
    return static_cast<double>(v);
  }
}

// Every element of `got` (any layout) equals expected(i) (i the flat C-order index) bit for bit.
template <class T, class F>
void expect_bits(const nd::ndarray<T>& got, F&& expected, const char* what) {
  const std::vector<T> h = got.copy().to_host();
  std::size_t bad = 0;
  std::size_t first = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (!same_bits(h[i], to_storage<T>(expected(i)))) {
      first = bad == 0 ? i : first;
      ++bad;
    }
  }
  EXPECT_EQ(bad, 0u) << what << ": first mismatch at " << first << " of " << h.size() << ": got "
                     << (h.empty() ? 0.0 : as_double(h[first])) << ", host "
                     << as_double(to_storage<T>(expected(first)));
}

// Elements i = 0, step, 2 step, ... and the last `tail` of `got` (C-contiguous) equal expected(i) bit
// for bit: for draws too large to compare whole on the host.
template <class T, class F>
void expect_sampled_bits(const nd::ndarray<T>& got, F&& expected, std::size_t step, std::size_t tail,
                         const char* what) {
  const std::vector<T> h = got.to_host();
  std::size_t bad = 0;
  std::size_t first = 0;
  std::size_t checked = 0;
  const auto check = [&](std::size_t i) {
    ++checked;
    if (!same_bits(h[i], to_storage<T>(expected(i)))) {
      first = bad++ == 0 ? i : first;
    }
  };
  for (std::size_t i = 0; i + tail < h.size(); i += step) check(i);
  for (std::size_t i = h.size() - std::min(tail, h.size()); i < h.size(); ++i) check(i);
  EXPECT_GT(checked, h.size() / step) << what;
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << checked << " sampled elements differ; the first, element "
                     << first << ": got " << as_double(h[first]) << ", host "
                     << as_double(to_storage<T>(expected(first)));
}

std::uint64_t fresh_seed() {
  return nd::testing::rng()();
}

constexpr std::uint64_t bit_n = 1 << 16;

}  // namespace

TEST(GpuRandom, UniformsEqualTheHostReferenceBitForBit) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  auto g = nd::random::default_rng(fresh_seed());
  std::uint64_t o = 0;
  const auto k = g.key();
  nd::ndarray<float> f = g.random<float>({bit_n}, s);
  expect_bits(
      f,
      [&](std::size_t i) {
        return host::random_f32({k, o}, i);
      },
      "random float32");
  o += host::blocks_for("random", false, bit_n);
  nd::ndarray<double> d = g.random<double>({bit_n}, s);
  expect_bits(
      d,
      [&](std::size_t i) {
        return host::random_f64({k, o}, i);
      },
      "random float64");
  o += host::blocks_for("random", true, bit_n);
  nd::ndarray<__half> h = g.random<__half>({bit_n}, s);
  expect_bits(
      h,
      [&](std::size_t i) {
        return host::random_f16({k, o}, i);
      },
      "random float16");
  o += host::blocks_for("random", false, bit_n);
  nd::ndarray<__nv_bfloat16> b = g.random<__nv_bfloat16>({bit_n}, s);
  expect_bits(
      b,
      [&](std::size_t i) {
        return host::random_bf16({k, o}, i);
      },
      "random bfloat16");
  o += host::blocks_for("random", false, bit_n);
  // uniform(low, high) with an array low broadcast along the rows.
  std::vector<double> lows(16);
  for (std::size_t i = 0; i < lows.size(); ++i) {
    lows[i] = -static_cast<double>(i);
  }
  const auto low = nd::asarray(lows, {16}, s);
  nd::ndarray<double> u = g.uniform<double>(low, 3.0, nd::shape_t{bit_n / 16, 16}, s);
  expect_bits(
      u,
      [&](std::size_t i) {
        return host::between(host::random_f64({k, o}, i), lows[i % 16], 3.0);
      },
      "uniform float64");
  o += host::blocks_for("uniform", true, bit_n);
  nd::ndarray<std::uint64_t> bits = g.random_bits({bit_n}, s);
  expect_bits(
      bits,
      [&](std::size_t i) {
        return host::random_bits({k, o}, i);
      },
      "random_bits");
  o += host::blocks_for("random_bits", false, bit_n);
  EXPECT_EQ(g.offset(s), o);
}

TEST(GpuRandom, NormalsAndExponentialsEqualTheHostReferenceBitForBit) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  auto g = nd::random::default_rng(fresh_seed());
  const auto k = g.key();
  std::uint64_t o = 0;
  nd::ndarray<float> z = g.standard_normal<float>({bit_n + 3}, s);  // odd size: a lone last pair member
  expect_bits(
      z,
      [&](std::size_t i) {
        return host::normal_f32({k, o}, i);
      },
      "standard_normal float32");
  o += host::blocks_for("normal", false, bit_n + 3);
  nd::ndarray<double> zd = g.standard_normal<double>({bit_n}, s);
  expect_bits(
      zd,
      [&](std::size_t i) {
        return host::normal_f64({k, o}, i);
      },
      "standard_normal float64");
  o += host::blocks_for("normal", true, bit_n);
  nd::ndarray<__half> zh = g.normal<__half>({bit_n}, s);
  expect_bits(
      zh,
      [&](std::size_t i) {
        return host::normal_f32({k, o}, i);
      },
      "normal float16");
  o += host::blocks_for("normal", false, bit_n);
  // normal(mu_array, sigma): mu broadcasts along the last axis.
  const std::vector<float> mus{-1.5f, 0.25f, 7.0f};
  const auto mu = nd::asarray(mus, {3}, s);
  nd::ndarray<float> n2 = g.normal<float>(mu, 2.0f, nd::shape_t{bit_n / 4, 3}, s);
  expect_bits(
      n2,
      [&](std::size_t i) {
        return host::affine(host::normal_f32({k, o}, i), mus[i % 3], 2.0f);
      },
      "normal(mu, 2) float32");
  o += host::blocks_for("normal", false, bit_n / 4 * 3);
  nd::ndarray<double> ln = g.lognormal<double>(0.3, 0.7, nd::shape_t{bit_n}, s);
  expect_bits(
      ln,
      [&](std::size_t i) {
        return host::lognormal(host::normal_f64({k, o}, i), 0.3, 0.7);
      },
      "lognormal float64");
  o += host::blocks_for("lognormal", true, bit_n);
  nd::ndarray<float> lf = g.lognormal<float>(-1.0, 0.5, nd::shape_t{bit_n}, s);
  expect_bits(
      lf,
      [&](std::size_t i) {
        return host::lognormal(host::normal_f32({k, o}, i), -1.0f, 0.5f);
      },
      "lognormal float32");
  o += host::blocks_for("lognormal", false, bit_n);
  nd::ndarray<float> e = g.exponential<float>(2.5, nd::shape_t{bit_n}, s);
  expect_bits(
      e,
      [&](std::size_t i) {
        return host::scaled(host::exponential_f32({k, o}, i), 2.5f);
      },
      "exponential float32");
  o += host::blocks_for("exponential", false, bit_n);
  nd::ndarray<double> ed = g.standard_exponential<double>({bit_n}, s);
  expect_bits(
      ed,
      [&](std::size_t i) {
        return host::exponential_f64({k, o}, i);
      },
      "standard_exponential float64");
  o += host::blocks_for("exponential", true, bit_n);
  EXPECT_EQ(g.offset(s), o);
}

TEST(GpuRandom, IntegersEqualTheHostReferenceBitForBit) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  auto g = nd::random::default_rng(fresh_seed());
  const auto k = g.key();
  std::uint64_t o = 0;
  const auto check = [&](auto tag, auto low, auto high, bool endpoint, const char* what) {
    using T = decltype(tag);
    nd::ndarray<T> a = g.integers<T>(low, high, nd::shape_t{bit_n}, endpoint, s);
    expect_bits(
        a,
        [&](std::size_t i) {
          return host::integers<T>({k, o}, i, T(low), T(high), endpoint);
        },
        what);
    const std::vector<T> h = a.to_host();
    for (const T v : h) {
      ASSERT_TRUE(v >= T(low) && (endpoint ? v <= T(high) : v < T(high))) << what;
    }
    o += host::blocks_for("integers", sizeof(T) == 8, bit_n);
  };
  check(std::int8_t{}, -100, 100, false, "int8");
  check(std::int8_t{}, -128, 127, true, "int8 full range");
  check(std::uint8_t{}, 0, 255, true, "uint8");
  check(std::int16_t{}, -3, 4, false, "int16");
  check(std::int32_t{}, -5, 1000, true, "int32");
  check(std::int32_t{}, -2147483647 - 1, 2147483647, true, "int32 full range");
  check(std::uint32_t{}, 0u, 3000000000u, false, "uint32 (rejections)");
  check(std::int64_t{}, std::int64_t{-1} << 62, std::int64_t{1} << 62, false, "int64");
  check(std::uint64_t{}, std::uint64_t{0}, ~std::uint64_t{0}, true, "uint64 full range");
  check(std::uint64_t{}, std::uint64_t{0}, (std::uint64_t{1} << 63) + 12345, false, "uint64 (rejections)");
  // Array bounds broadcast.
  const std::vector<std::int32_t> highs{1, 2, 10, 1000000};
  const auto high = nd::asarray(highs, {4}, s);
  nd::ndarray<std::int32_t> a = g.integers<std::int32_t>(0, high, nd::shape_t{bit_n / 4, 4}, false, s);
  expect_bits(
      a,
      [&](std::size_t i) {
        return host::integers<std::int32_t>({k, o}, i, 0, highs[i % 4], false);
      },
      "int32 with array high");
  o += host::blocks_for("integers", false, bit_n);
  EXPECT_EQ(g.offset(s), o);
}

TEST(GpuRandom, RejectionSamplersEqualTheHostReferenceBitForBit) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  auto g = nd::random::default_rng(fresh_seed());
  const auto k = g.key();
  std::uint64_t o = 0;
  constexpr std::uint64_t n = 1 << 14;
  std::vector<float> shapes(n);
  std::vector<double> lams(n);
  std::vector<std::int64_t> trials(n);
  std::mt19937_64& r = nd::testing::rng();
  for (std::size_t i = 0; i < n; ++i) {
    shapes[i] = std::uniform_real_distribution<float>(0.05f, 12.0f)(r);
    lams[i] = i % 3 == 0 ? 0.0 : std::uniform_real_distribution<double>(0.1, 200.0)(r);  // both methods
    trials[i] = std::uniform_int_distribution<std::int64_t>(0, 5000)(r);
  }
  const auto kf = nd::asarray(shapes, {static_cast<nd::index_t>(n)}, s);
  nd::ndarray<float> gf = g.standard_gamma<float>(kf, std::nullopt, s);
  expect_bits(
      gf,
      [&](std::size_t i) {
        return host::gamma_f32({k, o}, i, shapes[i]);
      },
      "standard_gamma float32");
  o += host::blocks_for("gamma", false, n);
  nd::ndarray<double> gd = g.gamma<double>(0.7, 3.0, nd::shape_t{n}, s);
  expect_bits(
      gd,
      [&](std::size_t i) {
        return host::scaled(host::gamma_f64({k, o}, i, 0.7), 3.0);
      },
      "gamma float64");
  o += host::blocks_for("gamma", true, n);
  nd::ndarray<double> bd = g.beta<double>(0.5, 0.5, nd::shape_t{n}, s);
  expect_bits(
      bd,
      [&](std::size_t i) {
        return host::beta_f64({k, o}, i, 0.5, 0.5);
      },
      "beta(0.5, 0.5)");
  o += host::blocks_for("beta", true, n);
  nd::ndarray<float> bf = g.beta<float>(2.0, 5.0, nd::shape_t{n}, s);
  expect_bits(
      bf,
      [&](std::size_t i) {
        return host::beta_f32({k, o}, i, 2.0, 5.0);
      },
      "beta(2, 5) float32");
  o += host::blocks_for("beta", false, n);
  const auto lam = nd::asarray(lams, {static_cast<nd::index_t>(n)}, s);
  nd::ndarray<std::int64_t> p = g.poisson(lam, std::nullopt, s);
  expect_bits(
      p,
      [&](std::size_t i) {
        return host::poisson({k, o}, i, lams[i]);
      },
      "poisson");
  o += host::blocks_for("poisson", false, n);
  const auto nt = nd::asarray(trials, {static_cast<nd::index_t>(n)}, s);
  nd::ndarray<std::int64_t> bl = g.binomial(nt, 0.3, std::nullopt, s);
  expect_bits(
      bl,
      [&](std::size_t i) {
        return host::binomial({k, o}, i, trials[i], 0.3);
      },
      "binomial p = 0.3");
  o += host::blocks_for("binomial", false, n);
  nd::ndarray<std::int64_t> bh = g.binomial(nt, 0.9, std::nullopt, s);
  expect_bits(
      bh,
      [&](std::size_t i) {
        return host::binomial({k, o}, i, trials[i], 0.9);
      },
      "binomial p = 0.9");
  o += host::blocks_for("binomial", false, n);
  EXPECT_EQ(g.offset(s), o);
}

TEST(GpuRandom, FusedDrawsEqualMaterialisedOnesInAnyLayout) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  auto g = nd::random::default_rng(fresh_seed());
  const std::vector<float> xs = nd::testing::uniform_values<float>(640 * 300, -4.0, 4.0);
  const auto x = nd::asarray(xs, {640, 300}, s);
  // One kernel with no noise buffer, against the same kernel shape reading the materialised draw.
  const auto z = g.normal<float>(x.shape(), s);
  nd::ndarray<float> y = x + 0.1f * z;
  const nd::ndarray<float> zm = z;
  nd::ndarray<float> y2 = x + 0.1f * zm;
  expect_bits(
      zm,
      [&, k = g.key()](std::size_t i) {
        return host::normal_f32({k, 0}, i);
      },
      "materialised normal");
  const std::vector<float> yh = y2.to_host();
  expect_bits(
      y, [&](std::size_t i) { return yh[i]; }, "x + 0.1 normal, fused");
  // A draw used twice in one expression is the same values both times.
  nd::ndarray<float> zero = z - z;
  const std::vector<float> zh = zero.to_host();
  EXPECT_TRUE(std::all_of(zh.begin(), zh.end(), [](float v) { return v == 0.0f; }));
  // Broadcast: a (1, 300) draw across 640 rows, and a (640, 1) one across columns.
  const auto row = g.random<float>({1, 300}, s);
  const nd::ndarray<float> row_m = row;
  nd::ndarray<float> br = x * row;
  nd::ndarray<float> br2 = x * row_m;
  const std::vector<float> br2h = br2.to_host();
  expect_bits(
      br, [&](std::size_t i) { return br2h[i]; }, "broadcast row draw");
  const auto col = g.standard_exponential<double>({640, 1}, s);
  const nd::ndarray<double> col_m = col;
  nd::ndarray<double> bc = x + col;
  nd::ndarray<double> bc2 = x + col_m;
  const std::vector<double> bc2h = bc2.to_host();
  expect_bits(
      bc, [&](std::size_t i) { return bc2h[i]; }, "broadcast column draw");
  // Written through a transposed view (the tiled and strided variants): logical element (i, j) of
  // the view is flat index i * 640 + j of the draw.
  nd::ndarray<float> out = nd::empty<float>({640, 300}, s);
  const auto tz = g.random<float>({300, 640}, s);
  out.T()(nd::ellipsis) = tz;
  const nd::ndarray<float> tz_m = tz;
  const std::vector<float> tzh = tz_m.to_host();
  expect_bits(
      out.T(), [&](std::size_t i) { return tzh[i]; }, "draw written into a transposed view");
  // A sliced output with a step, and a 3-d output.
  nd::ndarray<float> wide = nd::zeros<float>({640, 600}, s);
  const auto half = g.random<float>({640, 300}, s);
  wide(nd::all, nd::slice(0, 600, 2)) = half;
  const nd::ndarray<float> half_m = half;
  const std::vector<float> hh = half_m.to_host();
  expect_bits(
      wide(nd::all, nd::slice(0, 600, 2)), [&](std::size_t i) { return hh[i]; }, "strided output");
  const auto cube = g.standard_normal<double>({8, 30, 17}, s);
  nd::ndarray<double> c1 = cube * 2.0;
  const nd::ndarray<double> cube_m = cube;
  const std::vector<double> ch = cube_m.to_host();
  expect_bits(
      c1, [&](std::size_t i) { return ch[i] * 2.0; }, "3-d draw");
}

TEST(GpuRandom, FusedDrawsInReductionsEqualMaterialisedOnes) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  auto g = nd::random::default_rng(fresh_seed());
  const auto r = g.random<float>({3000, 517}, s);
  const nd::ndarray<float> m = r;
  for (int axis : {0, 1}) {
    nd::ndarray<float> fused = nd::sum(r * r, axis);
    nd::ndarray<float> plain = nd::sum(m * m, axis);
    const std::vector<float> ph = plain.to_host();
    expect_bits(
        fused, [&](std::size_t i) { return ph[i]; }, axis == 0 ? "sum along axis 0" : "sum along axis 1");
  }
  const double total = nd::sum<double>(r).item();
  const double want = nd::sum<double>(m).item();
  EXPECT_EQ(total, want);
  const std::vector<float> mh = m.to_host();
  EXPECT_NEAR(total, std::accumulate(mh.begin(), mh.end(), 0.0), 1e-9 * static_cast<double>(mh.size()));
  // argmax reads positions: the fused draw's positions are the materialised array's.
  EXPECT_EQ(nd::argmax(r).item(), nd::argmax(m).item());
  // Monte Carlo pi in one reduction over two draws, and the (n, 2) form.
  constexpr nd::index_t n = 1 << 24;
  const auto u = g.random<float>({n}, s);
  const auto v = g.random<float>({n}, s);
  const double quarter = nd::mean<double>(u * u + v * v < 1.0f).item();
  EXPECT_NEAR(4 * quarter, M_PI, 4 * 6 * std::sqrt(M_PI / 4 * (1 - M_PI / 4) / n));
  const auto uv = g.random<float>({n, 2}, s);
  const double pi = nd::mean<double>(nd::sum(uv * uv, 1) < 1.0f).item() * 4;
  EXPECT_NEAR(pi, M_PI, 4 * 6 * std::sqrt(M_PI / 4 * (1 - M_PI / 4) / n));
}

TEST(GpuRandom, ValuesDependOnlyOnSeedNotOnStreamOrLaunch) {
  NDCUDA_REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  nd::stream s1;
  nd::stream s2;
  auto a = nd::random::default_rng(seed);
  auto b = nd::random::default_rng(seed);
  nd::ndarray<float> x = a.normal<float>({12345}, s1);
  nd::ndarray<float> warm = b.random<float>({7}, s2);  // b one draw ahead ...
  auto c = nd::random::default_rng(seed);
  nd::ndarray<float> y = c.normal<float>({12345});  // ... c on the default stream
  const std::vector<float> xh = x.to_host();
  expect_bits(
      y, [&](std::size_t i) { return xh[i]; }, "same seed, other stream");
  nd::ndarray<float> z = b.normal<float>({12345}, s2);
  const std::vector<float> zh = z.to_host();
  EXPECT_NE(std::memcmp(xh.data(), zh.data(), xh.size() * sizeof(float)), 0);
  // Children and jumped generators differ from their parent and from each other.
  const auto kids = a.spawn(2);
  nd::ndarray<float> k0 = kids[0].random<float>({1000}, s1);
  nd::ndarray<float> k1 = kids[1].random<float>({1000}, s1);
  nd::ndarray<float> j1 = a.jumped().random<float>({1000}, s1);
  const auto h0 = k0.to_host();
  const auto h1 = k1.to_host();
  const auto hj = j1.to_host();
  EXPECT_NE(std::memcmp(h0.data(), h1.data(), 4000), 0);
  EXPECT_NE(std::memcmp(h0.data(), hj.data(), 4000), 0);
}

TEST(GpuRandom, GraphReplaysDrawFreshNumbers) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  auto g = nd::random::default_rng(fresh_seed());
  constexpr nd::index_t n = 100000;
  nd::ndarray<float> out = nd::empty<float>({n}, s);
  nd::ndarray<float> x = nd::ones<float>({n}, s);
  // Warm up (the offset cell, both kernels) outside the capture.
  out(nd::ellipsis) = x + g.random<float>({n}, s);
  const std::uint64_t o0 = g.offset(s);
  const std::uint64_t step = host::blocks_for("random", false, n);
  EXPECT_EQ(o0, step);
  nd::graph gr = nd::capture(s, [&] { out(nd::ellipsis) = x + g.random<float>({n}, s); });
  EXPECT_EQ(g.offset(s), o0);  // capturing draws nothing
  gr.launch(s);
  const std::vector<float> first = out.to_host();
  gr.launch(s);
  const std::vector<float> second = out.to_host();
  EXPECT_NE(std::memcmp(first.data(), second.data(), first.size() * sizeof(float)), 0);
  const auto k = g.key();
  for (std::size_t i = 0; i < first.size(); ++i) {
    ASSERT_EQ(first[i], 1.0f + host::random_f32({k, o0}, i)) << i;
    ASSERT_EQ(second[i], 1.0f + host::random_f32({k, o0 + step}, i)) << i;
  }
  EXPECT_EQ(g.offset(s), o0 + 2 * step);
  // An eager draw after the replays continues after them: no value repeats.
  nd::ndarray<float> after = g.random<float>({n}, s);
  expect_bits(
      after,
      [&](std::size_t i) {
        return host::random_f32({k, o0 + 2 * step}, i);
      },
      "draw after replays");
}

TEST(GpuRandom, LargeDrawsUse64BitIndices) {
  NDCUDA_REQUIRE_GPU();
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  const nd::index_t n = (nd::index_t{1} << 31) + 12;
  if (free_bytes < static_cast<std::size_t>(n) * 4 + (std::size_t{2} << 30)) {
    GTEST_SKIP() << "needs about 10 GiB of free GPU memory";
  }
  nd::stream s;
  auto g = nd::random::default_rng(fresh_seed());
  const auto k = g.key();
  {
    nd::ndarray<float> big = g.random<float>({n}, s);
    const std::vector<float> tail = big(nd::slice(n - 16, n)).to_host();
    for (std::size_t j = 0; j < tail.size(); ++j) {
      ASSERT_EQ(tail[j], host::random_f32({k, 0}, static_cast<std::uint64_t>(n - 16) + j)) << j;
    }
  }
  // The same count reduced without memory.
  const double mean = nd::mean<double>(g.random<float>({n}, s)).item();
  EXPECT_NEAR(mean, 0.5, 6 * std::sqrt(1.0 / 12 / static_cast<double>(n)));
}

TEST(GpuRandom, ShufflingMethodsKeepTheirElements) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  auto g = nd::random::default_rng(fresh_seed());
  const nd::ndarray<std::int64_t> p = g.permutation(100000, s);
  std::vector<std::int64_t> ph = p.to_host();
  std::vector<std::int64_t> sorted = ph;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    ASSERT_EQ(sorted[i], static_cast<std::int64_t>(i));
  }
  EXPECT_FALSE(std::is_sorted(ph.begin(), ph.end()));
  // permutation(x, axis) moves whole slices; shuffle does it in place; permuted mixes each row.
  std::vector<float> xs(50 * 7);
  std::iota(xs.begin(), xs.end(), 0.0f);
  const auto x = nd::asarray(xs, {50, 7}, s);
  const nd::ndarray<float> rows = g.permutation(x, 0, s);
  const std::vector<float> rh = rows.to_host();
  std::set<int> seen;
  for (int r = 0; r < 50; ++r) {
    const float first = rh[static_cast<std::size_t>(r * 7)];
    ASSERT_EQ(static_cast<int>(first) % 7, 0);
    for (int c = 0; c < 7; ++c) {
      ASSERT_EQ(rh[static_cast<std::size_t>(r * 7 + c)], first + static_cast<float>(c));
    }
    seen.insert(static_cast<int>(first));
  }
  EXPECT_EQ(seen.size(), 50u);
  const nd::ndarray<float> cols = g.permutation(x, 1, s);
  const std::vector<float> ch = cols.to_host();
  for (int r = 0; r < 50; ++r) {
    std::vector<float> got(ch.begin() + r * 7, ch.begin() + r * 7 + 7);
    std::sort(got.begin(), got.end());
    for (int c = 0; c < 7; ++c) {
      ASSERT_EQ(got[static_cast<std::size_t>(c)], static_cast<float>(r * 7 + c));
    }
  }
  nd::ndarray<float> y = x.copy();
  g.shuffle(y, 0, s);
  std::vector<float> yh = y.to_host();
  std::sort(yh.begin(), yh.end());
  EXPECT_EQ(yh, xs);
  const nd::ndarray<float> mixed = g.permuted(x, 1, s);
  const std::vector<float> mh = mixed.to_host();
  for (int r = 0; r < 50; ++r) {
    std::vector<float> got(mh.begin() + r * 7, mh.begin() + r * 7 + 7);
    std::sort(got.begin(), got.end());
    for (int c = 0; c < 7; ++c) {
      ASSERT_EQ(got[static_cast<std::size_t>(c)], static_cast<float>(r * 7 + c));
    }
  }
  const nd::ndarray<float> all = g.permuted(x, std::nullopt, s);
  std::vector<float> ah = all.to_host();
  EXPECT_EQ(all.shape(), x.shape());
  std::sort(ah.begin(), ah.end());
  EXPECT_EQ(ah, xs);
}

// NumPy's integers(0, 256, dtype=uint8): the exclusive high one past the dtype's range is accepted
// and every value in [0, 255] appears (also int8's [-128, 128)).
TEST(GpuRandom, IntegersTakeTheExclusiveHighOnePastTheDtype) {
  NDCUDA_REQUIRE_GPU();
  auto g = nd::random::default_rng(fresh_seed());
  const std::vector<std::uint8_t> u = nd::ndarray<std::uint8_t>(g.integers<std::uint8_t>(0, 256, {1 << 16})).to_host();
  const std::set<std::uint8_t> seen_u(u.begin(), u.end());
  EXPECT_EQ(seen_u.size(), 256U);
  const std::vector<std::int8_t> i = nd::ndarray<std::int8_t>(g.integers<std::int8_t>(-128, 128, {1 << 16})).to_host();
  const std::set<std::int8_t> seen_i(i.begin(), i.end());
  EXPECT_EQ(seen_i.size(), 256U);
}

TEST(GpuRandom, ChoiceWithAndWithoutReplacementAndWeights) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  auto g = nd::random::default_rng(fresh_seed());
  const nd::ndarray<std::int64_t> picks = g.choice(10, {4, 1000}, true, std::nullopt, s);
  EXPECT_EQ(picks.shape(), (nd::shape_t{4, 1000}));
  for (std::int64_t v : picks.to_host()) {
    ASSERT_TRUE(v >= 0 && v < 10);
  }
  const nd::ndarray<std::int64_t> unique = g.choice(1000, {1000}, false, std::nullopt, s);
  const std::vector<std::int64_t> uh = unique.to_host();
  EXPECT_EQ(std::set<std::int64_t>(uh.begin(), uh.end()).size(), 1000u);
  // Weighted with replacement: frequencies follow p (chi-square, 3 degrees of freedom).
  const std::vector<double> w{0.1, 0.2, 0.3, 0.4};
  const auto p = nd::asarray(w, {4}, s);
  constexpr int n = 1 << 20;
  const nd::ndarray<std::int64_t> wp = g.choice(4, {n}, true, p, s);
  std::vector<double> counts(4, 0.0);
  for (std::int64_t v : wp.to_host()) {
    ASSERT_TRUE(v >= 0 && v < 4);
    counts[static_cast<std::size_t>(v)] += 1;
  }
  double chi2 = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    chi2 += (counts[i] - n * w[i]) * (counts[i] - n * w[i]) / (n * w[i]);
  }
  EXPECT_LT(chi2, 35.0);  // P(chi2_3 > 35) < 2e-7
  // Weighted without replacement: distinct, and zero weights never chosen.
  const std::vector<double> w0{0.0, 0.5, 0.0, 0.25, 0.25};
  const nd::ndarray<std::int64_t> wn = g.choice(5, {3}, false, nd::asarray(w0, {5}, s), s);
  const std::vector<std::int64_t> wnh = wn.to_host();
  EXPECT_EQ(std::set<std::int64_t>(wnh.begin(), wnh.end()), (std::set<std::int64_t>{1, 3, 4}));
  EXPECT_THROW((void)g.choice(5, {4}, false, nd::asarray(w0, {5}, s), s), nd::error);
  EXPECT_THROW((void)g.choice(5, {6}, false, std::nullopt, s), nd::error);
  // NumPy's p checks, with and without replacement: negative or NaN entries, and a sum that is not 1.
  for (const bool replace : {true, false}) {
    const std::vector<double> negative{1.5, -0.5, 0.0, 0.0, 0.0};  // sums to 1
    const std::vector<double> nan{std::nan(""), 0.5, 0.5, 0.0, 0.0};
    const std::vector<double> short_sum{0.2, 0.2, 0.2, 0.2, 0.1};
    EXPECT_THROW((void)g.choice(5, {2}, replace, nd::asarray(negative, {5}, s), s), nd::error) << replace;
    EXPECT_THROW((void)g.choice(5, {2}, replace, nd::asarray(nan, {5}, s), s), nd::error) << replace;
    EXPECT_THROW((void)g.choice(5, {2}, replace, nd::asarray(short_sum, {5}, s), s), nd::error) << replace;
  }
  // Rows of a 2-d array.
  std::vector<float> xs(6 * 3);
  std::iota(xs.begin(), xs.end(), 0.0f);
  const nd::ndarray<float> rows = g.choice(nd::asarray(xs, {6, 3}, s), {2, 5}, true, std::nullopt, s);
  EXPECT_EQ(rows.shape(), (nd::shape_t{2, 5, 3}));
  const std::vector<float> rh = rows.to_host();
  for (std::size_t r = 0; r < 10; ++r) {
    ASSERT_EQ(static_cast<int>(rh[r * 3]) % 3, 0);
    ASSERT_EQ(rh[r * 3 + 2], rh[r * 3] + 2.0f);
  }
}

// Draws of 2^24 elements (and 2^24 + 3, whose last three follow the vectors one per thread), large
// enough for any launch geometry to loop its threads: the vectors and the tail must equal the host
// reference, whichever iteration writes them.
TEST(GpuRandom, DrawsLargeEnoughForSeveralIterationsPerThreadEqualTheHostReference) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  auto g = nd::random::default_rng(fresh_seed());
  const std::uint64_t n = std::uint64_t{1} << 24;
  const auto k = g.key();
  std::uint64_t o = 0;
  const nd::ndarray<float> u = g.random<float>({n}, s);
  expect_sampled_bits(
      u,
      [&](std::size_t i) {
        return host::random_f32({k, o}, i);
      },
      1009, 4096, "random float32, 2^24");
  o += host::blocks_for("random", false, n);
  const nd::ndarray<float> z = g.standard_normal<float>({n + 3}, s);
  expect_sampled_bits(
      z,
      [&](std::size_t i) {
        return host::normal_f32({k, o}, i);
      },
      1009, 4096, "standard_normal float32, 2^24 + 3");
}
