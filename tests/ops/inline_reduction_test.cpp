// Short reductions inlined into the kernel around them (issue 18: Monte Carlo pi in one reduction).
// On the CPU: which trees inline, the re-viewed operands (offsets, counter shifts, keepdims), and
// the generated sources compiled by NVRTC (one kernel for the pi estimate). On the GPU: every form
// against a host reference in double on fresh random input, the pi estimate bit for bit against
// the materialised two-step path, and no intermediate array allocated.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/random.hpp>
#include <string>
#include <vector>

#include "support/counted_pool.hpp"
#include "support/fake_array.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
namespace ndd = ndcuda::detail;
namespace rd = ndcuda::random::detail;
using nd::dtype;

namespace {

const nd::compute_capability sm90{9, 0};

// ---- CPU: the operands and the generated sources --------------------------------------------------

// A draw whose offset cell is a fake device address: code generation never touches it.
template <class T>
auto fake_random(nd::shape_t shape) {
  rd::reservation r{{{1, 2}, reinterpret_cast<const std::uint64_t*>(0x20008), 0},
                    nullptr,
                    nd::stream::wrap(cudaStreamPerThread, 0),
                    0};
  return rd::node<rd::random_spec<nd::dtype_of<T>>>(
      ndd::random_leaf<1, 1, nd::dtype_of<T>>{r, nd::contiguous_layout(std::move(shape))});
}

std::uint64_t shift_of(const ndd::leaf_ref& l) {
  std::uint64_t shift = 0;
  std::memcpy(&shift, static_cast<const unsigned char*>(l.data) + ndd::source_param_size - sizeof(shift),
              sizeof(shift));
  return shift;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

TEST(InlineReduction, WhichTreesInline) {
  const auto x = nd::testing::fake<float>({6, 4});
  static_assert(ndd::inlinable_tree<decltype(nd::sum(x, 1) < 1.0f)>);
  static_assert(ndd::inlinable_tree<decltype(x - nd::max(x, 1, nd::keepdims))>);
  static_assert(!ndd::inlinable_tree<decltype(nd::var(x, 1) * 2.0f)>);  // var keeps the engine
  static_assert(ndd::inlinable_tree<decltype(nd::sum(x - nd::max(x, 1, nd::keepdims), 1) * 2.0f)>);  // nested
  static_assert(!ndd::inlinable_tree<decltype(nd::sum(x - nd::var(x, 1, nd::keepdims), 1) * 2.0f)>);
  // Up to max_inline_elements per output, none empty.
  EXPECT_NE(ndd::inline_operands_of(nd::sum(x, 1) * 2.0f), nullptr);
  EXPECT_NE(ndd::inline_operands_of(nd::sum(nd::testing::fake<float>({6, 2, 4}), {1, 2}) * 2.0f), nullptr);
  EXPECT_EQ(ndd::inline_operands_of(nd::sum(nd::testing::fake<float>({6, 9}), 1) * 2.0f), nullptr);
  EXPECT_EQ(ndd::inline_operands_of(nd::sum(nd::testing::fake<float>({6, 0}), 1) * 2.0f), nullptr);
  EXPECT_EQ(ndd::inline_operands_of(nd::sum(x) * 2.0f), nullptr);  // 24 elements
}

TEST(InlineReduction, CopiesReadEachReducedElement) {
  // y + max(x, 0) for x (3, 100): y, then x's rows as three (100,) views.
  const std::uintptr_t base = 0x100000;
  const auto x = nd::testing::fake<float>({3, 100}, base);
  const auto y = nd::testing::fake<float>({100}, 0x900000);
  const auto o = ndd::inline_operands_of(y + nd::max(x, 0));
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->plan.counts, (std::vector<int>{3}));
  ASSERT_EQ(o->distinct.size(), 4U);
  for (std::size_t j = 0; j < 3; ++j) {
    const ndd::leaf_ref& c = o->distinct[j + 1];
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(c.data), base + j * 100 * sizeof(float));
    EXPECT_EQ(c.layout->shape, (nd::shape_t{100}));
    EXPECT_EQ(c.layout->strides, (nd::strides_t{1}));
  }
  // keepdims over a transposed view: (5, 4) viewed from a (4, 5) array; the copies keep axis 1.
  const auto t = nd::testing::fake<float>({4, 5}, base).T();
  const auto k = ndd::inline_operands_of(t - nd::max(t, 1, nd::keepdims));
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->plan.counts, (std::vector<int>{4}));
  ASSERT_EQ(k->distinct.size(), 5U);  // t, then its four columns
  for (std::size_t j = 0; j < 4; ++j) {
    const ndd::leaf_ref& c = k->distinct[j + 1];
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(c.data), base + j * 5 * sizeof(float));
    EXPECT_EQ(c.layout->shape, (nd::shape_t{5, 1}));
    EXPECT_EQ(c.layout->strides, (nd::strides_t{1, 0}));
  }
  // A leaf broadcast along the reduced axis is one input for every copy.
  const auto b = nd::testing::fake<float>({7, 1}, 0x700000);
  const auto shared = ndd::inline_operands_of(nd::sum(b + nd::testing::fake<float>({2}, 0x800000), 1) * 2.0f);
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->distinct.size(), 3U);  // b, and the (2,) array's two elements
}

