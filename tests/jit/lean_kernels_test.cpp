// What generated kernels leave out so that a first call's NVRTC compile is shorter: ufunc helpers
// a body does not call (kernels/ufuncs_core.cuh alone, all of ufuncs.cuh, or none) and the tail
// loop of reductions over rows of whole vectors; the NVRTC compiles each choice must keep working,
// and GPU checks of each kind against a host reference. Builds on src/jit's source generators.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/ops/functions.hpp>
#include <ndcuda/ops/operators.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <string>
#include <vector>

#include "jit/elementwise_source.hpp"
#include "jit/kernel_key.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/reduction_plan.hpp"
#include "jit/reduction_source.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"
#include "support/reduction_plans.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;

namespace {

constexpr const char* core = "#define NDCUDA_KERNEL_CORE_UFUNCS 1";
constexpr const char* none = "#define NDCUDA_KERNEL_WITHOUT_UFUNCS 1";

// The body src/expr/codegen.cpp writes for a * b + c of float32 arrays.
constexpr const char* fused_abc = "out = ndcuda::nd_add(ndcuda::nd_multiply(in0, in1), in2)";

jd::compiled_program compile(const std::string& source, const std::string& name) {
  return jd::nvrtc_compile(jd::make_key(source, name + ".cu", {name}, jd::generated_kernel_options(), {90, false}));
}

jd::elementwise_plan contiguous_plan() {
  jd::elementwise_plan plan;
  plan.contiguous = true;
  plan.vector = 4;
  return plan;
}

jd::reduction_signature sum_of(const std::string& name, const std::string& map) {
  jd::reduction_signature sig;
  sig.name = name;
  sig.map_statement = map;
  sig.reducer = "ndcuda::sum_reducer<float, float, float>";
  sig.value = sig.acc = sig.out = nd::dtype::float32;
  sig.in = {nd::dtype::float32};
  return sig;
}

jd::reduction_plan plan_of(const nd::shape_t& shape, const std::vector<bool>& reduced) {
  return nd::testing::dense_float_plan(shape, reduced);
}

// sum(a, 1) of 4096 x 1024 float32: rows of whole vectors.
jd::reduction_plan rows_plan() {
  return plan_of({4096, 1024}, {false, true});
}

}  // namespace

TEST(JitLeanKernels, TheDefineFollowsTheHelpersABodyNames) {
  EXPECT_EQ(jd::ufunc_header_define("out = x * 3.5f + y"), none);
  EXPECT_EQ(jd::ufunc_header_define(""), none);
  EXPECT_EQ(jd::ufunc_header_define(fused_abc), core);
  EXPECT_EQ(jd::ufunc_header_define("out = ndcuda::nd_maximum(nd_abs(x), y) && ndcuda::nd_isnan(y)"), core);
  // "nd_" inside another name is not a helper's.
  EXPECT_EQ(jd::ufunc_header_define("float band_width = x; out = band_width"), none);
  // Any helper outside the core, or a name of the user's own, gets all of ufuncs.cuh.
  EXPECT_EQ(jd::ufunc_header_define("out = ndcuda::nd_add(x, ndcuda::nd_exp(y))"), "");
  EXPECT_EQ(jd::ufunc_header_define("out = ndcuda::nd_floor_divide(x, y)"), "");
  EXPECT_EQ(jd::ufunc_header_define("float nd_total = x; out = nd_total"), "");
  EXPECT_EQ(jd::ufunc_header_define("out = nd_"), "");
}

TEST(JitLeanKernels, EveryCoreHelperCompilesWithTheCoreHeaderAlone) {
  const jd::elementwise_signature sig{nd::dtype::float32, {nd::dtype::float32, nd::dtype::float32}};
  const std::string body =
      "out = ndcuda::nd_add(x, y) + ndcuda::nd_subtract(x, y) + ndcuda::nd_multiply(x, y) + "
      "ndcuda::nd_true_divide(x, y) + ndcuda::nd_negative(x) + ndcuda::nd_maximum(x, y) + "
      "ndcuda::nd_minimum(x, y) + ndcuda::nd_fmax(x, y) + ndcuda::nd_fmin(x, y) + ndcuda::nd_abs(x) + "
      "((ndcuda::nd_isnan(x) || ndcuda::nd_isinf(y) || !ndcuda::nd_isfinite(x)) ? 1.0f : 0.0f)";
  const jd::elementwise_plan plan = contiguous_plan();
  const std::string source = jd::elementwise_source(body, "core_all", sig, plan);
  ASSERT_NE(source.find(core), std::string::npos) << source;
  const jd::compiled_program program = compile(source, jd::elementwise_kernel_name("core_all", plan));
  // The traits' explicit specializations hold enumerators: no __device__ variable in the CUBIN.
  const std::string image(program.image.begin(), program.image.end());
  EXPECT_EQ(image.find("is_signed_int"), std::string::npos);
  EXPECT_EQ(image.find("is_int"), std::string::npos);
}

