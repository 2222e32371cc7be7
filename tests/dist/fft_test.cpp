// dist::fft::fftn/ifftn/rfftn/irfftn against the one-GPU nd::fft transforms of the same fresh random
// input, on every GPU count from 1 to all visible (at most 4): 1-d to 4-d arrays with uneven blocks,
// sharded along each axis, on a grid or replicated, over all axes and over subsets that hold or
// leave out the cut axis (negative and reordered ones too), every norm, every result layout, the
// transposed layout fed to the inverse, real round trips with odd last lengths, one case against a
// DFT in double on the host, and the errors. The plans themselves (which layouts, which axes where)
// are checked on the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <ndcuda/dist.hpp>
#include <ndcuda/dist/fft.hpp>
#include <ndcuda/fft.hpp>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "support/dist_gpus.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
namespace dist = ndcuda::dist;
namespace plan = ndcuda::dist::fft::detail;

namespace {

using axes_t = std::optional<std::vector<nd::index_t>>;
using complex_t = std::complex<double>;

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

std::vector<complex_t> random_complex(std::size_t n) {
  const auto re = nd::testing::uniform_values<double>(n, -1.0, 1.0);
  const auto im = nd::testing::uniform_values<double>(n, -1.0, 1.0);
  std::vector<complex_t> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = {re[i], im[i]};
  }
  return v;
}

std::string text(const axes_t& axes) {
  return axes ? "axes " + nd::format_shape(*axes) : std::string("all axes");
}

// The axes a case transforms, normalised, in the order given.
std::vector<int> normalized(const axes_t& axes, int ndim) {
  std::vector<int> out;
  for (int a = 0; a < ndim; ++a) {
    out.push_back(a);
  }
  if (axes) {
    out.clear();
    for (nd::index_t a : *axes) {
      out.push_back(static_cast<int>(a < 0 ? a + ndim : a));
    }
  }
  return out;
}

// Per rank count: a 1-d, 2-d, 3-d and 4-d shape, each axis of at least p elements and most of them
// leaving a remainder over p ranks.
std::vector<nd::shape_t> shapes_for(int p) {
  using nd::testing::uneven;
  return {nd::shape_t{uneven(p, 9)}, nd::shape_t{uneven(p, 5), uneven(p, 3) + 1},
          nd::shape_t{uneven(p, 3), 5, uneven(p, 2) + 1}, nd::shape_t{uneven(p, 2), 4, 5, uneven(p, 1) + 2}};
}

// Axes that hold the cut axis of block(0), block(-1) or both, leave it out, count from the end or
// come in another order.
std::vector<axes_t> axes_for(int ndim) {
  using v = std::vector<nd::index_t>;
  switch (ndim) {
    case 1:
      return {std::nullopt, v{0}, v{-1}};
    case 2:
      return {std::nullopt, v{0}, v{-1}, v{1, 0}};
    case 3:
      return {std::nullopt, v{0}, v{1}, v{-1}, v{2, 0}, v{1, 2}};
    default:
      return {std::nullopt, v{0}, v{3}, v{1, 2}, v{-1, 0}, v{3, 1, 0}};
  }
}

// Block specs along the first, a middle and the last axis, a grid (an even number of GPUs) and
// replicated.
std::vector<dist::sharding> specs_for(int ndim, int p) {
  std::vector<dist::sharding> out{dist::sharding::block(0), dist::sharding::replicated()};
  if (ndim > 1) {
    out.push_back(dist::sharding::block(ndim - 1));
  }
  if (ndim > 2) {
    out.push_back(dist::sharding::block(1));
  }
  if (ndim > 1 && p % 2 == 0) {
    out.push_back(dist::sharding::block({0, 1}, {2, p / 2}));
  }
  return out;
}

