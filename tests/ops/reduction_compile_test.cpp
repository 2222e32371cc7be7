// Reduction kernels compiled by NVRTC without a GPU: every reducer over a sample of dtypes, and
// every strategy (rows with vectors, warp rows, columns, strided N-d, 64-bit, second passes).
#include <gtest/gtest.h>

#include <ndcuda/ops/elementwise.hpp>
#include <ndcuda/ops/reductions.hpp>

#include "support/fake_array.hpp"

namespace nd = ndcuda;
using nd::detail::reduce_kind;

namespace {

const nd::compute_capability sm90{9, 0};

using nd::testing::fake;

template <reduce_kind K, class D = void, class X>
const nd::detail::reduction_state& state_of(const X& x) {
  using N = nd::detail::node_t<const X&>;
  const N node = nd::detail::as_node(x);
  const nd::detail::inputs_of<N> in(node);
  return nd::detail::reduction_state_for<K, D, N>(in);
}

// Compiles both passes of reduction K of x for a dense C-order layout of `shape` over `mask`.
template <reduce_kind K, class D = void, class X>
void compile(const X& x, const nd::shape_t& shape, const std::vector<bool>& mask, int inputs = 1) {
  const std::vector<nd::strides_t> strides(static_cast<std::size_t>(inputs), nd::c_strides(shape));
  nd::detail::compile_reduction(state_of<K, D>(x), sm90, shape, mask, strides);
}

template <reduce_kind K, class T>
void compile_kind_for() {
  const auto a = fake<T>({64, 4096});
  SCOPED_TRACE(std::string(nd::detail::reduce_name(K)) + " of " + std::string(nd::name(nd::dtype_of<T>)));
  EXPECT_NO_THROW(compile<K>(a, {64, 4096}, {false, true}));  // rows, vectors
  if constexpr (K == reduce_kind::sum || K == reduce_kind::argmax || K == reduce_kind::var ||
                K == reduce_kind::nanmean) {
    EXPECT_NO_THROW(compile<K>(a, {4096, 64}, {true, false}));  // columns
  }
}

template <class T>
void compile_all_kinds() {
  compile_kind_for<reduce_kind::sum, T>();
  compile_kind_for<reduce_kind::prod, T>();
  compile_kind_for<reduce_kind::mean, T>();
  compile_kind_for<reduce_kind::nansum, T>();
  compile_kind_for<reduce_kind::nanmean, T>();
  compile_kind_for<reduce_kind::var, T>();
  compile_kind_for<reduce_kind::std, T>();
  compile_kind_for<reduce_kind::argmin, T>();
  compile_kind_for<reduce_kind::argmax, T>();
  compile_kind_for<reduce_kind::all, T>();
  compile_kind_for<reduce_kind::any, T>();
  compile_kind_for<reduce_kind::count_nonzero, T>();
  compile_kind_for<reduce_kind::norm1, T>();
  compile_kind_for<reduce_kind::norm2, T>();
  compile_kind_for<reduce_kind::norm_max, T>();
  compile_kind_for<reduce_kind::norm_min, T>();
  compile_kind_for<reduce_kind::min, T>();  // complex: NumPy's lexicographic order (issue 19)
  compile_kind_for<reduce_kind::max, T>();
  if constexpr (!nd::is_complex(nd::dtype_of<T>)) {
    compile_kind_for<reduce_kind::nanmin, T>();
    compile_kind_for<reduce_kind::nanmax, T>();
  }
}

}  // namespace

TEST(ReductionCompile, EveryReducerForFloat32) {
  compile_all_kinds<float>();
}
TEST(ReductionCompile, EveryReducerForInt8) {
  compile_all_kinds<std::int8_t>();
}
TEST(ReductionCompile, EveryReducerForHalf) {
  compile_all_kinds<__half>();
}
TEST(ReductionCompile, EveryReducerForComplex128) {
  compile_all_kinds<std::complex<double>>();
}

