// Fused epilogues from plain expressions (issue 17): nd::matmul is a lazy node, and
// maximum(matmul + bias, 0), gelu(matmul + bias) and matmul + bias run as ONE cuBLASLt call,
// counted by linalg::detail::epilogue_calls(). GPU cases against a host double reference on fresh
// random input; tolerances per element relative to 1 + sum |bias| + sum_k |a b|: float32 1e-5
// (TF32 off), float64 1e-12, bfloat16 1.6e-2 and float16 4e-3 (the result's rounding), GELU's
// float32 evaluation 1e-4; integers exact. The classification and the shape checks run on the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <ndcuda/linalg.hpp>
#include <vector>

#include "linalg/gpu_support.hpp"
#include "support/fake_array.hpp"

namespace nd = ndcuda;
using nd::testing::host_values;
using nd::testing::random_array;

namespace {

enum class act { none, relu, gelu };

/// act(a @ b + bias(i, j)) on the host in double for 2-d a (m, k) and b (k, n); `floor` is relu's
/// other operand (0 for a relu, 0.5 for the maximum that must not be fused).
struct reference {
  std::vector<double> value;
  std::vector<double> scale;
};
template <class A, class B>
reference host_reference(const nd::ndarray<A>& a, const nd::ndarray<B>& b, const std::function<double(int, int)>& bias,
                         act f, double floor = 0.0) {
  const auto ha = host_values(a), hb = host_values(b);
  const int m = static_cast<int>(a.shape()[0]), k = static_cast<int>(a.shape()[1]), n = static_cast<int>(b.shape()[1]);
  reference r;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double acc = bias(i, j);
      double scale = 1 + std::abs(acc);
      for (int p = 0; p < k; ++p) {
        const double t =
            ha[static_cast<std::size_t>(i * k + p)].real() * hb[static_cast<std::size_t>(p * n + j)].real();
        acc += t;
        scale += std::abs(t);
      }
      if (f == act::relu) {
        acc = std::max(acc, floor);
      } else if (f == act::gelu) {
        acc = 0.5 * acc * (1 + std::tanh(std::sqrt(2 / M_PI) * (acc + 0.044715 * acc * acc * acc)));
      }
      r.value.push_back(acc);
      r.scale.push_back(scale);
    }
  }
  return r;
}

template <class R>
void expect_close(const nd::ndarray<R>& got, const reference& ref, double tol) {
  const auto g = host_values(got);
  ASSERT_EQ(g.size(), ref.value.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    ASSERT_NEAR(g[i].real(), ref.value[i], tol * ref.scale[i]) << "element " << i << " of " << g.size();
  }
}

/// The bias (n,) read at column j.
template <class T>
std::function<double(int, int)> per_column(const nd::ndarray<T>& bias) {
  const auto h = host_values(bias);
  return [h](int, int j) { return h[static_cast<std::size_t>(j)].real(); };
}

long long fused() {
  return nd::linalg::detail::epilogue_calls();
}

constexpr nd::index_t m = 45, k = 70, n = 33;

/// `expect_fused`: the fused path must be taken (float16, bfloat16, float32: the dtypes PyTorch
/// also sends to cuBLASLt's epilogues); for float64 cuBLASLt may have no epilogue kernel, and the
/// composed fallback must then give the same values.
template <class T>
void check_relu_spellings(double tol, bool expect_fused = true) {
  const auto a = random_array<T>({m, k});
  const auto b = random_array<T>({n, k}).T();  // a transposed view: read in place
  const auto bias = random_array<T>({n});
  const reference ref = host_reference(a, b, per_column(bias), act::relu);
  const long long before = fused();
  const nd::ndarray<T> r1 = nd::maximum(nd::matmul(a, b) + bias, 0);
  if (expect_fused) {
    EXPECT_EQ(fused(), before + 1);
  }
  expect_close(r1, ref, tol);
  const nd::ndarray<T> r2 = nd::maximum(0.0, bias + nd::matmul(a, b));
  if (expect_fused) {
    EXPECT_EQ(fused(), before + 2);
  }
  expect_close(r2, ref, tol);
  const nd::ndarray<T> r3 = nd::maximum(nd::matmul(a, b) + bias.reshape({1, n}), 0);  // bias (1, n)
  if (expect_fused) {
    EXPECT_EQ(fused(), before + 3);
  }
  expect_close(r3, ref, tol);
}

