/// @file
/// The class nd::random::generator, spelled as NumPy's Generator: every distribution returns a lazy
/// draw that fuses into expressions and reductions, materialised when assigned to an array.
/// Counter-based Philox-4x32-10 whose offset lives on the device. The sampling and shuffling
/// members are only declared here: random/shuffling.hpp defines them, and users include
/// <ndcuda/random/generator.hpp>, which brings both. Builds on random/detail/{draw,specs}.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/core/detail/scalar.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/size_arg.hpp>
#include <ndcuda/random/detail/draw.hpp>
#include <ndcuda/random/detail/specs.hpp>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace ndcuda::random {

namespace detail {

struct NDCUDA_INTERNAL generator_state;

/// A fresh generator: key from (entropy, spawn_key, jumps) through SplitMix64, offset 0.
[[nodiscard]] std::shared_ptr<generator_state> make_state(std::uint64_t entropy, std::vector<std::uint64_t> spawn_key,
                                                          std::uint64_t jumps);
/// Reserves `blocks` Philox blocks on `s`: a device cell that a one-thread kernel on `s` sets to
/// the generator's device offset, which it then advances by `blocks` (so graph replays draw anew).
[[nodiscard]] reservation reserve(generator_state& g, std::uint64_t blocks, const stream& s);
[[nodiscard]] std::array<std::uint32_t, 2> key_of(const generator_state& g);
[[nodiscard]] std::vector<std::shared_ptr<generator_state>> spawn(generator_state& g, std::size_t n);
[[nodiscard]] std::shared_ptr<generator_state> jumped(const generator_state& g, std::uint64_t jumps);
/// The device offset after the work queued on `s` (waits for it; refused while `s` captures).
[[nodiscard]] std::uint64_t read_offset(generator_state& g, const stream& s);
[[nodiscard]] std::uint64_t entropy_from_os();
/// Compiles the generator's own kernels (the offset advance, the shuffling gathers) for `cc`
/// without a device: for CI without a GPU.
NDCUDA_INTERNAL void compile_random_kernels(compute_capability cc);

/// Throws NumPy's ValueError text (as nd::error) when `bad` holds for a scalar parameter.
void check_scalar(bool bad, const char* function, const char* what);

/// The shape of an array operand: its own, or its leaves' broadcast shape for an expression.
template <class X>
shape_t shape_of(const X& x) {
  if constexpr (ndcuda::detail::is_ndarray<std::remove_cvref_t<X>>) {
    return x.shape();
  } else {
    ndcuda::detail::leaves_of<std::remove_cvref_t<X>> leaves;
    ndcuda::detail::collect(x, leaves);
    shape_t s = leaves.arrays[0].layout->shape;
    for (std::size_t i = 1; i < leaves.arrays.size(); ++i) {
      s = broadcast_shapes(s, leaves.arrays[i].layout->shape);
    }
    return s;
  }
}

/// The draw's shape: `size`, which every array parameter must broadcast to (NumPy), or else the
/// parameters' broadcast shape (0-d when all are scalars).
template <class... P>
shape_t draw_shape(const char* function, const size_arg& size_given, const P&... params) {
  const std::optional<shape_t>& size = size_given.get();
  shape_t shape;
  bool any = false;
  (
      [&] {
        if constexpr (array_operand<P>) {
          const shape_t s = shape_of(params);
          shape = any ? broadcast_shapes(shape, s) : s;
          any = true;
        }
      }(),
      ...);
  if (!size) {
    return shape;
  }
  if (any && broadcast_shapes(shape, *size) != *size) {
    throw shape_error(std::string(function) + ": parameters of shape " + format_shape(shape) +
                      " do not broadcast to size " + format_shape(*size) +
                      " (NumPy: shape mismatch: objects cannot be broadcast to a single shape)");
  }
  return *size;
}

/// A parameter as a node: arrays and expressions as they are, scalars as dtype P.
template <dtype P, class X>
auto param_node(const X& x) {
  if constexpr (array_operand<X>) {
    return ndcuda::detail::as_node(x);
  } else {
    return ndcuda::detail::scalar_leaf<P>{ndcuda::detail::scalar_as<type_of<P>>(x)};
  }
}

template <class X>
double scalar_value(const X& x) {
  if constexpr (array_operand<X>) {
    return 0.0;
  } else {
    return static_cast<double>(x);
  }
}

template <class Spec, class... A>
auto node(A&&... a) {
  return expr<draw_op<Spec>, std::remove_cvref_t<A>...>{{std::forward<A>(a)...}};
}

}  // namespace detail

