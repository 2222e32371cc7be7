// How elementwise launches are planned (no GPU): dimension collapsing and ordering, the
// contiguous/strided choice, index width, vector width, and the generated source's shape.
#include "jit/elementwise_plan.hpp"

#include <gtest/gtest.h>

#include <ndcuda/core/error.hpp>
#include <set>

#include "jit/elementwise_source.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;

namespace {

// Plans `shape` with operands given as strides (elements), all float, all 256-byte aligned.
jd::elementwise_plan plan(nd::shape_t shape, std::vector<nd::strides_t> strides) {
  std::vector<std::uintptr_t> addresses(strides.size(), 4096);
  std::vector<std::size_t> sizes(strides.size(), 4);
  return jd::plan_strided(shape, strides, addresses, sizes);
}

}  // namespace

TEST(JitElementwisePlan, DenseOperandsOfAnyShapeRunAsOneContiguousLoop) {
  const nd::shape_t shape = {4, 5, 6};
  const auto c = nd::c_strides(shape);
  const auto p = plan(shape, {c, c, c});
  EXPECT_TRUE(p.contiguous);
  EXPECT_EQ(p.size, 120);
  EXPECT_EQ(p.vector, 4);  // 16 bytes of float
  EXPECT_FALSE(p.index64);
  // Extent-1 dimensions do not matter, whatever their strides.
  const auto q = plan({4, 1, 30}, {{30, 999, 1}, {30, 7, 1}});
  EXPECT_TRUE(q.contiguous);
  EXPECT_EQ(q.size, 120);
}

TEST(JitElementwisePlan, BroadcastAndTransposedOperandsCollapseAsFarAsTheyCan) {
  // b broadcast along axis 0 of a 4x5x6 iteration: axes 1 and 2 merge for everyone.
  const nd::shape_t shape = {4, 5, 6};
  const auto p = plan(shape, {nd::c_strides(shape), nd::c_strides(shape), {0, 6, 1}});
  EXPECT_FALSE(p.contiguous);
  EXPECT_EQ(p.shape, (nd::shape_t{4, 30}));
  EXPECT_EQ(p.strides[2], (nd::strides_t{0, 1}));
  // A scalar input (all strides 0) with dense others: one dimension.
  const auto s = plan(shape, {nd::c_strides(shape), {0, 0, 0}});
  EXPECT_EQ(s.shape, (nd::shape_t{120}));
  EXPECT_EQ(s.strides[1], (nd::strides_t{0}));
  // A transposed output: iteration follows the output's memory order (largest stride outermost).
  const auto t = plan({3, 4}, {{1, 3}, {4, 1}});
  EXPECT_EQ(t.shape, (nd::shape_t{4, 3}));
  EXPECT_EQ(t.strides[0], (nd::strides_t{3, 1}));
  EXPECT_EQ(t.strides[1], (nd::strides_t{1, 4}));
  // A reversed view stays strided (negative stride), one dimension.
  const auto r = plan({10}, {{1}, {-1}});
  EXPECT_FALSE(r.contiguous);
  EXPECT_EQ(r.strides[1], (nd::strides_t{-1}));
  // A single element.
  const auto one = plan({1, 1}, {{1, 1}, {0, 0}});
  EXPECT_EQ(one.size, 1);
}

TEST(JitElementwisePlan, SixtyFourBitIndexingOnlyWhereThirtyTwoBitsCouldOverflow) {
  EXPECT_FALSE(
      jd::plan_contiguous(jd::index32_limit, std::vector<std::uintptr_t>{0}, std::vector<std::size_t>{1}).index64);
  EXPECT_TRUE(
      jd::plan_contiguous(jd::index32_limit + 1, std::vector<std::uintptr_t>{0}, std::vector<std::size_t>{1}).index64);
  // Few elements but a huge stride: the offsets need 64 bits.
  EXPECT_TRUE(plan({2, 3}, {{3, 1}, {nd::index_t{1} << 31, 1}}).index64);
  EXPECT_FALSE(plan({2, 3}, {{3, 1}, {1000, 1}}).index64);
}