TEST(FusedExpression, ReluBothSpellingsAndBiasShapes) {
  NDCUDA_REQUIRE_GPU();
  check_relu_spellings<float>(1e-5);
  check_relu_spellings<double>(1e-12, false);
  check_relu_spellings<__nv_bfloat16>(1.6e-2);
  check_relu_spellings<__half>(4e-3);
}

template <class T>
void check_gelu(double tol) {
  const auto a = random_array<T>({m, k});
  const auto b = random_array<T>({k, n});
  const auto bias = random_array<T>({n});
  const reference ref = host_reference(a, b, per_column(bias), act::gelu);
  const long long before = fused();
  const nd::ndarray<T> g1 = nd::gelu(nd::matmul(a, b) + bias);
  const nd::ndarray<T> g2 = nd::gelu(bias.reshape({1, n}) + nd::matmul(a, b));
  EXPECT_EQ(fused(), before + 2);
  expect_close(g1, ref, tol);
  expect_close(g2, ref, tol);
}

TEST(FusedExpression, GeluOfProductPlusBias) {
  NDCUDA_REQUIRE_GPU();
  check_gelu<float>(1e-4);
  check_gelu<__nv_bfloat16>(1.6e-2);
  check_gelu<__half>(4e-3);
}

TEST(FusedExpression, ProductPlusBiasAlone) {
  NDCUDA_REQUIRE_GPU();
  const auto a = random_array<float>({m, k});
  const auto b = random_array<float>({k, n});
  const auto bias = random_array<float>({n});
  const long long before = fused();
  const nd::ndarray<float> s = nd::matmul(a, b) + bias;
  EXPECT_EQ(fused(), before + 1);
  expect_close(s, host_reference(a, b, per_column(bias), act::none), 1e-5);
}

TEST(FusedExpression, GeluElementwiseAgainstHost) {
  NDCUDA_REQUIRE_GPU();
  const auto x = random_array<float>({1000}) * 6.0f;  // [-6, 6): both tails and the middle
  const nd::ndarray<float> xs = x;
  const nd::ndarray<float> g = nd::gelu(xs);
  const nd::ndarray<double> gd = nd::gelu(xs.astype<double>());
  const auto hx = host_values(xs), hg = host_values(g), hgd = host_values(gd);
  for (std::size_t i = 0; i < hx.size(); ++i) {
    const double v = hx[i].real();
    const double ref = 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
    ASSERT_NEAR(hg[i].real(), ref, 2e-6 * (1 + std::abs(ref))) << v;
    ASSERT_NEAR(hgd[i].real(), ref, 1e-14 * (1 + std::abs(ref))) << v;
  }
  const nd::ndarray<__nv_bfloat16> gb = nd::gelu(xs.astype<__nv_bfloat16>());
  const nd::ndarray<double> gi =
      nd::gelu(nd::asarray<std::int32_t>(std::vector<std::int32_t>{-2, 0, 3}, {3}));  // integers become float64
  const auto hgi = host_values(gi);
  EXPECT_NEAR(hgi[0].real(), 0.5 * -2 * (1 + std::tanh(std::sqrt(2 / M_PI) * (-2 + 0.044715 * -8))), 1e-14);
  EXPECT_EQ(hgi[1].real(), 0.0);
  EXPECT_EQ(gb.shape(), xs.shape());
}

