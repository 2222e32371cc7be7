// A user's translation unit over every public umbrella header, compiled (never run) at -O3 -Wall
// -Wextra -Werror: ndcuda's inline code must not make a consumer's build warn (g++ 12's -Wrestrict
// on string concatenation inlined from a header was one). Builds on the public API only.
#include <complex>
#include <cstdint>
#include <iostream>
#include <ndcuda/fft.hpp>
#include <ndcuda/io.hpp>
#include <ndcuda/linalg.hpp>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/random.hpp>
#include <string>
#include <vector>
#ifdef NDCUDA_HAS_DIST
#include <ndcuda/dist.hpp>
#endif

namespace nd = ndcuda;

// Each function instantiates a family of templates a typical program uses; the arguments come from
// the caller so nothing folds away.
template <class T>
nd::ndarray<T> elementwise(const nd::ndarray<T>& a, const nd::ndarray<T>& b) {
  nd::ndarray<T> d = a + T(2) * nd::sin(b) - a / b;
  d(nd::ellipsis) = nd::where(a > b, a, b);
  d += a;
  d = nd::clip(nd::maximum(d, b), T(0), T(1)).template astype<T>();
  return d;
}

template <class T>
nd::ndarray<T> integers(const nd::ndarray<T>& a, const nd::ndarray<T>& b) {
  nd::ndarray<T> d = (a & b) | ((a << T(1)) ^ ~b);
  d %= b;
  return nd::floor_divide(d, b);
}

template <class T>
double reductions(const nd::ndarray<T>& a) {
  const auto s = nd::sum(a * a, 0, nd::keepdims);
  const auto v = nd::var(a, 0, nd::ddof(1));
  const auto m = nd::max(a);
  const auto k = nd::argmax(a, 1);
  return nd::sum(s).item() + nd::mean(v).item() + double(m.item()) + double(k.size()) + nd::norm(a).item();
}

template <class T>
nd::ndarray<T> creation_and_views(const std::vector<T>& host, nd::index_t n) {
  auto a = nd::asarray(host, {n, n});
  auto l = nd::linspace<T>(T(0), T(1), n);
  auto z = nd::zeros<T>({n, n}) + nd::ones<T>({n}) + nd::full<T>({n}, T(3)) + nd::arange<T>(n);
  auto col = a(nd::all, nd::slice(0, n, 2));
  auto t = a.T();
  auto r = a.reshape({n * n});
  std::cout << a << col << t << r << l << '\n';
  auto sorted = nd::sort(nd::cumsum(r, 0));
  return z + sorted.reshape({n, n});
}

template <class T>
nd::ndarray<T> linear_algebra(const nd::ndarray<T>& a, const nd::ndarray<T>& b) {
  auto p = nd::matmul(a, b.T());
  auto e = nd::einsum("ij,jk->ik", a, b);
  auto t = nd::tensordot(a, b, 1);
  auto x = nd::linalg::solve(a, b);
  auto q = nd::linalg::inv(a);
  const nd::ndarray<T> relu = nd::maximum(nd::matmul(a, b) + a(0), 0);  // one cuBLASLt epilogue
  const nd::ndarray<T> gelu = nd::gelu(a(0) + nd::matmul(a, b));
  return p + e + t + x + q + relu + gelu + nd::linalg::matrix_power(a, 3);
}

template <class T>
nd::ndarray<T> random_draws(std::uint64_t seed, nd::index_t n) {
  auto g = nd::random::default_rng(seed);
  nd::ndarray<T> u = g.template uniform<T>(T(0), T(1), nd::shape_t{n});
  nd::ndarray<T> v = g.template normal<T>({n}) + g.template random<T>({n});
  auto perm = g.permutation(n);
  return u + v + perm.template astype<T>();
}

template <class T>
nd::ndarray<std::complex<T>> transforms(const nd::ndarray<T>& a) {
  auto f = nd::fft::rfft(a);
  auto g = nd::fft::fft(f);
  auto h = nd::fft::irfft(g);
  return nd::fft::fftn(h.template astype<std::complex<T>>()) +
         nd::fft::fftfreq<T>(a.shape()[0]).template astype<std::complex<T>>();
}

// The documented row-fused spellings (softmax, standardisation: g++ 12 once warned
// -Wstringop-overflow/-Warray-bounds from the row-fusion headers) and the rearranging, size and
// text-file spellings that once warned under -Wextra (missing field initializers).
template <class T>
nd::ndarray<T> documented_spellings(const nd::ndarray<T>& x, std::uint64_t seed) {
  auto e = nd::exp(x - nd::max(x, 1, nd::keepdims));
  nd::ndarray<T> softmax = e / nd::sum(e, 1, nd::keepdims);
  nd::ndarray<T> standard = (x - nd::mean(x, 0)) / nd::std(x, 0);
  nd::ndarray<T> tiled = nd::repeat(nd::tile(softmax, {2, 2}), 2, 0);
  nd::savetxt("out.csv", standard, {.fmt = "%.6g", .delimiter = ",", .header = "x"});
  auto g = nd::random::default_rng(seed);
  const nd::ndarray<std::int64_t> picks = g.choice(x.shape()[0], 10, false);
  std::cout << x.shape() << picks << g.integers<std::int64_t>(0, 10, {16}) << '\n';
  nd::ndarray<T> padded = nd::pad(standard * T(2), 1);
  return tiled * nd::sum(padded);
}

void use_everything(nd::index_t n, std::uint64_t seed) {
  const std::vector<float> hf(static_cast<std::size_t>(n * n), 1.0f);
  const std::vector<double> hd(static_cast<std::size_t>(n * n), 1.0);
  const std::vector<std::int32_t> hi(static_cast<std::size_t>(n * n), 1);
  const auto af = creation_and_views(hf, n);
  const auto ad = creation_and_views(hd, n);
  const auto ai = nd::asarray(hi, {n, n});
  std::cout << elementwise(af, af) << elementwise(ad, ad) << integers(ai, ai) << reductions(af) << reductions(ad)
            << linear_algebra(af, af) << linear_algebra(ad, ad) << random_draws<float>(seed, n)
            << random_draws<double>(seed, n) << transforms(af) << transforms(ad) << documented_spellings(af, seed)
            << documented_spellings(ad, seed) << '\n';
}
