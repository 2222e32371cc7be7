// dist::matmul against a double-precision host product on fresh random input, for every layout
// it takes (replicated, rows, columns, batch, contracted), on every GPU count from 1 to all visible
// (at most 4), with extents that do not divide evenly; the result's sharding; `out`; and the
// errors for layouts it does not take.
#include <gtest/gtest.h>

#include <cmath>
#include <ndcuda/dist.hpp>
#include <ndcuda/dist/linalg.hpp>
#include <string>
#include <vector>

#include "support/dist_gpus.hpp"
#include "support/error_message.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
namespace dist = ndcuda::dist;

namespace {

// C = A @ B for row-major stacks: A (batch, m, k), B (batch or 1, k, n).
std::vector<double> host_product(const std::vector<double>& a, const std::vector<double>& b, nd::index_t batch,
                                 nd::index_t m, nd::index_t k, nd::index_t n, bool b_batched) {
  std::vector<double> c(static_cast<std::size_t>(batch * m * n));
  for (nd::index_t z = 0; z < batch; ++z) {
    const double* az = a.data() + z * m * k;
    const double* bz = b.data() + (b_batched ? z * k * n : 0);
    for (nd::index_t i = 0; i < m; ++i) {
      for (nd::index_t j = 0; j < n; ++j) {
        double acc = 0;
        for (nd::index_t q = 0; q < k; ++q) {
          acc += az[i * k + q] * bz[q * n + j];
        }
        c[static_cast<std::size_t>((z * m + i) * n + j)] = acc;
      }
    }
  }
  return c;
}

void expect_near_all(const std::vector<float>& got, const std::vector<double>& want, nd::index_t k,
                     const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  // float32 products of k terms of size ~1: a relative-to-sqrt(k) bound well above rounding.
  const double tol = 1e-5 * static_cast<double>(k);
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol) << what << " at " << i;
  }
}

struct operands {
  std::vector<double> a, b;
  nd::ndarray<float> da, db;
};

operands make(const nd::shape_t& a_shape, const nd::shape_t& b_shape) {
  operands o;
  o.a = nd::testing::uniform_values<double>(static_cast<std::size_t>(nd::shape_size(a_shape)), -1.0, 1.0);
  o.b = nd::testing::uniform_values<double>(static_cast<std::size_t>(nd::shape_size(b_shape)), -1.0, 1.0);
  // The reference multiplies the float32 values the GPU sees.
  std::vector<float> af(o.a.begin(), o.a.end());
  std::vector<float> bf(o.b.begin(), o.b.end());
  o.a.assign(af.begin(), af.end());
  o.b.assign(bf.begin(), bf.end());
  o.da = nd::asarray<float>(af, a_shape, nd::default_stream(0));
  o.db = nd::asarray<float>(bf, b_shape, nd::default_stream(0));
  return o;
}

}  // namespace

TEST(DistMatmul, EveryLayoutMatchesTheHostProductOnEveryGpuCount) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  for (int p = 1; p <= gpus; ++p) {
    const auto comm = nd::testing::first_gpus(p);
    const nd::index_t m = 37 * p + 1;
    const nd::index_t k = 29 * p + p - 1;
    const nd::index_t n = 23 * p + 3;
    const auto o = make({m, k}, {k, n});
    const auto want = host_product(o.a, o.b, 1, m, k, n, false);
    const auto rep = dist::sharding::replicated();
    struct layout {
      const char* name;
      dist::distributed_array<float> a, b;
      dist::sharding result;
    };
    const std::vector<layout> layouts{
        {"replicated", dist::distribute(o.da, comm, rep), dist::distribute(o.db, comm, rep), rep},
        {"rows", dist::distribute(o.da, comm, 0), dist::distribute(o.db, comm, rep), dist::sharding::block(0)},
        {"columns", dist::distribute(o.da, comm, rep), dist::distribute(o.db, comm, 1), dist::sharding::block(1)},
        {"contracted", dist::distribute(o.da, comm, 1), dist::distribute(o.db, comm, 0), rep},
    };
    for (const auto& c : layouts) {
      const std::string what = std::string(c.name) + " on " + std::to_string(p) + " GPUs";
      const auto product = dist::matmul(c.a, c.b);
      EXPECT_EQ(product.shape(), (nd::shape_t{m, n})) << what;
      EXPECT_EQ(product.spec(), c.result) << what;
      expect_near_all(product.to_host(), want, k, what);
      // Asked for another result sharding: the same values, laid out as asked.
      const auto by_columns = dist::matmul(c.a, c.b, dist::sharding::block(1));
      EXPECT_EQ(by_columns.spec(), dist::sharding::block(1)) << what;
      expect_near_all(by_columns.to_host(), want, k, what + ", out = columns");
      // By rows: the contracted layout sums only each rank's rows (a reduce-scatter).
      const auto by_rows = dist::matmul(c.a, c.b, dist::sharding::block(0));
      EXPECT_EQ(by_rows.spec(), dist::sharding::block(0)) << what;
      expect_near_all(by_rows.to_host(), want, k, what + ", out = rows");
    }
  }
}

