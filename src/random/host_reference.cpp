// The host build of the device sources: kernels/*.cuh compiled as plain C++, so the reference is
// the same code path as the GPU's, not a second implementation.
#include <cstring>
#include <ndcuda/random/detail/host_reference.hpp>
#include <string_view>

// The order matters: each builds on the one before (under NVRTC they include each other).
// clang-format off
#include "../../kernels/random_math.cuh"
#include "../../kernels/philox.cuh"
#include "../../kernels/random.cuh"
// clang-format on

namespace ndcuda::random::host {
namespace {

template <int E, int W>
rng::item<E, W> at(const draw& d, std::uint64_t i) {
  return rng::item_at<E, W>(d.key[0], d.key[1], d.offset, i);
}

}  // namespace

std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> counter, std::array<std::uint32_t, 2> key) {
  const rng::block4 r = rng::philox4x32_10({counter[0], counter[1], counter[2], counter[3]}, key[0], key[1]);
  return {r.x0, r.x1, r.x2, r.x3};
}

float random_f32(const draw& d, std::uint64_t i) {
  return rng::random_f32(at<1, 1>(d, i));
}
float random_f16(const draw& d, std::uint64_t i) {
  return rng::random_f16(at<1, 1>(d, i));
}
float random_bf16(const draw& d, std::uint64_t i) {
  return rng::random_bf16(at<1, 1>(d, i));
}
double random_f64(const draw& d, std::uint64_t i) {
  return rng::random_f64(at<1, 2>(d, i));
}
std::uint64_t random_bits(const draw& d, std::uint64_t i) {
  return rng::random_bits64(at<1, 2>(d, i));
}
float normal_f32(const draw& d, std::uint64_t i) {
  return rng::normal_f32(at<2, 2>(d, i));
}
double normal_f64(const draw& d, std::uint64_t i) {
  return rng::normal_f64(at<2, 4>(d, i));
}
float exponential_f32(const draw& d, std::uint64_t i) {
  return rng::exponential_f32(at<1, 1>(d, i));
}
double exponential_f64(const draw& d, std::uint64_t i) {
  return rng::exponential_f64(at<1, 2>(d, i));
}

template <class T>
T integers(const draw& d, std::uint64_t i, T low, T high, bool endpoint) {
  if constexpr (sizeof(T) == 8) {
    return rng::integers64<T>(at<1, 2>(d, i), low, high, endpoint ? 1 : 0);
  } else {
    return rng::integers32<T>(at<1, 1>(d, i), low, high, endpoint ? 1 : 0);
  }
}
template std::int8_t integers(const draw&, std::uint64_t, std::int8_t, std::int8_t, bool);
template std::int16_t integers(const draw&, std::uint64_t, std::int16_t, std::int16_t, bool);
template std::int32_t integers(const draw&, std::uint64_t, std::int32_t, std::int32_t, bool);
template std::int64_t integers(const draw&, std::uint64_t, std::int64_t, std::int64_t, bool);
template std::uint8_t integers(const draw&, std::uint64_t, std::uint8_t, std::uint8_t, bool);
template std::uint16_t integers(const draw&, std::uint64_t, std::uint16_t, std::uint16_t, bool);
template std::uint32_t integers(const draw&, std::uint64_t, std::uint32_t, std::uint32_t, bool);
template std::uint64_t integers(const draw&, std::uint64_t, std::uint64_t, std::uint64_t, bool);

float gamma_f32(const draw& d, std::uint64_t i, float shape) {
  return rng::gamma_f32(at<1, 0>(d, i), shape);
}
double gamma_f64(const draw& d, std::uint64_t i, double shape) {
  return rng::gamma_f64(at<1, 0>(d, i), shape);
}
float beta_f32(const draw& d, std::uint64_t i, double a, double b) {
  return rng::beta_f32(at<1, 0>(d, i), a, b);
}
double beta_f64(const draw& d, std::uint64_t i, double a, double b) {
  return rng::beta_f64(at<1, 0>(d, i), a, b);
}
std::int64_t poisson(const draw& d, std::uint64_t i, double lam) {
  return rng::poisson(at<1, 0>(d, i), lam);
}
std::int64_t binomial(const draw& d, std::uint64_t i, std::int64_t n, double p) {
  return rng::binomial(at<1, 0>(d, i), n, p);
}

float affine(float z, float loc, float scale) {
  return rng::affine(z, loc, scale);
}
double affine(double z, double loc, double scale) {
  return rng::affine(z, loc, scale);
}
float between(float u, float low, float high) {
  return rng::between(u, low, high);
}
double between(double u, double low, double high) {
  return rng::between(u, low, high);
}
float scaled(float x, float scale) {
  return rng::scaled(x, scale);
}
double scaled(double x, double scale) {
  return rng::scaled(x, scale);
}
float lognormal(float z, float mean, float sigma) {
  return rng::lognormal(z, mean, sigma);
}
double lognormal(double z, double mean, double sigma) {
  return rng::lognormal(z, mean, sigma);
}

float log(float x) {
  return rng::log(x);
}
double log(double x) {
  return rng::log(x);
}
double exp(double x) {
  return rng::exp(x);
}
float sin_cos_pi_half(float r, unsigned quadrant, bool cosine) {
  float s = 0;
  float c = 0;
  rng::sincos_quadrant(quadrant, r, &s, &c);
  return cosine ? c : s;
}
double sin_cos_pi_half(double r, unsigned quadrant, bool cosine) {
  double s = 0;
  double c = 0;
  rng::sincos_quadrant(quadrant, r, &s, &c);
  return cosine ? c : s;
}
double loggam(double x) {
  return rng::loggam(x);
}
double stirling_tail(double k) {
  return rng::stirling_tail(k);
}

std::uint64_t blocks_for(const char* distribution, bool wide, std::uint64_t n) {
  const std::string_view d(distribution);
  std::uint64_t blocks = 0;
  if (d == "random" || d == "exponential" || d == "uniform") {
    blocks = wide ? rng::shared_blocks<1, 2>(n) : rng::shared_blocks<1, 1>(n);
  } else if (d == "normal" || d == "lognormal") {
    blocks = wide ? rng::shared_blocks<2, 4>(n) : rng::shared_blocks<2, 2>(n);
  } else if (d == "random_bits") {
    blocks = rng::shared_blocks<1, 2>(n);
  } else if (d == "integers") {
    blocks = wide ? rng::shared_blocks<1, 2>(n) : rng::shared_blocks<1, 1>(n);
    blocks = blocks > NDCUDA_RNG_PRIVATE_BLOCKS ? blocks : NDCUDA_RNG_PRIVATE_BLOCKS;
  } else {  // the rejection samplers: their elements' own streams only
    blocks = NDCUDA_RNG_PRIVATE_BLOCKS;
  }
  return blocks;
}

}  // namespace ndcuda::random::host
