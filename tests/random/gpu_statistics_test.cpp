// Statistical quality on the GPU, 2^24 draws per distribution: Kolmogorov-Smirnov against each
// continuous distribution's CDF, chi-square for the discrete ones, and moments computed by fused
// reductions. Seeds are fixed, so the verdicts are deterministic; the thresholds are those of a
// test at significance 1e-6, so a correct sampler fails none of them for any seed but once in a
// million, and the fixed seeds were not chosen to pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/random.hpp>
#include <vector>

#include "support/gpu.hpp"

namespace nd = ndcuda;

namespace {

constexpr nd::index_t n = nd::index_t{1} << 24;
constexpr double alpha = 1e-6;

// Regularised lower incomplete gamma P(a, x) (series below a + 1, Lentz's continued fraction above).
double gamma_p(double a, double x) {
  if (x <= 0) {
    return 0.0;
  }
  const double lg = std::lgamma(a);
  if (x < a + 1) {
    double sum = 1.0 / a;
    double term = sum;
    for (int k = 1; k < 1000; ++k) {
      term *= x / (a + k);
      sum += term;
      if (std::abs(term) < std::abs(sum) * 1e-16) {
        break;
      }
    }
    return sum * std::exp(-x + a * std::log(x) - lg);
  }
  double b = x + 1 - a;
  double c = 1e300;
  double d = 1 / b;
  double h = d;
  for (int i = 1; i < 1000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    d = std::abs(d) < 1e-300 ? 1e-300 : d;
    c = b + an / c;
    c = std::abs(c) < 1e-300 ? 1e-300 : c;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::abs(del - 1) < 1e-16) {
      break;
    }
  }
  return 1.0 - std::exp(-x + a * std::log(x) - lg) * h;
}

// Regularised incomplete beta I_x(a, b) by its continued fraction (Numerical Recipes' betacf).
double beta_cf(double a, double b, double x) {
  double c = 1;
  double d = 1 - (a + b) * x / (a + 1);
  d = std::abs(d) < 1e-300 ? 1e-300 : d;
  d = 1 / d;
  double h = d;
  for (int m = 1; m < 10000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
    d = 1 + aa * d;
    d = std::abs(d) < 1e-300 ? 1e-300 : d;
    c = 1 + aa / c;
    c = std::abs(c) < 1e-300 ? 1e-300 : c;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
    d = 1 + aa * d;
    d = std::abs(d) < 1e-300 ? 1e-300 : d;
    c = 1 + aa / c;
    c = std::abs(c) < 1e-300 ? 1e-300 : c;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::abs(del - 1) < 1e-15) {
      break;
    }
  }
  return h;
}
double beta_i(double a, double b, double x) {
  if (x <= 0) {
    return 0;
  }
  if (x >= 1) {
    return 1;
  }
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  return x < (a + 1) / (a + b + 2) ? front * beta_cf(a, b, x) / a : 1 - front * beta_cf(b, a, 1 - x) / b;
}

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

// The KS statistic of `draws` against `cdf`, sorted on the GPU.
template <class T>
double ks_statistic(const nd::ndarray<T>& draws, const std::function<double(double)>& cdf) {
  const std::vector<T> sorted = nd::sort(draws, 0).to_host();
  const auto count = static_cast<double>(sorted.size());
  double d = 0;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const double f = cdf(static_cast<double>(sorted[i]));
    d = std::max({d, f - static_cast<double>(i) / count, static_cast<double>(i + 1) / count - f});
  }
  return d;
}

// The asymptotic KS critical value at `alpha`: P(D > c) ~ 2 exp(-2 n c^2).
double ks_critical() {
  return std::sqrt(std::log(2.0 / alpha) / (2.0 * static_cast<double>(n)));
}

// The chi-square critical value for `df` degrees of freedom at `alpha` (Wilson-Hilferty; z of 1e-6).
double chi2_critical(double df) {
  const double z = 4.7534;
  const double t = 1 - 2 / (9 * df) + z * std::sqrt(2 / (9 * df));
  return df * t * t * t;
}

// Chi-square of integer draws against `pmf` on the support [lo, hi] (values above hi, if any,
// fall in the last bin): neighbouring values are merged into bins of at least 20 expected draws,
// the last bin taking the rest of the probability. `df` receives the degrees of freedom.
double chi2_statistic(const std::vector<std::int64_t>& draws, std::int64_t lo, std::int64_t hi,
                      const std::function<double(std::int64_t)>& pmf, int* df) {
  const auto total = static_cast<double>(draws.size());
  std::vector<std::size_t> bin_of(static_cast<std::size_t>(hi - lo + 1));
  std::vector<double> expected{0.0};
  for (std::int64_t k = lo; k <= hi; ++k) {
    if (expected.back() >= 20.0) {
      expected.push_back(0.0);
    }
    expected.back() += pmf(k) * total;
    bin_of[static_cast<std::size_t>(k - lo)] = expected.size() - 1;
  }
  if (expected.size() > 1 && expected.back() < 20.0) {  // a small last bin joins the previous one
    expected[expected.size() - 2] += expected.back();
    expected.pop_back();
    for (auto& b : bin_of) {
      b = std::min(b, expected.size() - 1);
    }
  }
  double inner = 0;
  for (std::size_t i = 0; i + 1 < expected.size(); ++i) {
    inner += expected[i];
  }
  expected.back() = total - inner;
  std::vector<double> observed(expected.size(), 0.0);
  for (std::int64_t v : draws) {
    observed[bin_of[static_cast<std::size_t>(std::clamp(v, lo, hi) - lo)]] += 1;
  }
  double chi2 = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    chi2 += (observed[i] - expected[i]) * (observed[i] - expected[i]) / expected[i];
  }
  *df = static_cast<int>(expected.size()) - 1;
  return chi2;
}