// The DFT of a C-order array over `axes`, one axis after another, in double, scaled by `scale`.
std::vector<complex_t> host_dft(std::vector<complex_t> v, const nd::shape_t& shape, const std::vector<int>& axes,
                                double scale) {
  for (int axis : axes) {
    const auto n = shape[static_cast<std::size_t>(axis)];
    nd::index_t inner = 1;
    for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < shape.size(); ++d) {
      inner *= shape[d];
    }
    const nd::index_t outer = static_cast<nd::index_t>(v.size()) / (n * inner);
    std::vector<complex_t> out(v.size());
    for (nd::index_t o = 0; o < outer; ++o) {
      for (nd::index_t i = 0; i < inner; ++i) {
        for (nd::index_t k = 0; k < n; ++k) {
          complex_t sum = 0;
          for (nd::index_t j = 0; j < n; ++j) {
            const double angle = -2 * std::numbers::pi * static_cast<double>(k * j % n) / static_cast<double>(n);
            sum += v[static_cast<std::size_t>((o * n + j) * inner + i)] * std::polar(1.0, angle);
          }
          out[static_cast<std::size_t>((o * n + k) * inner + i)] = sum;
        }
      }
    }
    v = out;
  }
  for (auto& x : v) {
    x *= scale;
  }
  return v;
}

}  // namespace

// ---- plans, on the CPU -------------------------------------------------------------------------

TEST(DistFftPlan, EveryPlanTransformsEachAxisWhereItIsWhole) {
  for (int ranks = 1; ranks <= 4; ++ranks) {
    for (int ndim = 1; ndim <= 4; ++ndim) {
      const nd::shape_t all{6, 1, 7, 5};
      const nd::shape_t shape(all.begin(), all.begin() + ndim);
      std::vector<dist::sharding> layouts{dist::sharding::replicated()};
      for (int a = 0; a < ndim; ++a) {
        layouts.push_back(dist::sharding::block(a));
      }
      if (ndim > 1 && ranks % 2 == 0) {
        layouts.push_back(dist::sharding::block({0, 1}, {2, ranks / 2}));
      }
      for (unsigned mask = 1; mask < (1U << ndim); ++mask) {
        std::vector<int> forward_order;
        for (int a = 0; a < ndim; ++a) {
          if ((mask >> a) & 1U) {
            forward_order.push_back(a);
          }
        }
        for (const auto& axes : {forward_order, std::vector<int>(forward_order.rbegin(), forward_order.rend())}) {
          for (const plan::transform_kind kind :
               {plan::transform_kind{false, false}, plan::transform_kind{true, false},
                plan::transform_kind{false, true}, plan::transform_kind{true, true}}) {
            for (const auto& x : layouts) {
              for (const auto& out : layouts) {
                const std::string where = std::to_string(ranks) + " ranks, shape " + nd::format_shape(shape) + ", " +
                                          dist::describe(x) + " to " + dist::describe(out) + ", axes " +
                                          std::to_string(mask) + (kind.inverse ? " inverse" : " forward") +
                                          (kind.real ? " real" : "");
                const plan::phase_plan p = plan::plan_phases(shape, x, axes, kind, out, ranks);
                const bool two = !p.second_axes.empty();
                std::vector<int> done = p.first_axes;
                done.insert(done.end(), p.second_axes.begin(), p.second_axes.end());
                std::vector<int> sorted_done = done;
                std::sort(sorted_done.begin(), sorted_done.end());
                ASSERT_EQ(sorted_done, forward_order) << where;  // each axis once
                for (int a : p.first_axes) {
                  ASSERT_TRUE(plan::holds_whole(p.first, a, ranks)) << where << ": axis " << a;
                }
                for (int a : p.second_axes) {
                  ASSERT_TRUE(plan::holds_whole(p.second, a, ranks)) << where << ": axis " << a;
                }
                ASSERT_TRUE(!two || (p.first != p.second && !p.first_axes.empty())) << where;
                if (kind.real) {  // r2c first, c2r last, each the last axis of its phase
                  const auto& phase = kind.inverse && two ? p.second_axes : p.first_axes;
                  ASSERT_EQ(phase.back(), axes.back()) << where;
                }
                const int cost = two ? plan::reshard_cost(x, p.first, ranks) +
                                           plan::reshard_cost(p.first, p.second, ranks) +
                                           plan::reshard_cost(p.second, out, ranks)
                                     : plan::reshard_cost(x, p.first, ranks) + plan::reshard_cost(p.first, out, ranks);
                ASSERT_EQ(p.cost, cost) << where;
                if (std::all_of(axes.begin(), axes.end(), [&](int a) { return plan::holds_whole(x, a, ranks); })) {
                  ASSERT_FALSE(two) << where << ": a local transform";
                  ASSERT_EQ(p.cost, plan::reshard_cost(x, out, ranks)) << where;
                  ASSERT_TRUE(p.first == x || (x.is_replicated() && p.first == out)) << where;
                }
              }
            }
          }
        }
      }
    }
  }
}

