// matmul and the other products on the GPU against a host reference in complex<double> on fresh
// random input. Tolerances (support: product_tolerance), per element, relative to sum_k |a||b|:
// float16 1e-3, bfloat16 8e-3 (the result's rounding), float32/complex64 4 k 6e-8 (tight enough
// to fail if TF32 were on), float64/complex128 4 k 1.2e-16; integers and bool exact, with
// NumPy's wrap-around.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <ndcuda/linalg.hpp>
#include <vector>

#include "linalg/gpu_support.hpp"

namespace nd = ndcuda;
using nd::testing::expect_matmul;
using nd::testing::random_array;

namespace {

template <class T>
class MatmulTyped : public ::testing::Test {};
using matmul_types = ::testing::Types<float, double, std::complex<float>, std::complex<double>, __half, __nv_bfloat16,
                                      std::int32_t, std::int8_t, std::uint16_t, std::int64_t, bool>;
TYPED_TEST_SUITE(MatmulTyped, matmul_types);

TYPED_TEST(MatmulTyped, ContiguousTransposedBatchedAndVectors) {
  NDCUDA_REQUIRE_GPU();
  using T = TypeParam;
  const auto a = random_array<T>({37, 53});
  const auto b = random_array<T>({53, 29});
  expect_matmul(nd::matmul(a, b), a, b);
  // Transposed views: read through cuBLAS's transpose flags (float types) or strides (integers).
  const auto at = random_array<T>({53, 37}).T();
  const auto bt = random_array<T>({29, 53}).T();
  expect_matmul(nd::matmul(at, bt), at, bt);
  expect_matmul(nd::matmul(a, bt), a, bt);
  // Batch broadcasting (3, 1) x (4,) and a shared matrix.
  const auto ba = random_array<T>({3, 1, 6, 5});
  const auto bb = random_array<T>({4, 5, 7});
  expect_matmul(nd::matmul(ba, bb), ba, bb);
  const auto shared = random_array<T>({5, 2});
  expect_matmul(nd::matmul(ba, shared), ba, shared);
  // 1-d operands: promoted, then the axis removed.
  const auto v = random_array<T>({53});
  const auto w = random_array<T>({37});
  expect_matmul(nd::matmul(v, b), v, b);
  expect_matmul(nd::matmul(a, v), a, v);
  expect_matmul(nd::matmul(v, v), v, v);
  expect_matmul(nd::matmul(w, w), w, w);
}

TEST(Matmul, NoCopyForTransposesCopyForSteppedColumns) {
  NDCUDA_REQUIRE_GPU();
  const auto a = random_array<float>({64, 48}).T();  // (48, 64), column-major
  const auto b = random_array<float>({64, 80});
  const nd::ndarray<float> c = nd::matmul(a, b);  // bound: the lazy product runs here
  EXPECT_EQ(nd::linalg::detail::last_matmul_report().copies, 0);
  EXPECT_TRUE(nd::linalg::detail::last_matmul_report().cublas);
  expect_matmul(c, a, b);
  // Rows of a larger array: leading dimension, no copy.
  const auto big = random_array<float>({48, 100});
  const auto rows = big(nd::all, nd::slice(10, 74));
  const nd::ndarray<float> d = nd::matmul(rows, b);
  EXPECT_EQ(nd::linalg::detail::last_matmul_report().copies, 0);
  expect_matmul(d, rows, b);
  // Every other column: cuBLAS cannot read it, one copy.
  const auto stepped = big(nd::all, nd::slice(0, 100, 2))(nd::all, nd::slice(0, 50));
  const auto b50 = random_array<float>({50, 7});
  const nd::ndarray<float> e = nd::matmul(stepped, b50);
  EXPECT_EQ(nd::linalg::detail::last_matmul_report().copies, 1);
  expect_matmul(e, stepped, b50);
  // Reversed rows (negative stride): copied, still right.
  const auto rev = big(nd::slice(std::nullopt, std::nullopt, -1), nd::slice(0, 64));
  expect_matmul(nd::matmul(rev, b), rev, b);
  // Broadcast along the inner batch axis only: no single batch stride, copied.
  const auto x = random_array<float>({2, 1, 4, 5});
  const auto y = random_array<float>({1, 3, 5, 6});
  expect_matmul(nd::matmul(x, y), x, y);
}

// Half-precision products of at least 1e8 multiply-adds take the cuBLASLt path (as PyTorch's):
// the same answers, for contiguous, transposed and row-sliced operands.
TEST(Matmul, LargeHalfPrecisionThroughCublasLt) {
  NDCUDA_REQUIRE_GPU();
  const auto a = random_array<__nv_bfloat16>({512, 384});
  const auto b = random_array<__nv_bfloat16>({384, 520});
  const nd::ndarray<__nv_bfloat16> c = nd::matmul(a, b);
  EXPECT_TRUE(nd::linalg::detail::last_matmul_report().cublas);
  EXPECT_EQ(nd::linalg::detail::last_matmul_report().copies, 0);
  expect_matmul(c, a, b);
  const auto at = random_array<__half>({384, 512}).T();
  const auto big = random_array<__half>({400, 600});
  const auto rows = big(nd::slice(8, 392), nd::slice(40, 560));
  const nd::ndarray<__half> d = nd::matmul(at, rows);
  EXPECT_EQ(nd::linalg::detail::last_matmul_report().copies, 0);
  expect_matmul(d, at, rows);
}

TEST(Matmul, MixedDtypesPromote) {
  NDCUDA_REQUIRE_GPU();
  const auto a = random_array<std::int32_t>({9, 11});
  const auto b = random_array<float>({11, 5});
  const nd::ndarray<double> c = nd::matmul(a, b);  // NumPy: int32 @ float32 -> float64
  expect_matmul(c, a.astype<double>(), b.astype<double>());
  const auto h = random_array<__half>({9, 11});
  const nd::ndarray<float> f = nd::matmul(h, b);
  expect_matmul(f, h.astype<float>(), b);
}

TEST(Matmul, EmptyOperands) {
  NDCUDA_REQUIRE_GPU();
  const auto a = random_array<float>({4, 0});
  const auto b = random_array<float>({0, 3});
  const nd::ndarray<float> c = nd::matmul(a, b);  // k = 0: zeros
  ASSERT_EQ(c.shape(), (nd::shape_t{4, 3}));
  for (float x : c.to_host()) {
    EXPECT_EQ(x, 0.0f);
  }
  EXPECT_EQ(nd::matmul(random_array<double>({0, 5}), random_array<double>({5, 2})).shape(), (nd::shape_t{0, 2}));
  EXPECT_EQ(nd::matmul(random_array<double>({0, 3, 5}), random_array<double>({5, 2})).shape(), (nd::shape_t{0, 3, 2}));
  const nd::ndarray<int> ik = nd::matmul(random_array<int>({2, 0}), random_array<int>({0, 2}));
  for (int x : ik.to_host()) {
    EXPECT_EQ(x, 0);
  }
}

TEST(Matmul, Tf32SwitchStillCloseToFloat32) {
  NDCUDA_REQUIRE_GPU();
  const auto a = random_array<float>({128, 256});
  const auto b = random_array<float>({256, 64});
  nd::linalg::set_allow_tf32(true);
  const nd::ndarray<float> c = nd::matmul(a, b);  // computed now, while TF32 is allowed
  nd::linalg::set_allow_tf32(false);
  const nd::ndarray<double> ref = nd::matmul(a.astype<double>(), b.astype<double>());
  const auto g = c.to_host();
  const auto r = ref.to_host();
  for (std::size_t i = 0; i < g.size(); ++i) {
    // TF32 keeps 10 mantissa bits of each input: relative error about 1e-3 of sum |a||b| <= 256.
    EXPECT_NEAR(g[i], r[i], 256 * 2e-3);
  }
}

TEST(Matmul, ShapeErrorsBeforeAnyWork) {
  NDCUDA_REQUIRE_GPU();
  EXPECT_THROW((void)nd::matmul(random_array<float>({2, 3}), random_array<float>({4, 2})), nd::shape_error);
  EXPECT_THROW((void)nd::matmul(random_array<float>({2, 2, 3}), random_array<float>({3, 3, 2})), nd::shape_error);
}

TEST(Products, DotVdotInnerOuterTensordotKron) {
  NDCUDA_REQUIRE_GPU();
  using cf = std::complex<double>;
  const auto a = random_array<double>({3, 4, 5});
  const auto b = random_array<double>({2, 5, 6});
  // dot of N-d arrays: sum over a's last and b's second-to-last axis -> (3, 4, 2, 6).
  const auto d = nd::dot(a, b);
  ASSERT_EQ(d.shape(), (nd::shape_t{3, 4, 2, 6}));
  const auto ha = nd::testing::host_values(a), hb = nd::testing::host_values(b), hd = nd::testing::host_values(d);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 2; ++k)
        for (int m = 0; m < 6; ++m) {
          cf acc = 0;
          for (int t = 0; t < 5; ++t) {
            acc +=
                ha[static_cast<std::size_t>((i * 4 + j) * 5 + t)] * hb[static_cast<std::size_t>((k * 5 + t) * 6 + m)];
          }
          EXPECT_NEAR(std::abs(hd[static_cast<std::size_t>(((i * 4 + j) * 2 + k) * 6 + m)] - acc), 0.0, 1e-12);
        }
  // vdot conjugates its first operand.
  const auto x = random_array<std::complex<float>>({2, 8});
  const auto y = random_array<std::complex<float>>({16});
  const auto hx = nd::testing::host_values(x), hy = nd::testing::host_values(y);
  cf ref = 0;
  for (std::size_t i = 0; i < 16; ++i) {
    ref += std::conj(hx[i]) * hy[i];
  }
  EXPECT_NEAR(std::abs(nd::testing::to_cd(nd::vdot(x, y).item()) - ref), 0.0, 1e-4);
  // inner: last axes of both.
  const auto p = random_array<double>({3, 5});
  const auto q = random_array<double>({4, 5});
  const auto in = nd::inner(p, q);
  ASSERT_EQ(in.shape(), (nd::shape_t{3, 4}));
  expect_matmul(in, p, q.T());
  // outer flattens.
  const auto o = nd::outer(p, random_array<double>({2}));
  ASSERT_EQ(o.shape(), (nd::shape_t{15, 2}));
  // tensordot over two axes equals matmul of the reshaped operands.
  const auto t1 = random_array<double>({3, 4, 5});
  const auto t2 = random_array<double>({4, 5, 2});
  const auto td = nd::tensordot(t1, t2, 2);
  ASSERT_EQ(td.shape(), (nd::shape_t{3, 2}));
  expect_matmul(td, t1.reshape({3, 20}), t2.reshape({20, 2}));
  const auto td2 = nd::tensordot(t1, t2, std::vector<nd::index_t>{1}, std::vector<nd::index_t>{0});
  ASSERT_EQ(td2.shape(), (nd::shape_t{3, 5, 5, 2}));
  // kron of 2x2 and 2x3 blocks.
  const auto k1 = random_array<int>({2, 2});
  const auto k2 = random_array<int>({2, 3});
  const auto kr = nd::kron(k1, k2);
  ASSERT_EQ(kr.shape(), (nd::shape_t{4, 6}));
  const auto h1 = k1.to_host(), h2 = k2.to_host(), hk = kr.to_host();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) {
      EXPECT_EQ(hk[static_cast<std::size_t>(i * 6 + j)],
                h1[static_cast<std::size_t>((i / 2) * 2 + j / 3)] * h2[static_cast<std::size_t>((i % 2) * 3 + j % 3)]);
    }
}

