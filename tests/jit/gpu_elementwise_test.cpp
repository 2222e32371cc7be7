// elementwise_kernel on a GPU, against host references on fresh random input: the dense path
// (aligned vectors, misaligned, odd tails), broadcasting, transposed and strided layouts, the
// element types with their own device twins (complex, half), and 64-bit indexing.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <ndcuda/ndcuda.hpp>

#include "gpu_support.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

double scaled_sum(double x, double y) {
  return x * 3.5 + y * y;
}

using cf = std::complex<float>;

// The kernels of the tests below, made in one place so that a CPU test can compile them all.
nd::elementwise_kernel<float(float, float)> scaled_sum_kernel() {
  return {"out = x * 3.5f + y * y", "scaled_sum"};
}
nd::elementwise_kernel<cf(cf, cf)> complex_kernel() {
  return {"out = x * y + conj(x) / y - exp(x)", "complex_mix"};
}
nd::elementwise_kernel<float(__half, __half)> half_kernel() {
  return {"out = x * y", "half_product"};
}
nd::elementwise_kernel<bool(std::int64_t, std::int64_t)> less_kernel() {
  return {"out = x < y", "less"};
}
nd::elementwise_kernel<double(double, double, double, double, double)> five_kernel() {
  return {"double s = x + y + z + w;\nout = s * in4", "five_inputs"};
}
nd::elementwise_kernel<std::int32_t()> fill_kernel() {
  return {"out = 7", "fill_seven"};
}
nd::elementwise_kernel<std::uint8_t(std::uint8_t)> add_one_kernel() {
  return {"out = x + 1", "add_one"};
}

}  // namespace

TEST(JitElementwise, TheGpuTestsKernelsCompile) {
  // Runs everywhere: the bodies below must at least compile where no GPU can run them.
  const nd::compute_capability cc{9, 0};
  EXPECT_NO_THROW(scaled_sum_kernel().compile(cc));
  EXPECT_NO_THROW(complex_kernel().compile(cc));
  EXPECT_NO_THROW(half_kernel().compile(cc));
  EXPECT_NO_THROW(less_kernel().compile(cc));
  EXPECT_NO_THROW(five_kernel().compile(cc));
  EXPECT_NO_THROW(fill_kernel().compile(cc));
  EXPECT_NO_THROW(add_one_kernel().compile(cc));
}

TEST(JitElementwiseGpu, ScaledSumOnDenseArraysMatchesTheHost) {
  NDCUDA_REQUIRE_GPU();
  const auto kernel = scaled_sum_kernel();
  nd::stream s(0);
  // n not a multiple of the vector width; then the same data seen from misaligned pointers.
  const std::size_t n = (1U << 20) + 7;
  const auto x = nd::testing::uniform_values<float>(n + 1, -1.0, 1.0);
  const auto y = nd::testing::uniform_values<float>(n + 1, -1.0, 1.0);
  nd::testing::device_buffer<float> dx(0, x);
  nd::testing::device_buffer<float> dy(0, y);
  nd::testing::device_buffer<float> out(0, n + 1);
  for (std::size_t offset : {std::size_t{0}, std::size_t{1}}) {
    kernel(static_cast<nd::index_t>(n), out.data() + offset, dx.data() + offset, dy.data() + offset, s);
    s.synchronize();
    const auto got = out.download();
    for (std::size_t i = offset; i < n + offset; ++i) {
      const double expected = scaled_sum(x[i], y[i]);
      ASSERT_NEAR(got[i], expected, 1e-6 * (1 + std::abs(expected))) << "offset " << offset << ", at " << i;
    }
  }
  // Tiny sizes, through the tail loop only.
  for (nd::index_t tiny : {1, 2, 3}) {
    kernel(tiny, out.data(), dx.data(), dy.data(), s);
  }
  kernel(0, out.data(), dx.data(), dy.data(), s);  // nothing to do: no launch
  s.synchronize();
  const auto got = out.download();
  for (std::size_t i = 0; i < 3; ++i) ASSERT_NEAR(got[i], scaled_sum(x[i], y[i]), 1e-6 * (1 + std::abs(got[i])));
}