TEST(JitElementwisePlan, VectorWidthFollowsTheWidestTypeAndEveryPointersAlignment) {
  const auto width = [](std::vector<std::uintptr_t> addresses, std::vector<std::size_t> sizes) {
    return jd::plan_contiguous(1000, addresses, sizes).vector;
  };
  EXPECT_EQ(width({256, 256}, {4, 4}), 4);
  EXPECT_EQ(width({256, 260}, {4, 4}), 1);   // one float pointer off by 4 bytes
  EXPECT_EQ(width({256, 264}, {4, 4}), 2);   // off by 8
  EXPECT_EQ(width({256, 256}, {8, 4}), 2);   // double and float: 2 of each
  EXPECT_EQ(width({256}, {16}), 1);          // complex128 is already 16 bytes
  EXPECT_EQ(width({256, 256}, {1, 1}), 16);  // bool/int8
  EXPECT_EQ(width({256, 257}, {1, 1}), 1);
  EXPECT_EQ(width({256, 258}, {2, 2}), 1);
}

TEST(JitElementwisePlan, VariantIdsAreDenseAndDistinct) {
  std::set<int> ids;
  for (bool index64 : {false, true}) {
    for (int vec : {1, 2, 4, 8, 16}) {
      jd::elementwise_plan p;
      p.vector = vec;
      p.index64 = index64;
      ids.insert(p.variant());
      p.tail = true;  // sizes not a multiple of the vector: their own kernel (the same for 1)
      ids.insert(p.variant());
    }
    for (int ndim = 1; ndim <= jd::elementwise_max_ndim; ++ndim) {
      jd::elementwise_plan p;
      p.contiguous = false;
      p.index64 = index64;
      p.shape.assign(static_cast<std::size_t>(ndim), 2);
      ids.insert(p.variant());
    }
    jd::elementwise_plan tiled;
    tiled.contiguous = false;
    tiled.index64 = index64;
    tiled.shape = {64, 64};
    tiled.staged = 1;
    ids.insert(tiled.variant());
    for (int vec : {2, 4, 8, 16}) {
      jd::elementwise_plan p;
      p.contiguous = false;
      p.index64 = index64;
      p.shape = {64, 64};
      p.vector = vec;
      ids.insert(p.variant());
    }
  }
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(jd::elementwise_variant_count));
  EXPECT_EQ(*ids.begin(), 0);
  EXPECT_EQ(*ids.rbegin(), jd::elementwise_variant_count - 1);
}

TEST(JitElementwisePlan, ATransposedInputRunsThroughTheTiledVariant) {
  // c = a.T(): output C-order, the input dense along the output's rows.
  const auto t = plan({1000, 333}, {{333, 1}, {1, 1000}});
  EXPECT_FALSE(t.contiguous);
  EXPECT_TRUE(t.tiled());
  EXPECT_EQ(t.staged, 1U);
  EXPECT_EQ(t.shared_bytes, jd::tile_bytes(4));
  EXPECT_EQ(t.variant(), 10 + 2 * jd::elementwise_max_ndim);
  EXPECT_EQ(jd::elementwise_kernel_name("copy", t), "copy__t2_i32");
  // A transposed output with a row-major input: iteration follows the output, so the input is
  // the transposed one. A second input laid out like the output is read directly (bit 1 clear).
  const auto o = plan({64, 48}, {{1, 64}, {48, 1}, {1, 64}});
  EXPECT_EQ(o.shape, (nd::shape_t{48, 64}));
  EXPECT_EQ(o.staged, 1U);
  // Transposed and broadcast mixed: a.T() + b[None, :] + c[:, None].
  const auto m = plan({40, 50}, {{50, 1}, {1, 40}, {0, 1}, {1, 0}});
  EXPECT_EQ(m.staged, 1U);
  // 64-bit indexing keeps its own id.
  EXPECT_EQ(plan({40, 50}, {{50, 1}, {1, nd::index_t{1} << 31}}).variant(), 11 + 2 * jd::elementwise_max_ndim);
}

