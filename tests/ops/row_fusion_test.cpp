// Fusion across reductions (issue 20): reductions are lazy nodes; softmax, log-softmax, layer norm
// and centring written as in NumPy become one row-resident kernel, other trees compute their
// reductions first. On the CPU: the lazy node's shape and errors, the generated program (stages
// shared, ddof kept apart) compiled by NVRTC. On the GPU: every form against a host reference in
// double on fresh random input, fused and fallback paths, strided and broadcast operands.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <ndcuda/jit/launch.hpp>
#include <ndcuda/ndcuda.hpp>
#include <string>
#include <vector>

#include "jit/row_program_source.hpp"
#include "support/fake_array.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

// ---- CPU: the lazy node and the generated program ------------------------------------------------

TEST(LazyReduction, KnowsItsShapeAndChecksAxesWithoutRunning) {
  const auto x = nd::testing::fake<float>({6, 5, 4});
  const auto kept = nd::max(x, -1, nd::keepdims);
  EXPECT_EQ(kept.shape(), (nd::shape_t{6, 5, 1}));
  EXPECT_EQ(kept.ndim(), 3);
  EXPECT_EQ(nd::sum(x, {0, 2}).shape(), (nd::shape_t{5}));
  EXPECT_EQ(nd::mean(x).size(), 1);
  EXPECT_EQ(kept.input_shape(), (nd::shape_t{6, 5, 4}));
  static_assert(std::is_same_v<decltype(kept)::value_type, float>);
  static_assert(std::is_same_v<decltype(nd::sum(nd::testing::fake<std::int8_t>({3})))::value_type, std::int64_t>);
  EXPECT_THROW((void)nd::sum(x, 3), nd::shape_error);       // NumPy's AxisError, at the call
  EXPECT_THROW((void)nd::max(x, {1, 1}), nd::shape_error);  // duplicate value in 'axis'
  // An expression over it broadcasts against its result shape.
  EXPECT_THROW((void)nd::eval(x - nd::max(x, 2)), nd::shape_error);
}

template <class Out, class X>
const nd::detail::row_program& program_of(const X& x) {
  static const auto call = nd::detail::row_call<Out, X>(x);
  return call.program();
}

TEST(LazyReduction, SoftmaxIsOneProgramWithTwoStages) {
  const auto x = nd::testing::fake<float>({64, 4096});
  const auto e = nd::exp(x - nd::max(x, 1, nd::keepdims));
  const auto y = e / nd::sum(e, 1, nd::keepdims);
  const nd::detail::row_program& p = program_of<float>(y);
  ASSERT_EQ(p.stages.size(), 2U);                        // max once (it appears twice), then the sum
  EXPECT_EQ(p.node_stage, (std::vector<int>{0, 0, 1}));  // post-order: max, max (shared), sum
  EXPECT_EQ(p.inputs.size(), 1U);                        // x, read by all three
  EXPECT_NE(p.stages[0].reducer.find("extreme_reducer"), std::string::npos);
  EXPECT_NE(p.stages[1].body.find("ndcuda_red0"), std::string::npos);  // the sum reads the max
  for (const int items : {0, 8}) {  // rows re-read at each stage, rows held in registers
    const std::string source = nd::jit::detail::row_program_source(p, 256, items);
    EXPECT_NE(source.find(items == 0 ? "row_reduce<256>" : "row_reduce_held<256, 8>"), std::string::npos);
    const auto kernel = nd::jit::detail::make_kernel_state(source, "nd_rows", {});
    EXPECT_NO_THROW(nd::jit::detail::compile_for(*kernel, nd::compute_capability{9, 0})) << source;
  }
}

TEST(LazyReduction, VarianceStagesKeepTheirOwnDdof) {
  const auto x = nd::testing::fake<double>({8, 100});
  const auto mu = nd::mean(x, -1, nd::keepdims);
  const auto y = (x - mu) / nd::sqrt(nd::var(x, -1, nd::keepdims) + 1e-5) + nd::var(x, -1, nd::ddof(1), nd::keepdims);
  const nd::detail::row_program& p = program_of<double>(y);
  // The mean (shared by both variances, which take two passes), then the squared deviations once
  // per variance: equal bodies, but each divides by its own N - ddof.
  EXPECT_EQ(p.stages.size(), 3U);
  const auto kernel = nd::jit::detail::make_kernel_state(nd::jit::detail::row_program_source(p, 128, 8), "nd_rows", {});
  EXPECT_NO_THROW(nd::jit::detail::compile_for(*kernel, nd::compute_capability{9, 0}));
}

// ---- GPU: against the host in double ---------------------------------------------------------------

using host_matrix = std::vector<double>;  // rows x cols, C order

