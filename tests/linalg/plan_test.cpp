// CPU tests of the products' planning: NumPy's matmul shapes (1-d promotion and removal, batch
// broadcasting), how strided operands map onto cuBLAS without copies, error messages, result
// dtypes, and the generated kernels compiled by NVRTC. No GPU needed.
#include <gtest/gtest.h>

#include <functional>
#include <ndcuda/linalg.hpp>
#include <ndcuda/linalg/detail/matmul_plan.hpp>
#include <string>
#include <type_traits>

#include "linalg/solver_kernels.hpp"

namespace nd = ndcuda;
using nd::linalg::detail::plan_gemm_operand;
using nd::linalg::detail::plan_matmul;

namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const nd::error& e) {
    return e.what();
  }
  return "<no exception>";
}

TEST(MatmulPlan, MatricesAndBatchBroadcast) {
  const auto p = plan_matmul(nd::shape_t{3, 1, 4, 5}, nd::shape_t{2, 5, 6});
  EXPECT_EQ(p.batch, (nd::shape_t{3, 2}));
  EXPECT_EQ(p.m, 4);
  EXPECT_EQ(p.k, 5);
  EXPECT_EQ(p.n, 6);
  EXPECT_EQ(p.out_shape, (nd::shape_t{3, 2, 4, 6}));
}

TEST(MatmulPlan, VectorsArePromotedAndRemoved) {
  EXPECT_EQ(plan_matmul(nd::shape_t{5}, nd::shape_t{5}).out_shape, nd::shape_t{});
  EXPECT_EQ(plan_matmul(nd::shape_t{5}, nd::shape_t{5, 3}).out_shape, nd::shape_t{3});
  EXPECT_EQ(plan_matmul(nd::shape_t{4, 5}, nd::shape_t{5}).out_shape, nd::shape_t{4});
  EXPECT_EQ(plan_matmul(nd::shape_t{7, 4, 5}, nd::shape_t{5}).out_shape, (nd::shape_t{7, 4}));
  EXPECT_EQ(plan_matmul(nd::shape_t{5}, nd::shape_t{7, 5, 2}).out_shape, (nd::shape_t{7, 2}));
  const auto p = plan_matmul(nd::shape_t{5}, nd::shape_t{5, 3});
  EXPECT_TRUE(p.a_vector);
  EXPECT_FALSE(p.b_vector);
  EXPECT_EQ(p.m, 1);
}

TEST(MatmulPlan, EmptyExtents) {
  EXPECT_EQ(plan_matmul(nd::shape_t{0, 3}, nd::shape_t{3, 4}).out_shape, (nd::shape_t{0, 4}));
  EXPECT_EQ(plan_matmul(nd::shape_t{2, 0}, nd::shape_t{0, 4}).k, 0);
  EXPECT_EQ(plan_matmul(nd::shape_t{0, 2, 3}, nd::shape_t{3, 4}).out_shape, (nd::shape_t{0, 2, 4}));
}

