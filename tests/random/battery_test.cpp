// A statistical battery over the host reference's 32-bit word streams, run in CI without a GPU.
// TestU01 (Debian's libtestu01-0-dev) is not packaged for this distribution (apt has no candidate),
// so this file implements SmallCrush's kinds of tests itself: frequency, serial pairs, gap, poker,
// coupon collector, max-of-t, birthday spacings, collisions, 32x32 binary matrix rank and Hamming
// weights, each reduced to a p-value that must lie in [1e-7, 1 - 1e-7]. The streams are those a
// draw reads: the shared blocks in element order, and the per-element streams across elements.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <ndcuda/random.hpp>
#include <ndcuda/random/detail/host_reference.hpp>
#include <string>
#include <unordered_set>
#include <vector>

namespace host = ndcuda::random::host;

namespace {

// P(X >= x) for X ~ chi-square(df): the regularised upper incomplete gamma Q(df/2, x/2).
double chi2_upper(double df, double x) {
  const double a = df / 2;
  const double z = x / 2;
  if (z <= 0) {
    return 1.0;
  }
  const double lg = std::lgamma(a);
  if (z < a + 1) {
    double sum = 1.0 / a;
    double term = sum;
    for (int k = 1; k < 100000; ++k) {
      term *= z / (a + k);
      sum += term;
      if (term < sum * 1e-17) {
        break;
      }
    }
    return 1.0 - sum * std::exp(-z + a * std::log(z) - lg);
  }
  double b = z + 1 - a;
  double c = 1e300;
  double d = 1 / b;
  double h = d;
  for (int i = 1; i < 100000; ++i) {
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
  return std::exp(-z + a * std::log(z) - lg) * h;
}

// Chi-square p-value of observed counts against expected ones, merging expectations below 10.
double chi2_p(const std::vector<double>& observed, const std::vector<double>& expected) {
  std::vector<double> o{0.0};
  std::vector<double> e{0.0};
  for (std::size_t i = 0; i < observed.size(); ++i) {
    o.back() += observed[i];
    e.back() += expected[i];
    if (e.back() >= 10 && i + 1 < observed.size()) {
      o.push_back(0.0);
      e.push_back(0.0);
    }
  }
  if (e.size() > 1 && e.back() < 10) {
    o[o.size() - 2] += o.back();
    e[e.size() - 2] += e.back();
    o.pop_back();
    e.pop_back();
  }
  double chi2 = 0;
  for (std::size_t i = 0; i < o.size(); ++i) {
    chi2 += (o[i] - e[i]) * (o[i] - e[i]) / e[i];
  }
  return chi2_upper(static_cast<double>(o.size() - 1), chi2);
}

double normal_two_sided_p(double z) {
  return std::erfc(std::abs(z) / std::sqrt(2.0));
}

// A stream of 32-bit words.
class words {
 public:
  virtual ~words() = default;
  virtual std::uint32_t next() = 0;
  double uniform() { return (next() + 0.5) * 0x1p-32; }
};

// The shared blocks of a draw in element order: what float32 random() reads, element by element.
class shared_words : public words {
 public:
  shared_words(std::array<std::uint32_t, 2> key, std::uint64_t offset) : key_(key), block_(offset) {}
  std::uint32_t next() override {
    if (left_ == 0) {
      buf_ = host::philox4x32_10({static_cast<std::uint32_t>(block_), static_cast<std::uint32_t>(block_ >> 32), 0, 0},
                                 key_);
      ++block_;
      left_ = 4;
    }
    return buf_[4 - left_--];
  }

 private:
  std::array<std::uint32_t, 2> key_;
  std::uint64_t block_;
  std::array<std::uint32_t, 4> buf_{};
  int left_ = 0;
};

// The first word of each element's own stream, element after element: neighbouring substreams.
class across_elements : public words {
 public:
  across_elements(std::array<std::uint32_t, 2> key, std::uint64_t offset) : key_(key), offset_(offset) {}
  std::uint32_t next() override {
    const std::uint64_t id = ++element_;
    return host::philox4x32_10({static_cast<std::uint32_t>(offset_), static_cast<std::uint32_t>(offset_ >> 32),
                                static_cast<std::uint32_t>(id), static_cast<std::uint32_t>(id >> 32)},
                               key_)[0];
  }

 private:
  std::array<std::uint32_t, 2> key_;
  std::uint64_t offset_;
  std::uint64_t element_ = 0;
};

// --- the tests, each returning a p-value -----------------------------------------------------

double frequency_of_bytes(words& w) {
  constexpr int n = 1 << 22;
  std::vector<double> counts(4 * 256, 0.0);
  for (int i = 0; i < n; ++i) {
    const std::uint32_t x = w.next();
    for (int b = 0; b < 4; ++b) {
      counts[static_cast<std::size_t>(b * 256 + ((x >> (8 * b)) & 255u))] += 1;
    }
  }
  return chi2_p(counts, std::vector<double>(counts.size(), n / 256.0));
}

double serial_pairs(words& w) {
  constexpr int n = 1 << 22;
  std::vector<double> counts(1 << 16, 0.0);
  std::uint32_t prev = w.next() >> 24;
  for (int i = 0; i < n; ++i) {
    const std::uint32_t x = w.next() >> 24;
    counts[(prev << 8) | x] += 1;
    prev = x;
  }
  return chi2_p(counts, std::vector<double>(counts.size(), n / 65536.0));
}

double gap(words& w) {
  // Gaps between values in [0, 1/8): geometric with p = 1/8.
  constexpr int gaps = 1 << 20;
  constexpr int top = 80;
  std::vector<double> counts(top + 1, 0.0);
  for (int g = 0; g < gaps; ++g) {
    int length = 0;
    while (w.uniform() >= 0.125) {
      ++length;
    }
    counts[static_cast<std::size_t>(std::min(length, top))] += 1;
  }
  std::vector<double> expected(top + 1);
  for (int k = 0; k < top; ++k) {
    expected[static_cast<std::size_t>(k)] = gaps * 0.125 * std::pow(0.875, k);
  }
  expected[top] = gaps * std::pow(0.875, top);
  return chi2_p(counts, expected);
}

double poker(words& w) {
  // Hands of 5 values in 0..7: the number of distinct values.
  constexpr int hands = 1 << 20;
  std::vector<double> counts(6, 0.0);
  for (int h = 0; h < hands; ++h) {
    unsigned seen = 0;
    for (int c = 0; c < 5; ++c) {
      seen |= 1u << (w.next() >> 29);
    }
    counts[static_cast<std::size_t>(std::popcount(seen))] += 1;
  }
  const double stirling[6] = {0, 1, 15, 25, 10, 1};
  std::vector<double> expected(6, 0.0);
  for (int d = 1; d <= 5; ++d) {
    double falling = 1;
    for (int j = 0; j < d; ++j) {
      falling *= 8 - j;
    }
    expected[static_cast<std::size_t>(d)] = hands * stirling[d] * falling / 32768.0;
  }
  return chi2_p(counts, expected);
}

double coupon_collector(words& w) {
  // Draws of values in 0..7 until all 8 are seen: P(length = r) = 8! S(r - 1, 7) / 8^r.
  constexpr int runs = 1 << 18;
  constexpr int top = 60;
  std::vector<double> counts(top + 1, 0.0);
  for (int run = 0; run < runs; ++run) {
    unsigned seen = 0;
    int length = 0;
    while (seen != 255u) {
      seen |= 1u << (w.next() >> 29);
      ++length;
    }
    counts[static_cast<std::size_t>(std::min(length, top))] += 1;
  }
  // Stirling numbers of the second kind S(m, 7), scaled by 8! / 8^(m + 1) as they grow.
  std::vector<double> expected(top + 1, 0.0);
  std::vector<std::vector<double>> s(top + 1, std::vector<double>(9, 0.0));
  s[0][0] = 1;
  for (int m = 1; m <= top; ++m) {
    for (int k = 1; k <= 8; ++k) {
      s[static_cast<std::size_t>(m)][static_cast<std::size_t>(k)] =
          (k * s[static_cast<std::size_t>(m - 1)][static_cast<std::size_t>(k)] +
           s[static_cast<std::size_t>(m - 1)][static_cast<std::size_t>(k - 1)]) /
          8.0;  // each step divides by 8: s[m][k] = S(m, k) / 8^m
    }
  }
  double inner = 0;
  for (int r = 8; r < top; ++r) {
    expected[static_cast<std::size_t>(r)] = runs * 40320.0 * s[static_cast<std::size_t>(r - 1)][7] / 8.0;
    inner += expected[static_cast<std::size_t>(r)];
  }
  expected[top] = runs - inner;
  return chi2_p(counts, expected);
}

double max_of_t(words& w) {
  // max of 8 uniforms, raised to the 8th power, is uniform: 100 equal bins.
  constexpr int groups = 1 << 19;
  std::vector<double> counts(100, 0.0);
  for (int g = 0; g < groups; ++g) {
    double m = 0;
    for (int t = 0; t < 8; ++t) {
      m = std::max(m, w.uniform());
    }
    counts[static_cast<std::size_t>(std::min(99.0, std::floor(std::pow(m, 8) * 100)))] += 1;
  }
  return chi2_p(counts, std::vector<double>(100, groups / 100.0));
}

double birthday_spacings(words& w) {
  // 512 birthdays in a year of 2^24 days: the number of repeated spacings is Poisson(2).
  constexpr int trials = 20000;
  std::vector<double> counts(12, 0.0);
  std::vector<std::uint32_t> days(512);
  std::vector<std::uint32_t> spacings(512);
  for (int t = 0; t < trials; ++t) {
    for (auto& d : days) {
      d = w.next() >> 8;
    }
    std::sort(days.begin(), days.end());
    spacings[0] = days[0];
    for (std::size_t i = 1; i < days.size(); ++i) {
      spacings[i] = days[i] - days[i - 1];
    }
    std::sort(spacings.begin(), spacings.end());
    int repeats = 0;
    for (std::size_t i = 1; i < spacings.size(); ++i) {
      repeats += spacings[i] == spacings[i - 1] ? 1 : 0;
    }
    counts[static_cast<std::size_t>(std::min(repeats, 11))] += 1;
  }
  std::vector<double> expected(12, 0.0);
  double inner = 0;
  for (int k = 0; k < 11; ++k) {
    expected[static_cast<std::size_t>(k)] = trials * std::exp(-2.0 + k * std::log(2.0) - std::lgamma(k + 1.0));
    inner += expected[static_cast<std::size_t>(k)];
  }
  expected[11] = trials - inner;
  return chi2_p(counts, expected);
}

double collisions(words& w) {
  // 2^20 balls into 2^32 urns (two words: 2^32 x 2^32 would never collide): about 128 collisions.
  constexpr int balls = 1 << 20;
  std::unordered_set<std::uint32_t> urns;
  urns.reserve(balls * 2);
  int hits = 0;
  for (int b = 0; b < balls; ++b) {
    hits += urns.insert(w.next()).second ? 0 : 1;
  }
  const double m = 4294967296.0;
  const double mean = balls - m + m * std::exp(balls * std::log1p(-1 / m));
  return normal_two_sided_p((hits - mean) / std::sqrt(mean));  // nearly Poisson: variance ~ mean
}

int rank32(std::array<std::uint32_t, 32> rows) {
  int rank = 0;
  for (int bit = 31; bit >= 0; --bit) {
    const std::uint32_t mask = 1u << bit;
    auto pivot = std::find_if(rows.begin() + rank, rows.end(), [&](std::uint32_t r) { return (r & mask) != 0; });
    if (pivot == rows.end()) {
      continue;
    }
    std::swap(*pivot, rows[static_cast<std::size_t>(rank)]);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (i != static_cast<std::size_t>(rank) && (rows[i] & mask) != 0) {
        rows[i] ^= rows[static_cast<std::size_t>(rank)];
      }
    }
    ++rank;
  }
  return rank;
}

double matrix_rank(words& w) {
  constexpr int matrices = 40000;
  std::vector<double> counts(4, 0.0);
  for (int m = 0; m < matrices; ++m) {
    std::array<std::uint32_t, 32> rows{};
    for (auto& r : rows) {
      r = w.next();
    }
    const int rank = rank32(rows);
    counts[static_cast<std::size_t>(rank >= 32 ? 0 : rank == 31 ? 1 : rank == 30 ? 2 : 3)] += 1;
  }
  const std::vector<double> p{0.2887880950866, 0.5775761901732, 0.1283502644830, 0.0052854502572};
  std::vector<double> expected;
  for (double q : p) {
    expected.push_back(q * matrices);
  }
  return chi2_p(counts, expected);
}

double hamming_weights(words& w) {
  // Weights of consecutive word pairs: independent Binomial(32, 1/2), a 33 x 33 table.
  constexpr int pairs = 1 << 21;
  std::vector<double> counts(33 * 33, 0.0);
  std::vector<double> binom(33);
  for (int k = 0; k <= 32; ++k) {
    binom[static_cast<std::size_t>(k)] =
        std::exp(std::lgamma(33.0) - std::lgamma(k + 1.0) - std::lgamma(33.0 - k) - 32 * std::log(2.0));
  }
  for (int i = 0; i < pairs; ++i) {
    const int a = std::popcount(w.next());
    const int b = std::popcount(w.next());
    counts[static_cast<std::size_t>(a * 33 + b)] += 1;
  }
  std::vector<double> expected(counts.size());
  for (int a = 0; a <= 32; ++a) {
    for (int b = 0; b <= 32; ++b) {
      expected[static_cast<std::size_t>(a * 33 + b)] =
          pairs * binom[static_cast<std::size_t>(a)] * binom[static_cast<std::size_t>(b)];
    }
  }
  return chi2_p(counts, expected);
}

void run_battery(words& w, const std::string& stream) {
  const std::vector<std::pair<const char*, std::function<double(words&)>>> tests = {
      {"frequency of bytes", frequency_of_bytes},
      {"serial pairs", serial_pairs},
      {"gap", gap},
      {"poker", poker},
      {"coupon collector", coupon_collector},
      {"max of t", max_of_t},
      {"birthday spacings", birthday_spacings},
      {"collisions", collisions},
      {"matrix rank", matrix_rank},
      {"hamming weights", hamming_weights},
  };
  for (const auto& [name, test] : tests) {
    const double p = test(w);
    EXPECT_TRUE(p >= 1e-7 && p <= 1 - 1e-7) << stream << ": " << name << " p = " << p;
  }
}

}  // namespace