TEST(Products, MultiDotAndMatrixPower) {
  NDCUDA_REQUIRE_GPU();
  const auto a = random_array<double>({10, 30});
  const auto b = random_array<double>({30, 5});
  const auto c = random_array<double>({5, 60});
  const auto v = random_array<double>({60});
  const auto chain = nd::linalg::multi_dot(std::vector<nd::ndarray<double>>{a, b, c, v});
  ASSERT_EQ(chain.shape(), (nd::shape_t{10}));
  const nd::ndarray<double> ab = nd::matmul(a, b);
  const nd::ndarray<double> abc = nd::matmul(ab, c);
  const auto ref = nd::matmul(abc, v).to_host();
  const auto got = chain.to_host();
  for (std::size_t i = 0; i < ref.size(); ++i) {
    EXPECT_NEAR(got[i], ref[i], 1e-10 * (1 + std::abs(ref[i])));
  }
  const auto m = random_array<double>({2, 6, 6});
  const auto p5 = nd::linalg::matrix_power(m, 5);
  nd::ndarray<double> r = m.copy();
  for (int i = 1; i < 5; ++i) {
    r = nd::ndarray<double>(nd::matmul(r, m));
  }
  const auto hp = p5.to_host(), hr = r.to_host();
  for (std::size_t i = 0; i < hp.size(); ++i) {
    EXPECT_NEAR(hp[i], hr[i], 1e-10 * (1 + std::abs(hr[i])));
  }
  const auto p0 = nd::linalg::matrix_power(m, 0).to_host();
  for (int z = 0; z < 2; ++z)
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) {
        EXPECT_EQ(p0[static_cast<std::size_t>((z * 6 + i) * 6 + j)], i == j ? 1.0 : 0.0);
      }
  const auto ints = random_array<std::int64_t>({4, 4});
  const auto ip = nd::linalg::matrix_power(ints, 3);
  expect_matmul(ip, nd::ndarray<std::int64_t>(nd::matmul(ints, ints)), ints);
}

}  // namespace