TEST(JitElementwiseGpu, InputsBroadcastAndLayoutsMayBeStrided) {
  NDCUDA_REQUIRE_GPU();
  const auto kernel = scaled_sum_kernel();
  nd::stream s(0);
  constexpr std::size_t rows = 64;
  constexpr std::size_t cols = 100;
  const auto a = nd::testing::uniform_values<float>(rows * cols, -1.0, 1.0);
  const auto b = nd::testing::uniform_values<float>(2 * rows + cols, -1.0, 1.0);
  nd::testing::device_buffer<float> da(0, a);
  nd::testing::device_buffer<float> db(0, b);
  nd::testing::device_buffer<float> out(0, rows * cols);

  // out[r, c] = f(a[r, c], b[c]): b broadcast along axis 0.
  kernel({out.data(), {64, 100}}, {da.data(), {64, 100}}, {db.data(), {100}}, s);
  s.synchronize();
  auto got = out.download();
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      ASSERT_NEAR(got[r * cols + c], scaled_sum(a[r * cols + c], b[c]), 1e-5) << r << ", " << c;
    }
  }

  // A transposed output: out is stored column-major (strides {1, rows}), inputs row-major, and
  // b is a column (shape {64, 1}) broadcast along axis 1, read from every other element.
  kernel({out.data(), {64, 100}, {1, 64}}, {da.data(), {64, 100}}, {db.data(), {64, 1}, {2, 0}}, s);
  s.synchronize();
  got = out.download();
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      ASSERT_NEAR(got[c * rows + r], scaled_sum(a[r * cols + c], b[2 * r]), 1e-5) << r << ", " << c;
    }
  }

  // A reversed 3-d input (it collapses into one reversed dimension) and a scalar (0-d) input.
  const nd::shape_t shape = {4, 5, 5};
  kernel({out.data(), shape}, {da.data() + 99, shape, {-25, -5, -1}}, {db.data() + 3, {}}, s);
  s.synchronize();
  got = out.download();
  for (std::size_t i = 0; i < 100; ++i) ASSERT_NEAR(got[i], scaled_sum(a[99 - i], b[3]), 1e-5) << i;

  EXPECT_THROW(kernel({out.data(), {64, 100}}, {da.data(), {64, 100}}, {db.data(), {3}}, s), nd::shape_error);
  EXPECT_THROW(kernel({out.data(), {64, 100}, {0, 1}}, {da.data(), {64, 100}}, {db.data(), {100}}, s), nd::shape_error)
      << "a broadcast output";
}