TEST(FusedExpression, OtherTreesAreNotFusedButRight) {
  NDCUDA_REQUIRE_GPU();
  const auto a = random_array<float>({m, k});
  const auto b = random_array<float>({k, n});
  const auto bias = random_array<float>({n});
  const auto row_bias = random_array<float>({m, 1});
  const long long before = fused();

  // A bias per row (m, 1): not one value per column.
  const nd::ndarray<float> r1 = nd::maximum(nd::matmul(a, b) + row_bias, 0);
  const auto hrow = host_values(row_bias);
  expect_close(r1,
               host_reference(
                   a, b, [&](int i, int) { return hrow[static_cast<std::size_t>(i)].real(); }, act::relu),
               1e-5);
  // maximum with 0.5 is no relu (the scalar is checked at run time).
  const nd::ndarray<float> r2 = nd::maximum(nd::matmul(a, b) + bias, 0.5);
  expect_close(r2, host_reference(a, b, per_column(bias), act::relu, 0.5), 1e-5);
  // A larger expression around the pattern: the product is lowered, the rest is one kernel.
  const nd::ndarray<float> r3 = nd::maximum(nd::matmul(a, b) + bias, 0) * 2.0f + 1.0f;
  reference ref3 = host_reference(a, b, per_column(bias), act::relu);
  for (double& v : ref3.value) {
    v = v * 2 + 1;
  }
  for (double& s : ref3.scale) {
    s *= 2;
  }
  expect_close(r3, ref3, 1e-5);
  // A float32 bias on a bfloat16 product promotes the sum to float32: composed, in float32.
  const auto ab = a.astype<__nv_bfloat16>(), bb = b.astype<__nv_bfloat16>();
  const nd::ndarray<float> r4 = nd::maximum(nd::matmul(ab, bb) + bias, 0);
  expect_close(r4, host_reference(ab, bb, per_column(bias), act::relu), 1.6e-2);
  EXPECT_EQ(fused(), before);

  // A 3-d batched product: not 2-d.
  const auto a3 = random_array<float>({2, m, k});
  const nd::ndarray<float> r5 = nd::maximum(nd::matmul(a3, b) + bias, 0);
  ASSERT_EQ(r5.shape(), (nd::shape_t{2, m, n}));
  for (nd::index_t s = 0; s < 2; ++s) {
    const nd::ndarray<float> part = r5(s);
    const nd::ndarray<float> as = a3(s);
    expect_close(part, host_reference(as, b, per_column(bias), act::relu), 1e-5);
  }
  // An integer product: exact, composed.
  const auto ai = random_array<std::int32_t>({m, k}), bi = random_array<std::int32_t>({k, n});
  const auto biasi = random_array<std::int32_t>({n});
  const nd::ndarray<std::int32_t> r6 = nd::maximum(nd::matmul(ai, bi) + biasi, 0);
  const reference ref6 = host_reference(ai, bi, per_column(biasi), act::relu);
  const auto h6 = host_values(r6);
  for (std::size_t i = 0; i < h6.size(); ++i) {
    ASSERT_EQ(h6[i].real(), ref6.value[i]) << i;
  }
  EXPECT_EQ(fused(), before);
}

TEST(FusedExpression, AssignmentIntoArraysAndViews) {
  NDCUDA_REQUIRE_GPU();
  const auto a = random_array<float>({m, k});
  const auto b = random_array<float>({k, n});
  const auto bias = random_array<float>({n});
  const reference ref = host_reference(a, b, per_column(bias), act::relu);
  const long long before = fused();

  // Into an existing array: written in place, no new buffer.
  nd::ndarray<float> d = nd::empty<float>({m, n});
  const float* where = d.data();
  d(nd::ellipsis) = nd::maximum(nd::matmul(a, b) + bias, 0);
  EXPECT_EQ(fused(), before + 1);
  EXPECT_EQ(d.data(), where);
  expect_close(d, ref, 1e-5);
  d.assign(nd::maximum(nd::matmul(a, b) + bias, 0));
  EXPECT_EQ(fused(), before + 2);
  expect_close(d, ref, 1e-5);

  // Into a strided view of a larger array: the rest stays untouched.
  nd::ndarray<float> big = nd::zeros<float>({m + 2, n + 3});
  big(nd::slice(1, m + 1), nd::slice(0, n)) = nd::maximum(nd::matmul(a, b) + bias, 0);
  EXPECT_EQ(fused(), before + 3);
  const nd::ndarray<float> inner = big(nd::slice(1, m + 1), nd::slice(0, n)).copy();
  expect_close(inner, ref, 1e-5);
  const std::vector<float> hb = big.to_host();
  for (nd::index_t i = 0; i < m + 2; ++i) {
    for (nd::index_t j = 0; j < n + 3; ++j) {
      if (i == 0 || i == m + 1 || j >= n) {
        ASSERT_EQ(hb[static_cast<std::size_t>(i * (n + 3) + j)], 0.0f) << i << ", " << j;
      }
    }
  }

  // Into an operand of the product itself: the product reads the old values.
  nd::ndarray<float> x = random_array<float>({m, k});
  const auto w = random_array<float>({k, k});
  const auto wb = random_array<float>({k});
  const reference ref_x = host_reference(x, w, per_column(wb), act::relu);
  x(nd::ellipsis) = nd::maximum(nd::matmul(x, w) + wb, 0);
  EXPECT_EQ(fused(), before + 4);
  expect_close(x, ref_x, 1e-5);

  // Into a float64 array: computed in float32 (the tree's dtype), converted on store.
  nd::ndarray<double> d64 = nd::empty<double>({m, n});
  d64(nd::ellipsis) = nd::maximum(nd::matmul(a, b) + bias, 0);
  EXPECT_EQ(fused(), before + 5);
  expect_close(d64, ref, 1e-5);
}