TEST(JitLeanKernels, ReductionsParseOnlyWhatTheirMapCalls) {
  const jd::reduction_plan plan = rows_plan();
  const jd::reduction_signature plain = sum_of("plain_map", "out = in0 * 2.0f");
  const jd::reduction_signature full = sum_of("exp_map", "out = ndcuda::nd_exp(in0)");
  const std::string plain_first = jd::reduction_source(plain, plan);
  const std::string full_first = jd::reduction_source(full, plan);
  const std::string finish = jd::finish_source(full, plan);
  EXPECT_NE(plain_first.find(none), std::string::npos) << plain_first;
  EXPECT_EQ(full_first.find("NDCUDA_KERNEL_"), std::string::npos) << full_first;
  EXPECT_NE(finish.find(none), std::string::npos) << finish;  // no map: the reducer's core only
  // The plain map and the second pass compile with reducers.cuh's ufuncs_core.cuh alone; the
  // full map still finds nd_exp.
  EXPECT_NO_THROW((void)compile(plain_first, jd::reduction_kernel_name(plain, plan))) << plain_first;
  EXPECT_NO_THROW((void)compile(finish, jd::finish_kernel_name(full, plan))) << finish;
  EXPECT_NO_THROW((void)compile(full_first, jd::reduction_kernel_name(full, plan))) << full_first;
}

// a * b + c (core helpers), exp (all of ufuncs.cuh) and reductions whose maps call core helpers,
// none, or others, on fresh random input, against references computed in double on the host.
TEST(JitLeanKernels, GpuExpressionsAndReductionsOfEachKindMatchTheHostReference) {
  NDCUDA_REQUIRE_GPU();
  const nd::index_t rows = 3;
  const nd::index_t cols = 100003;
  const std::size_t n = static_cast<std::size_t>(rows * cols);
  const std::vector<float> ha = nd::testing::uniform_values<float>(n, -2.0, 2.0);
  const std::vector<float> hb = nd::testing::uniform_values<float>(n, -2.0, 2.0);
  const std::vector<float> hc = nd::testing::uniform_values<float>(n, -2.0, 2.0);
  const auto a = nd::asarray(ha, {rows, cols});
  const auto b = nd::asarray(hb, {rows, cols});
  const auto c = nd::asarray(hc, {rows, cols});

  const nd::ndarray<float> abc = a * b + c;
  const nd::ndarray<float> e = nd::exp(a) - b;
  const std::vector<float> got_abc = abc.to_host();
  const std::vector<float> got_e = e.to_host();
  ASSERT_EQ(got_abc.size(), n);
  ASSERT_EQ(got_e.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const double want_abc = double(ha[i]) * double(hb[i]) + double(hc[i]);
    const double want_e = std::exp(double(ha[i])) - double(hb[i]);
    ASSERT_NEAR(got_abc[i], want_abc, 1e-5 * std::max(1.0, std::abs(want_abc))) << "a * b + c at " << i;
    ASSERT_NEAR(got_e[i], want_e, 1e-5 * std::max(1.0, std::abs(want_e))) << "exp(a) - b at " << i;
  }

  const std::vector<float> row_abs = nd::sum(nd::abs(a) * b, 1).to_host();  // core map, 3 outputs: splits
  const std::vector<float> row_plain = nd::sum(a, 1).to_host();             // no map helper
  const std::vector<float> col_exp = nd::sum(nd::exp(a), 0).to_host();      // all of ufuncs.cuh
  ASSERT_EQ(row_abs.size(), static_cast<std::size_t>(rows));
  ASSERT_EQ(row_plain.size(), static_cast<std::size_t>(rows));
  ASSERT_EQ(col_exp.size(), static_cast<std::size_t>(cols));
  // The reduction suite's tolerance: 8 n eps x the largest term (4 for |a| b, 2 for a).
  const double eps = 1.19e-7;
  for (nd::index_t r = 0; r < rows; ++r) {
    double want_abs = 0;
    double want_plain = 0;
    for (nd::index_t k = 0; k < cols; ++k) {
      const std::size_t i = static_cast<std::size_t>(r * cols + k);
      want_abs += std::abs(double(ha[i])) * double(hb[i]);
      want_plain += double(ha[i]);
    }
    EXPECT_NEAR(row_abs[static_cast<std::size_t>(r)], want_abs, 8.0 * double(cols) * eps * 4.0) << "row " << r;
    EXPECT_NEAR(row_plain[static_cast<std::size_t>(r)], want_plain, 8.0 * double(cols) * eps * 2.0) << "row " << r;
  }
  for (nd::index_t k = 0; k < cols; ++k) {
    double want = 0;
    for (nd::index_t r = 0; r < rows; ++r) want += std::exp(double(ha[static_cast<std::size_t>(r * cols + k)]));
    ASSERT_NEAR(col_exp[static_cast<std::size_t>(k)], want, 1e-5 * std::max(1.0, want)) << "column " << k;
  }
}