/// What distributions take as parameters: C++ scalars, arrays and expressions.
template <class P>
concept parameter = array_operand<P> || weak_scalar<std::remove_cvref_t<P>>;

/// A generator method's stream argument: the stream given, or (resolved only when the draw is
/// reserved, after NumPy's parameter checks) the current device's default library stream.
class stream_arg {
 public:
  stream_arg() = default;
  /// The stream `s` (implicit, so that a stream can be passed where a stream_arg is taken).
  stream_arg(const stream& s) : s_(&s) {}  // NOLINT: implicit, so that g.random<float>(n, s) reads naturally
  /// The stream given, or the current device's default library stream.
  [[nodiscard]] stream get() const { return s_ != nullptr ? *s_ : default_stream(); }

 private:
  const stream* s_ = nullptr;
};

/// choice's `p`, NumPy's probabilities: an array or lazy value of any float dtype (converted to
/// float64, as NumPy converts p), or nd::none for equal weights.
class choice_weights {
 public:
  // Implicit, each of them: `p` is passed as NumPy's p= is.
  /// Equal weights (NumPy's p=None).
  choice_weights() = default;
  /// nd::none: equal weights.
  choice_weights(std::nullopt_t /*none*/) {}
  /// float64 weights, or none.
  choice_weights(std::optional<ndarray<double>> p) : p_(std::move(p)) {}
  /// Weights of another float dtype, or a lazy value: converted to float64 once, here.
  template <array_operand X>
  requires(is_floating(std::remove_cvref_t<X>::type())) choice_weights(const X& p) {
    if constexpr (std::is_same_v<std::remove_cvref_t<X>, ndarray<double>>) {
      p_ = p;
    } else {
      p_ = ndarray<double>(p.template astype<double>());
    }
  }

  /// The weights, or nullopt for equal ones.
  [[nodiscard]] const std::optional<ndarray<double>>& get() const noexcept { return p_; }

 private:
  std::optional<ndarray<double>> p_;
};

/// NumPy's Generator over Philox-4x32-10. Copies share one stream of numbers, as Python names
/// of one Generator do. Each distribution reserves its Philox blocks when called and returns a
/// lazy draw: `nd::ndarray<float> a = g.normal<float>({n});` materialises it, `x + g.normal<float>
/// (x.shape())` computes it inside the one fused kernel. A draw denotes fixed values: using it
/// twice gives the same numbers. The stream argument (last) orders the reservation; default: the
/// current device's default library stream.
class generator {
 public:
  /// A generator keyed from `seed`, as default_rng(seed): a seed gives the same draws in every run.
  explicit generator(std::uint64_t seed) : state_(detail::make_state(seed, {}, 0)) {}