struct moments {
  double mean;
  double var;
  double kurtosis;  // mu4 / sigma^4: sets the variance estimate's spread
};

// Mean and variance by fused reductions (no buffer) within 6 standard errors.
template <class X>
void expect_moments(const X& draw, moments m, const char* what) {
  const double mean = nd::mean<double>(draw).item();
  EXPECT_NEAR(mean, m.mean, 6 * std::sqrt(m.var / static_cast<double>(n))) << what;
  if (m.kurtosis > 0) {
    const double var = nd::var<double>(draw).item();
    EXPECT_NEAR(var, m.var, 6 * m.var * std::sqrt((m.kurtosis - 1) / static_cast<double>(n))) << what;
  }
}

}  // namespace

TEST(GpuRandomStatistics, ContinuousDistributionsPassKolmogorovSmirnov) {
  NDCUDA_REQUIRE_GPU();
  auto g = nd::random::default_rng(20261124);
  const double crit = ks_critical();
  const auto check = [&](const auto& draws, const std::function<double(double)>& cdf, const char* what) {
    const double d = ks_statistic(draws, cdf);
    EXPECT_LT(d, crit) << what << ": D = " << d << " over " << n << " draws";
  };
  check(
      nd::ndarray<float>(g.random<float>({n})), [](double x) { return x; }, "random float32");
  check(
      nd::ndarray<double>(g.random<double>({n})), [](double x) { return x; }, "random float64");
  check(
      nd::ndarray<float>(g.uniform<float>(-2.0, 5.0, nd::shape_t{n})), [](double x) { return (x + 2) / 7; },
      "uniform float32");
  check(nd::ndarray<float>(g.standard_normal<float>({n})), normal_cdf, "normal float32");
  check(
      nd::ndarray<double>(g.normal<double>(1.5, 0.25, nd::shape_t{n})),
      [](double x) { return normal_cdf((x - 1.5) / 0.25); }, "normal float64");
  check(
      nd::ndarray<float>(g.standard_exponential<float>({n})), [](double x) { return -std::expm1(-x); },
      "exponential float32");
  check(
      nd::ndarray<double>(g.exponential<double>(3.0, nd::shape_t{n})), [](double x) { return -std::expm1(-x / 3); },
      "exponential float64");
  check(
      nd::ndarray<double>(g.lognormal<double>(0.3, 0.7, nd::shape_t{n})),
      [](double x) { return x <= 0 ? 0.0 : normal_cdf((std::log(x) - 0.3) / 0.7); }, "lognormal float64");
  for (double k : {0.3, 1.0, 4.5}) {
    check(
        nd::ndarray<double>(g.standard_gamma<double>(k, nd::shape_t{n})), [k](double x) { return gamma_p(k, x); },
        "standard_gamma float64");
  }
  check(
      nd::ndarray<float>(g.gamma<float>(2.5, 2.0, nd::shape_t{n})), [](double x) { return gamma_p(2.5, x / 2); },
      "gamma float32");
  for (auto [a, b] : {std::pair{0.5, 0.5}, std::pair{2.0, 5.0}, std::pair{0.3, 3.0}}) {
    check(
        nd::ndarray<double>(g.beta<double>(a, b, nd::shape_t{n})), [a, b](double x) { return beta_i(a, b, x); },
        "beta float64");
  }
}