TEST(JitLeanKernels, RowsOfWholeVectorsLeaveTheTailLoopOut) {
  const jd::reduction_plan whole = rows_plan();
  const jd::reduction_plan ragged = plan_of({4099}, {true});  // one row of 4099: vectors and a tail
  ASSERT_EQ(whole.vector, 4);
  ASSERT_EQ(ragged.vector, 4);
  EXPECT_FALSE(whole.tail);
  EXPECT_TRUE(ragged.tail);
  EXPECT_EQ(whole.variant_name(), "r1x1_b32_v4_i32");
  EXPECT_EQ(ragged.variant_name(), "r1x1_b256_v4t_i32");    // its own kernel
  EXPECT_FALSE(plan_of({4096, 1000}, {true, false}).tail);  // columns: no vectors, no tail
  EXPECT_FALSE(plan_of({1000}, {true}).tail);               // 1000 = 250 vectors of 4
  const jd::reduction_signature sig = sum_of("tails", "out = in0");
  const std::string whole_source = jd::reduction_source(sig, whole);
  const std::string ragged_source = jd::reduction_source(sig, ragged);
  EXPECT_NE(whole_source.find("ndcuda::reduce_rows<256, 32, 4, false>("), std::string::npos) << whole_source;
  EXPECT_NE(ragged_source.find("ndcuda::reduce_rows<256, 256, 4>("), std::string::npos) << ragged_source;
  EXPECT_NO_THROW((void)compile(whole_source, jd::reduction_kernel_name(sig, whole))) << whole_source;
  EXPECT_NO_THROW((void)compile(ragged_source, jd::reduction_kernel_name(sig, ragged))) << ragged_source;
}

// Sums over rows of whole vectors and of other lengths (so with and without the tail loop), one
// pass and split, on fresh random input, against sums in double on the host. The ragged rows are
// views of the first `cols` of `padded` columns, so their starts stay 16-byte aligned (vectors).
TEST(JitLeanKernels, GpuReductionsWithAndWithoutTheTailMatchTheHostReference) {
  NDCUDA_REQUIRE_GPU();
  const double eps = 1.19e-7;
  struct sum_case {
    nd::index_t rows, cols, padded;
  };
  const nd::index_t big = nd::index_t{1} << 20;
  const std::vector<sum_case> cases{
      {512, 4096, 4096}, {512, 4099, 4100}, {2, big + 4, big + 4}, {2, big + 3, big + 4}, {1, 4099, 4099}};
  for (const sum_case& c : cases) {
    const std::vector<float> host =
        nd::testing::uniform_values<float>(static_cast<std::size_t>(c.rows * c.padded), -2.0, 2.0);
    const auto full = nd::asarray(host, {c.rows, c.padded});
    const auto a = full(nd::all, nd::slice(0, c.cols));
    const std::vector<float> got = nd::sum(a, 1).to_host();
    ASSERT_EQ(got.size(), static_cast<std::size_t>(c.rows));
    for (nd::index_t r = 0; r < c.rows; ++r) {
      double want = 0;
      for (nd::index_t k = 0; k < c.cols; ++k) want += double(host[static_cast<std::size_t>(r * c.padded + k)]);
      ASSERT_NEAR(got[static_cast<std::size_t>(r)], want, 8.0 * double(c.cols) * eps * 2.0)
          << c.rows << " x " << c.cols << " of " << c.padded << ", row " << r;
    }
  }
}

