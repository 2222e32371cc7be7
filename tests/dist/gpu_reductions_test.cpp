// Distributed reductions (sum, prod, min, max, mean; all elements or one axis) against the
// single-GPU nd:: reductions and a double-precision host reference, on shapes that do not divide
// evenly over the ranks. Complex sum works; complex max throws.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <ndcuda/dist.hpp>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <vector>

#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
namespace dist = ndcuda::dist;

namespace {

dist::communicator all_gpus() {
  const int n = std::min(nd::device_count(), 4);
  std::vector<int> devices;
  for (int i = 0; i < n; ++i) {
    devices.push_back(i);
  }
  return dist::communicator(devices, {std::chrono::seconds(120)});
}

template <class A, class B>
void expect_close(const std::vector<A>& got, const std::vector<B>& want, double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    const double w = static_cast<double>(want[i]);
    ASSERT_NEAR(g, w, tol * (1.0 + std::abs(w))) << what << " at " << i;
  }
}

// The global shapes, each axis uneven over p ranks.
std::vector<nd::shape_t> shapes(int p) {
  return {{1000 * p + p - 1}, {5 * p + 1, 7 * p + p - 1}};
}

}  // namespace

TEST(DistReductions, EveryReductionEveryAxisMatchesOneGpuMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  const auto comm = all_gpus();
  for (const auto& shape : shapes(comm.size())) {
    // Near 1, so that the product of the 1-d shape's ~1000 p factors stays near 1 (about e^-3.4
    // for p = 2) instead of underflowing to 0, where the absolute tolerance could never fail.
    const auto hd = nd::testing::uniform_values<double>(static_cast<std::size_t>(nd::shape_size(shape)), 0.9, 1.1);
    std::vector<float> hf(hd.begin(), hd.end());
    const auto single = nd::asarray<float>(hf, shape, nd::default_stream(0));
    const int ndim = static_cast<int>(shape.size());
    for (int sharded = 0; sharded < ndim; ++sharded) {
      const auto a = dist::distribute(single, comm, sharded);
      const std::string where = nd::format_shape(shape) + " sharded along " + std::to_string(sharded);
      // All elements: replicated 0-d results, equal on every rank.
      for (int l = 0; l < comm.local_size(); ++l) {
        EXPECT_NEAR(dist::sum(a).local_shard(l).item(), nd::sum(single).item(), 1e-4 * nd::sum(single).item()) << where;
        EXPECT_EQ(dist::max(a).local_shard(l).item(), nd::max(single).item()) << where;
        EXPECT_EQ(dist::min(a).local_shard(l).item(), nd::min(single).item()) << where;
        EXPECT_NEAR(dist::mean(a).local_shard(l).item(), nd::mean(single).item(), 1e-5) << where;
      }
      double host_sum = 0;
      for (double v : hd) {
        host_sum += static_cast<float>(v);
      }
      EXPECT_NEAR(dist::sum(a).to_host()[0], host_sum, 1e-5 * host_sum) << where;
      // Along each axis.
      for (int axis = 0; axis < ndim; ++axis) {
        const std::string what = where + ", reduced along " + std::to_string(axis);
        const auto s = dist::sum(a, axis);
        EXPECT_EQ(s.is_replicated(), axis == sharded) << what;
        expect_close(s.to_host(), nd::sum(single, axis).to_host(), 1e-5, what + " sum");
        expect_close(dist::prod(a, axis).to_host(), nd::prod(single, axis).to_host(), 1e-4, what + " prod");
        expect_close(dist::min(a, axis).to_host(), nd::min(single, axis).to_host(), 0, what + " min");
        expect_close(dist::max(a, axis).to_host(), nd::max(single, axis).to_host(), 0, what + " max");
        expect_close(dist::mean(a, axis).to_host(), nd::mean(single, axis).to_host(), 1e-5, what + " mean");
        const auto kept = dist::sum(a, axis, nd::keepdims);
        EXPECT_EQ(kept.ndim(), ndim) << what;
        expect_close(kept.to_host(), nd::sum(single, axis, nd::keepdims).to_host(), 1e-5, what + " keepdims");
      }
      // An expression is evaluated per shard, then reduced.
      expect_close(dist::sum(a * a, sharded).to_host(), nd::sum(single * single, sharded).to_host(), 1e-5,
                   where + " sum(a * a)");
    }
  }
}

TEST(DistReductions, IntegersSumExactlyInInt64MultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  const auto comm = all_gpus();
  const nd::index_t n = 4099;
  std::vector<std::int32_t> h(static_cast<std::size_t>(n));
  std::int64_t want = 0;
  for (auto& v : h) {
    v = static_cast<std::int32_t>(nd::testing::rng()() % 2000001) - 1000000;
    want += v;
  }
  const auto a = dist::distribute<std::int32_t>(h, {n}, comm, 0);
  EXPECT_EQ(dist::sum(a).to_host()[0], want);
}

TEST(DistReductions, ComplexSumWorksAndComplexMaxThrowsMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  const auto comm = all_gpus();
  const nd::shape_t shape{9, 2 * comm.size() + 1};
  const auto re = nd::testing::uniform_values<double>(static_cast<std::size_t>(nd::shape_size(shape)), -1, 1);
  const auto im = nd::testing::uniform_values<double>(re.size(), -1, 1);
  std::vector<std::complex<double>> h(re.size());
  std::complex<double> total = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    h[i] = {re[i], im[i]};
    total += h[i];
  }
  const auto a = dist::distribute<std::complex<double>>(h, shape, comm, 1);
  const auto s = dist::sum(a).to_host()[0];
  EXPECT_NEAR(s.real(), total.real(), 1e-9);
  EXPECT_NEAR(s.imag(), total.imag(), 1e-9);
  const auto single = nd::asarray<std::complex<double>>(h, shape, nd::default_stream(0));
  const auto s1 = dist::sum(a, 1).to_host();
  const auto s1_single = nd::sum(single, 1).to_host();
  ASSERT_EQ(s1.size(), s1_single.size());
  for (std::size_t i = 0; i < s1.size(); ++i) {
    EXPECT_NEAR(std::abs(s1[i] - s1_single[i]), 0.0, 1e-9);
  }
  // A complex product across ranks goes through the gathered-partials path (NCCL has none).
  const auto p = dist::prod(a, 1).to_host();
  const auto p_single = nd::prod(single, 1).to_host();
  for (std::size_t i = 0; i < p.size(); ++i) {
    EXPECT_NEAR(std::abs(p[i] - p_single[i]), 0.0, 1e-9 * (1 + std::abs(p_single[i])));
  }
  EXPECT_THROW((void)dist::max(a), nd::error);
  EXPECT_THROW((void)dist::min(a, 0), nd::error);
}