TEST(GpuRandomStatistics, DiscreteDistributionsPassChiSquare) {
  NDCUDA_REQUIRE_GPU();
  auto g = nd::random::default_rng(424242);
  int df = 0;
  const auto as_int64 = [](const auto& a) {  // the uint64 and float draws convert unsafely, on purpose
    const nd::ndarray<std::int64_t> b = a.template astype<std::int64_t>();
    return b.to_host();
  };
  {
    const auto draws = as_int64(g.integers<std::int32_t>(-3, 997, nd::shape_t{n}));
    const double chi2 = chi2_statistic(
        draws, -3, 996, [](std::int64_t) { return 1.0 / 1000; }, &df);
    EXPECT_LT(chi2, chi2_critical(df)) << "integers int32";
  }
  {
    const auto draws = as_int64(g.integers<std::uint64_t>(std::uint64_t{0}, std::uint64_t{37}, nd::shape_t{n}));
    const double chi2 = chi2_statistic(
        draws, 0, 36, [](std::int64_t) { return 1.0 / 37; }, &df);
    EXPECT_LT(chi2, chi2_critical(df)) << "integers uint64";
  }
  {  // float16 / bfloat16 uniforms: each representable value k / 2^11 (k / 2^8) equally likely.
    nd::ndarray<__half> h = g.random<__half>({n});
    const auto draws = as_int64(h.astype<float>() * 2048.0f);
    const double chi2 = chi2_statistic(
        draws, 0, 2047, [](std::int64_t) { return 1.0 / 2048; }, &df);
    EXPECT_LT(chi2, chi2_critical(df)) << "random float16";
    nd::ndarray<__nv_bfloat16> b = g.random<__nv_bfloat16>({n});
    const auto bdraws = as_int64(b.astype<float>() * 256.0f);
    const double bchi2 = chi2_statistic(
        bdraws, 0, 255, [](std::int64_t) { return 1.0 / 256; }, &df);
    EXPECT_LT(bchi2, chi2_critical(df)) << "random bfloat16";
  }
  for (double lam : {3.5, 9.99, 10.0, 250.0}) {
    const auto draws = as_int64(g.poisson(lam, nd::shape_t{n}));
    const auto pmf = [lam](std::int64_t k) {
      return k < 0 ? 0.0
                   : std::exp(static_cast<double>(k) * std::log(lam) - lam - std::lgamma(static_cast<double>(k) + 1));
    };
    const auto hi = static_cast<std::int64_t>(lam + 20 * std::sqrt(lam) + 50);
    const double chi2 = chi2_statistic(draws, 0, hi, pmf, &df);
    EXPECT_LT(chi2, chi2_critical(df)) << "poisson " << lam;
  }
  for (auto [trials, p] : {std::pair<std::int64_t, double>{20, 0.3}, {1000, 0.7}, {100000, 0.01}, {50, 0.97}}) {
    const auto draws = as_int64(g.binomial(trials, p, nd::shape_t{n}));
    const auto pmf = [trials = trials, p = p](std::int64_t k) {
      if (k < 0 || k > trials) {
        return 0.0;
      }
      const auto t = static_cast<double>(trials);
      const auto x = static_cast<double>(k);
      return std::exp(std::lgamma(t + 1) - std::lgamma(x + 1) - std::lgamma(t - x + 1) + x * std::log(p) +
                      (t - x) * std::log1p(-p));
    };
    const double chi2 = chi2_statistic(draws, 0, trials, pmf, &df);
    EXPECT_LT(chi2, chi2_critical(df)) << "binomial " << trials << ", " << p;
  }
}

TEST(GpuRandomStatistics, MomentsOfFusedDraws) {
  NDCUDA_REQUIRE_GPU();
  auto g = nd::random::default_rng(7);
  expect_moments(g.random<float>({n}), {0.5, 1.0 / 12, 1.8}, "random float32");
  expect_moments(g.random<double>({n}), {0.5, 1.0 / 12, 1.8}, "random float64");
  expect_moments(g.random<__nv_bfloat16>({n}), {0.5 - 1.0 / 512, (1.0 - 1.0 / 65536) / 12, 1.8}, "random bfloat16");
  expect_moments(g.standard_normal<float>({n}), {0.0, 1.0, 3.0}, "normal float32");
  expect_moments(g.normal<__half>({n}), {0.0, 1.0, 3.0}, "normal float16");
  expect_moments(g.standard_normal<double>({n}), {0.0, 1.0, 3.0}, "normal float64");
  expect_moments(g.exponential<float>(2.0, nd::shape_t{n}), {2.0, 4.0, 9.0}, "exponential float32");
  expect_moments(g.standard_gamma<float>(0.2, nd::shape_t{n}), {0.2, 0.2, 3 + 6 / 0.2}, "gamma(0.2) float32");
  expect_moments(g.standard_gamma<double>(30.0, nd::shape_t{n}), {30.0, 30.0, 3.2}, "gamma(30) float64");
  expect_moments(g.beta<double>(2.0, 3.0, nd::shape_t{n}), {0.4, 0.04, 0}, "beta(2, 3)");
  expect_moments(g.poisson(0.5, nd::shape_t{n}), {0.5, 0.5, 3 + 1 / 0.5}, "poisson(0.5)");
  expect_moments(g.poisson(1e6, nd::shape_t{n}), {1e6, 1e6, 3.0}, "poisson(1e6)");
  expect_moments(g.binomial(1000000, 0.5, nd::shape_t{n}), {5e5, 2.5e5, 3.0}, "binomial(1e6, 0.5)");
  expect_moments(g.integers<std::int64_t>(0, 1000, nd::shape_t{n}), {499.5, (1e6 - 1) / 12, 1.8}, "integers");
  expect_moments(g.lognormal<double>(0.0, 0.5, nd::shape_t{n}),
                 {std::exp(0.125), (std::exp(0.25) - 1) * std::exp(0.25), 0}, "lognormal");
}
