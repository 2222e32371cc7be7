// nd::fft on the GPU against a direct host DFT in complex<double> on fresh random input, plus
// round trips. Tolerances, relative to sqrt(n) max|x| (the DFT's error scale): complex64/float32
// 1e-5 * log2(n) + 1e-6, complex128/float64 1e-13 * log2(n).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <ndcuda/fft.hpp>
#include <ndcuda/linalg.hpp>
#include <vector>

#include "linalg/gpu_support.hpp"

namespace nd = ndcuda;
using nd::testing::cd;
using nd::testing::host_values;
using nd::testing::random_array;

namespace {

/// The DFT of one 1-d signal, cropped / zero-padded to n, sign -1 (forward) or +1.
std::vector<cd> host_dft(const std::vector<cd>& x, std::size_t n, int sign) {
  std::vector<cd> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    cd acc = 0;
    for (std::size_t j = 0; j < n && j < x.size(); ++j) {
      const double angle = sign * 2.0 * M_PI * static_cast<double>(j * k % n) / static_cast<double>(n);
      acc += x[j] * cd(std::cos(angle), std::sin(angle));
    }
    out[k] = acc;
  }
  return out;
}

/// The DFT along `axis` of a C-order host array of `shape`.
std::vector<cd> host_dft_axis(const std::vector<cd>& x, const nd::shape_t& shape, int axis, std::size_t n, int sign,
                              nd::shape_t* out_shape) {
  nd::shape_t os = shape;
  os[static_cast<std::size_t>(axis)] = static_cast<nd::index_t>(n);
  const auto is = nd::c_strides(shape), ost = nd::c_strides(os);
  std::vector<cd> out(static_cast<std::size_t>(nd::shape_size(os)));
  const nd::index_t len = shape[static_cast<std::size_t>(axis)];
  const nd::index_t lines = nd::shape_size(shape) / std::max<nd::index_t>(len, 1);
  for (nd::index_t line = 0; line < lines; ++line) {
    // The line's start: unravel over every axis but `axis`.
    nd::index_t rest = line, in0 = 0, out0 = 0;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (d == axis) {
        continue;
      }
      const nd::index_t c = rest % shape[static_cast<std::size_t>(d)];
      rest /= shape[static_cast<std::size_t>(d)];
      in0 += c * is[static_cast<std::size_t>(d)];
      out0 += c * ost[static_cast<std::size_t>(d)];
    }
    std::vector<cd> v(static_cast<std::size_t>(len));
    for (nd::index_t j = 0; j < len; ++j) {
      v[static_cast<std::size_t>(j)] = x[static_cast<std::size_t>(in0 + j * is[static_cast<std::size_t>(axis)])];
    }
    const auto f = host_dft(v, n, sign);
    for (std::size_t k = 0; k < n; ++k) {
      out[static_cast<std::size_t>(out0 + static_cast<nd::index_t>(k) * ost[static_cast<std::size_t>(axis)])] = f[k];
    }
  }
  *out_shape = os;
  return out;
}

template <class T>
double fft_tol(std::size_t n) {
  const double lg = std::log2(static_cast<double>(std::max<std::size_t>(n, 2)));
  return std::is_same_v<T, float> || std::is_same_v<T, std::complex<float>> ? 1e-5 * lg + 1e-6 : 1e-13 * lg;
}

template <class E>
void expect_close(const nd::ndarray<E>& got, const std::vector<cd>& ref, const nd::shape_t& shape, double tol) {
  ASSERT_EQ(got.shape(), shape);
  const auto g = host_values(got);
  double scale = 0;
  for (const cd& r : ref) {
    scale = std::max(scale, std::abs(r));
  }
  for (std::size_t i = 0; i < g.size(); ++i) {
    ASSERT_LE(std::abs(g[i] - ref[i]), tol * (1 + scale)) << "element " << i;
  }
}

template <class T>
class FftTyped : public ::testing::Test {};
using fft_types = ::testing::Types<std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(FftTyped, fft_types);