TEST(FusedExpression, LazyProductWorksWhereAnArrayDid) {
  NDCUDA_REQUIRE_GPU();
  const auto a = random_array<float>({m, k});
  const auto b = random_array<float>({k, n});
  const auto zero = [](int, int) { return 0.0; };
  const reference p = host_reference(a, b, zero, act::none);
  const long long before = fused();

  const nd::ndarray<float> c = nd::matmul(a, b);
  expect_close(c, p, 1e-5);
  expect_close(nd::eval(nd::matmul(a, b)), p, 1e-5);
  const nd::ndarray<float> twice = nd::matmul(a, b) * 2.0f;
  reference p2 = p;
  for (double& v : p2.value) {
    v *= 2;
  }
  for (double& s : p2.scale) {
    s *= 2;
  }
  expect_close(twice, p2, 1e-5);
  // Reductions of the product, alone and inside an expression with the product again.
  const nd::ndarray<float> total = nd::sum(nd::matmul(a, b));
  double sum = 0, scale = 0;
  for (std::size_t i = 0; i < p.value.size(); ++i) {
    sum += p.value[i];
    scale += p.scale[i];
  }
  EXPECT_NEAR(total.item(), sum, 1e-5 * scale);
  const nd::ndarray<float> centred = nd::matmul(a, b) - nd::max(nd::matmul(a, b), 1, nd::keepdims);
  const auto hc = host_values(centred);
  for (int i = 0; i < static_cast<int>(m); ++i) {
    double mx = -1e300;
    for (int j = 0; j < static_cast<int>(n); ++j) {
      mx = std::max(mx, p.value[static_cast<std::size_t>(i * n + j)]);
    }
    for (int j = 0; j < static_cast<int>(n); ++j) {
      const std::size_t e = static_cast<std::size_t>(i * n + j);
      ASSERT_NEAR(hc[e].real(), p.value[e] - mx, 2e-5 * p.scale[e]) << i << ", " << j;
    }
  }
  // Into an existing array, item(), to_host(), astype, a product of a product.
  nd::ndarray<float> d = nd::zeros<float>({m, n});
  d(nd::ellipsis) = nd::matmul(a, b);
  expect_close(d, p, 1e-5);
  const auto one = random_array<float>({1, k});
  const auto col = random_array<float>({k, 1});
  const float dot = nd::matmul(one, col).item();
  const nd::ndarray<float> dot_ref = nd::sum(one.reshape({k}) * col.reshape({k}));
  EXPECT_NEAR(dot, dot_ref.item(), 1e-5 * k);
  EXPECT_EQ(nd::matmul(a, b).to_host().size(), static_cast<std::size_t>(m * n));
  const nd::ndarray<double> cd = nd::matmul(a, b).astype<double>();
  expect_close(cd, p, 1e-5);
  const nd::ndarray<float> chain = nd::matmul(nd::matmul(a, b), nd::matmul(b.T(), a.T()));
  EXPECT_EQ(chain.shape(), (nd::shape_t{m, m}));
  EXPECT_EQ(fused(), before);
}

/// Rows `rows` of act(a @ b + bias) against the host reference in double (a large product's sample).
template <class T>
void expect_rows_close(const nd::ndarray<T>& got, const nd::ndarray<T>& a, const nd::ndarray<T>& b,
                       const nd::ndarray<T>& bias, const std::vector<nd::index_t>& rows, act f, double tol) {
  const auto ha = host_values(a), hb = host_values(b), hbias = host_values(bias), g = host_values(got);
  const nd::index_t k = a.shape()[1], n = b.shape()[1];
  for (const nd::index_t i : rows) {
    for (nd::index_t j = 0; j < n; ++j) {
      double acc = hbias[static_cast<std::size_t>(j)].real();
      double scale = 1 + std::abs(acc);
      for (nd::index_t p = 0; p < k; ++p) {
        const double t =
            ha[static_cast<std::size_t>(i * k + p)].real() * hb[static_cast<std::size_t>(p * n + j)].real();
        acc += t;
        scale += std::abs(t);
      }
      const double want = f == act::relu ? std::max(acc, 0.0) : acc;
      ASSERT_NEAR(g[static_cast<std::size_t>(i * n + j)].real(), want, tol * scale) << "row " << i << ", column " << j;
    }
  }
}

