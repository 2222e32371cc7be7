// dist::fft::fftn/ifftn/rfftn/irfftn against the one-GPU nd::fft transforms of the same fresh random
// input, on every GPU count from 1 to all visible (at most 4): 2-d and 3-d arrays with uneven
// slabs, sharded along axis 0 or 1 or replicated, every norm, the transposed result layout fed to
// the inverse, round trips, and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <ndcuda/dist.hpp>
#include <ndcuda/dist/fft.hpp>
#include <ndcuda/fft.hpp>
#include <string>
#include <vector>

#include "support/dist_gpus.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
namespace dist = ndcuda::dist;

namespace {

template <class T>
double max_abs(const std::vector<T>& v) {
  double m = 0;
  for (const auto& x : v) {
    m = std::max(m, static_cast<double>(std::abs(x)));
  }
  return m;
}

// got equals want to a tolerance relative to the largest magnitude (cuFFT's rounding in float64).
template <class T>
void expect_close(const std::vector<T>& got, const std::vector<T>& want, const std::string& where) {
  ASSERT_EQ(got.size(), want.size()) << where;
  const double tol = 1e-11 * std::max(1.0, max_abs(want));
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_LE(std::abs(got[i] - want[i]), tol) << where << ", element " << i;
  }
}

std::vector<std::complex<double>> random_complex(std::size_t n) {
  const auto re = nd::testing::uniform_values<double>(n, -1.0, 1.0);
  const auto im = nd::testing::uniform_values<double>(n, -1.0, 1.0);
  std::vector<std::complex<double>> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = {re[i], im[i]};
  }
  return v;
}

}  // namespace

TEST(DistFft, ComplexTransformsEqualOneGpuOnEveryGpuCount) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  for (int p = 1; p <= gpus; ++p) {
    const auto comm = nd::testing::first_gpus(p);
    for (const nd::shape_t& shape :
         {nd::shape_t{nd::testing::uneven(p, 13), 24}, nd::shape_t{nd::testing::uneven(p, 5), 7, 12}}) {
      const auto host = random_complex(static_cast<std::size_t>(nd::shape_size(shape)));
      const auto one = nd::asarray(host, shape);
      for (const std::string norm : {"backward", "ortho", "forward"}) {
        const auto want = nd::fft::fftn(one, std::nullopt, std::nullopt, norm).to_host();
        const auto want_inverse = nd::fft::ifftn(one, std::nullopt, std::nullopt, norm).to_host();
        for (const auto& spec : {dist::sharding::block(0), dist::sharding::block(1), dist::sharding::replicated()}) {
          const std::string where = std::to_string(p) + " GPUs, shape " + nd::format_shape(shape) + ", " +
                                    dist::describe(spec) + ", norm " + norm;
          const auto x = dist::distribute(host, shape, comm, spec);
          const auto got = dist::fft::fftn(x, norm);
          EXPECT_EQ(got.spec(), dist::sharding::block(0)) << where;
          expect_close(got.to_host(), want, where + ", fftn");
          expect_close(dist::fft::ifftn(x, norm).to_host(), want_inverse, where + ", ifftn");
        }
      }
      // The transposed layout: fftn leaves axis 1 sharded, ifftn takes it as it is.
      const auto x = dist::distribute(host, shape, comm, 0);
      const auto transposed = dist::fft::fftn(x, "backward", dist::sharding::block(1));
      EXPECT_EQ(transposed.spec(), dist::sharding::block(1));
      expect_close(transposed.to_host(), nd::fft::fftn(one).to_host(), "transposed");
      expect_close(dist::fft::ifftn(transposed).to_host(), host, "round trip");
    }
  }
}

TEST(DistFft, RealTransformsEqualOneGpuOnEveryGpuCount) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  for (int p = 1; p <= gpus; ++p) {
    const auto comm = nd::testing::first_gpus(p);
    for (const nd::shape_t& shape :
         {nd::shape_t{nd::testing::uneven(p, 11), 30}, nd::shape_t{nd::testing::uneven(p, 3), 6, 9}}) {
      const auto host = nd::testing::uniform_values<double>(static_cast<std::size_t>(nd::shape_size(shape)), -1, 1);
      const auto one = nd::asarray(host, shape);
      const auto spectrum_one = nd::fft::rfftn(one);
      const auto want = spectrum_one.to_host();
      for (const auto& spec : {dist::sharding::block(0), dist::sharding::replicated()}) {
        const std::string where =
            std::to_string(p) + " GPUs, shape " + nd::format_shape(shape) + ", " + dist::describe(spec);
        const auto spectrum = dist::fft::rfftn(dist::distribute(host, shape, comm, spec));
        EXPECT_EQ(spectrum.shape(), spectrum_one.shape()) << where;
        expect_close(spectrum.to_host(), want, where + ", rfftn");
        // irfftn with the default last length (even: 2 (m - 1)) and with the original one (odd or even).
        expect_close(dist::fft::irfftn(spectrum).to_host(), nd::fft::irfftn(spectrum_one).to_host(), where);
        expect_close(dist::fft::irfftn(spectrum, shape).to_host(), host, where + ", round trip");
      }
      const auto transposed =
          dist::fft::rfftn(dist::distribute(host, shape, comm, 0), "ortho", dist::sharding::block(1));
      expect_close(dist::fft::irfftn(transposed, shape, "ortho").to_host(), host, "transposed round trip");
      std::vector<double> doubled(host.size());
      std::transform(host.begin(), host.end(), doubled.begin(), [](double v) { return 2 * v; });
      expect_close(dist::fft::irfftn(transposed * 2.0, shape, "ortho").to_host(), doubled, "an expression's inverse");
    }
  }
}

TEST(DistFft, RefusesWhatItDoesNotDistribute) {
  NDCUDA_REQUIRE_GPU();
  const auto comm = nd::testing::all_gpus();
  const auto line = dist::distribute(nd::testing::uniform_values<float>(64, 0, 1), {64}, comm, 0);
  EXPECT_THROW((void)dist::fft::fftn(line), nd::shape_error);
  const auto square = dist::distribute(random_complex(64), {8, 8}, comm, 0);
  try {
    (void)dist::fft::irfftn(square, nd::shape_t{4, 14});
    FAIL() << "no error";
  } catch (const nd::value_error& e) {
    EXPECT_NE(std::string(e.what()).find("neither crop nor pad"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)dist::fft::fftn(square, "backward", dist::sharding::block(2)), nd::shape_error);
}