TEST(MatmulPlan, NumPyMessages) {
  EXPECT_NE(message_of([] {
              (void)plan_matmul(nd::shape_t{}, nd::shape_t{3});
            }).find("matmul: Input operand 0 does not have enough dimensions (has 0"),
            std::string::npos);
  EXPECT_NE(message_of([] {
              (void)plan_matmul(nd::shape_t{2, 3}, nd::shape_t{4, 5});
            })
                .find("matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                      "(n?,k),(k,m?)->(n?,m?) (size 4 is different from 3)"),
            std::string::npos);
  EXPECT_NE(message_of([] {
              (void)plan_matmul(nd::shape_t{2, 2, 3}, nd::shape_t{3, 3, 4});
            }).find("do not broadcast"),
            std::string::npos);
  EXPECT_THROW((void)plan_matmul(nd::shape_t{2, 3}, nd::shape_t{4, 5}), nd::shape_error);
}

TEST(GemmLayout, RowMajorTransposedAndStrided) {
  // C-contiguous (4, 5): row-major, ld 5.
  auto g = plan_gemm_operand(nd::shape_t{}, 4, 5, nd::strides_t{5, 1});
  EXPECT_TRUE(g.ok);
  EXPECT_FALSE(g.column_major);
  EXPECT_EQ(g.ld, 5);
  // The transpose of a (5, 4) array: column-major with ld 4, no copy.
  g = plan_gemm_operand(nd::shape_t{}, 4, 5, nd::strides_t{1, 4});
  EXPECT_TRUE(g.ok);
  EXPECT_TRUE(g.column_major);
  EXPECT_EQ(g.ld, 4);
  // Columns 0:5 of a (4, 9) array: row-major with ld 9.
  g = plan_gemm_operand(nd::shape_t{}, 4, 5, nd::strides_t{9, 1});
  EXPECT_TRUE(g.ok);
  EXPECT_EQ(g.ld, 9);
  // Every other column: neither layout.
  EXPECT_FALSE(plan_gemm_operand(nd::shape_t{}, 4, 5, nd::strides_t{10, 2}).ok);
  // Reversed rows: negative stride.
  EXPECT_FALSE(plan_gemm_operand(nd::shape_t{}, 4, 5, nd::strides_t{-5, 1}).ok);
  // A single row or column: the unused stride does not matter.
  EXPECT_TRUE(plan_gemm_operand(nd::shape_t{}, 1, 5, nd::strides_t{0, 1}).ok);
  EXPECT_TRUE(plan_gemm_operand(nd::shape_t{}, 5, 1, nd::strides_t{3, 0}).ok);
}

TEST(GemmLayout, BatchAxesCollapseOrCopy) {
  // Contiguous batch (2, 3) of 4x5 matrices: one stride of 20.
  auto g = plan_gemm_operand(nd::shape_t{2, 3}, 4, 5, nd::strides_t{60, 20, 5, 1});
  EXPECT_TRUE(g.ok);
  EXPECT_EQ(g.batch_stride, 20);
  // Broadcast over the whole batch: stride 0.
  g = plan_gemm_operand(nd::shape_t{2, 3}, 4, 5, nd::strides_t{0, 0, 5, 1});
  EXPECT_TRUE(g.ok);
  EXPECT_EQ(g.batch_stride, 0);
  // Broadcast on the inner batch axis only: no single stride.
  EXPECT_FALSE(plan_gemm_operand(nd::shape_t{2, 3}, 4, 5, nd::strides_t{20, 0, 5, 1}).ok);
  // Extent-1 batch axes are ignored.
  g = plan_gemm_operand(nd::shape_t{1, 3}, 4, 5, nd::strides_t{999, 20, 5, 1});
  EXPECT_TRUE(g.ok);
  EXPECT_EQ(g.batch_stride, 20);
}

TEST(ResultTypes, PromotionAndSolverTypes) {
  using nd::linalg::detail::solver_dtype;
  static_assert(solver_dtype(nd::dtype::int32) == nd::dtype::float64);
  static_assert(solver_dtype(nd::dtype::float16) == nd::dtype::float32);
  static_assert(solver_dtype(nd::dtype::complex64) == nd::dtype::complex64);
  static_assert(
      std::is_same_v<decltype(nd::matmul(std::declval<nd::ndarray<int>>(), std::declval<nd::ndarray<float>>())),
                     nd::matmul_expr<double>>);
  static_assert(
      std::is_same_v<decltype(nd::matmul(std::declval<nd::ndarray<__half>>(), std::declval<nd::ndarray<__half>>())),
                     nd::matmul_expr<__half>>);
  static_assert(std::is_same_v<decltype(nd::linalg::inv(std::declval<nd::ndarray<int>>())), nd::ndarray<double>>);
  SUCCEED();
}

TEST(LinalgError, IsAnNdError) {
  const nd::linalg_error e("Singular matrix");
  const nd::error& base = e;
  EXPECT_STREQ(base.what(), "Singular matrix");
}

TEST(Tf32, OffByDefaultAndSwitchable) {
  EXPECT_FALSE(nd::linalg::allow_tf32());
  nd::linalg::set_allow_tf32(true);
  EXPECT_TRUE(nd::linalg::allow_tf32());
  nd::linalg::set_allow_tf32(false);
  EXPECT_FALSE(nd::linalg::allow_tf32());
}

TEST(Handles, NoneCreatedWithoutUse) {
  const auto bits = nd::linalg::detail::created_handles();
  EXPECT_EQ(bits.blas, 0u);
  EXPECT_EQ(bits.solver, 0u);
  EXPECT_EQ(bits.fft, 0u);
}

TEST(GeneratedKernels, CompileWithNvrtc) {
  for (const nd::compute_capability cc : {nd::compute_capability{7, 5}, nd::compute_capability{9, 0}}) {
    nd::linalg::detail::compile_integer_matmul_kernels(cc);
    nd::linalg::detail::compile_solver_kernels(cc);
  }
}

}  // namespace