TEST(JitElementwisePlan, TilesOnlyWhereTheyPayAndFitInSharedMemory) {
  // Thin iterations (either extent below a tile's worth) and sliced-but-not-transposed inputs
  // (outer stride still the larger) are read directly.
  EXPECT_FALSE(plan({8, 1000}, {{1000, 1}, {1, 8}}).tiled());
  EXPECT_FALSE(plan({1000, 8}, {{8, 1}, {1, 1000}}).tiled());
  EXPECT_FALSE(plan({64, 64}, {{64, 1}, {256, 2}}).tiled());
  // 1 x N and N x 1 "transposes" collapse to one dense dimension.
  EXPECT_TRUE(plan({1, 4097}, {{4097, 1}, {1, 1}}).contiguous);
  EXPECT_TRUE(plan({4097, 1}, {{1, 1}, {1, 4097}}).contiguous);
  // Past 48 KiB of tiles the remaining transposed inputs are read directly.
  const nd::shape_t shape = {64, 64};
  std::vector<nd::strides_t> strides(6, nd::strides_t{1, 64});
  strides[0] = {64, 1};
  const std::vector<std::uintptr_t> addresses(strides.size(), 4096);
  const std::vector<std::size_t> sizes(strides.size(), 16);  // complex128
  const auto p = jd::plan_strided(shape, strides, addresses, sizes);
  EXPECT_EQ(p.staged, 0b11U);
  EXPECT_EQ(p.shared_bytes, 2 * jd::tile_bytes(16));
  EXPECT_LE(p.shared_bytes, jd::tile_max_bytes);
}

TEST(JitElementwisePlan, AnOuterBroadcastRunsAsATwoDimensionalGrid) {
  // (8192, 1) + (1, 8192) into a contiguous (8192, 8192): 2-d, nothing to stage.
  const auto p = plan({8192, 8192}, {{8192, 1}, {1, 0}, {0, 1}});
  EXPECT_FALSE(p.contiguous);
  EXPECT_FALSE(p.tiled());
  EXPECT_EQ(p.ndim(), 2);
  // Aligned rows: four floats per vector along them.
  EXPECT_TRUE(p.row_vectors());
  EXPECT_EQ(p.vector, 4);
  EXPECT_EQ(p.variant(), 12 + 2 * jd::elementwise_max_ndim + 2);
  EXPECT_EQ(jd::elementwise_kernel_name("add", p), "add__s2v4_i32");
  // And the contiguous add stays contiguous.
  const auto c = plan({8192, 8192}, {{8192, 1}, {8192, 1}, {8192, 1}});
  EXPECT_TRUE(c.contiguous);
  EXPECT_EQ(c.vector, 4);
}

TEST(JitElementwisePlan, RowVectorsOnlyWhereEveryDenseRowStartIsAligned) {
  const auto vectors = [](nd::shape_t shape, std::vector<nd::strides_t> strides, std::vector<std::uintptr_t> addresses,
                          std::vector<std::size_t> sizes) {
    const auto p = jd::plan_strided(shape, strides, addresses, sizes);
    EXPECT_FALSE(p.contiguous);
    EXPECT_EQ(p.ndim(), 2);
    EXPECT_EQ(p.row_vectors(), p.vector > 1);
    return p.row_vectors() ? p.vector : 1;
  };
  const std::vector<nd::strides_t> outer = {{4096, 1}, {1, 0}, {0, 1}};
  // Width by the widest dense operand: int8 16, float64 and complex64 2, complex128 none.
  EXPECT_EQ(vectors({64, 4096}, outer, {4096, 4096, 4096}, {1, 1, 1}), 16);
  EXPECT_EQ(vectors({64, 4096}, outer, {4096, 4096, 4096}, {8, 8, 8}), 2);
  EXPECT_EQ(vectors({64, 4096}, outer, {4096, 4096, 4096}, {16, 16, 16}), 1);
  // A broadcast (inner stride 0) input's alignment and width do not matter: read once per row.
  EXPECT_EQ(vectors({64, 4096}, outer, {4096, 4100, 4096}, {4, 8, 4}), 4);
  // The output or a dense input misaligned: halved to what holds, down to none.
  EXPECT_EQ(vectors({64, 4096}, outer, {4096 + 8, 4096, 4096}, {4, 4, 4}), 2);
  EXPECT_EQ(vectors({64, 4096}, outer, {4096, 4096, 4096 + 4}, {4, 4, 4}), 1);
  // Rows of an odd length: row stride 777 floats breaks every row start after the first.
  EXPECT_EQ(vectors({1000, 777}, {{777, 1}, {1, 0}, {0, 1}}, {4096, 4096, 4096}, {4, 4, 4}), 1);
  // A column slice of a wider, aligned buffer: rows of 777 in a stride of 780, vectors and a tail.
  EXPECT_EQ(vectors({1000, 777}, {{780, 1}, {1, 0}, {0, 1}}, {4096, 4096, 4096}, {4, 4, 4}), 4);
  // ... starting at column 1: misaligned.
  EXPECT_EQ(vectors({1000, 777}, {{780, 1}, {1, 0}, {0, 1}}, {4100, 4096, 4096}, {4, 4, 4}), 1);
  // An input that is neither dense nor broadcast along rows (a column slice with step 2), a
  // reversed row, or rows narrower than a warp: the scalar grid.
  EXPECT_EQ(vectors({64, 4096}, {{4096, 1}, {8200, 2}}, {4096, 4096}, {4, 4}), 1);
  EXPECT_EQ(vectors({64, 4096}, {{4096, 1}, {4096, -1}}, {4096, 4096}, {4, 4}), 1);
  EXPECT_EQ(vectors({4096, 16}, {{16, 1}, {1, 0}, {0, 1}}, {4096, 4096, 4096}, {4, 4, 4}), 1);
  // A transposed input takes the tiled variant, never row vectors.
  const auto t = plan({1000, 333}, {{333, 1}, {1, 1000}});
  EXPECT_TRUE(t.tiled());
  EXPECT_FALSE(t.row_vectors());
  // 64-bit indexing keeps its own id.
  const auto w = plan({8192, 8192}, {{8192, 1}, {nd::index_t{1} << 31, 0}, {0, 1}});
  EXPECT_TRUE(w.index64);
  EXPECT_EQ(w.variant(), 12 + 2 * jd::elementwise_max_ndim + 3);
  EXPECT_EQ(jd::elementwise_kernel_name("add", w), "add__s2v4_i64");
}