TEST(ReductionCompile, SampleOfOtherDtypes) {
  EXPECT_NO_THROW(compile<reduce_kind::sum>(fake<bool>({1000}), {1000}, {true}));
  EXPECT_NO_THROW(compile<reduce_kind::max>(fake<std::uint64_t>({1000}), {1000}, {true}));
  EXPECT_NO_THROW(compile<reduce_kind::argmax>(fake<__nv_bfloat16>({1000}), {1000}, {true}));
  EXPECT_NO_THROW(compile<reduce_kind::var>(fake<std::uint16_t>({10, 100}), {10, 100}, {false, true}));
  EXPECT_NO_THROW(compile<reduce_kind::mean>(fake<std::complex<float>>({10, 100}), {10, 100}, {true, false}));
  EXPECT_NO_THROW(compile<reduce_kind::nanmin>(fake<double>({10, 100}), {10, 100}, {false, true}));
  EXPECT_NO_THROW((compile<reduce_kind::sum, double>(fake<std::int32_t>({10, 100}), {10, 100}, {true, true})));
}

TEST(ReductionCompile, EveryLayout) {
  const auto f = fake<float>({8, 6, 4, 2});
  // Strided N-d rows (two reduced dims, two kept) and columns, short rows (warp), 64-bit.
  EXPECT_NO_THROW(compile<reduce_kind::sum>(f, {8, 6, 4, 2}, {true, false, true, false}));
  EXPECT_NO_THROW(compile<reduce_kind::sum>(f, {8, 6, 4, 40}, {true, true, false, false}));
  EXPECT_NO_THROW(compile<reduce_kind::sum>(f, {8000, 6}, {false, true}));
  EXPECT_NO_THROW(compile<reduce_kind::sum>(fake<std::int8_t>({1}), {(nd::index_t{1} << 31) + 16}, {true}));
  EXPECT_NO_THROW(compile<reduce_kind::argmax>(fake<std::int8_t>({1}), {3, nd::index_t{1} << 30}, {false, true}));
}

TEST(ReductionCompile, FusedMapsAreOneKernel) {
  const auto a = fake<float>({64, 4096});
  const auto b = fake<float>({64, 4096}, 0x40000);
  const auto i = fake<std::int32_t>({4096});
  EXPECT_NO_THROW(compile<reduce_kind::sum>(a * b, {64, 4096}, {false, true}, 2));
  EXPECT_NO_THROW(compile<reduce_kind::max>(nd::abs(a - 2.0f), {64, 4096}, {true, false}));
  EXPECT_NO_THROW(compile<reduce_kind::any>(a > 0.5f, {64, 4096}, {false, true}));
  // a * a reads one input; the source names in0 only.
  const std::vector<nd::strides_t> one{nd::c_strides(nd::shape_t{64, 4096})};
  const std::string src =
      nd::detail::reduction_source_for(state_of<reduce_kind::sum>(a * a), nd::shape_t{64, 4096}, {false, true}, one);
  EXPECT_EQ(src.find("in1"), std::string::npos) << src;
  EXPECT_NE(src.find("reduce_rows<256, 256, 4, false>"), std::string::npos) << src;  // 4096: no tail
  EXPECT_EQ(src.find("cub"), std::string::npos);
  (void)i;
}

TEST(ReductionCompile, StatesAreCachedPerTypeAndReducer) {
  const auto a = fake<float>({16});
  const auto b = fake<float>({16}, 0x20000);
  EXPECT_EQ(&state_of<reduce_kind::sum>(a), &state_of<reduce_kind::sum>(b));
  EXPECT_NE(&state_of<reduce_kind::sum>(a), &state_of<reduce_kind::prod>(a));
  EXPECT_NE(&state_of<reduce_kind::sum>(a), (&state_of<reduce_kind::sum, double>(a)));
  EXPECT_EQ(&state_of<reduce_kind::sum>(a * 2.0f), &state_of<reduce_kind::sum>(b * 3.0f));
}