TEST(DistFftPlan, SlabsAndTheirShortcuts) {
  const auto block = [](int a) { return dist::sharding::block(a); };
  const auto replicated = dist::sharding::replicated();
  const plan::transform_kind fft{false, false};
  const plan::transform_kind ifft{true, false};
  const plan::transform_kind rfft{false, true};
  const plan::transform_kind irfft{true, true};
  // Today's slabs: axes 1.. on axis-0 slabs, an all-to-all, axis 0; back unless out takes the transpose.
  auto p = plan::plan_phases({13, 24, 9}, block(0), {0, 1, 2}, rfft, block(0), 4);
  EXPECT_EQ(p.first, block(0));
  EXPECT_EQ(p.first_axes, (std::vector<int>{1, 2}));
  EXPECT_EQ(p.second, block(1));
  EXPECT_EQ(p.second_axes, std::vector<int>{0});
  EXPECT_EQ(p.cost, 2);
  EXPECT_EQ(plan::plan_phases({13, 24, 9}, block(0), {0, 1, 2}, fft, block(1), 4).cost, 1);
  // The inverse takes the transposed layout as it is, and its c2r axis comes last.
  p = plan::plan_phases({13, 24, 5}, block(1), {0, 1, 2}, irfft, block(0), 4);
  EXPECT_EQ(p.first, block(1));
  EXPECT_EQ(p.first_axes, std::vector<int>{0});
  EXPECT_EQ(p.second, block(0));
  EXPECT_EQ(p.second_axes, (std::vector<int>{1, 2}));
  EXPECT_EQ(p.cost, 1);
  // The cut axis left out: no communication.
  p = plan::plan_phases({6, 7, 8}, block(0), {2, 1}, irfft, block(0), 4);
  EXPECT_EQ(p.first, block(0));
  EXPECT_EQ(p.first_axes, (std::vector<int>{2, 1}));
  EXPECT_TRUE(p.second_axes.empty());
  EXPECT_EQ(p.cost, 0);
  // Only the cut axis: to an untransformed axis and back, one phase.
  p = plan::plan_phases({6, 7, 8}, block(0), {0}, ifft, block(0), 4);
  EXPECT_EQ(p.first, block(1));
  EXPECT_TRUE(p.second_axes.empty());
  EXPECT_EQ(p.cost, 2);
  // ... unless out asks for that axis: one all-to-all.
  EXPECT_EQ(plan::plan_phases({6, 7, 8}, block(0), {0}, ifft, block(2), 4).cost, 1);
  // An untransformed axis of one element would hold everything on one rank: slabs instead.
  p = plan::plan_phases({6, 1, 8}, block(0), {0, 2}, fft, block(0), 4);
  EXPECT_EQ(p.first, block(0));
  EXPECT_EQ(p.second, block(2));
  // rfftn's halved axis cut: resharded before the real-to-complex transform.
  p = plan::plan_phases({5, 7, 12}, block(2), {0, 1, 2}, rfft, block(2), 4);
  EXPECT_NE(p.first, block(2));
  EXPECT_EQ(p.first_axes.back(), 2);
  EXPECT_EQ(p.cost, 2);
  // irfftn's halved axis not cut, the cut one transformed: the c2r one still last.
  p = plan::plan_phases({5, 7, 12}, block(0), {0, 1, 2}, irfft, block(0), 4);
  EXPECT_EQ(p.second_axes.back(), 2);
  EXPECT_EQ(p.cost, 2);
  // 1-d: replicated, every rank transforms it whole; the result is sliced locally.
  p = plan::plan_phases({64}, block(0), {0}, fft, block(0), 4);
  EXPECT_EQ(p.first, replicated);
  EXPECT_EQ(p.cost, 4);
  // A replicated result: replicate first, transform whole, no all-to-all.
  p = plan::plan_phases({8, 8}, block(0), {0, 1}, fft, replicated, 2);
  EXPECT_EQ(p.first, replicated);
  EXPECT_TRUE(p.second_axes.empty());
  // A grid: the axes it holds whole first, then slabs; none cut: local.
  const auto grid = dist::sharding::block({0, 1}, {2, 2});
  p = plan::plan_phases({8, 8, 4}, grid, {0, 1, 2}, fft, grid, 4);
  EXPECT_EQ(p.first, grid);
  EXPECT_EQ(p.first_axes, std::vector<int>{2});
  EXPECT_EQ(p.cost, 2);
  EXPECT_EQ(plan::plan_phases({8, 8, 4}, grid, {2}, fft, grid, 4).cost, 0);
  EXPECT_EQ(plan::plan_phases({8, 8, 4}, dist::sharding::block({0, 1}, {1, 4}), {0}, fft,
                              dist::sharding::block({0, 1}, {1, 4}), 4)
                .cost,
            0);
  // One rank: everything local.
  EXPECT_EQ(plan::plan_phases({8, 8}, block(1), {0, 1}, rfft, block(1), 1).cost, 0);
}

