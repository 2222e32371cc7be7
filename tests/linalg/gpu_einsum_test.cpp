// nd::einsum on the GPU against a brute-force host einsum in complex<double> (every label
// combination summed), for the forms of numpy.einsum's documentation: trace, diagonal, axis sums,
// transposes, inner/outer/matvec/matmul, batched matmul, broadcasting "...", scalars, three
// operands. Tolerance: 1e-12 relative (float64), 2e-5 (float32), exact for integers.
#include <gtest/gtest.h>

#include <complex>
#include <ndcuda/linalg.hpp>
#include <string>
#include <vector>

#include "linalg/gpu_support.hpp"

namespace nd = ndcuda;
using nd::testing::cd;
using nd::testing::host_values;
using nd::testing::random_array;

namespace {

/// einsum by definition: every assignment of the labels, the product of the operands' elements
/// (broadcast "..." extents of 1 read index 0), summed into the output element.
std::vector<cd> host_einsum(const std::string& subscripts, const std::vector<std::vector<cd>>& values,
                            const std::vector<nd::shape_t>& shapes, nd::shape_t* out_shape) {
  const auto spec = nd::linalg::detail::parse_einsum(subscripts, shapes);
  std::vector<int> labels;
  for (const auto& in : spec.inputs) {
    for (int l : in) {
      if (std::find(labels.begin(), labels.end(), l) == labels.end()) {
        labels.push_back(l);
      }
    }
  }
  out_shape->clear();
  for (int l : spec.output) {
    out_shape->push_back(spec.extents[static_cast<std::size_t>(l)]);
  }
  std::vector<cd> out(static_cast<std::size_t>(nd::shape_size(*out_shape)), 0);
  std::vector<nd::index_t> at(64 + 52, 0);
  const auto total = [&] {
    nd::index_t t = 1;
    for (int l : labels) t *= spec.extents[static_cast<std::size_t>(l)];
    return t;
  }();
  for (nd::index_t flat = 0; flat < total; ++flat) {
    nd::index_t rest = flat;
    for (int l : labels) {
      at[static_cast<std::size_t>(l)] = rest % spec.extents[static_cast<std::size_t>(l)];
      rest /= spec.extents[static_cast<std::size_t>(l)];
    }
    cd prod = 1;
    for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
      const auto st = nd::c_strides(shapes[i]);
      nd::index_t off = 0;
      for (std::size_t d = 0; d < spec.inputs[i].size(); ++d) {
        const nd::index_t c = shapes[i][d] == 1 ? 0 : at[static_cast<std::size_t>(spec.inputs[i][d])];
        off += c * st[d];
      }
      prod *= values[i][static_cast<std::size_t>(off)];
    }
    const auto ost = nd::c_strides(*out_shape);
    nd::index_t o = 0;
    for (std::size_t d = 0; d < spec.output.size(); ++d) {
      o += at[static_cast<std::size_t>(spec.output[d])] * ost[d];
    }
    out[static_cast<std::size_t>(o)] += prod;
  }
  return out;
}

template <class T, class... A>
void check(const std::string& subscripts, double tol, const nd::ndarray<A>&... operands) {
  SCOPED_TRACE(subscripts);
  const auto got = nd::einsum(subscripts, operands...);
  nd::shape_t shape;
  const auto ref = host_einsum(subscripts, {host_values(operands)...}, {operands.shape()...}, &shape);
  ASSERT_EQ(got.shape(), shape);
  const auto g = host_values(got);
  double scale = 1;
  for (const cd& r : ref) {
    scale = std::max(scale, std::abs(r));
  }
  for (std::size_t i = 0; i < g.size(); ++i) {
    ASSERT_LE(std::abs(g[i] - ref[i]), tol * scale) << "element " << i;
  }
}

TEST(Einsum, NumPyDocumentationForms) {
  NDCUDA_REQUIRE_GPU();
  const double tol = 1e-12;
  const auto a = random_array<double>({5, 5});
  const auto b = random_array<double>({5});
  const auto c = random_array<double>({2, 3});
  const auto d = random_array<double>({3, 4});
  check<double>("ii", tol, a);                              // trace
  check<double>("ii->i", tol, a);                           // diagonal
  check<double>("ij->i", tol, a);                           // sum over an axis
  check<double>("ij->", tol, c);                            // total sum
  check<double>("ji", tol, c);                              // implicit transpose
  check<double>("ij->ji", tol, c);                          // explicit transpose
  check<double>("i,i", tol, b, b);                          // inner product
  check<double>("i,i->i", tol, b, b);                       // elementwise product
  check<double>("ij,j", tol, a, b);                         // matrix-vector
  check<double>("...j,j", tol, a, b);                       // the same through "..."
  check<double>("i,j", tol, b, random_array<double>({3}));  // outer product
  check<double>("ij,jk", tol, c, d);                        // matmul, implicit
  check<double>("ij,jk->ik", tol, c, d);
  check<double>("ij,jk->ki", tol, c, d);                                    // matmul, transposed result
  check<double>(",ij", tol, nd::asarray<double>({2.5}, nd::shape_t{}), c);  // scalar times matrix
  check<double>("ij,ij->ij", tol, c, random_array<double>({2, 3}));
  const auto t1 = random_array<double>({3, 4, 5});
  const auto t2 = random_array<double>({4, 3, 2});
  check<double>("ijk,jil->kl", tol, t1, t2);  // tensordot over two axes
  const auto bb = random_array<double>({6, 3, 4});
  const auto bc = random_array<double>({6, 4, 2});
  check<double>("bij,bjk->bik", tol, bb, bc);  // batched matmul
  check<double>("...ij,...jk->...ik", tol, random_array<double>({2, 1, 3, 4}), random_array<double>({5, 4, 2}));
  check<double>("...ii->...i", tol, random_array<double>({3, 4, 4}));  // batched diagonal
  check<double>("i...->...", tol, random_array<double>({3, 2, 2}));
  check<double>("k...,jk", tol, random_array<double>({3, 2}), random_array<double>({4, 3}));
  check<double>("bn,anm,bm->ba", tol, random_array<double>({2, 3}), random_array<double>({4, 3, 5}),
                random_array<double>({2, 5}));  // three operands
  check<double>("ij,jk,kl->il", tol, c, d, random_array<double>({4, 2}));
  check<double>("iij->j", tol, random_array<double>({3, 3, 2}));  // diagonal then sum
}

TEST(Einsum, DtypesTransposedOperandsAndErrors) {
  NDCUDA_REQUIRE_GPU();
  const auto f = random_array<float>({7, 9});
  check<float>("ij,kj->ik", 2e-5, f, random_array<float>({4, 9}));
  check<float>("ij,jk", 2e-5, f.T().copy().T(), random_array<float>({9, 3}));
  const auto i = random_array<int>({3, 4});
  check<int>("ij,jk->ik", 0, i, random_array<int>({4, 2}));
  check<int>("ii", 0, random_array<int>({4, 4}));
  const auto z = random_array<std::complex<double>>({3, 4});
  check<std::complex<double>>("ij,jk", 1e-12, z, random_array<std::complex<double>>({4, 2}));
  // Mixed dtypes promote: int32 with float32 is float64.
  const nd::ndarray<double> mixed = nd::einsum("ij,jk", i, random_array<float>({4, 2}));
  EXPECT_EQ(mixed.shape(), (nd::shape_t{3, 2}));
  EXPECT_THROW((void)nd::einsum("ij,jk", f, random_array<float>({8, 2})), nd::shape_error);
  EXPECT_THROW((void)nd::einsum("ii", random_array<float>({2, 3})), nd::shape_error);
}

}  // namespace
