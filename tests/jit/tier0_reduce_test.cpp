// Tier 0 of reductions on the host (docs/jit.md): which reductions it takes (the reducers with
// ahead-of-time folds, spelled as the engine spells NumPy's default dtypes), which it leaves to
// their compiled kernels, and when the fold reads the input itself instead of a map buffer.
#include <gtest/gtest.h>

#include <ndcuda/ndcuda.hpp>
#include <set>
#include <string>
#include <vector>

#include "expr/reduction_state.hpp"
#include "jit/reduction_plan.hpp"
#include "jit/tier0_program.hpp"
#include "jit/tier0_reduction.hpp"
#include "support/reduction_plans.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;
using nd::detail::reduce_kind;

namespace {

// The engine's spec of `k` over values of `t` with no dtype= (expr/reduction_expr.hpp's rule).
nd::detail::reduce_spec default_spec(reduce_kind k, nd::dtype t) {
  const nd::detail::reduction_row& row = nd::detail::reduction_of(k);
  const nd::dtype out = row.result(t);
  return {k, nd::detail::compute_type(t), row.accumulator(t, out), out};
}

jd::reduction_signature signature_of(reduce_kind k, nd::dtype t, std::string map, std::size_t inputs = 1) {
  const nd::detail::reduce_spec spec = default_spec(k, t);
  jd::reduction_signature sig;
  sig.name = nd::detail::reduction_of(k).kernel;
  sig.map_statement = std::move(map);
  sig.reducer = nd::detail::reducer_spelling(spec);
  sig.value = spec.value;
  sig.acc = spec.acc;
  sig.out = spec.out;
  sig.in.assign(inputs, t);
  sig.sources.assign(inputs, "");
  return sig;
}

jd::reduction_plan plan_of(const nd::shape_t& shape, const std::vector<bool>& reduced, std::size_t inputs = 1) {
  return nd::testing::dense_float_plan(shape, reduced, inputs);
}

const nd::dtype tier0_types[] = {nd::dtype::bool_, nd::dtype::int32, nd::dtype::int64, nd::dtype::float32,
                                 nd::dtype::float64};

class Tier0ReducePlan : public ::testing::Test {
 protected:
  void SetUp() override { jd::set_tiered_calls(true); }
  void TearDown() override { jd::use_environment_for_tiered_calls(); }
};

}  // namespace

TEST_F(Tier0ReducePlan, EveryFoldIsOfAReducerTheEngineSpellsForNumPysDefaultDtypes) {
  std::set<int> reached;
  for (reduce_kind k :
       {reduce_kind::sum, reduce_kind::prod, reduce_kind::mean, reduce_kind::min, reduce_kind::max, reduce_kind::all,
        reduce_kind::any, reduce_kind::count_nonzero, reduce_kind::argmin, reduce_kind::argmax}) {
    for (nd::dtype t : tier0_types) {
      if ((k == reduce_kind::argmin || k == reduce_kind::argmax) && t == nd::dtype::bool_) {
        continue;  // NumPy's argmax of bools: left to the compiled kernels
      }
      const std::string spelling = nd::detail::reducer_spelling(default_spec(k, t));
      const int index = jd::tier0_reducer_index(spelling);
      EXPECT_GE(index, 0) << nd::detail::reduction_of(k).name << " of " << nd::name(t) << ": " << spelling
                          << " has no tier-0 fold";
      reached.insert(index);
    }
  }
  // Each fold is reached by exactly one of them: none is dead or spelled another way.
  EXPECT_EQ(reached.size(), static_cast<std::size_t>(jd::tier0_reducer_count()));
  EXPECT_EQ(reached.count(-1), 0u);
}

TEST_F(Tier0ReducePlan, ReductionsWithoutAFoldOrAnInterpretableMapWaitForTheirKernels) {
  std::string why;
  EXPECT_FALSE(jd::make_tier0_reduction(signature_of(reduce_kind::var, nd::dtype::float32, "out = in0"), &why));
  EXPECT_NE(why.find("no tier-0 fold"), std::string::npos) << why;
  EXPECT_FALSE(jd::make_tier0_reduction(signature_of(reduce_kind::sum, nd::dtype::float16, "out = in0"), &why));
  EXPECT_FALSE(jd::make_tier0_reduction(signature_of(reduce_kind::sum, nd::dtype::uint8, "out = in0"), &why));
  // A map the interpreter lacks: refused with the encoder's reason.
  why.clear();
  EXPECT_FALSE(
      jd::make_tier0_reduction(signature_of(reduce_kind::sum, nd::dtype::float32, "out = ndcuda::nd_fold(in0)"), &why));
  EXPECT_FALSE(why.empty());
  jd::set_tiered_calls(false);
  EXPECT_FALSE(jd::make_tier0_reduction(signature_of(reduce_kind::sum, nd::dtype::float32, "out = in0"), &why));
  EXPECT_NE(why.find("NDCUDA_JIT_TIERED"), std::string::npos) << why;
}

TEST_F(Tier0ReducePlan, APlainReadFoldsTheInputAndAMapFillsABuffer) {
  const auto plain = jd::make_tier0_reduction(signature_of(reduce_kind::sum, nd::dtype::float32, "out = in0"));
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->reads_input);
  const auto mapped = jd::make_tier0_reduction(
      signature_of(reduce_kind::sum, nd::dtype::float32, "out = ndcuda::nd_multiply(in0, in1)", 2));
  ASSERT_TRUE(mapped);
  EXPECT_FALSE(mapped->reads_input);
  EXPECT_EQ(mapped->map.steps.size(), 3u);  // two loads and the product

  nd::index_t bytes = -1;
  // sum(a, 1) of 300 x 257: rows, read in place.
  EXPECT_TRUE(jd::tier0_fits(*plain, plan_of({300, 257}, {false, true}), 4, &bytes));
  EXPECT_EQ(bytes, 0);
  // sum(a * b, 1): the products in a dense 300 x 257 buffer.
  EXPECT_TRUE(jd::tier0_fits(*mapped, plan_of({300, 257}, {false, true}, 2), 4, &bytes));
  EXPECT_EQ(bytes, 300 * 257 * 4);
  // Axis 1 of 6 x 129 x 40: two kept dimensions, so even a plain read goes through the buffer.
  EXPECT_TRUE(jd::tier0_fits(*plain, plan_of({6, 129, 40}, {false, true, false}), 4, &bytes));
  EXPECT_EQ(bytes, 6 * 129 * 40 * 4);
  // Past the buffer's limit (a mapped 2^27 floats is 512 MiB): the kernels, not tier 0.
  EXPECT_FALSE(jd::tier0_fits(*mapped, plan_of({nd::index_t{1} << 27}, {true}, 2), 4, &bytes));
  // A plain read of the same needs no buffer.
  EXPECT_TRUE(jd::tier0_fits(*plain, plan_of({nd::index_t{1} << 27}, {true}), 4, &bytes));
  EXPECT_EQ(bytes, 0);
}
