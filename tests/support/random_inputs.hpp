// Fresh random host input for the tests' references: one engine per process and the few fills the tests share.
// Builds on <random> only. The seed is printed at first use; NDCUDA_TEST_SEED=<seed> replays a run.
//
// Each ctest test is its own process, so a failing test prints its own seed ("[ ndcuda ] random
// seed 123 ..."), and `NDCUDA_TEST_SEED=123 ctest -R <that test>` (or the binary with the same
// --gtest_filter) draws the same values again. Without the variable the seed comes from
// std::random_device: every run sees new data.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace ndcuda::testing {

/// This process's seed: NDCUDA_TEST_SEED when set (to replay a failure), else fresh from
/// std::random_device. Printed once, so that every failure can be replayed.
inline std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    std::uint64_t s = 0;
    const char* text = std::getenv("NDCUDA_TEST_SEED");
    if (text != nullptr && *text != '\0') {
      char* end = nullptr;
      s = std::strtoull(text, &end, 10);
      if (*end != '\0') {
        throw std::invalid_argument("NDCUDA_TEST_SEED=" + std::string(text) +
                                    " is not a decimal seed: set it to the seed a test printed, or unset it");
      }
    } else {
      std::random_device device;
      s = (static_cast<std::uint64_t>(device()) << 32) ^ device();
    }
    std::printf("[ ndcuda ] random seed %llu (replay with NDCUDA_TEST_SEED=%llu)\n", static_cast<unsigned long long>(s),
                static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

/// The process-wide generator every random test input comes from (seeded by test_seed()).
inline std::mt19937_64& rng() {
  static std::mt19937_64 engine(test_seed());
  return engine;
}

/// Asks uniform_values for the same values on every call with the same key within a run (still
/// fresh from run to run): for a test that rebuilds an input to compare against.
struct repeat {
  std::uint64_t key;
};

namespace random_detail {

template <class T>
struct is_complex : std::false_type {};
template <class R>
struct is_complex<std::complex<R>> : std::true_type {};

// n values of T from draws (double or int64): complex gets a real and an imaginary part.
template <class T, class Draw>
std::vector<T> from_draws(std::size_t n, Draw draw) {
  static_assert(!std::is_same_v<T, bool>, "draw bools with std::bernoulli_distribution");
  std::vector<T> v(n);
  for (T& x : v) {
    if constexpr (is_complex<T>::value) {
      using R = typename T::value_type;
      const auto re = static_cast<R>(draw());
      x = T(re, static_cast<R>(draw()));
    } else {
      x = static_cast<T>(draw());
    }
  }
  return v;
}

template <class T>
std::vector<T> uniform_from(std::mt19937_64& engine, std::size_t n, double low, double high) {
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<std::int64_t> d(std::llround(low), std::llround(high));
    return from_draws<T>(n, [&] { return d(engine); });
  } else {
    std::uniform_real_distribution<double> d(low, high);
    return from_draws<T>(n, [&] { return d(engine); });
  }
}

}  // namespace random_detail

/// n values uniform in [low, high): drawn in double and rounded to T (both parts for complex);
/// integer T gets integers uniform in [low, high], both ends included.
template <class T>
std::vector<T> uniform_values(std::size_t n, double low, double high) {
  return random_detail::uniform_from<T>(rng(), n, low, high);
}

/// As above, but the same values on every call with the same key in this run.
template <class T>
std::vector<T> uniform_values(std::size_t n, double low, double high, repeat r) {
  std::mt19937_64 engine(test_seed() ^ (0x9e3779b97f4a7c15ULL * (r.key + 1)));
  return random_detail::uniform_from<T>(engine, n, low, high);
}

/// n integers uniform in [low, high] stored as T (both parts for complex): float input whose sums
/// and products stay exact.
template <class T>
std::vector<T> uniform_integers(std::size_t n, std::int64_t low, std::int64_t high) {
  std::uniform_int_distribution<std::int64_t> d(low, high);
  return random_detail::from_draws<T>(n, [&] { return d(rng()); });
}

/// n values normal with the given mean and standard deviation, drawn in double (floating T).
template <class T>
std::vector<T> normal_values(std::size_t n, double mean, double stddev) {
  std::normal_distribution<double> d(mean, stddev);
  return random_detail::from_draws<T>(n, [&] { return d(rng()); });
}

/// v with each element replaced by a quiet NaN with probability `fraction` (floating T).
template <class T>
std::vector<T> with_nans(std::vector<T> v, double fraction) {
  std::bernoulli_distribution nan(fraction);
  for (T& x : v) {
    if (nan(rng())) {
      x = std::numeric_limits<T>::quiet_NaN();
    }
  }
  return v;
}

}  // namespace ndcuda::testing
