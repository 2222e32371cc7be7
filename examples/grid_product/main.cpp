// Matrices on a 2-D grid of GPUs: draw two matrices straight into their blocks, multiply them with
// SUMMA (each GPU computes its block of C; panels of A and B travel along grid rows and columns),
// reduce along a cut axis, reshard to rows, and check everything against one GPU. Needs NCCL and
// the linalg library; runs on one GPU too (a 1 x 1 grid), exits 2 without one.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ndcuda/dist.hpp>
#include <ndcuda/dist/linalg.hpp>
#include <ndcuda/linalg.hpp>
#include <ndcuda/ndcuda.hpp>
#include <vector>

namespace nd = ndcuda;
namespace dist = ndcuda::dist;

namespace {

// The squarest rows x cols grid of p ranks (2 x 1 on 2 GPUs, 2 x 2 on 4).
std::vector<int> squarest_grid(int p) {
  int cols = 1;
  for (int c = 1; c * c <= p; ++c) {
    if (p % c == 0) {
      cols = c;
    }
  }
  return {p / cols, cols};
}

double largest_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double largest = a.size() == b.size() ? 0.0 : INFINITY;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    largest = std::max(largest, std::fabs(static_cast<double>(a[i]) - b[i]));
  }
  return largest;
}

}  // namespace

int main() {
  if (nd::device_count() == 0) {
    std::puts("grid_product: no CUDA device visible; nothing to show");
    return 2;
  }
  try {
    const auto comm = dist::communicator::local();
    const auto grid = dist::sharding::block({0, 1}, squarest_grid(comm.size()));
    std::printf("%d GPU(s) as a %s\n", comm.size(), dist::describe(grid).c_str());

    // Uneven extents: blocks need not divide. Each GPU draws only its block, equal to the one-GPU
    // draw of the same generator.
    const nd::index_t m = 3001;
    const nd::index_t k = 2047;
    const nd::index_t n = 1999;
    auto g = nd::random::default_rng(7);
    const auto a = dist::distribute(g.normal<float>({m, k}), comm, grid);
    const auto b = dist::distribute(g.normal<float>({k, n}), comm, grid);
    for (int l = 0; l < comm.local_size(); ++l) {
      const auto box = a.box(comm.rank(l));
      std::printf("  rank %d on GPU %d holds rows [%lld, %lld) x columns [%lld, %lld) of A\n", comm.rank(l),
                  comm.device(l), static_cast<long long>(box[0].begin), static_cast<long long>(box[0].end),
                  static_cast<long long>(box[1].begin), static_cast<long long>(box[1].end));
    }

    const auto c = dist::matmul(a, b);         // SUMMA: C on the same grid
    const auto column_sums = dist::sum(c, 0);  // a cut axis reduced: replicated (n,)
    const auto by_rows = c.reshard(0);         // one NCCL group of the overlapping pieces

    // The same on GPU 0 alone.
    const nd::ndarray<float> one = nd::matmul(a.gather(0), b.gather(0));
    const nd::ndarray<float> one_sums = nd::sum(one, 0);
    // float32 products of k normal terms: rounding grows like sqrt(k); 1e-3 is far above it.
    const double tolerance = 1e-3 * std::sqrt(static_cast<double>(k));
    const std::vector<float> want = one.to_host();
    const double product_error = largest_difference(c.to_host(), want);
    const double rows_error = largest_difference(by_rows.to_host(), want);
    const double sums_error = largest_difference(column_sums.to_host(), one_sums.to_host()) / static_cast<double>(m);
    const bool ok = std::max({product_error, rows_error, sums_error}) <= tolerance;
    std::printf(
        "C = A @ B (%lld x %lld): largest |difference| from one GPU %.3g, after reshard %.3g, "
        "column sums %.3g per row; tolerance %.3g: %s\n",
        static_cast<long long>(m), static_cast<long long>(n), product_error, rows_error, sums_error, tolerance,
        ok ? "OK" : "MISMATCH");
    return ok ? 0 : 1;
  } catch (const nd::error& e) {
    std::printf("grid_product: %s\n", e.what());
    return 1;
  }
}