TEST(InlineReduction, DrawCopiesShiftTheirCounter) {
  // sum(square(random((n, 2))), 1): copy j reads counter 2 i + j, as the materialised draw's
  // element (i, j).
  const auto tree = nd::sum(nd::square(fake_random<float>({1000, 2})), 1) < 1.0f;
  const auto o = ndd::inline_operands_of(tree);
  ASSERT_NE(o, nullptr);
  ASSERT_EQ(o->distinct.size(), 2U);
  for (std::size_t j = 0; j < 2; ++j) {
    EXPECT_NE(o->distinct[j].source, nullptr);
    EXPECT_EQ(shift_of(o->distinct[j]), j);
    EXPECT_EQ(o->distinct[j].layout->shape, (nd::shape_t{1000}));
    EXPECT_EQ(o->distinct[j].layout->strides, (nd::strides_t{2}));
  }
}

TEST(InlineReduction, PiIsOneReductionKernelThatCompiles) {
  // nd::mean(nd::sum(nd::square(g.random<float>({n, 2})), 1) < 1.0f): the sum folds inside the
  // mean's map; the source holds one kernel and no second pass over a stored row sum.
  const auto inner = nd::sum(nd::square(fake_random<float>({4096, 2})), 1) < 1.0f;
  using X = std::remove_cvref_t<decltype(inner)>;
  const auto o = ndd::inline_operands_of(inner);
  ASSERT_NE(o, nullptr);
  constexpr ndd::reduce_spec spec = ndd::spec_for<ndd::reduce_kind::mean, void, X>();
  static_assert(spec.out == dtype::float64);  // NumPy: the mean of bools is float64
  const auto& state = ndd::inline_reduction_state<X>(*o, spec);
  const nd::shape_t shape{4096};
  const std::vector<bool> reduced{true};
  const std::vector<nd::strides_t> strides{{2}, {2}};
  const std::string source = ndd::reduction_source_for(state, shape, reduced, strides);
  EXPECT_EQ(count_of(source, "__global__"), 1U) << source;
  EXPECT_EQ(count_of(source, "ndcuda::nd_fold("), 1U) << source;
  EXPECT_NE(source.find("sum_reducer<float, float, float>"), std::string::npos) << source;
  EXPECT_NO_THROW(ndd::compile_reduction(state, sm90, shape, reduced, strides));
}

TEST(InlineReduction, ElementwiseKernelWithAFoldCompiles) {
  // One representative elementwise compile: max over 3 rows plus an array (reducers.cuh included).
  const auto x = nd::testing::fake<float>({3, 100});
  const auto y = nd::testing::fake<float>({100}, 0x900000);
  const auto tree = y + nd::max(x, 0);
  const auto o = ndd::inline_operands_of(tree);
  ASSERT_NE(o, nullptr);
  const auto& state = ndd::inline_expression_state<float, std::remove_cvref_t<decltype(tree)>>(*o);
  EXPECT_NO_THROW(ndd::compile_expression(state, sm90));
}