TEST(FusedExpression, OperandsAtAnOddOffsetReachCuBlasLtWithTheirTrueAlignment) {
  NDCUDA_REQUIRE_GPU();
  // 512^3 bfloat16 goes through cuBLASLt (at least 1e8 multiply-adds); `a` starts 2 bytes into its
  // allocation, so only 2-byte alignment may be assumed for it.
  constexpr nd::index_t size = 512;
  const auto storage = random_array<__nv_bfloat16>({size * size + 1});
  const auto a = storage(nd::slice(1, size * size + 1)).reshape({size, size});
  ASSERT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % 4, 2U);
  const auto b = random_array<__nv_bfloat16>({size, size});
  const auto bias = random_array<__nv_bfloat16>({size});
  const long long before = fused();
  const nd::ndarray<__nv_bfloat16> relu = nd::maximum(nd::matmul(a, b) + bias, 0);
  EXPECT_EQ(fused(), before + 1);
  const nd::ndarray<__nv_bfloat16> plain = nd::matmul(a, b);
  const auto zero = nd::zeros<__nv_bfloat16>({size});
  expect_rows_close(relu, a, b, bias, {0, 1, 255, 511}, act::relu, 1.6e-2);
  expect_rows_close(plain, a, b, zero, {0, 2, 300, 511}, act::none, 1.6e-2);
}

// ---- CPU: the node's shape, dtype and checks, and which trees are recognised ----

template <class X>
constexpr bool recognised = nd::linalg::detail::fusable_epilogue<X>;
using F = nd::ndarray<float>;
using H = nd::ndarray<__nv_bfloat16>;
using I = nd::ndarray<std::int32_t>;
static_assert(recognised<decltype(nd::maximum(nd::matmul(F(), F()) + F(), 0))>);
static_assert(recognised<decltype(nd::maximum(0.0f, F() + nd::matmul(F(), F())))>);
static_assert(recognised<decltype(nd::gelu(nd::matmul(H(), H()) + H()))>);
static_assert(recognised<decltype(nd::matmul(F(), F()) + F())>);
static_assert(!recognised<decltype(nd::maximum(nd::matmul(H(), H()) + F(), 0))>);         // promotes to float32
static_assert(!recognised<decltype(nd::maximum(nd::matmul(F(), F()) + F(), F()))>);       // not a scalar
static_assert(!recognised<decltype(nd::maximum(nd::matmul(F(), F()) + F() * 2.0f, 0))>);  // expression bias
static_assert(!recognised<decltype(nd::matmul(F(), F()) + nd::matmul(F(), F()))>);
static_assert(!recognised<decltype(nd::maximum(nd::matmul(I(), I()) + I(), 0))>);  // no integer epilogue
static_assert(std::is_same_v<decltype(nd::matmul(I(), F())), nd::matmul_expr<double>>);

TEST(MatmulExpr, ShapeAndChecksAtConstruction) {
  using nd::testing::fake;
  const auto p = nd::matmul(fake<float>({4, 5}), fake<float>({5, 3}));
  EXPECT_EQ(p.shape(), (nd::shape_t{4, 3}));
  EXPECT_EQ(p.ndim(), 2);
  EXPECT_EQ(p.size(), 12);
  EXPECT_EQ(decltype(p)::type(), nd::dtype::float32);
  EXPECT_EQ(nd::matmul(fake<float>({5}), fake<float>({2, 5, 3})).shape(), (nd::shape_t{2, 3}));
  EXPECT_EQ(nd::matmul(fake<float>({7, 4, 5}), fake<float>({5})).shape(), (nd::shape_t{7, 4}));
  try {
    (void)nd::matmul(fake<float>({4, 5}), fake<float>({3, 3}));
    FAIL() << "expected a shape_error";
  } catch (const nd::shape_error& e) {
    EXPECT_NE(std::string(e.what()).find("mismatch in its core dimension"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)nd::matmul(fake<float>({}), fake<float>({3})), nd::shape_error);
}

TEST(MatmulExpr, GeluKernelCompilesWithNvrtc) {
  // One representative NVRTC compile (no GPU): gelu of float16 (computed in float) and of float64.
  const auto h = nd::testing::fake<__half>({8});
  const auto d = nd::testing::fake<double>({8}, 0x20000);
  const auto x = nd::gelu(h) + nd::gelu(d);
  using X = std::remove_cvref_t<decltype(x)>;
  const nd::detail::inputs_of<X> in(x);
  const auto& state = nd::detail::expression_state<double, X>(in);
  EXPECT_NO_THROW(nd::detail::compile_expression(state, nd::compute_capability{9, 0}));
}

}  // namespace
