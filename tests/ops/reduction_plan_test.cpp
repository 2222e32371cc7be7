// Reductions without a GPU: NumPy's dtype rules, axis checking and its messages, empty
// reductions without identity, and the plan (ordering, collapsing, strategy, vectors, 64-bit).
#include "jit/reduction_plan.hpp"

#include <gtest/gtest.h>

#include <ndcuda/ops/elementwise.hpp>
#include <ndcuda/ops/reductions.hpp>

#include "expr/reduction_axes.hpp"
#include "support/fake_array.hpp"

namespace nd = ndcuda;
using nd::dtype;
using nd::detail::reduce_kind;
namespace jd = nd::jit::detail;

namespace {

using nd::testing::fake;

template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const nd::error& e) {
    return e.what();
  }
  return "<no exception>";
}

// A plan for a dense C-order array of `shape` reducing the axes in `mask`, one input.
jd::reduction_plan plan_dense(const nd::shape_t& shape, const std::vector<bool>& mask, std::size_t itemsize = 4,
                              std::uintptr_t address = 256, bool keep_order = false, nd::strides_t strides = {}) {
  if (strides.empty()) {
    strides = nd::c_strides(shape);
  }
  nd::strides_t out(shape.size(), 0);
  nd::index_t step = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (!mask[d]) {
      out[d] = step;
      step *= shape[d];
    }
  }
  const std::vector<nd::strides_t> in{strides};
  const std::vector<std::uintptr_t> addresses{address};
  const std::vector<std::size_t> sizes{itemsize};
  return jd::plan_reduction(shape, mask, out, in, addresses, sizes, keep_order);
}

}  // namespace

TEST(ReductionDtypes, FollowNumPy2) {
  using nd::detail::reduce_accumulator;
  using nd::detail::reduce_result;
  // sum/prod: bool and signed ints -> int64, unsigned -> uint64, floats keep their dtype.
  for (dtype t : {dtype::bool_, dtype::int8, dtype::int16, dtype::int32, dtype::int64}) {
    EXPECT_EQ(reduce_result(reduce_kind::sum, t), dtype::int64) << t;
    EXPECT_EQ(reduce_result(reduce_kind::prod, t), dtype::int64) << t;
  }
  for (dtype t : {dtype::uint8, dtype::uint16, dtype::uint32, dtype::uint64}) {
    EXPECT_EQ(reduce_result(reduce_kind::sum, t), dtype::uint64) << t;
  }
  EXPECT_EQ(reduce_result(reduce_kind::sum, dtype::float16), dtype::float16);
  EXPECT_EQ(reduce_accumulator(reduce_kind::sum, dtype::float16, dtype::float16), dtype::float32);
  EXPECT_EQ(reduce_accumulator(reduce_kind::sum, dtype::bfloat16, dtype::bfloat16), dtype::float32);
  EXPECT_EQ(reduce_result(reduce_kind::sum, dtype::complex64), dtype::complex64);
  // mean/var/std of integers: float64; var/std/norm of complex: the real dtype.
  EXPECT_EQ(reduce_result(reduce_kind::mean, dtype::int16), dtype::float64);
  EXPECT_EQ(reduce_result(reduce_kind::mean, dtype::bool_), dtype::float64);
  EXPECT_EQ(reduce_result(reduce_kind::mean, dtype::float32), dtype::float32);
  EXPECT_EQ(reduce_result(reduce_kind::var, dtype::uint8), dtype::float64);
  EXPECT_EQ(reduce_result(reduce_kind::std, dtype::complex64), dtype::float32);
  EXPECT_EQ(reduce_accumulator(reduce_kind::var, dtype::complex64, dtype::float32), dtype::complex64);
  EXPECT_EQ(reduce_accumulator(reduce_kind::var, dtype::complex128, dtype::float64), dtype::complex128);
  EXPECT_EQ(reduce_result(reduce_kind::norm2, dtype::complex128), dtype::float64);
  EXPECT_EQ(reduce_result(reduce_kind::norm1, dtype::int32), dtype::float64);
  // min/max keep the dtype (compared in float32 for the half types).
  EXPECT_EQ(reduce_result(reduce_kind::min, dtype::uint16), dtype::uint16);
  EXPECT_EQ(reduce_accumulator(reduce_kind::max, dtype::bfloat16, dtype::bfloat16), dtype::float32);
  EXPECT_EQ(reduce_result(reduce_kind::argmax, dtype::float32), dtype::int64);
  EXPECT_EQ(reduce_result(reduce_kind::count_nonzero, dtype::complex64), dtype::int64);
  EXPECT_EQ(reduce_result(reduce_kind::all, dtype::float64), dtype::bool_);
  EXPECT_TRUE(nd::detail::reduce_accepts(reduce_kind::min, dtype::complex64));  // lexicographic, as NumPy
  EXPECT_FALSE(nd::detail::reduce_accepts(reduce_kind::nanmin, dtype::complex64));
  EXPECT_TRUE(nd::detail::reduce_accepts(reduce_kind::argmax, dtype::complex64));
  EXPECT_TRUE(nd::detail::reduce_accepts(reduce_kind::norm_max, dtype::complex64));
}