TEST(InlineReduction, ShortSoftmaxIsOneElementwiseKernel) {
  // exp(x - max) / sum(exp(x - max)) over rows of 4: the max inside the sum is inlined per copy of
  // the sum (its count repeated), and every copy reads one of x's four columns.
  const auto x = nd::testing::fake<float>({6, 4});
  const auto e = nd::exp(x - nd::max(x, 1, nd::keepdims));
  const auto y = e / nd::sum(e, 1, nd::keepdims);
  const auto o = ndd::inline_operands_of(y);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->plan.counts, (std::vector<int>{4, 4, 4, 4, 4, 4}));  // max; sum, then max per copy
  EXPECT_EQ(o->distinct.size(), 5U);                                // x, then its four columns
  const auto& state = ndd::inline_expression_state<float, std::remove_cvref_t<decltype(y)>>(*o);
  EXPECT_NO_THROW(ndd::compile_expression(state, sm90));
  // Nested copies past one kernel's leaves keep the other paths: rows of 8 inside rows of 8 of a
  // tree with two leaves.
  const auto z = nd::testing::fake<float>({6, 8, 8});
  EXPECT_EQ(ndd::inline_operands_of(nd::sum(nd::sum(z * z + z, 2) + z(nd::all, nd::all, 0), 1) * 2.0f), nullptr);
}

// ---- GPU: against the host in double ------------------------------------------------------------

template <class T>
nd::ndarray<T> device(const std::vector<double>& v, nd::shape_t shape) {
  return nd::asarray(std::vector<T>(v.begin(), v.end()), std::move(shape));
}

using nd::testing::counted_pool;

TEST(InlineReductionGpu, SumOfSquaresBelowOneOverShortRows) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = 20011;
  for (const std::size_t cols : {std::size_t{2}, std::size_t{3}}) {
    const std::vector<double> h =
        nd::testing::uniform_values<double>(n * cols, -1.0, 1.0);  // h[c * n + i]: stored (cols, n)
    const auto stored = device<float>(h, {static_cast<nd::index_t>(cols), static_cast<nd::index_t>(n)});
    const auto x = stored.T();  // (n, cols), strided: the row's elements are n apart
    nd::ndarray<bool> inside = nd::sum(nd::square(x), 1) < 1.0f;
    nd::ndarray<float> twice = 2.0f * nd::sum(nd::square(x), 1);
    const nd::ndarray<float> dense = x.copy();  // the same values C-contiguous
    nd::ndarray<bool> inside_dense = nd::sum(nd::square(dense), 1) < 1.0f;
    const auto got = inside.to_host();
    const auto got_dense = inside_dense.to_host();
    const auto got_twice = twice.to_host();
    ASSERT_EQ(got.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
      double s = 0;
      for (std::size_t c = 0; c < cols; ++c) {
        const double v = static_cast<float>(h[c * n + i]);
        s += v * v;
      }
      EXPECT_NEAR(got_twice[i], 2 * s, 1e-5 * (1 + s)) << "cols " << cols << " row " << i;
      if (std::abs(s - 1) > 1e-5) {  // float rounding may decide the rows on the circle either way
        EXPECT_EQ(static_cast<bool>(got[i]), s < 1) << "cols " << cols << " row " << i;
        EXPECT_EQ(static_cast<bool>(got_dense[i]), s < 1) << "cols " << cols << " row " << i << " (dense)";
      }
    }
  }
}