TEST(JitElementwisePlan, TooManyDimensionsThatDoNotCollapseAreRefused) {
  nd::shape_t shape(40, 2);
  nd::strides_t scattered(40);
  for (std::size_t d = 0; d < 40; ++d) scattered[d] = 1000 - 7 * static_cast<nd::index_t>(d);  // never mergeable
  EXPECT_THROW((void)plan(shape, {nd::c_strides(shape), scattered}), nd::shape_error);
}

TEST(JitElementwiseSource, NamesInputsAliasesTheBodyAndKernel) {
  jd::elementwise_plan p;
  p.vector = 4;
  const std::string source = jd::elementwise_source("out = x * 3.5f + y * y", "scaled_sum",
                                                    {nd::dtype::float32, {nd::dtype::float32, nd::dtype::float32}}, p);
  EXPECT_NE(source.find("float& out, const float& in0, const float& in1"), std::string::npos) << source;
  EXPECT_NE(source.find("const float& x = in0;"), std::string::npos);
  EXPECT_NE(source.find("const float& y = in1;"), std::string::npos);
  EXPECT_EQ(source.find("const float& z"), std::string::npos);
  EXPECT_NE(source.find("#line 1 \"scaled_sum (body)\"\nout = x * 3.5f + y * y;\n"), std::string::npos) << source;
  EXPECT_NE(source.find("extern \"C\" __global__ void scaled_sum__c4_i32("), std::string::npos);
  EXPECT_EQ(source.find("cuda_fp16.h"), std::string::npos) << "no half header unless half is used";
  // The #line after the body restores the real numbering.
  const auto restore = source.find("#line ", source.find("(body)"));
  const auto restored_line = std::stoi(source.substr(restore + 6));
  const auto physical_next =
      2 + std::count(source.begin(), source.begin() + static_cast<std::ptrdiff_t>(restore), '\n');
  EXPECT_EQ(restored_line, physical_next);

  jd::elementwise_plan s;
  s.contiguous = false;
  s.index64 = true;
  s.shape = {3, 4};
  const std::string strided =
      jd::elementwise_source("out = x", "copy_half", {nd::dtype::float16, {nd::dtype::float16}}, s);
  EXPECT_NE(strided.find("#include <cuda_fp16.h>"), std::string::npos);
  EXPECT_NE(
      strided.find("copy_half__s2_i64(__half* out, const __half* in0, ndcuda::strided_indexer<2, 2, long long> index)"),
      std::string::npos)
      << strided;
}