host_matrix random_matrix(std::size_t rows, std::size_t cols, double scale = 4.0) {
  return nd::testing::uniform_values<double>(rows * cols, -scale, scale);
}

template <class T>
nd::ndarray<T> to_device(const host_matrix& m, nd::index_t rows, nd::index_t cols) {
  std::vector<T> v(m.begin(), m.end());
  return nd::asarray(v, {rows, cols});
}

// Per row: f(row values) -> output row, in double.
host_matrix by_rows(const host_matrix& m, std::size_t cols, const std::function<void(const double*, double*)>& f) {
  host_matrix out(m.size());
  for (std::size_t r = 0; r < m.size() / cols; ++r) {
    f(&m[r * cols], &out[r * cols]);
  }
  return out;
}

template <class T>
void expect_near_all(const std::vector<T>& got, const host_matrix& want, double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size() && bad < 5; ++i) {
    const double g = static_cast<double>(got[i]);
    if (!(std::abs(g - want[i]) <= tol * (1 + std::abs(want[i])))) {
      ADD_FAILURE() << what << ": element " << i << " is " << g << ", want " << want[i];
      ++bad;
    }
  }
}

host_matrix softmax_rows(const host_matrix& m, std::size_t cols, bool log) {
  return by_rows(m, cols, [&](const double* in, double* out) {
    const double mx = *std::max_element(in, in + cols);
    double sum = 0;
    for (std::size_t c = 0; c < cols; ++c) {
      sum += std::exp(in[c] - mx);
    }
    for (std::size_t c = 0; c < cols; ++c) {
      out[c] = log ? in[c] - mx - std::log(sum) : std::exp(in[c] - mx) / sum;
    }
  });
}

TEST(RowFusionGpu, SoftmaxAndLogSoftmaxAsInNumPy) {
  NDCUDA_REQUIRE_GPU();
  for (const auto [rows, cols] : {std::pair<nd::index_t, nd::index_t>{64, 4096}, {1000, 1}, {3, 100003}, {517, 33}}) {
    const host_matrix h = random_matrix(static_cast<std::size_t>(rows), static_cast<std::size_t>(cols));
    const auto x = to_device<float>(h, rows, cols);
    const auto e = nd::exp(x - nd::max(x, 1, nd::keepdims));
    const nd::ndarray<float> y = e / nd::sum(e, 1, nd::keepdims);
    const std::string what = "softmax " + std::to_string(rows) + "x" + std::to_string(cols);
    expect_near_all(y.to_host(), softmax_rows(h, static_cast<std::size_t>(cols), false), 1e-5, what);
    const auto shifted = x - nd::max(x, -1, nd::keepdims);
    const nd::ndarray<float> logs = shifted - nd::log(nd::sum(nd::exp(shifted), -1, nd::keepdims));
    expect_near_all(logs.to_host(), softmax_rows(h, static_cast<std::size_t>(cols), true), 1e-5, "log-" + what);
  }
}

TEST(RowFusionGpu, LayerNormWithWeightsAndBias) {
  NDCUDA_REQUIRE_GPU();
  const nd::index_t rows = 300;
  const nd::index_t cols = 768;
  const host_matrix h = random_matrix(rows, cols);
  const host_matrix hw = random_matrix(1, cols, 1.0);
  const host_matrix hb = random_matrix(1, cols, 1.0);
  const auto x = to_device<double>(h, rows, cols);
  const nd::ndarray<double> w = to_device<double>(hw, 1, cols).reshape({cols});
  const nd::ndarray<double> b = to_device<double>(hb, 1, cols).reshape({cols});
  const auto mu = nd::mean(x, -1, nd::keepdims);
  const nd::ndarray<double> y = (x - mu) / nd::sqrt(nd::var(x, -1, nd::keepdims) + 1e-5) * w + b;
  const nd::ndarray<double> z = (x - mu) / nd::std(x, -1, nd::ddof(1), nd::keepdims);  // NumPy's standardisation
  const auto want = [&](int ddof, bool affine) {
    return by_rows(h, cols, [&](const double* in, double* out) {
      double m = 0;
      for (nd::index_t c = 0; c < cols; ++c) m += in[c];
      m /= cols;
      double v = 0;
      for (nd::index_t c = 0; c < cols; ++c) v += (in[c] - m) * (in[c] - m);
      const double var = v / static_cast<double>(cols - ddof);
      for (nd::index_t c = 0; c < cols; ++c) {
        out[c] = affine ? (in[c] - m) / std::sqrt(var + 1e-5) * hw[c] + hb[c] : (in[c] - m) / std::sqrt(var);
      }
    });
  };
  expect_near_all(y.to_host(), want(0, true), 1e-11, "layer norm");
  expect_near_all(z.to_host(), want(1, false), 1e-11, "standardisation, ddof 1");
}