TEST(JitElementwiseGpu, ComplexHalfBoolAndIntegerKernelsMatchTheHost) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  const std::size_t n = 10007;

  const auto complex_mix = complex_kernel();
  const auto cx = nd::testing::uniform_values<cf>(n, -1.0, 1.0);
  auto cy = nd::testing::uniform_values<cf>(n, -1.0, 1.0);
  for (auto& v : cy) v += cf(2.0F, 0.0F);  // keep away from 0
  nd::testing::device_buffer<cf> dcx(0, cx);
  nd::testing::device_buffer<cf> dcy(0, cy);
  nd::testing::device_buffer<cf> dcout(0, n);
  complex_mix(static_cast<nd::index_t>(n), dcout.data(), dcx.data(), dcy.data(), s);

  const auto half_product = half_kernel();
  std::vector<__half> hx(n);
  std::vector<__half> hy(n);
  for (std::size_t i = 0; i < n; ++i) {
    hx[i] = __float2half(static_cast<float>(cx[i].real()) * 8);
    hy[i] = __float2half(static_cast<float>(cx[i].imag()) * 8);
  }
  nd::testing::device_buffer<__half> dhx(0, hx);
  nd::testing::device_buffer<__half> dhy(0, hy);
  nd::testing::device_buffer<float> dhout(0, n);
  half_product(static_cast<nd::index_t>(n), dhout.data(), dhx.data(), dhy.data(), s);

  const auto less = less_kernel();
  const double big = std::ldexp(1.0, 40);
  const std::vector<std::int64_t> ix = nd::testing::uniform_values<std::int64_t>(n, -big, big);
  std::vector<std::int64_t> iy = nd::testing::uniform_values<std::int64_t>(n, -big, big);
  for (std::size_t i = 0; i < n; i += 5) {
    iy[i] = ix[i];  // equal pairs too
  }
  nd::testing::device_buffer<std::int64_t> dix(0, ix);
  nd::testing::device_buffer<std::int64_t> diy(0, iy);
  nd::testing::device_buffer<std::uint8_t> dbout(0, n);  // not <bool>: std::vector<bool> has no data()
  less(static_cast<nd::index_t>(n), reinterpret_cast<bool*>(dbout.data()), dix.data(), diy.data(), s);

  const auto five = five_kernel();
  std::vector<double> d(n);
  for (std::size_t i = 0; i < n; ++i) d[i] = cx[i].real();
  nd::testing::device_buffer<double> dd(0, d);
  nd::testing::device_buffer<double> ddout(0, n);
  five(static_cast<nd::index_t>(n), ddout.data(), dd.data(), dd.data(), dd.data(), dd.data(), dd.data(), s);

  const auto fill = fill_kernel();
  nd::testing::device_buffer<std::int32_t> dfill(0, n);
  fill(static_cast<nd::index_t>(n), dfill.data(), s);
  s.synchronize();

  const auto cout = dcout.download();
  const auto hout = dhout.download();
  const auto bout = dbout.download();
  const auto dout = ddout.download();
  const auto fout = dfill.download();
  for (std::size_t i = 0; i < n; ++i) {
    const std::complex<double> x(cx[i]);
    const std::complex<double> y(cy[i]);
    const std::complex<double> expected = x * y + std::conj(x) / y - std::exp(x);
    ASSERT_NEAR(cout[i].real(), expected.real(), 1e-5 * (1 + std::abs(expected))) << i;
    ASSERT_NEAR(cout[i].imag(), expected.imag(), 1e-5 * (1 + std::abs(expected))) << i;
    // The float product of two halves is exact, so rounding it to half is what __hmul does.
    ASSERT_EQ(hout[i], __half2float(__float2half(__half2float(hx[i]) * __half2float(hy[i])))) << i;
    ASSERT_EQ(bout[i], ix[i] < iy[i] ? 1 : 0) << i;
    ASSERT_NEAR(dout[i], 4 * d[i] * d[i], 1e-12) << i;
    ASSERT_EQ(fout[i], 7) << i;
  }
}

TEST(JitElementwiseGpu, MoreThanAGigaElementUsesSixtyFourBitIndexing) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = (std::size_t{1} << 30) + 17;  // past the 32-bit variants' limit
  if (nd::device(0).memory().free < 3 * n) GTEST_SKIP() << "needs 3 GiB of free device memory";
  nd::testing::device_buffer<std::uint8_t> in(0, n);
  nd::testing::device_buffer<std::uint8_t> out(0, n);
  {
    nd::device_guard guard(0);
    ASSERT_EQ(cudaMemset(in.data(), 5, n), cudaSuccess);
    ASSERT_EQ(cudaMemset(in.data() + n - 1, 200, 1), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  const auto add_one = add_one_kernel();
  nd::stream s(0);
  add_one(static_cast<nd::index_t>(n), out.data(), in.data(), s);
  s.synchronize();
  std::vector<std::uint8_t> head(4096);
  std::vector<std::uint8_t> tail(4096);
  nd::device_guard guard(0);
  ASSERT_EQ(cudaMemcpy(head.data(), out.data(), head.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(tail.data(), out.data() + n - tail.size(), tail.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  for (auto v : head) ASSERT_EQ(v, 6);
  for (std::size_t i = 0; i + 1 < tail.size(); ++i) ASSERT_EQ(tail[i], 6) << i;
  EXPECT_EQ(tail.back(), 201);
}