TEST(ReductionDtypes, PublicFunctionsReturnNumPysTypes) {
  const auto i8 = fake<std::int8_t>({4, 5});
  const auto u16 = fake<std::uint16_t>({4, 5});
  const auto h = fake<__half>({4, 5});
  const auto f = fake<float>({4, 5});
  const auto c = fake<std::complex<float>>({4, 5});
  static_assert(std::is_same_v<decltype(nd::sum(i8))::value_type, std::int64_t>);
  static_assert(std::is_same_v<decltype(nd::sum(u16, 0))::value_type, std::uint64_t>);
  static_assert(std::is_same_v<decltype(nd::sum(h))::value_type, __half>);
  static_assert(std::is_same_v<decltype(nd::sum<double>(f, 1))::value_type, double>);
  static_assert(std::is_same_v<decltype(nd::mean(i8))::value_type, double>);
  static_assert(std::is_same_v<decltype(nd::var(c))::value_type, float>);
  static_assert(std::is_same_v<decltype(nd::norm(c)), nd::ndarray<float>>);
  static_assert(std::is_same_v<decltype(nd::min(u16))::value_type, std::uint16_t>);
  static_assert(std::is_same_v<decltype(nd::argmax(f)), nd::ndarray<std::int64_t>>);
  static_assert(std::is_same_v<decltype(nd::all(f))::value_type, bool>);
  static_assert(std::is_same_v<decltype(nd::any(f, {0, 1}, nd::keepdims))::value_type, bool>);
  static_assert(std::is_same_v<decltype(nd::count_nonzero(c))::value_type, std::int64_t>);
  static_assert(std::is_same_v<decltype(nd::sum(f * f, 1))::value_type, float>);
  static_assert(std::is_same_v<decltype(nd::sum(i8 * 2))::value_type, std::int64_t>);
  SUCCEED();
}