TEST(DistMatmul, BatchedProductsShardTheirBatchAxis) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  for (int p = 1; p <= gpus; ++p) {
    const auto comm = nd::testing::first_gpus(p);
    const nd::index_t batch = 3 * p + 1;
    const nd::index_t m = 17;
    const nd::index_t k = 33;
    const nd::index_t n = 9;
    const auto o = make({batch, m, k}, {batch, k, n});
    const auto want = host_product(o.a, o.b, batch, m, k, n, true);
    const std::string where = std::to_string(p) + " GPUs";
    const auto both = dist::matmul(dist::distribute(o.da, comm, 0), dist::distribute(o.db, comm, 0));
    EXPECT_EQ(both.spec(), dist::sharding::block(0));
    expect_near_all(both.to_host(), want, k, "batch-sharded A and B on " + where);
    const auto replicated_b =
        dist::matmul(dist::distribute(o.da, comm, 0), dist::distribute(o.db, comm, dist::sharding::replicated()));
    expect_near_all(replicated_b.to_host(), want, k, "batch-sharded A, replicated B on " + where);
    // One matrix for every batch: (batch, m, k) @ (k, n).
    const auto single = make({batch, m, k}, {k, n});
    const auto want_single = host_product(single.a, single.b, batch, m, k, n, false);
    const auto shared_b = dist::matmul(dist::distribute(single.da, comm, 0),
                                       dist::distribute(single.db, comm, dist::sharding::replicated()));
    expect_near_all(shared_b.to_host(), want_single, k, "batch-sharded A, one replicated B on " + where);
  }
}

TEST(DistMatmul, LayoutsItDoesNotTakeNameBothShardingsAndTheFix) {
  NDCUDA_REQUIRE_GPU();
  const auto comm = nd::testing::first_gpus(1);
  const auto o = make({8, 6}, {6, 4});
  const auto a_rows = dist::distribute(o.da, comm, 0);
  const auto b_columns = dist::distribute(o.db, comm, 1);
  const std::string message = nd::testing::message_of<nd::shape_error>([&] { (void)dist::matmul(a_rows, b_columns); });
  EXPECT_NE(message.find("A sharded"), std::string::npos) << message;
  EXPECT_NE(message.find("B sharded"), std::string::npos) << message;
  EXPECT_NE(message.find("reshard"), std::string::npos) << message;
  const auto other = make({8, 5}, {5, 4});
  EXPECT_THROW((void)dist::matmul(a_rows, dist::distribute(other.db, comm, dist::sharding::replicated())),
               nd::shape_error);
  const auto vector = dist::distribute(nd::asarray<float>(std::vector<float>{1, 2, 3, 4, 5, 6}), comm, 0);
  EXPECT_THROW((void)dist::matmul(vector, a_rows), nd::shape_error);
}

TEST(DistMatmul, SummaPanelsCutTheInnerExtentWhereEitherOperandIsCut) {
  // K = 10: A's columns over 2 grid columns cut at 5, B's rows over 3 grid rows at 4 and 7.
  const auto panels = dist::detail::summa_panels(10, 3, 2);
  const std::vector<dist::detail::summa_panel> want{{{0, 4}, 0, 0}, {{4, 5}, 0, 1}, {{5, 7}, 1, 1}, {{7, 10}, 1, 2}};
  EXPECT_EQ(panels, want);
  // Every k lies in exactly one panel, owned by the blocks that hold it.
  for (nd::index_t k : {0, 1, 5, 17}) {
    for (int rows = 1; rows <= 4; ++rows) {
      for (int cols = 1; cols <= 4; ++cols) {
        nd::index_t next = 0;
        for (const auto& p : dist::detail::summa_panels(k, rows, cols)) {
          EXPECT_EQ(p.k.begin, next);
          EXPECT_GT(p.k.size(), 0);
          EXPECT_GE(p.k.begin, dist::block_of(k, cols, p.a_column).begin);
          EXPECT_LE(p.k.end, dist::block_of(k, cols, p.a_column).end);
          EXPECT_GE(p.k.begin, dist::block_of(k, rows, p.b_row).begin);
          EXPECT_LE(p.k.end, dist::block_of(k, rows, p.b_row).end);
          next = p.k.end;
        }
        EXPECT_EQ(next, k) << k << " over " << rows << " x " << cols;
      }
    }
  }
}