// ---- transforms, against nd::fft on GPU 0 ------------------------------------------------------

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
          EXPECT_EQ(got.spec(), x.spec()) << where;  // sharded like x
          expect_close(got.to_host(), want, where + ", fftn");
          const auto inverse = dist::fft::ifftn(x, norm);
          EXPECT_EQ(inverse.spec(), x.spec()) << where;
          expect_close(inverse.to_host(), want_inverse, where + ", ifftn");
        }
      }
      // The transposed layout: fftn leaves axis 1 sharded, ifftn takes it as it is.
      const auto x = dist::distribute(host, shape, comm, 0);
      const auto transposed = dist::fft::fftn(x, "backward", dist::sharding::block(1));
      EXPECT_EQ(transposed.spec(), dist::sharding::block(1));
      expect_close(transposed.to_host(), nd::fft::fftn(one).to_host(), "transposed");
      expect_close(dist::fft::ifftn(transposed).to_host(), host, "round trip");
      const auto back = dist::fft::ifftn(transposed, "backward", dist::sharding::block(0));
      EXPECT_EQ(back.spec(), dist::sharding::block(0));
      expect_close(back.to_host(), host, "round trip back on axis 0");
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

TEST(DistFft, AxesOfOneToFourDimensionsEqualOneGpu) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  for (int p = 1; p <= gpus; ++p) {
    const auto comm = nd::testing::first_gpus(p);
    for (const nd::shape_t& shape : shapes_for(p)) {
      const int ndim = static_cast<int>(shape.size());
      const auto host = random_complex(static_cast<std::size_t>(nd::shape_size(shape)));
      const auto one = nd::asarray(host, shape);
      for (const axes_t& axes : axes_for(ndim)) {
        for (const std::string norm : {"backward", "ortho", "forward"}) {
          const auto want = nd::fft::fftn(one, std::nullopt, axes, norm).to_host();
          const auto want_inverse = nd::fft::ifftn(one, std::nullopt, axes, norm).to_host();
          for (const auto& spec : specs_for(ndim, p)) {
            const auto x = dist::distribute(host, shape, comm, spec);
            const std::string where = std::to_string(p) + " GPUs, shape " + nd::format_shape(shape) + ", " +
                                      dist::describe(x.spec()) + ", " + text(axes) + ", norm " + norm;
            const auto got = dist::fft::fftn(x, axes, norm);
            EXPECT_EQ(got.spec(), x.spec()) << where;
            expect_close(got.to_host(), want, where + ", fftn");
            const auto inverse = dist::fft::ifftn(x, axes, norm);
            EXPECT_EQ(inverse.spec(), x.spec()) << where;
            expect_close(inverse.to_host(), want_inverse, where + ", ifftn");
          }
        }
      }
    }
  }
}