TEST(JitLeanKernels, ContiguousSizesOfWholeVectorsLeaveTheScalarTailOut) {
  const std::vector<std::uintptr_t> aligned{256, 256, 256, 256};
  const std::vector<std::size_t> sizes{4, 4, 4, 4};
  const jd::elementwise_plan whole = jd::plan_contiguous(1024, aligned, sizes);
  const jd::elementwise_plan ragged = jd::plan_contiguous(1027, aligned, sizes);
  const jd::elementwise_plan scalar = jd::plan_contiguous(1027, std::vector<std::uintptr_t>{256, 4, 256, 256}, sizes);
  ASSERT_EQ(whole.vector, 4);
  ASSERT_EQ(ragged.vector, 4);
  ASSERT_EQ(scalar.vector, 1);
  EXPECT_FALSE(whole.tail);
  EXPECT_TRUE(ragged.tail);
  EXPECT_FALSE(scalar.tail);  // one element per step: the loop is the whole kernel
  EXPECT_NE(whole.variant(), ragged.variant());
  EXPECT_LT(ragged.variant(), jd::elementwise_variant_count);
  const jd::elementwise_signature sig{nd::dtype::float32, {nd::dtype::float32, nd::dtype::float32, nd::dtype::float32}};
  EXPECT_EQ(jd::elementwise_kernel_name("abc", whole), "abc__c4_i32");
  EXPECT_EQ(jd::elementwise_kernel_name("abc", ragged), "abc__c4t_i32");
  const std::string whole_source = jd::elementwise_source(fused_abc, "abc", sig, whole);
  const std::string ragged_source = jd::elementwise_source(fused_abc, "abc", sig, ragged);
  const std::string scalar_source = jd::elementwise_source(fused_abc, "abc", sig, scalar);
  EXPECT_NE(whole_source.find("ndcuda::elementwise_contiguous<4, int, false>("), std::string::npos) << whole_source;
  EXPECT_NE(ragged_source.find("ndcuda::elementwise_contiguous<4, int>("), std::string::npos) << ragged_source;
  EXPECT_NE(scalar_source.find("ndcuda::elementwise_contiguous<1, int>("), std::string::npos) << scalar_source;
  EXPECT_NO_THROW((void)compile(whole_source, jd::elementwise_kernel_name("abc", whole))) << whole_source;
  EXPECT_NO_THROW((void)compile(ragged_source, jd::elementwise_kernel_name("abc", ragged))) << ragged_source;
}

// a * b + c over sizes with and without a tail (and too small for one vector), on fresh random
// input, against the host in double.
TEST(JitLeanKernels, GpuContiguousExpressionsWithAndWithoutTheTailMatchTheHostReference) {
  NDCUDA_REQUIRE_GPU();
  for (const nd::index_t n : {nd::index_t{1} << 20, (nd::index_t{1} << 20) + 3, nd::index_t{3}, nd::index_t{8}}) {
    const std::vector<float> ha = nd::testing::uniform_values<float>(static_cast<std::size_t>(n), -2.0, 2.0);
    const std::vector<float> hb = nd::testing::uniform_values<float>(ha.size(), -2.0, 2.0);
    const std::vector<float> hc = nd::testing::uniform_values<float>(ha.size(), -2.0, 2.0);
    const auto a = nd::asarray(ha, {n});
    const auto b = nd::asarray(hb, {n});
    const auto c = nd::asarray(hc, {n});
    const nd::ndarray<float> r = a * b + c;
    const std::vector<float> got = r.to_host();
    ASSERT_EQ(got.size(), ha.size());
    for (std::size_t i = 0; i < ha.size(); ++i) {
      const double want = double(ha[i]) * double(hb[i]) + double(hc[i]);
      ASSERT_NEAR(got[i], want, 1e-5 * std::max(1.0, std::abs(want))) << "n = " << n << ", element " << i;
    }
  }
}