  /// [0, 1): NumPy's random(size, dtype); float16/bfloat16/float32/float64.
  template <class T = double>
  [[nodiscard]] auto random(const size_arg& size, stream_arg s = {}) const {
    return detail::node<detail::random_spec<dtype_of<T>>>(leaf < 1, dtype_of<T> == dtype::float64 ? 2 : 1,
                                                          T > (size.or_scalar(), s));
  }
  /// low + (high - low) * random(): NumPy's uniform(low, high, size).
  template <class T = double, parameter L = double, parameter H = double>
  [[nodiscard]] auto uniform(const L& low = 0.0, const H& high = 1.0, const size_arg& size = {},
                             stream_arg s = {}) const {
    const shape_t shape = detail::draw_shape("uniform", size, low, high);
    return detail::node<detail::transform_spec<detail::uniform_name, detail::between_fn, dtype_of<T>>>(
        random<T>(shape, s), param<T>(low), param<T>(high));
  }
  /// NumPy's standard_normal(size): draws of N(0, 1).
  template <class T = double>
  [[nodiscard]] auto standard_normal(const size_arg& size, stream_arg s = {}) const {
    return detail::node<detail::normal_spec<dtype_of<T>>>(leaf < 2, dtype_of<T> == dtype::float64 ? 4 : 2,
                                                          T > (size.or_scalar(), s));
  }
  /// normal(size): the standard normal, as g.normal<float>(x.shape()).
  template <class T = double>
  [[nodiscard]] auto normal(const size_arg& size, stream_arg s = {}) const {
    return standard_normal<T>(size, s);
  }
  /// loc + scale * standard_normal(): NumPy's normal(loc, scale, size); loc and scale broadcast.
  template <class T = double, parameter L, parameter S>
  [[nodiscard]] auto normal(const L& loc, const S& scale, const size_arg& size = {}, stream_arg s = {}) const {
    detail::check_scalar(detail::scalar_value(scale) < 0, "normal", "scale < 0");
    const shape_t shape = detail::draw_shape("normal", size, loc, scale);
    return detail::node<detail::transform_spec<detail::normal_name, detail::affine_fn, dtype_of<T>>>(
        standard_normal<T>(shape, s), param<T>(loc), param<T>(scale));
  }
  /// exp(normal(mean, sigma)): NumPy's lognormal(mean, sigma, size).
  template <class T = double, parameter M = double, parameter S = double>
  [[nodiscard]] auto lognormal(const M& mean = 0.0, const S& sigma = 1.0, const size_arg& size = {},
                               stream_arg s = {}) const {
    detail::check_scalar(detail::scalar_value(sigma) < 0, "lognormal", "sigma < 0");
    const shape_t shape = detail::draw_shape("lognormal", size, mean, sigma);
    return detail::node<detail::transform_spec<detail::lognormal_name, detail::lognormal_fn, dtype_of<T>>>(
        standard_normal<T>(shape, s), param<T>(mean), param<T>(sigma));
  }
  /// NumPy's standard_exponential(size): draws of the exponential distribution with scale 1.
  template <class T = double>
  [[nodiscard]] auto standard_exponential(const size_arg& size, stream_arg s = {}) const {
    return detail::node<detail::exponential_spec<dtype_of<T>>>(leaf < 1, dtype_of<T> == dtype::float64 ? 2 : 1,
                                                               T > (size.or_scalar(), s));
  }
  /// scale * standard_exponential(): NumPy's exponential(scale, size).
  template <class T = double, parameter S = double>
  [[nodiscard]] auto exponential(const S& scale = 1.0, const size_arg& size = {}, stream_arg s = {}) const {
    detail::check_scalar(detail::scalar_value(scale) < 0, "exponential", "scale < 0");
    const shape_t shape = detail::draw_shape("exponential", size, scale);
    return detail::node<detail::transform_spec<detail::exponential_name, detail::scaled_fn, dtype_of<T>>>(
        standard_exponential<T>(shape, s), param<T>(scale));
  }
  /// Integers in [low, high) (or [low, high] with endpoint): NumPy's integers; T any integer dtype.
  template <class T = std::int64_t, parameter L, parameter H>
  [[nodiscard]] auto integers(const L& low, const H& high, const size_arg& size = {}, bool endpoint = false,
                              stream_arg s = {}) const {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "integers draws an integer dtype");
    // NumPy accepts the exclusive high 2^bits (integers<uint8_t>(0, 256)), one past T's range: the
    // same draw as [low, max] with endpoint.
    bool one_past = false;
    if constexpr (std::is_integral_v<H> && !std::is_same_v<H, bool>) {
      one_past =
          !endpoint && high > H(0) &&
          static_cast<unsigned long long>(high) - 1 == static_cast<unsigned long long>(std::numeric_limits<T>::max());
    }
    const bool inclusive = endpoint || one_past;
    if constexpr (!array_operand<L> && !array_operand<H>) {
      const auto lo = ndcuda::detail::scalar_as<T>(low);
      const auto hi = one_past ? std::numeric_limits<T>::max() : ndcuda::detail::scalar_as<T>(high);
      detail::check_scalar(inclusive ? lo > hi : lo >= hi, "integers", endpoint ? "low > high" : "low >= high");
    }
    const shape_t shape = detail::draw_shape("integers", size, low, high);
    constexpr int words = sizeof(T) == 8 ? 2 : 1;
    const auto high_param = [&] {
      if constexpr (array_operand<H>) {
        return param<T>(high);
      } else {
        return one_past ? param<T>(std::numeric_limits<T>::max()) : param<T>(high);
      }
    }();
    return detail::node<detail::integers_spec<dtype_of<T>>>(
        leaf<1, words, T>(shape, s, true), param<T>(low), high_param,
        ndcuda::detail::scalar_leaf<dtype::int32>{inclusive ? 1 : 0});
  }
  /// integers(0, high, size).
  template <class T = std::int64_t, class H>
  requires weak_scalar<H>
  [[nodiscard]] auto integers(const H& high, const size_arg& size, stream_arg s = {}) const {
    return integers<T>(T(0), high, size, false, s);
  }
  /// NumPy's standard_gamma(shape, size): Marsaglia-Tsang.
  template <class T = double, parameter K>
  [[nodiscard]] auto standard_gamma(const K& shape, const size_arg& size = {}, stream_arg s = {}) const {
    detail::check_scalar(detail::scalar_value(shape) < 0, "standard_gamma", "shape < 0");
    const shape_t out = detail::draw_shape("standard_gamma", size, shape);
    return detail::node<detail::gamma_spec<dtype_of<T>>>(leaf<1, 0, T>(out, s, true), param<T>(shape));
  }
  /// scale * standard_gamma(shape): NumPy's gamma(shape, scale, size).
  template <class T = double, parameter K, parameter S = double>
  [[nodiscard]] auto gamma(const K& shape, const S& scale = 1.0, const size_arg& size = {}, stream_arg s = {}) const {
    detail::check_scalar(detail::scalar_value(scale) < 0, "gamma", "scale < 0");
    const shape_t out = detail::draw_shape("gamma", size, shape, scale);
    return detail::node<detail::transform_spec<detail::gamma_name, detail::scaled_fn, dtype_of<T>>>(
        standard_gamma<T>(shape, out, s), param<T>(scale));
  }
  /// NumPy's beta(a, b, size).
  template <class T = double, parameter A, parameter B>
  [[nodiscard]] auto beta(const A& a, const B& b, const size_arg& size = {}, stream_arg s = {}) const {
    detail::check_scalar(!array_operand<A> && !(detail::scalar_value(a) > 0), "beta", "a <= 0");
    detail::check_scalar(!array_operand<B> && !(detail::scalar_value(b) > 0), "beta", "b <= 0");
    const shape_t out = detail::draw_shape("beta", size, a, b);
    return detail::node<detail::beta_spec<dtype_of<T>>>(leaf<1, 0, T>(out, s, true), param<double>(a),
                                                        param<double>(b));
  }
  /// NumPy's poisson(lam, size): int64 by default.
  template <class T = std::int64_t, parameter L = double>
  [[nodiscard]] auto poisson(const L& lam = 1.0, const size_arg& size = {}, stream_arg s = {}) const {
    detail::check_scalar(detail::scalar_value(lam) < 0, "poisson", "lam < 0");
    detail::check_scalar(detail::scalar_value(lam) > 9.2233720064847708e+18, "poisson", "lam value too large");
    const shape_t out = detail::draw_shape("poisson", size, lam);
    return detail::node<detail::poisson_spec<dtype_of<T>>>(leaf<1, 0, T>(out, s, true), param<double>(lam));
  }
  /// NumPy's binomial(n, p, size): int64 by default.
  template <class T = std::int64_t, parameter N, parameter P>
  [[nodiscard]] auto binomial(const N& n, const P& p, const size_arg& size = {}, stream_arg s = {}) const {
    detail::check_scalar(detail::scalar_value(n) < 0, "binomial", "n < 0");
    const double pv = detail::scalar_value(p);
    detail::check_scalar(!array_operand<P> && !(pv >= 0 && pv <= 1), "binomial", "p < 0, p > 1 or p is NaN");
    const shape_t out = detail::draw_shape("binomial", size, n, p);
    return detail::node<detail::binomial_spec<dtype_of<T>>>(leaf<1, 0, T>(out, s, true), param<std::int64_t>(n),
                                                            param<double>(p));
  }
  /// 64 random bits per element (the keys permutations sort by).
  [[nodiscard]] auto random_bits(const size_arg& size, stream_arg s = {}) const {
    return detail::node<detail::bits_spec>(leaf<1, 2, std::uint64_t>(size.or_scalar(), s));
  }

  // Sampling and shuffling, defined in random/shuffling.hpp. Eager: they return arrays.
  /// A random ordering of 0..n-1 (int64): NumPy's permutation(n).
  [[nodiscard]] ndarray<std::int64_t> permutation(index_t n, stream_arg s = {}) const;
  /// A copy of `x` with its slices along `axis` in a random order: NumPy's permutation(x, axis).
  template <class T>
  [[nodiscard]] ndarray<T> permutation(const ndarray<T>& x, int axis = 0, stream_arg s = {}) const;
  /// Reorders `x` along `axis` in place (its memory): NumPy's shuffle(x, axis).
  template <class T>
  void shuffle(const ndarray<T>& x, int axis = 0, stream_arg s = {}) const;
  /// Each slice along `axis` shuffled independently (all elements when no axis): NumPy's permuted.
  template <class T>
  [[nodiscard]] ndarray<T> permuted(const ndarray<T>& x, std::optional<int> axis = std::nullopt,
                                    stream_arg s = {}) const;
  /// Rows of `a` (axis 0) with or without replacement, weighted by `p` (summing to 1): NumPy's
  /// choice(a, size, replace, p). Checking p's sum waits for the device.
  template <class T>
  [[nodiscard]] ndarray<T> choice(const ndarray<T>& a, const size_arg& size = {}, bool replace = true,
                                  const choice_weights& p = {}, stream_arg s = {}) const;
  /// choice(arange(n), size, replace, p).
  [[nodiscard]] ndarray<std::int64_t> choice(index_t n, const size_arg& size = {}, bool replace = true,
                                             const choice_weights& p = {}, stream_arg s = {}) const;

  /// Independent child generators (NumPy's spawn): keys from this one's seed and spawn key.
  [[nodiscard]] std::vector<generator> spawn(std::size_t n) const {
    std::vector<generator> out;
    for (auto& st : detail::spawn(*state_, n)) {
      out.push_back(generator(std::move(st)));
    }
    return out;
  }
  /// An independent stream (NumPy's jumped): the key of jumps + `jumps`, offset 0.
  [[nodiscard]] generator jumped(std::uint64_t jumps = 1) const { return generator(detail::jumped(*state_, jumps)); }
  /// The Philox key.
  [[nodiscard]] std::array<std::uint32_t, 2> key() const { return detail::key_of(*state_); }
  /// The device-side offset (in 128-bit Philox blocks) after the work queued on `s`: waits for it.
  [[nodiscard]] std::uint64_t offset(stream_arg s = {}) const { return detail::read_offset(*state_, s.get()); }

 private:
  explicit generator(std::shared_ptr<detail::generator_state> st) : state_(std::move(st)) {}

  /// A draw of `shape` in layout (E, W) of dtype T; `private_streams`: its elements may also read
  /// their own Philox streams, so it reserves at least NDCUDA_RNG_PRIVATE_BLOCKS blocks.
  template <int E, int W, class T>
  [[nodiscard]] ndcuda::detail::random_leaf<E, W, dtype_of<T>> leaf(const shape_t& shape, stream_arg s,
                                                                    bool private_streams = false) const {
    // The draw's bytes must fit an array (NumPy's "array is too big"), so the block count below
    // cannot overflow, and a huge lazy draw is refused before it reserves anything.
    (void)checked_nbytes(shape, sizeof(T));
    const auto n = static_cast<std::uint64_t>(shape_size(shape));
    std::uint64_t blocks = ((n + E - 1) / E * W + 3) / 4;
    if (private_streams) {
      blocks = std::max<std::uint64_t>(blocks, std::uint64_t{1} << 20);
    }
    return {detail::reserve(*state_, blocks, s.get()), contiguous_layout(shape)};
  }
  [[nodiscard]] ndarray<std::int64_t> choice_indices(index_t n, index_t k, bool replace,
                                                     const std::optional<ndarray<double>>& p, stream_arg s) const;
  static index_t nd_count(const ndarray<double>& w);

  template <class T, class X>
  static auto param(const X& x) {
    return detail::param_node<ndcuda::detail::compute_type(dtype_of<T>)>(x);
  }

  std::shared_ptr<detail::generator_state> state_;
};

/// NumPy's default_rng(seed): a Philox generator keyed from `seed`.
[[nodiscard]] inline generator default_rng(std::uint64_t seed) {
  return generator(seed);
}
/// default_rng() seeded from the operating system's entropy.
[[nodiscard]] inline generator default_rng() {
  return generator(detail::entropy_from_os());
}

}  // namespace ndcuda::random

#pragma GCC visibility pop