TEST(DistFft, RealAxesRoundTripsWithOddLastLengths) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  for (int p = 1; p <= gpus; ++p) {
    const auto comm = nd::testing::first_gpus(p);
    for (const nd::shape_t& shape : shapes_for(p)) {
      const int ndim = static_cast<int>(shape.size());
      const auto host = nd::testing::uniform_values<double>(static_cast<std::size_t>(nd::shape_size(shape)), -1, 1);
      const auto one = nd::asarray(host, shape);
      for (const axes_t& axes : axes_for(ndim)) {
        const std::vector<int> ax = normalized(axes, ndim);
        nd::shape_t lengths;  // the input's extents on the axes: odd on the last one in most cases
        for (int a : ax) {
          lengths.push_back(shape[static_cast<std::size_t>(a)]);
        }
        for (const std::string norm : {"backward", "ortho", "forward"}) {
          const auto spectrum_one = nd::fft::rfftn(one, std::nullopt, axes, norm);
          const auto want = spectrum_one.to_host();
          const auto want_default = nd::fft::irfftn(spectrum_one, std::nullopt, axes, norm).to_host();
          for (const auto& spec : specs_for(ndim, p)) {
            const auto x = dist::distribute(host, shape, comm, spec);
            const std::string where = std::to_string(p) + " GPUs, shape " + nd::format_shape(shape) + ", " +
                                      dist::describe(x.spec()) + ", " + text(axes) + ", norm " + norm;
            const auto spectrum = dist::fft::rfftn(x, axes, norm);
            EXPECT_EQ(spectrum.shape(), spectrum_one.shape()) << where;
            EXPECT_EQ(spectrum.spec(), x.spec()) << where;
            expect_close(spectrum.to_host(), want, where + ", rfftn");
            const auto even = dist::fft::irfftn(spectrum, std::nullopt, axes, norm);
            EXPECT_EQ(even.spec(), x.spec()) << where;
            expect_close(even.to_host(), want_default, where + ", irfftn");
            expect_close(dist::fft::irfftn(spectrum, lengths, axes, norm).to_host(), host, where + ", round trip");
          }
        }
      }
    }
  }
}

TEST(DistFft, EveryResultLayoutAndTheInverseBack) {
  NDCUDA_REQUIRE_GPU();
  const int gpus = std::min(nd::device_count(), 4);
  for (int p = 1; p <= gpus; ++p) {
    const auto comm = nd::testing::first_gpus(p);
    const nd::shape_t shape{nd::testing::uneven(p, 3), nd::testing::uneven(p, 2), 7};
    const auto host = nd::testing::uniform_values<double>(static_cast<std::size_t>(nd::shape_size(shape)), -1, 1);
    const auto one = nd::asarray(host, shape);
    for (const axes_t& axes : {axes_t(), axes_t(std::vector<nd::index_t>{0, 2}), axes_t(std::vector<nd::index_t>{1}),
                               axes_t(std::vector<nd::index_t>{-1})}) {
      const auto want = nd::fft::rfftn(one, std::nullopt, axes, "ortho").to_host();
      for (const auto& spec : specs_for(3, p)) {
        const auto x = dist::distribute(host, shape, comm, spec);
        for (const auto& out : specs_for(3, p)) {
          const std::string where = std::to_string(p) + " GPUs, " + dist::describe(x.spec()) + " to " +
                                    dist::describe(out) + ", " + text(axes);
          const auto spectrum = dist::fft::rfftn(x, axes, "ortho", out);
          EXPECT_EQ(spectrum.spec(), dist::normalize(out, 3, p)) << where;
          expect_close(spectrum.to_host(), want, where + ", rfftn");
          nd::shape_t lengths;
          for (int a : normalized(axes, 3)) {
            lengths.push_back(shape[static_cast<std::size_t>(a)]);
          }
          const auto whole = dist::fft::irfftn(spectrum, lengths, axes, "ortho", x.spec());
          EXPECT_EQ(whole.spec(), x.spec()) << where;
          expect_close(whole.to_host(), host, where + ", irfftn back to x's layout");
        }
      }
    }
  }
}

TEST(DistFft, BraceListsAndExpressions) {
  NDCUDA_REQUIRE_GPU();
  const auto comm = nd::testing::all_gpus();
  const int p = comm.size();
  const nd::shape_t shape{nd::testing::uneven(p, 2), 6, 5};
  const auto host = random_complex(static_cast<std::size_t>(nd::shape_size(shape)));
  const auto one = nd::asarray(host, shape);
  const auto x = dist::distribute(host, shape, comm, 2);
  expect_close(dist::fft::fftn(x, {0, 2}).to_host(),
               nd::fft::fftn(one, std::nullopt, std::vector<nd::index_t>{0, 2}).to_host(), "fftn {0, 2}");
  expect_close(dist::fft::ifftn(x, {-1}, "forward").to_host(),
               nd::fft::ifftn(one, std::nullopt, std::vector<nd::index_t>{-1}, "forward").to_host(), "ifftn {-1}");
  expect_close(dist::fft::fftn(x * 2.0, {1}).to_host(),
               nd::fft::fftn(one * 2.0, std::nullopt, std::vector<nd::index_t>{1}).to_host(), "an expression");
  // No axes: a complex copy, sharded like x.
  const auto none = dist::fft::fftn(x, std::vector<nd::index_t>{});
  EXPECT_EQ(none.spec(), x.spec());
  expect_close(none.to_host(), host, "no axes");
  const auto real = dist::distribute(nd::testing::uniform_values<double>(host.size(), -1, 1), shape, comm, 0);
  const auto spectrum = dist::fft::rfftn(real, {2, 0});
  expect_close(dist::fft::irfftn(spectrum, nd::shape_t{5, shape[0]}, {2, 0}).to_host(), real.to_host(),
               "rfftn {2, 0} round trip");
}

