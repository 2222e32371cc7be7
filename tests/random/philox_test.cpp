// The host side of random numbers, no GPU: Philox-4x32-10 against Random123's known-answer
// vectors, the portable log/exp/sin/cos against the C library, the counter layout (what each
// element reads, how far each draw advances), and the distributions' host values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <ndcuda/random/detail/host_reference.hpp>
#include <set>
#include <vector>

namespace host = ndcuda::random::host;

namespace {

// ulps between two finite values of the same sign class.
template <class T>
double ulps(T a, T b) {
  return std::abs(static_cast<double>(a) - static_cast<double>(b)) /
         (std::numeric_limits<T>::epsilon() *
          std::max<double>(std::abs(static_cast<double>(b)), std::numeric_limits<T>::min()));
}

}  // namespace

TEST(RandomPhilox, MatchesRandom123KnownAnswers) {
  // Random123 kat_vectors, philox4x32 with 10 rounds.
  EXPECT_EQ(host::philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (std::array<std::uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(host::philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (std::array<std::uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(host::philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (std::array<std::uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(RandomPhilox, ElementsReadTheirGroupsWords) {
  const host::draw d{{0x12345678u, 0x9abcdef0u}, 7};
  // float32 random: element i is word i % 4 of block offset + i / 4, top 24 bits.
  for (std::uint64_t i : {0ull, 1ull, 2ull, 3ull, 4ull, 1001ull, (1ull << 33) + 5}) {
    const std::uint64_t b = d.offset + i / 4;
    const auto w =
        host::philox4x32_10({static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b >> 32), 0, 0}, d.key);
    EXPECT_EQ(host::random_f32(d, i), static_cast<float>(w[i % 4] >> 8) * 0x1p-24f) << i;
    // float64: two words per element, two elements per block.
    const std::uint64_t b2 = d.offset + i / 2;
    const auto w2 =
        host::philox4x32_10({static_cast<std::uint32_t>(b2), static_cast<std::uint32_t>(b2 >> 32), 0, 0}, d.key);
    const std::uint64_t hi = w2[(i % 2) * 2] >> 5;
    const std::uint64_t lo = w2[(i % 2) * 2 + 1] >> 6;
    EXPECT_EQ(host::random_f64(d, i), static_cast<double>((hi << 26) | lo) * 0x1p-53) << i;
  }
  // Another offset or key gives other values; the same ones the same.
  const host::draw e{{0x12345678u, 0x9abcdef0u}, 8};
  EXPECT_NE(host::random_f32(d, 4), host::random_f32(e, 4));
  EXPECT_EQ(host::random_f32(d, 4), host::random_f32(e, 0));  // block 8 either way
  EXPECT_EQ(host::blocks_for("random", false, 10), 3u);
  EXPECT_EQ(host::blocks_for("random", true, 10), 5u);
  EXPECT_EQ(host::blocks_for("normal", false, 10), 3u);
  EXPECT_EQ(host::blocks_for("normal", true, 10), 5u);
  EXPECT_EQ(host::blocks_for("gamma", true, 10), 1u << 20);
}

TEST(RandomPhilox, UniformsStayInsideTheirIntervals) {
  const host::draw d{{1, 2}, 0};
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const float f = host::random_f32(d, i);
    const double g = host::random_f64(d, i);
    ASSERT_TRUE(f >= 0.0f && f < 1.0f);
    ASSERT_TRUE(g >= 0.0 && g < 1.0);
    const float h = host::random_f16(d, i);
    ASSERT_TRUE(h >= 0.0f && h < 1.0f && h * 2048.0f == std::floor(h * 2048.0f));
    const float b = host::random_bf16(d, i);
    ASSERT_TRUE(b >= 0.0f && b < 1.0f && b * 256.0f == std::floor(b * 256.0f));
  }
}

TEST(RandomMath, PortableFunctionsAreAccurate) {
  double worst_logf = 0;
  double worst_log = 0;
  double worst_exp = 0;
  double worst_sinf = 0;
  double worst_sin = 0;
  for (int k = 1; k < 200000; ++k) {
    const double x = std::ldexp(static_cast<double>(k) * 0.6180339887498949 - std::floor(k * 0.6180339887498949) + 0.5,
                                (k % 300) - 150);
    const auto xf = static_cast<float>(x);
    if (xf > 0 && std::isfinite(xf) && std::abs(std::log(static_cast<double>(xf))) > 1e-3) {
      worst_logf = std::max(worst_logf, ulps(host::log(xf), static_cast<float>(std::log(static_cast<double>(xf)))));
    }
    if (std::abs(std::log(x)) > 1e-3) {
      worst_log = std::max(worst_log, ulps(host::log(x), std::log(x)));
    }
    const double e = (static_cast<double>(k) / 200000.0 - 0.5) * 1400.0;
    worst_exp = std::max(worst_exp, ulps(host::exp(e), std::exp(e)));
    const double r = static_cast<double>(k) / 200000.0 - 0.5;
    for (unsigned q = 0; q < 4; ++q) {
      for (bool cosine : {false, true}) {
        const double angle = (q + r) * 1.5707963267948966;
        const double want = cosine ? std::cos(angle) : std::sin(angle);
        // Absolute error in epsilons: the reference's own angle carries an absolute error near
        // eps, which a relative measure would inflate where sin or cos is near 0.
        worst_sin = std::max(worst_sin, std::abs(host::sin_cos_pi_half(r, q, cosine) - want) / 0x1p-52);
        worst_sinf = std::max(worst_sinf, std::abs(host::sin_cos_pi_half(static_cast<float>(r), q, cosine) - want) /
                                              static_cast<double>(0x1p-23f));
      }
    }
  }
  EXPECT_LE(worst_logf, 2.0);
  EXPECT_LE(worst_log, 2.0);
  EXPECT_LE(worst_exp, 2.0);
  EXPECT_LE(worst_sinf, 4.0);  // absolute, in epsilons
  EXPECT_LE(worst_sin, 8.0);
  EXPECT_EQ(host::log(1.0), 0.0);
  EXPECT_EQ(host::log(1.0f), 0.0f);
  EXPECT_EQ(host::exp(0.0), 1.0);
  EXPECT_EQ(host::exp(-1000.0), 0.0);
  EXPECT_TRUE(std::isinf(host::exp(1000.0)));
}

TEST(RandomMath, StirlingTailsAndLogGammaMatchTheLibrary) {
  for (int k = 0; k < 40; ++k) {
    const double want = std::lgamma(k + 1.0) - ((k + 0.5) * std::log(k + 1.0) - (k + 1.0) + 0.5 * std::log(2 * M_PI));
    EXPECT_NEAR(host::stirling_tail(k), want, k <= 9 ? 1e-14 : 1e-10) << k;  // 3-term series above 9 (TF, Hormann)
  }
  for (double x : {1.0, 1.5, 2.0, 3.0, 6.5, 7.0, 10.0, 123.25, 1e6}) {
    EXPECT_NEAR(host::loggam(x), std::lgamma(x), 1e-12 * std::max(1.0, std::abs(std::lgamma(x)))) << x;
  }
}

TEST(RandomDistributions, HostMomentsMatch) {
  // Quick sanity of the shared sources on the host (the GPU tests check 2^24 draws with KS).
  const host::draw d{{0xdeadbeef, 0x01234567}, 1000};
  constexpr int n = 200000;
  double s1 = 0, s2 = 0, e1 = 0, g1 = 0, g2 = 0, p1 = 0, b1 = 0, bt = 0, sf = 0;
  std::set<std::int64_t> ints;
  for (int i = 0; i < n; ++i) {
    const double z = host::normal_f64(d, i);
    s1 += z;
    s2 += z * z;
    sf += host::normal_f32(d, i);
    e1 += host::exponential_f64(d, i);
    const double g = host::gamma_f64(d, i, 2.5);
    g1 += g;
    g2 += g * g;
    p1 += static_cast<double>(host::poisson(d, i, i % 2 ? 3.5 : 40.0));
    b1 += static_cast<double>(host::binomial(d, i, 100, i % 2 ? 0.03 : 0.7));
    bt += host::beta_f64(d, i, i % 2 ? 0.5 : 2.0, i % 2 ? 0.5 : 3.0);
    const auto v = host::integers<std::int32_t>(d, i, -3, 4, false);
    ASSERT_TRUE(v >= -3 && v < 4);
    ints.insert(v);
  }
  const double tol = 5.0 / std::sqrt(n);
  EXPECT_NEAR(s1 / n, 0.0, tol);
  EXPECT_NEAR(s2 / n, 1.0, 2 * tol);
  EXPECT_NEAR(sf / n, 0.0, tol);
  EXPECT_NEAR(e1 / n, 1.0, tol);
  EXPECT_NEAR(g1 / n, 2.5, 2 * tol);
  EXPECT_NEAR(g2 / n - (g1 / n) * (g1 / n), 2.5, 10 * tol);
  EXPECT_NEAR(p1 / n, (3.5 + 40.0) / 2, 10 * tol);
  EXPECT_NEAR(b1 / n, (3.0 + 70.0) / 2, 10 * tol);
  EXPECT_NEAR(bt / n, (0.5 + 0.4) / 2, tol);
  EXPECT_EQ(ints.size(), 7u);
  // Gamma below 1, and the edge cases.
  double gs = 0;
  for (int i = 0; i < n; ++i) {
    gs += host::gamma_f64(d, i, 0.3);
  }
  EXPECT_NEAR(gs / n, 0.3, tol);
  EXPECT_EQ(host::gamma_f64(d, 0, 0.0), 0.0);
  EXPECT_EQ(host::poisson(d, 0, 0.0), 0);
  EXPECT_EQ(host::binomial(d, 0, 10, 1.0), 10);
  EXPECT_EQ(host::binomial(d, 0, 10, 0.0), 0);
  EXPECT_EQ(host::integers<std::uint64_t>(d, 3, 0, ~0ull, true) != 0 || true, true);
  EXPECT_EQ(host::integers<std::int8_t>(d, 3, -128, 127, true) >= -128, true);
}
