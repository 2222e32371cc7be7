// The distribution calls a draw node spells (kernels/random.cuh's functions) and the Philox layout
// (E elements sharing W words) each dtype's draw uses. Builds on random/detail/draw.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/core/dtype.hpp>
#include <ndcuda/random/detail/draw.hpp>
#include <string>

namespace ndcuda::random::detail {

constexpr bool is_double(dtype d) noexcept {
  return d == dtype::float64;
}
constexpr bool is_wide_integer(dtype d) noexcept {
  return d == dtype::int64 || d == dtype::uint64;
}
inline std::string fn(const char* f32, const char* f64, dtype d) {
  return std::string("ndcuda::rng::") + (is_double(d) ? f64 : f32);
}

inline constexpr char random_name[] = "random";
inline constexpr char normal_name[] = "normal";
inline constexpr char uniform_name[] = "uniform";
inline constexpr char exponential_name[] = "exponential";
inline constexpr char lognormal_name[] = "lognormal";
inline constexpr char integers_name[] = "integers";
inline constexpr char gamma_name[] = "gamma";
inline constexpr char beta_name[] = "beta";
inline constexpr char poisson_name[] = "poisson";
inline constexpr char binomial_name[] = "binomial";
inline constexpr char bits_name[] = "random_bits";

/// random(): [0, 1) at the dtype's precision. Layout (1, 1), float64 (1, 2).
template <dtype D>
struct random_spec : spec_base<random_name, D, D, true> {
  static std::string function() {
    return D == dtype::float16    ? "ndcuda::rng::random_f16"
           : D == dtype::bfloat16 ? "ndcuda::rng::random_bf16"
                                  : fn("random_f32", "random_f64", D);
  }
};
/// standard_normal: Box-Muller pairs. Layout (2, 2), float64 (2, 4).
template <dtype D>
struct normal_spec : spec_base<normal_name, D, D, true> {
  static std::string function() { return fn("normal_f32", "normal_f64", D); }
};
/// standard_exponential. Layout (1, 1), float64 (1, 2).
template <dtype D>
struct exponential_spec : spec_base<exponential_name, D, D, true> {
  static std::string function() { return fn("exponential_f32", "exponential_f64", D); }
};
/// 64 random bits (permutation keys). Layout (1, 2).
struct bits_spec : spec_base<bits_name, dtype::uint64, dtype::uint64, true> {
  static std::string function() { return "ndcuda::rng::random_bits64"; }
};

/// loc + scale * z, low + (high - low) * u, scale * x, exp(mean + sigma * z): on computed values.
template <const char* Name, const char* F, dtype D>
struct transform_spec : spec_base<Name, D, ndcuda::detail::compute_type(D), false> {
  static std::string function() { return std::string("ndcuda::rng::") + F; }
};
inline constexpr char affine_fn[] = "affine";
inline constexpr char between_fn[] = "between";
inline constexpr char scaled_fn[] = "scaled";
inline constexpr char lognormal_fn[] = "lognormal";

/// integers in [low, high) or, with the last (int32) argument set, [low, high]: layout (1, 1) for
/// 8- to 32-bit dtypes, (1, 2) for 64-bit.
template <dtype D>
struct integers_spec : spec_base<integers_name, D, D, true> {
  static constexpr dtype param(std::size_t i) noexcept { return i == 3 ? dtype::int32 : D; }
  static std::string function() {
    return std::string(is_wide_integer(D) ? "ndcuda::rng::integers64<" : "ndcuda::rng::integers32<") +
           std::string(cuda_type_name(D)) + ">";
  }
};

/// Rejection samplers: layout (1, 0), every word from the element's own stream.
template <dtype D>
struct gamma_spec : spec_base<gamma_name, D, ndcuda::detail::compute_type(D), true> {
  static std::string function() { return fn("gamma_f32", "gamma_f64", D); }
};
template <dtype D>
struct beta_spec : spec_base<beta_name, D, dtype::float64, true> {
  static std::string function() { return fn("beta_f32", "beta_f64", D); }
};
template <dtype D>
struct poisson_spec : spec_base<poisson_name, D, dtype::float64, true> {
  static std::string function() { return "ndcuda::rng::poisson"; }
};
template <dtype D>
struct binomial_spec : spec_base<binomial_name, D, dtype::float64, true> {
  static constexpr dtype param(std::size_t i) noexcept { return i == 1 ? dtype::int64 : dtype::float64; }
  static std::string function() { return "ndcuda::rng::binomial"; }
};

}  // namespace ndcuda::random::detail

#pragma GCC visibility pop