namespace {

using nd::linalg::detail::parse_einsum;

int L(char c) {
  return c >= 'a' ? 26 + (c - 'a') : c - 'A';
}

TEST(EinsumParse, ExplicitImplicitAndEllipsis) {
  std::vector<nd::shape_t> two{{2, 3}, {3, 4}};
  auto s = parse_einsum("ij,jk->ik", two);
  EXPECT_EQ(s.inputs[0], (std::vector<int>{L('i'), L('j')}));
  EXPECT_EQ(s.output, (std::vector<int>{L('i'), L('k')}));
  s = parse_einsum("ij,jk", two);  // implicit: letters used once, sorted
  EXPECT_EQ(s.output, (std::vector<int>{L('i'), L('k')}));
  std::vector<nd::shape_t> one{{3, 3}};
  EXPECT_TRUE(parse_einsum("ii", one).output.empty());  // trace
  EXPECT_EQ(parse_einsum("ii->i", one).output, std::vector<int>{L('i')});
  EXPECT_EQ(parse_einsum("ij", std::vector<nd::shape_t>{{2, 3}}).output, (std::vector<int>{L('i'), L('j')}));
  EXPECT_EQ(parse_einsum("ji", std::vector<nd::shape_t>{{2, 3}}).output, (std::vector<int>{L('i'), L('j')}));
  // Ellipsis: right-aligned broadcast labels, first in the implicit output.
  std::vector<nd::shape_t> e{{5, 2, 3}, {3, 4}};
  s = parse_einsum("...ij,jk", e);
  EXPECT_EQ(s.inputs[0], (std::vector<int>{nd::linalg::detail::einsum_ellipsis_label, L('i'), L('j')}));
  EXPECT_EQ(s.output, (std::vector<int>{nd::linalg::detail::einsum_ellipsis_label, L('i'), L('k')}));
  s = parse_einsum("...ij,...jk->...ik", std::vector<nd::shape_t>{{7, 1, 2, 3}, {6, 3, 4}});
  EXPECT_EQ(s.inputs[1].front(), nd::linalg::detail::einsum_ellipsis_label + 1);
  EXPECT_EQ(s.output.size(), 4u);
  // Uppercase sorts before lowercase, as in NumPy.
  EXPECT_EQ(parse_einsum("aB", std::vector<nd::shape_t>{{2, 3}}).output, (std::vector<int>{L('B'), L('a')}));
}

TEST(EinsumParse, Errors) {
  std::vector<nd::shape_t> two{{2, 3}, {4, 5}};
  EXPECT_NE(message_of([&] { (void)parse_einsum("ij,jk", two); }).find("subscript 'j' has extent 3 and 4"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              (void)parse_einsum("ij,jk->iz", std::vector<nd::shape_t>{{2, 3}, {3, 4}});
            }).find("output subscript 'z' did not appear in an input"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              (void)parse_einsum("i1", std::vector<nd::shape_t>{{2, 3}});
            }).find("invalid subscript '1'"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              (void)parse_einsum("ijk", std::vector<nd::shape_t>{{2, 3}});
            }).find("has 2 dimensions"),
            std::string::npos);
  EXPECT_NE(message_of([&] { (void)parse_einsum("ij", two); }).find("name 1 operands but 2 were given"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              (void)parse_einsum("ij->ii", std::vector<nd::shape_t>{{2, 3}});
            }).find("appears more than once"),
            std::string::npos);
}

}  // namespace