namespace {

template <class T>
void check_epilogue(nd::linalg::activation act, bool with_bias, double tol_rel) {
  const auto a = random_array<T>({45, 70});
  const auto b = random_array<T>({70, 33}).T().copy().T();  // a transposed view: read in place
  const auto bias = random_array<T>({33});
  const auto got = with_bias ? nd::linalg::matmul_epilogue(a, b, bias, act) : nd::linalg::matmul_epilogue(a, b, act);
  ASSERT_EQ(got.shape(), (nd::shape_t{45, 33}));
  const auto ha = nd::testing::host_values(a), hb = nd::testing::host_values(b), hbias = nd::testing::host_values(bias);
  const auto g = nd::testing::host_values(got);
  for (int i = 0; i < 45; ++i) {
    for (int j = 0; j < 33; ++j) {
      double acc = with_bias ? hbias[static_cast<std::size_t>(j)].real() : 0.0;
      double scale = std::abs(acc);
      for (int k = 0; k < 70; ++k) {
        acc += ha[static_cast<std::size_t>(i * 70 + k)].real() * hb[static_cast<std::size_t>(k * 33 + j)].real();
        scale +=
            std::abs(ha[static_cast<std::size_t>(i * 70 + k)].real() * hb[static_cast<std::size_t>(k * 33 + j)].real());
      }
      double ref = acc;
      if (act == nd::linalg::activation::relu) {
        ref = std::max(acc, 0.0);
      } else if (act == nd::linalg::activation::gelu) {
        ref = 0.5 * acc * (1 + std::tanh(std::sqrt(2 / M_PI) * (acc + 0.044715 * acc * acc * acc)));
      }
      ASSERT_NEAR(g[static_cast<std::size_t>(i * 33 + j)].real(), ref, tol_rel * (scale + 1)) << i << ", " << j;
    }
  }
}

TEST(MatmulEpilogue, BiasReluGeluInOneCall) {
  NDCUDA_REQUIRE_GPU();
  // Tolerances as the products', plus room for the activation's own rounding (GELU in float32).
  check_epilogue<float>(nd::linalg::activation::relu, true, 1e-5);
  check_epilogue<float>(nd::linalg::activation::relu, false, 1e-5);
  check_epilogue<float>(nd::linalg::activation::none, true, 1e-5);
  check_epilogue<float>(nd::linalg::activation::gelu, true, 1e-4);
  check_epilogue<double>(nd::linalg::activation::relu, true, 1e-12);
  check_epilogue<__nv_bfloat16>(nd::linalg::activation::relu, true, 1.6e-2);
  check_epilogue<__half>(nd::linalg::activation::gelu, true, 4e-3);
  EXPECT_THROW((void)nd::linalg::matmul_epilogue(random_array<float>({4, 5}), random_array<float>({5, 6}),
                                                 random_array<float>({4}), nd::linalg::activation::relu),
               nd::shape_error);
}

}  // namespace

namespace {

TEST(Handles, CreatedOnlyOnTheDeviceUsedMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  // A fresh process (ctest runs each test alone): nothing was created before this call.
  ASSERT_EQ(nd::linalg::detail::created_handles().blas, 0u);
  const nd::stream s1(1);
  const auto a = nd::asarray<float>(nd::testing::random_values<float>(64), {8, 8}, s1);
  const nd::ndarray<float> c = nd::matmul(a, a);
  EXPECT_EQ(c.device(), 1);
  const auto x = nd::linalg::solve(nd::ndarray<float>(a + nd::eye<float>(8, std::nullopt, 0, s1) * 8.0f), a);
  s1.synchronize();
  const auto bits = nd::linalg::detail::created_handles();
  EXPECT_EQ(bits.blas, 2u) << "cuBLAS handle on device 1 only";
  EXPECT_EQ(bits.solver, 2u) << "cuSOLVER handle on device 1 only";
  EXPECT_EQ(bits.fft, 0u);
  expect_matmul(c, a, a);
}

}  // namespace