TEST(ReductionErrors, AxesAsNumPy) {
  EXPECT_EQ(message_of([] { (void)nd::detail::reduced_axes_mask(std::vector<int>{2}, 2); }),
            "axis 2 is out of bounds for array of dimension 2");
  EXPECT_EQ(message_of([] { (void)nd::detail::reduced_axes_mask(std::vector<int>{-3}, 2); }),
            "axis -3 is out of bounds for array of dimension 2");
  EXPECT_NE(message_of([] {
              (void)nd::detail::reduced_axes_mask(std::vector<int>{1, -1}, 2);
            }).find("duplicate value in 'axis'"),
            std::string::npos);
  EXPECT_THROW((void)nd::detail::reduced_axes_mask(std::vector<int>{0, 0}, 3), nd::shape_error);
  EXPECT_EQ(nd::detail::reduced_axes_mask(std::vector<int>{-1, 0}, 3), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(nd::detail::reduced_axes_mask(std::nullopt, 2), (std::vector<bool>{true, true}));
  EXPECT_EQ(message_of([] { (void)nd::detail::reduced_axes_mask(std::vector<int>{0}, 0); }),
            "axis 0 is out of bounds for array of dimension 0");
  const nd::shape_t s{2, 3, 4};
  EXPECT_EQ(nd::detail::reduction_result_shape(s, {false, true, false}, false), (nd::shape_t{2, 4}));
  EXPECT_EQ(nd::detail::reduction_result_shape(s, {false, true, false}, true), (nd::shape_t{2, 1, 4}));
  EXPECT_EQ(nd::detail::reduction_result_shape(s, {true, true, true}, false), nd::shape_t{});
}

TEST(ReductionErrors, PublicCallsCheckBeforeTouchingTheDevice) {
  const auto f = fake<float>({3, 4});
  const auto empty_rows = fake<float>({3, 0});
  EXPECT_EQ(message_of([&] { (void)nd::sum(f, 2); }), "axis 2 is out of bounds for array of dimension 2");
  EXPECT_THROW((void)nd::max(f, {0, -2}), nd::shape_error);
  EXPECT_EQ(message_of([&] { (void)nd::min(empty_rows); }),
            "zero-size array to reduction operation minimum which has no identity");
  EXPECT_EQ(message_of([&] { (void)nd::max(empty_rows, 1); }),
            "zero-size array to reduction operation maximum which has no identity");
  EXPECT_EQ(message_of([&] { (void)nd::nanmin(empty_rows); }),
            "zero-size array to reduction operation fmin which has no identity");
  EXPECT_EQ(message_of([&] { (void)nd::argmax(empty_rows); }), "attempt to get argmax of an empty sequence");
  EXPECT_EQ(message_of([&] { (void)nd::argmin(empty_rows, 1); }), "attempt to get argmin of an empty sequence");
  EXPECT_EQ(message_of([&] { (void)nd::norm(empty_rows, -std::numeric_limits<double>::infinity()); }),
            "zero-size array to reduction operation minimum which has no identity");
  EXPECT_NE(message_of([&] { (void)nd::norm(f, 3.0); }).find("ord"), std::string::npos);
  const auto c = fake<std::complex<double>>({4});
  EXPECT_NE(message_of([&] { (void)nd::nanmax(c); }).find("complex"), std::string::npos);  // max orders them
  EXPECT_THROW((void)nd::nanmin(c), nd::error);
}

TEST(ReductionPlan, InnerAxisOfAMatrixIsRowsWithVectors) {
  const auto p = plan_dense({1024, 16384}, {false, true});
  EXPECT_EQ(p.strategy, jd::reduce_strategy::rows);
  EXPECT_EQ(p.outputs, 1024);
  EXPECT_EQ(p.reduced, 16384);
  EXPECT_EQ(p.vector, 4);
  EXPECT_EQ(p.group, jd::reduce_block);
  EXPECT_FALSE(p.index64);
  EXPECT_EQ(p.variant_name(), "r1x1_b256_v4_i32");
  // Short rows: a warp each; bytes: 16 per vector.
  const auto q = plan_dense({4096, 200}, {false, true}, 1);
  EXPECT_EQ(q.group, 32);
  EXPECT_EQ(q.vector, 8);  // 200 is a multiple of 8, not of 16
}

TEST(ReductionPlan, OuterAxisOfAMatrixIsColumns) {
  const auto p = plan_dense({16384, 16384}, {true, false});
  EXPECT_EQ(p.strategy, jd::reduce_strategy::columns);
  EXPECT_EQ(p.out_shape, nd::shape_t{16384});
  EXPECT_EQ(p.red_shape, nd::shape_t{16384});
  EXPECT_EQ(p.red_strides[0], nd::strides_t{16384});
  EXPECT_EQ(p.out_strides[1], nd::strides_t{1});
  // Few columns: rows (strided), a warp per output would idle.
  const auto narrow = plan_dense({100000, 3}, {true, false});
  EXPECT_EQ(narrow.strategy, jd::reduce_strategy::rows);
}

TEST(ReductionPlan, ManyShortRowsAreColumns) {
  // sum(r * r, 1) of (2^20, 2): a thread per output, not a warp per two elements.
  const auto p = plan_dense({1 << 20, 2}, {false, true});
  EXPECT_EQ(p.strategy, jd::reduce_strategy::columns);
  // k-means' distances over 16 features: a thread per output too (4.8x faster than a warp each on
  // an H200, docs/performance.md); 17 is past the limit.
  EXPECT_EQ(plan_dense({1 << 20, 16}, {false, true}).strategy, jd::reduce_strategy::columns);
  EXPECT_EQ(plan_dense({1 << 20, 17}, {false, true}).strategy, jd::reduce_strategy::rows);
  EXPECT_EQ(plan_dense({16, 2}, {false, true}).strategy, jd::reduce_strategy::rows);  // too few outputs
}

TEST(ReductionPlan, FullReductionCollapsesToOneDenseRow) {
  const auto p = plan_dense({8, 16, 32, 4}, {true, true, true, true});
  EXPECT_EQ(p.outputs, 1);
  EXPECT_EQ(p.red_shape, nd::shape_t{8 * 16 * 32 * 4});
  EXPECT_EQ(p.out_shape, nd::shape_t{1});
  EXPECT_EQ(p.strategy, jd::reduce_strategy::rows);
  EXPECT_EQ(p.vector, 4);
  // Misaligned start: no vectors.
  EXPECT_EQ(plan_dense({1024}, {true}, 4, 260).vector, 1);
  EXPECT_EQ(plan_dense({1024}, {true}, 4, 264).vector, 2);
}

TEST(ReductionPlan, TransposedInputReordersDimensions) {
  // a.T of a C-order (64, 128) array: shape (128, 64), strides (1, 128). Reducing axis 0 of the
  // view reads along its dense dimension: rows.
  const auto p = plan_dense({128, 64}, {true, false}, 4, 256, false, {1, 128});
  EXPECT_EQ(p.strategy, jd::reduce_strategy::rows);
  EXPECT_EQ(p.red_strides[0], nd::strides_t{1});
  EXPECT_EQ(p.out_strides[0], nd::strides_t{1});  // the output's own stride along the kept axis
  // Reducing axis 1 of the view: the kept axis is the dense one: columns.
  const auto q = plan_dense({128, 64}, {false, true}, 4, 256, false, {1, 128});
  EXPECT_EQ(q.strategy, jd::reduce_strategy::columns);
}

TEST(ReductionPlan, SetsOfAxesCollapseWhereContiguous) {
  // (2, 3, 4, 5) reducing {1, 2}: the reduced dims merge into one of 12; kept stay 2 x 5.
  const auto p = plan_dense({2, 3, 4, 5}, {false, true, true, false});
  EXPECT_EQ(p.red_shape, nd::shape_t{12});
  EXPECT_EQ(p.red_strides[0], nd::strides_t{5});
  EXPECT_EQ(p.out_shape, (nd::shape_t{2, 5}));
  // {0, 2}: not adjacent, two reduced dimensions.
  const auto q = plan_dense({2, 3, 4, 5}, {true, false, true, false});
  EXPECT_EQ(q.red_ndim(), 2);
  EXPECT_EQ(q.outputs, 15);
  EXPECT_EQ(q.reduced, 8);
}

TEST(ReductionPlan, ArgReductionsKeepTheLogicalOrder) {
  // A reversed-stride 2-d view reduced fully: without keep_order the dims would be reordered.
  const auto p = plan_dense({4, 8}, {true, true}, 4, 256, true, {1, 4});
  EXPECT_EQ(p.red_shape, (nd::shape_t{4, 8}));
  EXPECT_EQ(p.red_strides[0], (nd::strides_t{1, 4}));
  const auto q = plan_dense({4, 8}, {true, true}, 4, 256, false, {1, 4});
  EXPECT_EQ(q.red_shape, nd::shape_t{32});
}

TEST(ReductionPlan, LargeArraysUse64BitIndexing) {
  EXPECT_TRUE(plan_dense({(nd::index_t{1} << 31) + 5}, {true}, 1).index64);
  EXPECT_TRUE(plan_dense({3, nd::index_t{1} << 30}, {false, true}, 1).index64);
  EXPECT_FALSE(plan_dense({1 << 20}, {true}).index64);
}

TEST(ReductionPlan, EmptyAndSizeOneDimensions) {
  const auto p = plan_dense({5, 0}, {false, true});
  EXPECT_EQ(p.reduced, 0);
  EXPECT_EQ(p.outputs, 5);
  EXPECT_EQ(p.strategy, jd::reduce_strategy::rows);
  const auto q = plan_dense({1, 7, 1}, {true, false, true});
  EXPECT_EQ(q.out_shape, nd::shape_t{7});
  EXPECT_EQ(q.red_shape, nd::shape_t{1});
}