TEST(InlineReductionGpu, ExtremesProductsAndLogicalOverAxisZero) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = 5003;
  const std::vector<double> hx = nd::testing::uniform_values<double>(3 * n, -2.0, 2.0);
  const std::vector<double> hy = nd::testing::uniform_values<double>(n, -1.0, 1.0);
  const auto x = device<float>(hx, {3, static_cast<nd::index_t>(n)});
  const auto y = device<float>(hy, {static_cast<nd::index_t>(n)});
  nd::ndarray<float> with_max = y + nd::max(x, 0);
  nd::ndarray<float> with_min = y - nd::min(x, 0);
  nd::ndarray<float> with_prod = y + nd::prod(x, 0);
  nd::ndarray<bool> logical = nd::any(x > 1.0f, 0) == nd::all(x > -1.0f, 0);
  const auto mx = with_max.to_host();
  const auto mn = with_min.to_host();
  const auto pr = with_prod.to_host();
  const auto lg = logical.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    double hi = -INFINITY, lo = INFINITY, p = 1;
    bool any = false, all = true;
    for (std::size_t r = 0; r < 3; ++r) {
      const double v = static_cast<float>(hx[r * n + i]);
      hi = std::max(hi, v);
      lo = std::min(lo, v);
      p *= v;
      any = any || v > 1.0;
      all = all && v > -1.0;
    }
    const double yi = static_cast<float>(hy[i]);
    EXPECT_NEAR(mx[i], yi + hi, 1e-6) << i;
    EXPECT_NEAR(mn[i], yi - lo, 1e-6) << i;
    EXPECT_NEAR(pr[i], yi + p, 1e-5) << i;
    EXPECT_EQ(static_cast<bool>(lg[i]), any == all) << i;
  }
}

TEST(InlineReductionGpu, KeepdimsAndMeanAlongRows) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = 4099, cols = 4;
  const std::vector<double> h = nd::testing::uniform_values<double>(n * cols, -3.0, 3.0);
  const auto x = device<float>(h, {static_cast<nd::index_t>(n), static_cast<nd::index_t>(cols)});
  nd::ndarray<float> centred = x - nd::max(x, 1, nd::keepdims);
  nd::ndarray<float> scaled = nd::mean(x, 1, nd::keepdims) * 2.0f;
  EXPECT_EQ(scaled.shape(), (nd::shape_t{static_cast<nd::index_t>(n), 1}));
  // In place: the copies read a row's other elements, so the write goes through a temporary.
  nd::ndarray<float> in_place = x.copy();
  in_place(nd::ellipsis) = in_place - nd::max(in_place, 1, nd::keepdims);
  const auto c = centred.to_host();
  EXPECT_EQ(in_place.to_host(), c);
  const auto m = scaled.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    double hi = -INFINITY, sum = 0;
    for (std::size_t j = 0; j < cols; ++j) {
      const double v = static_cast<float>(h[i * cols + j]);
      hi = std::max(hi, v);
      sum += v;
    }
    for (std::size_t j = 0; j < cols; ++j) {
      EXPECT_NEAR(c[i * cols + j], static_cast<float>(h[i * cols + j]) - hi, 1e-6) << i << "," << j;
    }
    EXPECT_NEAR(m[i], 2 * sum / cols, 1e-5) << i;
  }
}

TEST(InlineReductionGpu, ShortSoftmaxAsInNumPy) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = 2003, cols = 5;
  const std::vector<double> h = nd::testing::uniform_values<double>(n * cols, -4.0, 4.0);
  const auto x = device<float>(h, {static_cast<nd::index_t>(n), static_cast<nd::index_t>(cols)});
  const auto e = nd::exp(x - nd::max(x, 1, nd::keepdims));
  nd::ndarray<float> y = e / nd::sum(e, 1, nd::keepdims);
  const auto got = y.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    double hi = -INFINITY, sum = 0;
    for (std::size_t j = 0; j < cols; ++j) {
      hi = std::max(hi, static_cast<double>(static_cast<float>(h[i * cols + j])));
    }
    for (std::size_t j = 0; j < cols; ++j) {
      sum += std::exp(static_cast<float>(h[i * cols + j]) - hi);
    }
    for (std::size_t j = 0; j < cols; ++j) {
      EXPECT_NEAR(got[i * cols + j], std::exp(static_cast<float>(h[i * cols + j]) - hi) / sum, 1e-6) << i << "," << j;
    }
  }
}