TEST(RowFusionGpu, SeveralTrailingAxesStridedOperandsAndInPlace) {
  NDCUDA_REQUIRE_GPU();
  const host_matrix h = random_matrix(40 * 6, 7 * 2);  // as (40, 6, 7, 2): its rows are the (7, 2) blocks
  const auto flat = to_device<float>(h, 40 * 6, 14);
  const auto x = flat.reshape({40, 6, 7, 2});
  // Centring over the last two axes: rows of 14 elements.
  const nd::ndarray<float> centred = x - nd::mean(x, {2, 3}, nd::keepdims);
  expect_near_all(centred.to_host(),
                  by_rows(h, 14,
                          [](const double* in, double* out) {
                            double m = 0;
                            for (int c = 0; c < 14; ++c) m += in[c];
                            for (int c = 0; c < 14; ++c) out[c] = in[c] - m / 14;
                          }),
                  1e-5, "centring over two axes");
  // A transposed operand: rows are columns of the stored matrix (strided loads).
  const host_matrix g = random_matrix(50, 300);
  const auto stored = to_device<float>(g, 50, 300);
  const auto t = stored.T();  // (300, 50)
  const nd::ndarray<float> soft =
      nd::exp(t - nd::max(t, 1, nd::keepdims)) / nd::sum(nd::exp(t - nd::max(t, 1, nd::keepdims)), 1, nd::keepdims);
  host_matrix gt(g.size());
  for (std::size_t r = 0; r < 50; ++r) {
    for (std::size_t c = 0; c < 300; ++c) gt[c * 50 + r] = g[r * 300 + c];
  }
  expect_near_all(soft.to_host(), softmax_rows(gt, 50, false), 1e-5, "softmax of a transposed view");
  // In place: x(...) = x - max(x) reads each row before writing it.
  auto y = stored.copy();
  y(nd::ellipsis) = y - nd::max(y, 1, nd::keepdims);
  expect_near_all(y.to_host(),
                  by_rows(g, 300,
                          [](const double* in, double* out) {
                            const double m = *std::max_element(in, in + 300);
                            for (int c = 0; c < 300; ++c) out[c] = in[c] - m;
                          }),
                  1e-6, "in place");  // the host subtracts unrounded doubles
}

TEST(RowFusionGpu, OtherShapesComputeTheReductionsFirst) {
  NDCUDA_REQUIRE_GPU();
  const host_matrix h = random_matrix(200, 30);
  const auto x = to_device<double>(h, 200, 30);
  // Over the leading axis, without keepdims, nested, and a reduction of an expression of one.
  const nd::ndarray<double> by_column = x - nd::mean(x, 0, nd::keepdims);
  const nd::ndarray<double> row_sums = nd::sum(x, 1) * 2.0;
  const double total = nd::sum(x - nd::mean(x, 1, nd::keepdims)).item();
  const double biggest_row_sum = nd::max(nd::sum(x * x, 1)).item();
  host_matrix col_mean(30, 0.0);
  for (std::size_t r = 0; r < 200; ++r) {
    for (std::size_t c = 0; c < 30; ++c) col_mean[c] += h[r * 30 + c] / 200;
  }
  host_matrix want_by_column(h.size());
  host_matrix want_row_sums(200, 0.0);
  double want_biggest = -1;
  for (std::size_t r = 0; r < 200; ++r) {
    double sq = 0;
    for (std::size_t c = 0; c < 30; ++c) {
      want_by_column[r * 30 + c] = h[r * 30 + c] - col_mean[c];
      want_row_sums[r] += 2 * h[r * 30 + c];
      sq += h[r * 30 + c] * h[r * 30 + c];
    }
    want_biggest = std::max(want_biggest, sq);
  }
  expect_near_all(by_column.to_host(), want_by_column, 1e-12, "centring columns");
  expect_near_all(row_sums.to_host(), want_row_sums, 1e-12, "row sums times two");
  EXPECT_NEAR(total, 0.0, 1e-9);
  EXPECT_NEAR(biggest_row_sum, want_biggest, 1e-9 * want_biggest);
  // A named lazy value used on its own, and converted.
  const auto m = nd::max(x, 1);
  EXPECT_EQ(m.to_host().size(), 200U);
  const nd::ndarray<float> as_float = nd::mean(x).astype<float>();
  double mean = 0;
  for (double v : h) mean += v / static_cast<double>(h.size());
  EXPECT_NEAR(as_float.item(), mean, 1e-5);
  // Empty rows: max has no identity (NumPy's message), mean is NaN.
  const auto empty_rows = nd::zeros<float>({3, 0});
  EXPECT_THROW((void)nd::eval(empty_rows - nd::max(empty_rows, 1, nd::keepdims)), nd::shape_error);
}

}  // namespace