TYPED_TEST(FftTyped, FftIfftAlongEachAxisWithPadCropAndNorms) {
  NDCUDA_REQUIRE_GPU();
  using T = TypeParam;
  const auto x = random_array<T>({6, 35});
  const auto hx = host_values(x);
  nd::shape_t s;
  for (int axis : {0, 1}) {
    for (nd::index_t n : {nd::index_t{35}, nd::index_t{64}, nd::index_t{20}, nd::index_t{6}}) {
      const auto ref = host_dft_axis(hx, x.shape(), axis, static_cast<std::size_t>(n), -1, &s);
      expect_close(nd::fft::fft(x, n, axis), ref, s, fft_tol<T>(static_cast<std::size_t>(n)));
      auto inv = host_dft_axis(hx, x.shape(), axis, static_cast<std::size_t>(n), +1, &s);
      for (auto& v : inv) {
        v /= static_cast<double>(n);
      }
      expect_close(nd::fft::ifft(x, n, axis), inv, s, fft_tol<T>(static_cast<std::size_t>(n)));
    }
  }
  // norm="ortho" and "forward" scale the forward transform.
  const auto ref = host_dft_axis(hx, x.shape(), 1, 35, -1, &s);
  std::vector<cd> ortho = ref, fwd = ref;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    ortho[i] /= std::sqrt(35.0);
    fwd[i] /= 35.0;
  }
  expect_close(nd::fft::fft(x, std::nullopt, -1, "ortho"), ortho, s, fft_tol<T>(35));
  expect_close(nd::fft::fft(x, std::nullopt, -1, "forward"), fwd, s, fft_tol<T>(35));
  // A transposed view as input.
  const auto xt = x.T();
  const auto hxt = host_values(xt);
  expect_close(nd::fft::fft(xt, std::nullopt, 0), host_dft_axis(hxt, xt.shape(), 0, 35, -1, &s), s, fft_tol<T>(35));
}

TYPED_TEST(FftTyped, NdTransformsAndRoundTrips) {
  NDCUDA_REQUIRE_GPU();
  using T = TypeParam;
  const auto x = random_array<T>({3, 8, 12});
  const auto hx = host_values(x);
  nd::shape_t s1, s2;
  const auto a1 = host_dft_axis(hx, x.shape(), 2, 12, -1, &s1);
  const auto a2 = host_dft_axis(a1, s1, 1, 8, -1, &s2);
  expect_close(nd::fft::fft2(x), a2, s2, fft_tol<T>(96));
  const auto a3 = host_dft_axis(a2, s2, 0, 3, -1, &s1);
  expect_close(nd::fft::fftn(x), a3, s1, fft_tol<T>(288));
  // Round trips.
  expect_close(nd::fft::ifftn(nd::fft::fftn(x)), hx, x.shape(), fft_tol<T>(288));
  expect_close(nd::fft::ifft2(nd::fft::fft2(x, std::nullopt, {0, 2}), std::nullopt, {0, 2}), hx, x.shape(),
               fft_tol<T>(36));
  // More than three axes: cuFFT's rank limit is worked around.
  const auto y = random_array<T>({2, 3, 4, 5});
  expect_close(nd::fft::ifftn(nd::fft::fftn(y)), host_values(y), y.shape(), fft_tol<T>(120));
}

TEST(Fft, RealTransformsAndDtypes) {
  NDCUDA_REQUIRE_GPU();
  const auto x = random_array<float>({5, 30});
  const auto hx = host_values(x);
  nd::shape_t s;
  // rfft keeps the first n / 2 + 1 values of the full DFT.
  const auto full = host_dft_axis(hx, x.shape(), 1, 30, -1, &s);
  std::vector<cd> half;
  for (int r = 0; r < 5; ++r) {
    for (int k = 0; k < 16; ++k) {
      half.push_back(full[static_cast<std::size_t>(r * 30 + k)]);
    }
  }
  const nd::ndarray<std::complex<float>> rf = nd::fft::rfft(x);
  expect_close(rf, half, nd::shape_t{5, 16}, fft_tol<float>(30));
  // irfft inverts it (even and odd n).
  expect_close(nd::fft::irfft(rf, 30), hx, x.shape(), fft_tol<float>(30));
  const auto odd = random_array<double>({4, 9});
  expect_close(nd::fft::irfft(nd::fft::rfft(odd), 9), host_values(odd), odd.shape(), fft_tol<double>(9));
  // rfft2 / irfft2 and rfftn / irfftn round trips; rfftn equals fftn's first half.
  const auto img = random_array<double>({6, 10});
  const auto r2 = nd::fft::rfft2(img);
  ASSERT_EQ(r2.shape(), (nd::shape_t{6, 6}));
  const auto f2 = host_values(nd::fft::fft2(img));
  const auto hr2 = host_values(r2);
  for (int i = 0; i < 6; ++i)
    for (int k = 0; k < 6; ++k) {
      EXPECT_LT(std::abs(hr2[static_cast<std::size_t>(i * 6 + k)] - f2[static_cast<std::size_t>(i * 10 + k)]), 1e-11);
    }
  expect_close(nd::fft::irfft2(r2, nd::shape_t{6, 10}), host_values(img), img.shape(), fft_tol<double>(60));
  const auto vol = random_array<float>({2, 3, 4, 6});
  expect_close(nd::fft::irfftn(nd::fft::rfftn(vol), vol.shape()), host_values(vol), vol.shape(), fft_tol<float>(144));
  // Integer input computes in complex128.
  const nd::ndarray<std::complex<double>> fi = nd::fft::fft(nd::asarray<int>({1, 2, 3, 4}));
  const auto hfi = host_values(fi);
  EXPECT_LT(std::abs(hfi[0] - cd(10, 0)), 1e-12);
  EXPECT_LT(std::abs(hfi[1] - cd(-2, 2)), 1e-12);
}