TEST(InlineReductionGpu, Int8RowSumsAreInt64AndTheirMeanFloat64) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = 3001, cols = 3;
  const std::vector<std::int8_t> h = nd::testing::uniform_values<std::int8_t>(n * cols, -128, 127);
  const auto x = nd::asarray(h, {static_cast<nd::index_t>(n), static_cast<nd::index_t>(cols)});
  const auto tripled = nd::sum(x, 1) * 3;
  static_assert(std::is_same_v<decltype(tripled)::value_type, std::int64_t>);  // NumPy: int8 sums in int64
  nd::ndarray<std::int64_t> got = tripled;
  const double mean = nd::mean(nd::sum(x, 1) * 3).item();  // float64, one reduction kernel
  const auto g = got.to_host();
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t s = 0;
    for (std::size_t j = 0; j < cols; ++j) {
      s += h[i * cols + j];
    }
    EXPECT_EQ(g[i], 3 * s) << i;  // -384 * 3 would wrap in int8
    total += static_cast<double>(3 * s);
  }
  EXPECT_NEAR(mean, total / n, 1e-9);
}

TEST(InlineReductionGpu, MeanOfRowTestIsOneReductionOverNoIntermediate) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = std::size_t{1} << 22;
  const std::vector<double> h = nd::testing::uniform_values<double>(n * 2, -1.0, 1.0);
  const auto x = device<float>(h, {static_cast<nd::index_t>(n), 2});
  double want = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double u = static_cast<float>(h[2 * i]), v = static_cast<float>(h[2 * i + 1]);
    want += u * u + v * v < 1 ? 1 : 0;
  }
  want /= static_cast<double>(n);
  const counted_pool counted;
  x.stream().synchronize();
  const nd::memory_stats before = counted.pool->stats();
  counted.pool->reset_peak();
  // Elementwise: one allocation (the result), where the materialised path makes two.
  nd::ndarray<bool> inside = nd::sum(nd::square(x), 1) < 1.0f;
  EXPECT_EQ(counted.pool->stats().allocation_count - before.allocation_count, 1U);
  // A reduction over it: one reduction, with no (n,) float row sums stored on the way.
  const double got = nd::mean(nd::sum(nd::square(x), 1) < 1.0f).item();
  EXPECT_LT(counted.pool->stats().peak_used_bytes - before.used_bytes, n * sizeof(float));
  EXPECT_NEAR(got, want, 16.0 / static_cast<double>(n));  // rows on the circle may round either way
  EXPECT_EQ(inside.size(), static_cast<nd::index_t>(n));
}

TEST(InlineReductionGpu, PiMatchesTheMaterialisedDrawBitForBit) {
  NDCUDA_REQUIRE_GPU();
  const std::uint64_t seed = nd::testing::rng()();
  const nd::index_t n = nd::index_t{1} << 24;
  // The spelling, fused: the draw, the row sums and the mean in one reduction kernel.
  auto g = nd::random::default_rng(seed);
  nd::ndarray<double> fused = nd::mean(nd::sum(nd::square(g.random<float>({n, 2})), 1) < 1.0f) * 4;
  // The same draw materialised, its row sums materialised, then the mean.
  auto g2 = nd::random::default_rng(seed);
  const nd::ndarray<float> r = g2.random<float>({n, 2});
  const nd::ndarray<float> row_sums = nd::sum(nd::square(r), 1);
  nd::ndarray<double> stepwise = nd::mean(row_sums < 1.0f) * 4;
  const double pi = fused.item();
  EXPECT_EQ(pi, stepwise.item()) << "seed " << seed;
  EXPECT_NEAR(pi, 3.14159265358979, 3e-3) << "seed " << seed;  // 4 sqrt(p (1 - p) / n) is 4e-4
  // The row sums themselves, element for element: the fused draw's counters are the stored one's.
  auto g3 = nd::random::default_rng(seed);
  nd::ndarray<float> fused_sums = nd::sum(nd::square(g3.random<float>({n, 2})), 1) * 1.0f;
  const auto a = fused_sums.to_host();
  const auto b = row_sums.to_host();
  ASSERT_EQ(a.size(), b.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    differ += std::memcmp(&a[i], &b[i], sizeof(float)) != 0 ? 1 : 0;
  }
  EXPECT_EQ(differ, 0U) << "seed " << seed;
}

}  // namespace