TEST(DistFft, MatchesADoubleDftOnTheHost) {
  NDCUDA_REQUIRE_GPU();
  const auto comm = nd::testing::all_gpus();
  const int p = comm.size();
  const nd::shape_t shape{nd::testing::uneven(p, 2), 3, 5};
  const auto host = random_complex(static_cast<std::size_t>(nd::shape_size(shape)));
  const double scale = 1.0 / std::sqrt(static_cast<double>(shape[0] * shape[2]));
  const auto want = host_dft(host, shape, {2, 0}, scale);
  const auto x = dist::distribute(host, shape, comm, 0);
  expect_close(dist::fft::fftn(x, {2, 0}, "ortho").to_host(), want, "fftn over axes (2, 0) of a block(0) array");
  // rfftn of the real parts: the complex DFT of real input, cropped to 5 / 2 + 1 on axis 2.
  std::vector<double> re(host.size());
  std::vector<complex_t> as_complex(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) {
    re[i] = host[i].real();
    as_complex[i] = re[i];
  }
  const auto full = host_dft(as_complex, shape, {0, 2}, scale);
  std::vector<complex_t> cropped;
  for (std::size_t i = 0; i < full.size(); ++i) {
    if (static_cast<nd::index_t>(i) % shape[2] <= shape[2] / 2) {
      cropped.push_back(full[i]);
    }
  }
  expect_close(dist::fft::rfftn(dist::distribute(re, shape, comm, 2), {0, 2}, "ortho").to_host(), cropped,
               "rfftn over axes (0, 2) of a block(2) array");
}

TEST(DistFft, RefusesBadAxesAndLengths) {
  NDCUDA_REQUIRE_GPU();
  const auto comm = nd::testing::all_gpus();
  const auto square = dist::distribute(random_complex(64), {8, 8}, comm, 0);
  const auto message = [&](const auto& call) {
    try {
      call();
    } catch (const nd::shape_error& e) {
      return std::string(e.what());
    }
    return std::string("no shape_error");
  };
  const std::string out_of_range = message([&] { (void)dist::fft::fftn(square, {0, 2}); });
  EXPECT_NE(out_of_range.find("axes (0, 2)"), std::string::npos) << out_of_range;
  EXPECT_NE(out_of_range.find("shape (8, 8)"), std::string::npos) << out_of_range;
  EXPECT_NE(out_of_range.find("out of bounds"), std::string::npos) << out_of_range;
  const std::string repeated = message([&] { (void)dist::fft::ifftn(square, {1, -1}); });
  EXPECT_NE(repeated.find("duplicate"), std::string::npos) << repeated;
  EXPECT_NE(repeated.find("shape (8, 8)"), std::string::npos) << repeated;
  try {
    (void)dist::fft::irfftn(square, nd::shape_t{4, 14});
    FAIL() << "no error";
  } catch (const nd::value_error& e) {
    EXPECT_NE(std::string(e.what()).find("neither crop nor pad"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)dist::fft::irfftn(square, nd::shape_t{8, 8}, {0, 5}), nd::shape_error);
  EXPECT_THROW((void)dist::fft::irfftn(square, nd::shape_t{8, 8, 8}), nd::shape_error);
  EXPECT_THROW((void)dist::fft::fftn(square, "backward", dist::sharding::block(2)), nd::shape_error);
  EXPECT_THROW((void)dist::fft::fftn(square, "sideways"), nd::error);
  const auto line = dist::distribute(nd::testing::uniform_values<float>(64, 0, 1), {64}, comm, 0);
  EXPECT_THROW((void)dist::fft::rfftn(line, std::vector<nd::index_t>{}), nd::shape_error);
  EXPECT_THROW((void)dist::fft::rfftn(line, {1}), nd::shape_error);
}