TEST(Fft, HfftIhfftAndHelpers) {
  NDCUDA_REQUIRE_GPU();
  // ihfft then hfft is the identity on real signals (NumPy's pair).
  const auto x = random_array<double>({14});
  const auto back = nd::fft::hfft(nd::fft::ihfft(x), 14);
  expect_close(back, host_values(x), x.shape(), 1e-12);
  // hfft of a Hermitian half-spectrum equals the real DFT of the full signal times n... check
  // against the definition: hfft(a, n) = irfft(conj(a), n) * n.
  const auto a = random_array<std::complex<double>>({8});
  const auto h = host_values(nd::fft::hfft(a, 14));
  const auto ir = host_values(nd::fft::irfft(nd::ndarray<std::complex<double>>(nd::conj(a)), 14));
  for (std::size_t i = 0; i < h.size(); ++i) {
    EXPECT_LT(std::abs(h[i] - ir[i] * 14.0), 1e-11);
  }
  // fftfreq / rfftfreq as NumPy.
  EXPECT_EQ(nd::fft::fftfreq(5, 0.5).to_host(), (std::vector<double>{0, 0.4, 0.8, -0.8, -0.4}));
  EXPECT_EQ(nd::fft::fftfreq(4).to_host(), (std::vector<double>{0, 0.25, -0.5, -0.25}));
  EXPECT_EQ(nd::fft::rfftfreq(5).to_host(), (std::vector<double>{0, 0.2, 0.4}));
  // fftshift / ifftshift of odd and even lengths, one axis and all.
  const auto v = nd::asarray<int>({0, 1, 2, 3, 4});
  EXPECT_EQ(nd::fft::fftshift(v).to_host(), (std::vector<int>{3, 4, 0, 1, 2}));
  EXPECT_EQ(nd::fft::ifftshift(v).to_host(), (std::vector<int>{2, 3, 4, 0, 1}));
  const auto m = nd::asarray<int>({0, 1, 2, 3, 4, 5}, {2, 3});
  EXPECT_EQ(nd::fft::fftshift(m).to_host(), (std::vector<int>{5, 3, 4, 2, 0, 1}));
  EXPECT_EQ(nd::fft::fftshift(m, std::vector<nd::index_t>{1}).to_host(), (std::vector<int>{2, 0, 1, 5, 3, 4}));
  // NumPy's spellings of axes: fftshift(m, axes=1), axes=(1,), axes=(0, 1); ifftshift undoes each.
  EXPECT_EQ(nd::fft::fftshift(m, 1).to_host(), (std::vector<int>{2, 0, 1, 5, 3, 4}));
  EXPECT_EQ(nd::fft::fftshift(m, {1}).to_host(), (std::vector<int>{2, 0, 1, 5, 3, 4}));
  EXPECT_EQ(nd::fft::fftshift(m, {0, 1}).to_host(), nd::fft::fftshift(m).to_host());
  EXPECT_EQ(nd::fft::ifftshift(nd::fft::fftshift(m, -1), {-1}).to_host(), m.to_host());
  EXPECT_EQ(nd::fft::ifftshift(nd::fft::fftshift(m)).to_host(), m.to_host());
}

TEST(Fft, PlansAreCachedAndCapturable) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  const auto x = nd::asarray<std::complex<float>>(nd::testing::random_values<std::complex<float>>(256), {256}, s);
  (void)nd::fft::fft(x);
  const std::size_t plans = nd::fft::detail::cached_plans(s.device());
  (void)nd::fft::fft(x);
  EXPECT_EQ(nd::fft::detail::cached_plans(s.device()), plans);
  EXPECT_NE(nd::fft::detail::plan_devices() & 1u, 0u);
  nd::ndarray<std::complex<float>> out = nd::zeros<std::complex<float>>({256}, s);
  nd::graph g = nd::capture(s, [&] { out(nd::ellipsis) = nd::fft::fft(x); });
  g.launch(s);
  s.synchronize();
  nd::shape_t shape;
  expect_close(out, host_dft_axis(host_values(x), x.shape(), 0, 256, -1, &shape), shape, fft_tol<float>(256));
}

}  // namespace