TEST(RandomBattery, SharedBlocksInElementOrder) {
  shared_words w({0x243F6A88u, 0x85A308D3u}, 0);
  run_battery(w, "key pi, offset 0");
}

TEST(RandomBattery, SharedBlocksOfAnotherKeyAndAHighOffset) {
  shared_words w({1u, 0u}, 0xFFFFFFFFull - 1000);  // crosses a 2^32 carry into the counter's second word
  run_battery(w, "key 1, offset 2^32 - 1000");
}

TEST(RandomBattery, FirstWordsOfNeighbouringElementStreams) {
  across_elements w({0xDEADBEEFu, 0x12345678u}, 1ull << 40);
  run_battery(w, "per-element streams");
}

TEST(RandomBattery, GeneratorsFromSeedsNextToEachOther) {
  // default_rng(0), default_rng(1), ..., default_rng(63): their word j interleaved, so that any
  // relation between neighbouring seeds' keys would show.
  class interleaved : public words {
   public:
    interleaved() {
      for (std::uint64_t seed = 0; seed < keys_.size(); ++seed) {
        keys_[seed] = ndcuda::random::default_rng(seed).key();
      }
    }
    std::uint32_t next() override {
      const std::uint64_t j = i_ / keys_.size();
      const auto& key = keys_[i_ % keys_.size()];
      ++i_;
      return host::philox4x32_10({static_cast<std::uint32_t>(j / 4), 0, 0, 0}, key)[j % 4];
    }

   private:
    std::array<std::array<std::uint32_t, 2>, 64> keys_{};
    std::uint64_t i_ = 0;
  } w;
  run_battery(w, "neighbouring seeds");
}
