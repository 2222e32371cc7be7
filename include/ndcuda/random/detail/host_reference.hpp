// The host reference of every draw: the very source the GPU compiles (kernels/{random_math,philox,
// random}.cuh, built into the library for the host), so tests compare GPU values with it bit for
// bit, and programs can reproduce a draw on the CPU. Builds on nothing but <cstdint>.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <array>
#include <cstdint>

namespace ndcuda::random::host {

/// Philox-4x32-10 of one counter under one key (Random123's philox4x32).
[[nodiscard]] std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> counter,
                                                         std::array<std::uint32_t, 2> key);

/// A draw: the generator's key and the block offset it read (generator::offset() before it).
struct draw {
  std::array<std::uint32_t, 2> key;
  std::uint64_t offset;
};

// Element i (flat C-order index in the draw's shape) of each distribution, in the compute type
// the GPU stores from (float for float16/bfloat16/float32 draws).
[[nodiscard]] float random_f32(const draw& d, std::uint64_t i);
[[nodiscard]] float random_f16(const draw& d, std::uint64_t i);   ///< exact in float16
[[nodiscard]] float random_bf16(const draw& d, std::uint64_t i);  ///< exact in bfloat16
[[nodiscard]] double random_f64(const draw& d, std::uint64_t i);
[[nodiscard]] std::uint64_t random_bits(const draw& d, std::uint64_t i);
[[nodiscard]] float normal_f32(const draw& d, std::uint64_t i);
[[nodiscard]] double normal_f64(const draw& d, std::uint64_t i);
[[nodiscard]] float exponential_f32(const draw& d, std::uint64_t i);
[[nodiscard]] double exponential_f64(const draw& d, std::uint64_t i);
/// integers in [low, high) (or [low, high] with endpoint) for T of 8 to 64 bits.
template <class T>
[[nodiscard]] T integers(const draw& d, std::uint64_t i, T low, T high, bool endpoint);
[[nodiscard]] float gamma_f32(const draw& d, std::uint64_t i, float shape);
[[nodiscard]] double gamma_f64(const draw& d, std::uint64_t i, double shape);
[[nodiscard]] float beta_f32(const draw& d, std::uint64_t i, double a, double b);
[[nodiscard]] double beta_f64(const draw& d, std::uint64_t i, double a, double b);
[[nodiscard]] std::int64_t poisson(const draw& d, std::uint64_t i, double lam);
[[nodiscard]] std::int64_t binomial(const draw& d, std::uint64_t i, std::int64_t n, double p);

// The transforms that turn standard draws into NumPy's parametrised ones, rounded as the GPU does.
[[nodiscard]] float affine(float z, float loc, float scale);  ///< loc + scale * z (normal)
[[nodiscard]] double affine(double z, double loc, double scale);
[[nodiscard]] float between(float u, float low, float high);  ///< low + (high - low) * u (uniform)
[[nodiscard]] double between(double u, double low, double high);
[[nodiscard]] float scaled(float x, float scale);  ///< scale * x (exponential, gamma)
[[nodiscard]] double scaled(double x, double scale);
[[nodiscard]] float lognormal(float z, float mean, float sigma);  ///< exp(mean + sigma * z)
[[nodiscard]] double lognormal(double z, double mean, double sigma);

// The portable functions the distributions use (exposed for their accuracy tests).
[[nodiscard]] float log(float x);
[[nodiscard]] double log(double x);
[[nodiscard]] double exp(double x);
[[nodiscard]] float sin_cos_pi_half(float r, unsigned quadrant, bool cosine);  ///< of (quadrant + r) pi/2
[[nodiscard]] double sin_cos_pi_half(double r, unsigned quadrant, bool cosine);
[[nodiscard]] double loggam(double x);
[[nodiscard]] double stirling_tail(double k);

/// Philox blocks a draw of n elements advances the generator by (what generator::offset() grows):
/// `distribution` as the generator method is named ("random", "normal", "integers", "gamma", ...);
/// `wide`: a float64 draw, or for "integers" a 64-bit dtype.
[[nodiscard]] std::uint64_t blocks_for(const char* distribution, bool wide, std::uint64_t n);

}  // namespace ndcuda::random::host

#pragma GCC visibility pop
