// 2-D (grid) block sharding, block(axes, grid): the host arithmetic of grids and boxes (no GPU),
// then distribute, creation, random draws, movement, elementwise expressions, reductions and the
// SUMMA matmul on every grid of 1 .. 4 GPUs ({4,1}, {2,2}, {1,4}, ...), each checked against a
// host reference on fresh random input. Extents 37, 23, 29, 13, 11 leave a remainder over every
// grid extent 2, 3 and 4, so the uneven blocks are always exercised.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ndcuda/dist.hpp>
#include <ndcuda/dist/linalg.hpp>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/random.hpp>
#include <string>
#include <vector>

#include "support/bitwise.hpp"
#include "support/dist_gpus.hpp"
#include "support/error_message.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
namespace dist = ndcuda::dist;

namespace {

// Every 2-D grid {g0, g1} of p ranks, g0 descending.
std::vector<std::vector<int>> grids_of(int p) {
  std::vector<std::vector<int>> out;
  for (int g0 = p; g0 >= 1; --g0) {
    if (p % g0 == 0) {
      out.push_back({g0, p / g0});
    }
  }
  return out;
}

std::string label(int p, const dist::sharding& s) {
  return dist::describe(s) + " on " + std::to_string(p) + " GPUs";
}

// Whether C-order element `flat` of `shape` lies in `box`.
bool inside(const dist::block_box& box, const nd::shape_t& shape, nd::index_t flat) {
  for (std::size_t d = shape.size(); d-- > 0; flat /= shape[d]) {
    if (flat % shape[d] < box[d].begin || flat % shape[d] >= box[d].end) {
      return false;
    }
  }
  return true;
}

// The elements of `box` in C order, picked from the whole host array by the box's definition.
template <class T>
std::vector<T> box_values(const std::vector<T>& host, const nd::shape_t& shape, const dist::block_box& box) {
  std::vector<T> out;
  for (std::size_t flat = 0; flat < host.size(); ++flat) {
    if (inside(box, shape, static_cast<nd::index_t>(flat))) {
      out.push_back(host[flat]);
    }
  }
  return out;
}

// The sum along `axis` in double, in the C order of the remaining axes (keepdims has the same order).
std::vector<double> host_sum_along(const std::vector<float>& host, const nd::shape_t& shape, int axis) {
  const auto along = static_cast<std::size_t>(shape[static_cast<std::size_t>(axis)]);
  const auto inner = static_cast<std::size_t>(nd::shape_size(nd::shape_t(shape.begin() + axis + 1, shape.end())));
  std::vector<double> out(host.size() / along, 0.0);
  for (std::size_t flat = 0; flat < host.size(); ++flat) {
    out[flat / (along * inner) * inner + flat % inner] += host[flat];
  }
  return out;
}

template <class A, class B>
void expect_close(const std::vector<A>& got, const std::vector<B>& want, double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double w = static_cast<double>(want[i]);
    ASSERT_NEAR(static_cast<double>(got[i]), w, tol * (1.0 + std::abs(w))) << what << " at " << i;
  }
}

// Runs f(comm, p, spec) for every 2-D grid block({0, 1}, {g0, g1}) of 1 .. min(visible, 4) GPUs.
template <class F>
void for_each_grid(const F& f) {
  for (int p = 1; p <= std::min(nd::device_count(), 4); ++p) {
    const auto comm = nd::testing::first_gpus(p);
    for (const auto& g : grids_of(p)) {
      f(comm, p, dist::sharding::block({0, 1}, g));
    }
  }
}

// n reference values want(i), computed on the host in double.
template <class F>
std::vector<double> expected(std::size_t n, const F& want) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = want(i);
  }
  return out;
}

std::vector<float> random_floats(const nd::shape_t& shape, double lo, double hi) {
  return nd::testing::uniform_values<float>(static_cast<std::size_t>(nd::shape_size(shape)), lo, hi);
}

// Each local shard: on its rank's device, of its box's shape, holding exactly its box of `host`.
template <class T>
void expect_shards_hold_their_boxes(const dist::distributed_array<T>& a, const std::vector<T>& host,
                                    const std::string& what) {
  const auto& comm = a.comm();
  for (int l = 0; l < comm.local_size(); ++l) {
    const int rank = comm.rank(l);
    const auto box = dist::shard_box(a.shape(), a.spec(), comm.size(), rank);
    EXPECT_EQ(a.box(rank), box) << what;
    EXPECT_EQ(a.local_shard(l).device(), comm.device(l)) << what;
    EXPECT_EQ(a.local_shard(l).shape(), dist::shard_shape(a.shape(), a.spec(), comm.size(), rank)) << what;
    EXPECT_EQ(a.local_shard(l).to_host(), box_values(host, a.shape(), box)) << what << ", rank " << rank;
  }
}

}  // namespace

// ---- no GPU ------------------------------------------------------------------------------------

TEST(GridSharding, BoxesTileTheArrayExactlyOnce) {
  struct grid_case {
    nd::shape_t shape;
    std::vector<int> axes;
  };
  const std::vector<grid_case> cases{{{7, 5}, {0, 1}}, {{7, 5}, {1, 0}}, {{0, 4}, {0, 1}},    {{3, 0}, {1, 0}},
                                     {{1, 1}, {0, 1}}, {{2, 3}, {0, 1}}, {{4, 3, 9}, {0, 2}}, {{4, 3, 9}, {2, 0}}};
  for (const auto& c : cases) {
    for (int p : {1, 2, 3, 4, 6}) {
      for (const auto& grid : grids_of(p)) {
        const auto spec = dist::normalize(dist::sharding::block(c.axes, grid), static_cast<int>(c.shape.size()), p);
        SCOPED_TRACE(nd::format_shape(c.shape) + " " + label(p, spec));
        const nd::index_t n = nd::shape_size(c.shape);
        std::vector<int> owners(static_cast<std::size_t>(n), 0);
        nd::index_t covered = 0;
        for (int r = 0; r < p; ++r) {
          const auto box = dist::shard_box(c.shape, spec, p, r);
          ASSERT_EQ(box.size(), c.shape.size());
          // Each cut axis holds the block of the rank's grid coordinate; the others are whole.
          const auto at = dist::grid_position(spec, p, r);
          for (std::size_t d = 0; d < c.shape.size(); ++d) {
            const auto cut = std::find(c.axes.begin(), c.axes.end(), static_cast<int>(d));
            const auto i = static_cast<std::size_t>(cut - c.axes.begin());
            EXPECT_EQ(box[d], (cut == c.axes.end() ? dist::block_range{0, c.shape[d]}
                                                   : dist::block_of(c.shape[d], grid[i], at[i])));
          }
          covered += dist::box_size(box);
          for (nd::index_t flat = 0; flat < n; ++flat) {
            owners[static_cast<std::size_t>(flat)] += inside(box, c.shape, flat) ? 1 : 0;
          }
          // Moving to rows: the overlaps with the row blocks split this box exactly, and each
          // non-empty overlap, relative to the box, lies inside it.
          nd::index_t split = 0;
          for (int q = 0; q < p; ++q) {
            const auto overlap = dist::intersect(box, dist::shard_box(c.shape, dist::sharding::block(0), p, q));
            split += dist::box_size(overlap);
            const auto local = dist::relative_to(overlap, box);
            for (std::size_t d = 0; d < box.size() && dist::box_size(overlap) > 0; ++d) {
              EXPECT_TRUE(local[d].begin >= 0 && local[d].end <= box[d].size()) << "axis " << d << ", row block " << q;
            }
          }
          EXPECT_EQ(split, dist::box_size(box));
        }
        EXPECT_EQ(covered, n);
        EXPECT_TRUE(std::all_of(owners.begin(), owners.end(), [](int o) { return o == 1; }))
            << "an element is held by no rank or by two";
      }
    }
  }
}

TEST(GridSharding, GridPositionsAreRowMajor) {
  for (int p : {1, 2, 3, 4, 6, 12}) {
    for (const auto& g : grids_of(p)) {
      const auto spec = dist::sharding::block({0, 1}, g);
      EXPECT_EQ(dist::grid_of(spec, p), g);
      for (int r = 0; r < p; ++r) {
        EXPECT_EQ(dist::grid_position(spec, p, r), (std::vector<int>{r / g[1], r % g[1]})) << label(p, spec);
      }
    }
  }
  const auto three = dist::sharding::block({0, 1, 2}, {2, 3, 2});
  for (int r = 0; r < 12; ++r) {
    EXPECT_EQ(dist::grid_position(three, 12, r), (std::vector<int>{r / 6, r / 2 % 3, r % 2}));
  }
  EXPECT_EQ(dist::grid_of(dist::sharding::block(1), 4), std::vector<int>{4});
  EXPECT_TRUE(dist::grid_of(dist::sharding::replicated(), 4).empty());
}

TEST(GridSharding, NormalizeRefusesBadGrids) {
  const auto message = [](const dist::sharding& s, int ndim, int ranks) {
    return nd::testing::message_of<nd::shape_error>([&] { (void)dist::normalize(s, ndim, ranks); });
  };
  EXPECT_NE(message(dist::sharding::block({1, 1}, {2, 2}), 2, 4).find("name each axis once"), std::string::npos);
  EXPECT_NE(message(dist::sharding::block({0, -2}, {2, 2}), 2, 4).find("name each axis once"), std::string::npos)
      << "-2 is axis 0 of a 2-d array";
  EXPECT_THROW((void)dist::normalize(dist::sharding::block({0, 1}, {4}), 2), nd::shape_error);
  EXPECT_THROW((void)dist::normalize(dist::sharding::block({0, 1}, {2, 1, 2}), 3), nd::shape_error);
  EXPECT_THROW((void)dist::normalize(dist::sharding::block({0, 2}, {2, 2}), 2), nd::shape_error);
  EXPECT_THROW((void)dist::normalize(dist::sharding::block({0, 1}, {0, 2}), 2), nd::shape_error);
  const std::string product = message(dist::sharding::block({0, 1}, {2, 2}), 2, 3);
  EXPECT_NE(product.find("multiply to the rank count"), std::string::npos) << product;
  EXPECT_THROW((void)dist::grid_of(dist::sharding::block({0, 1}, {3, 2}), 4), nd::shape_error);
  // Accepted: negative axes normalised, the grid kept; a 1-D grid is written as block(axis).
  EXPECT_EQ(dist::normalize(dist::sharding::block({-1, 0}, {2, 2}), 2, 4), dist::sharding::block({1, 0}, {2, 2}));
  EXPECT_EQ(dist::normalize(dist::sharding::block({1}, {4}), 2, 4), dist::sharding::block(1));
  EXPECT_TRUE(dist::normalize(dist::sharding::block({0, 1}, {4, 1}), 2, 4).is_grid());
}

TEST(GridSharding, ReducedShardingReplicatesWhenACutAxisGoes) {
  const auto g = dist::sharding::block({0, 1}, {2, 2});
  EXPECT_TRUE(dist::reduced_sharding(g, {0}, false).is_replicated());
  EXPECT_TRUE(dist::reduced_sharding(g, {1}, true).is_replicated());
  EXPECT_TRUE(dist::reduced_sharding(g, {0, 1}, false).is_replicated());
  EXPECT_EQ(dist::reduced_sharding(g, {2}, false), g);
  EXPECT_EQ(dist::reduced_sharding(g, {2}, true), g);
  // An uncut axis in between: the cut axes move down by one, unless the reduced axis is kept.
  EXPECT_EQ(dist::reduced_sharding(dist::sharding::block({0, 2}, {2, 3}), {1}, false),
            dist::sharding::block({0, 1}, {2, 3}));
  EXPECT_EQ(dist::reduced_sharding(dist::sharding::block({2, 0}, {3, 2}), {1}, false),
            dist::sharding::block({1, 0}, {3, 2}));
  EXPECT_EQ(dist::reduced_sharding(dist::sharding::block({2, 0}, {3, 2}), {1}, true),
            dist::sharding::block({2, 0}, {3, 2}));
}

TEST(GridSharding, DescribeNamesAxesAndGrid) {
  EXPECT_EQ(dist::describe(dist::sharding::block({0, 1}, {2, 1})), "block(axes=(0,1), grid=(2,1))");
  EXPECT_EQ(dist::describe(dist::sharding::block({2, 0}, {1, 3})), "block(axes=(2,0), grid=(1,3))");
  EXPECT_EQ(dist::describe(dist::sharding::block(1)), "block(axis=1)");
  EXPECT_TRUE(dist::sharding::block({0, 1}, {1, 1}).is_grid());
  EXPECT_FALSE(dist::sharding::block(0).is_grid());
  EXPECT_EQ(dist::sharding::block({1, 0}, {2, 2}).axis(), 1);
}

// ---- on 1 .. 4 GPUs ----------------------------------------------------------------------------

TEST(DistGrid, DistributeCreateAndDrawOnEveryGrid) {
  NDCUDA_REQUIRE_GPU();
  const nd::shape_t shape{37, 23};
  const auto n = static_cast<std::size_t>(nd::shape_size(shape));
  for_each_grid([&](const dist::communicator& comm, int p, const dist::sharding& spec) {
    const std::string what = label(p, spec);
    const auto host = random_floats(shape, -4.0, 4.0);
    const auto single = nd::asarray<float>(host, shape, nd::default_stream(0));
    const auto from_device = dist::distribute(single, comm, spec);
    const auto from_host = dist::distribute<float>(host, shape, comm, spec);
    EXPECT_EQ(from_host.spec(), spec) << what;
    EXPECT_TRUE(from_host.is_grid()) << what;
    EXPECT_EQ(from_device.to_host(), host) << what;
    EXPECT_EQ(from_host.to_host(), host) << what;
    expect_shards_hold_their_boxes(from_device, host, what + ", from the device");
    expect_shards_hold_their_boxes(from_host, host, what + ", from the host");
    EXPECT_EQ(from_host.gather(comm.device(p - 1)).to_host(), host) << what;
    const float value = nd::testing::uniform_values<float>(1, 1.0, 2.0)[0];
    EXPECT_EQ(dist::full<float>(shape, value, comm, spec).to_host(), std::vector<float>(n, value)) << what;
    EXPECT_EQ(dist::zeros<float>(shape, comm, spec).to_host(), std::vector<float>(n, 0.0F)) << what;
    EXPECT_EQ(dist::ones<std::int32_t>(shape, comm, spec).to_host(), std::vector<std::int32_t>(n, 1)) << what;
    // A draw computed box by box equals the single-GPU draw from the same seed bit for bit.
    const std::uint64_t seed = nd::testing::rng()();
    auto g1 = nd::random::default_rng(seed);
    auto g2 = nd::random::default_rng(seed);
    const nd::ndarray<float> drawn = g1.normal<float>(shape);
    const auto sharded_draw = dist::distribute(g2.normal<float>(shape), comm, spec);
    EXPECT_EQ(sharded_draw.spec(), spec) << what;
    EXPECT_EQ(nd::testing::differing(sharded_draw.to_host(), drawn.to_host()), 0U) << what;
  });
}

TEST(DistGrid, ReshardBetweenGridsBlocksAndReplicas) {
  NDCUDA_REQUIRE_GPU();
  const nd::shape_t shape{37, 23};
  for (int p = 1; p <= std::min(nd::device_count(), 4); ++p) {
    const auto comm = nd::testing::first_gpus(p);
    std::vector<dist::sharding> specs{dist::sharding::replicated(), dist::sharding::block(0), dist::sharding::block(1)};
    for (const auto& g : grids_of(p)) {
      specs.push_back(dist::sharding::block({0, 1}, g));
      specs.push_back(dist::sharding::block({1, 0}, g));  // the grid's first dimension cuts columns
    }
    const auto host =
        nd::testing::uniform_values<std::int64_t>(static_cast<std::size_t>(nd::shape_size(shape)), -99, 99);
    for (const auto& from : specs) {
      const auto a = dist::distribute<std::int64_t>(host, shape, comm, from);
      for (const auto& to : specs) {
        const std::string what = dist::describe(from) + " -> " + label(p, to);
        const auto b = a.reshard(to);
        EXPECT_EQ(b.spec(), dist::normalize(to, 2, p)) << what;
        expect_shards_hold_their_boxes(b, host, what);
        EXPECT_EQ(b.reshard(from).to_host(), host) << what << " and back";
      }
      const auto r = a.replicate();
      EXPECT_TRUE(r.is_replicated());
      for (int l = 0; l < comm.local_size(); ++l) {
        EXPECT_EQ(r.local_shard(l).to_host(), host) << dist::describe(from) << " replicated, rank " << l;
      }
    }
  }
}

TEST(DistGrid, ElementwiseExpressionsKeepTheGrid) {
  NDCUDA_REQUIRE_GPU();
  const nd::shape_t shape{37, 23};
  const auto n = static_cast<std::size_t>(nd::shape_size(shape));
  const auto cols = static_cast<std::size_t>(shape[1]);
  for_each_grid([&](const dist::communicator& comm, int p, const dist::sharding& spec) {
    const std::string what = label(p, spec);
    const auto ha = random_floats(shape, -4.0, 4.0);
    const auto hb = random_floats(shape, -4.0, 4.0);
    const auto hrow = random_floats({shape[1]}, -4.0, 4.0);
    const auto hcol = random_floats({shape[0], 1}, -4.0, 4.0);
    const auto a = dist::distribute<float>(ha, shape, comm, spec);
    const auto b = dist::distribute<float>(hb, shape, comm, spec);
    const auto rep = dist::sharding::replicated();
    const auto row = dist::distribute<float>(hrow, {shape[1]}, comm, rep);
    const auto col = dist::distribute<float>(hcol, {shape[0], 1}, comm, rep);
    const auto whole_b = dist::distribute<float>(hb, shape, comm, rep);
    const dist::distributed_array<float> c = 2.0F * a + nd::sin(b);
    EXPECT_EQ(c.spec(), spec) << what;
    expect_close(c.to_host(), expected(n, [&](std::size_t i) { return 2.0 * ha[i] + std::sin(double{hb[i]}); }), 1e-5,
                 what + ": 2a + sin(b)");
    // Replicated operands (a row vector, a column, a whole array) broadcast into each box.
    const dist::distributed_array<float> d = (a - row) * col + whole_b;
    EXPECT_EQ(d.spec(), spec) << what;
    expect_close(d.to_host(),
                 expected(n, [&](std::size_t i) { return (double{ha[i]} - hrow[i % cols]) * hcol[i / cols] + hb[i]; }),
                 1e-5, what + ": (a - row) * col + b");
    // In place: assign() writes the existing boxes, `+=` broadcasts the replicated row into them.
    auto e = dist::zeros<float>(shape, comm, spec);
    e.assign(a * b);
    e += row;
    expect_close(e.to_host(), expected(n, [&](std::size_t i) { return double{ha[i]} * hb[i] + hrow[i % cols]; }), 1e-5,
                 what + ": assign(a * b), += row");
    // A draw inside the expression: each rank computes its box of the single-GPU draw.
    const std::uint64_t seed = nd::testing::rng()();
    auto g1 = nd::random::default_rng(seed);
    auto g2 = nd::random::default_rng(seed);
    const auto z = nd::ndarray<float>(g1.normal<float>(shape)).to_host();
    const dist::distributed_array<float> y = a + 0.5F * g2.normal<float>(a.shape());
    EXPECT_EQ(y.spec(), spec) << what;
    expect_close(y.to_host(), expected(n, [&](std::size_t i) { return double{ha[i]} + 0.5 * z[i]; }), 1e-6,
                 what + ": a + 0.5 normal");
    // Another sharding of the same shape is never resharded implicitly: both specs are named.
    const auto rows = dist::distribute<float>(hb, shape, comm, dist::sharding::block(0));
    const std::string message = nd::testing::message_of<nd::shape_error>([&] { (void)dist::eval(a + rows); });
    EXPECT_NE(message.find("reshard"), std::string::npos) << message;
    EXPECT_NE(message.find(dist::describe(spec)), std::string::npos) << message;
    EXPECT_NE(message.find("block(axis=0)"), std::string::npos) << message;
  });
}

TEST(DistGrid, ReductionsOverAllAndAlongEachAxis) {
  NDCUDA_REQUIRE_GPU();
  const nd::shape_t shape{37, 23};
  for_each_grid([&](const dist::communicator& comm, int p, const dist::sharding& spec) {
    const std::string what = label(p, spec);
    // Near 1, so that the product of 851 factors stays far from underflow and overflow.
    const auto host = random_floats(shape, 0.9, 1.1);
    const auto a = dist::distribute<float>(host, shape, comm, spec);
    double sum = 0;
    double prod = 1;
    for (float v : host) {
      sum += v;
      prod *= v;
    }
    const auto [lo, hi] = std::minmax_element(host.begin(), host.end());
    // Every rank holds the whole 0-d result; min and max are exact.
    const auto on_every_rank = [&](const auto& r, double want, double tol, const char* name) {
      for (int l = 0; l < comm.local_size(); ++l) {
        EXPECT_NEAR(r.local_shard(l).item(), want, tol) << what << ", " << name << " on rank " << comm.rank(l);
      }
    };
    on_every_rank(dist::sum(a), sum, 1e-4 * sum, "sum");
    on_every_rank(dist::prod(a), prod, 1e-4 * prod, "prod");
    on_every_rank(dist::mean(a), sum / static_cast<double>(host.size()), 1e-5, "mean");
    on_every_rank(dist::min(a), *lo, 0.0, "min");
    on_every_rank(dist::max(a), *hi, 0.0, "max");
    // Along a cut axis: the partial boxes are combined over ranks and every rank holds the whole.
    for (int axis = 0; axis < 2; ++axis) {
      const std::string along = what + ", axis " + std::to_string(axis);
      const auto want = host_sum_along(host, shape, axis);
      const auto flat = dist::sum(a, axis);
      const auto kept = dist::sum(a, axis, nd::keepdims);
      EXPECT_TRUE(flat.spec().is_replicated()) << along;
      EXPECT_TRUE(kept.spec().is_replicated()) << along;
      EXPECT_EQ(flat.shape(), (nd::shape_t{shape[1 - axis]})) << along;
      EXPECT_EQ(kept.shape(), (axis == 0 ? nd::shape_t{1, shape[1]} : nd::shape_t{shape[0], 1})) << along;
      for (int l = 0; l < comm.local_size(); ++l) {
        expect_close(flat.local_shard(l).to_host(), want, 1e-4, along);
        expect_close(kept.local_shard(l).to_host(), want, 1e-4, along + ", keepdims");
      }
    }
  });
}

TEST(DistGrid, ThreeDimensionalGridsOnAnyTwoAxes) {
  NDCUDA_REQUIRE_GPU();
  const nd::shape_t shape{13, 5, 11};
  for_each_grid([&](const dist::communicator& comm, int p, const dist::sharding& grid_2d) {
    for (const std::vector<int>& axes : {std::vector<int>{0, 1}, {0, 2}, {2, 0}}) {
      const auto spec = dist::sharding::block(axes, grid_2d.grid);
      const std::string what = label(p, spec);
      const auto host = random_floats(shape, -2.0, 2.0);
      const auto a = dist::distribute<float>(host, shape, comm, spec);
      expect_shards_hold_their_boxes(a, host, what);
      EXPECT_EQ(a.reshard(1).reshard(spec).to_host(), host) << what;
      const dist::distributed_array<float> twice = a + a;
      EXPECT_EQ(twice.spec(), spec) << what;
      // Reducing the uncut axis keeps the grid on the renumbered axes (no data moved); reducing a
      // cut one replicates.
      const int uncut = 3 - axes[0] - axes[1];
      auto kept_axes = axes;
      for (int& x : kept_axes) {
        x -= x > uncut ? 1 : 0;
      }
      const auto want = host_sum_along(host, shape, uncut);
      const auto s = dist::sum(a, uncut);
      EXPECT_EQ(s.spec(), dist::sharding::block(kept_axes, grid_2d.grid)) << what;
      expect_close(s.to_host(), want, 1e-4, what + ", sum along the uncut axis");
      const auto k = dist::sum(a, uncut, nd::keepdims);
      EXPECT_EQ(k.spec(), spec) << what;
      expect_close(k.to_host(), want, 1e-4, what + ", keepdims");
      const auto across = dist::sum(a, axes[1]);
      EXPECT_TRUE(across.spec().is_replicated()) << what;
      expect_close(across.to_host(), host_sum_along(host, shape, axes[1]), 1e-4, what + ", along a cut axis");
    }
  });
}

TEST(DistGrid, SummaMatmulMatchesTheHostProduct) {
  NDCUDA_REQUIRE_GPU();
  const nd::index_t m = 37;
  const nd::index_t k = 29;
  const nd::index_t n = 23;
  for_each_grid([&](const dist::communicator& comm, int p, const dist::sharding& spec) {
    const std::string what = label(p, spec);
    const auto ha = random_floats({m, k}, -1.0, 1.0);
    const auto hb = random_floats({k, n}, -1.0, 1.0);
    const auto want = expected(static_cast<std::size_t>(m * n), [&](std::size_t ij) {
      const auto i = static_cast<nd::index_t>(ij) / n;
      const auto j = static_cast<nd::index_t>(ij) % n;
      double acc = 0;
      for (nd::index_t q = 0; q < k; ++q) {
        acc += double{ha[static_cast<std::size_t>(i * k + q)]} * hb[static_cast<std::size_t>(q * n + j)];
      }
      return acc;
    });
    // float32 products of k terms of size ~1: a bound well above rounding, as matmul_test's.
    const double tol = 1e-5 * static_cast<double>(k);
    const auto a = dist::distribute<float>(ha, {m, k}, comm, spec);
    const auto b = dist::distribute<float>(hb, {k, n}, comm, spec);
    const auto c = dist::matmul(a, b);
    EXPECT_EQ(c.shape(), (nd::shape_t{m, n})) << what;
    EXPECT_EQ(c.spec(), spec) << what;
    expect_close(c.to_host(), want, tol, what);
    for (int l = 0; l < comm.local_size(); ++l) {
      expect_close(c.local_shard(l).to_host(), box_values(want, {m, n}, c.box(comm.rank(l))), tol,
                   what + ", the box of rank " + std::to_string(comm.rank(l)));
    }
    const auto rows = dist::matmul(a, b, dist::sharding::block(0));
    EXPECT_EQ(rows.spec(), dist::sharding::block(0)) << what;
    expect_close(rows.to_host(), want, tol, what + ", out = rows");
    // A grid A needs a grid B: a replicated B is refused, the message naming the grid.
    const auto replicated_b = dist::distribute<float>(hb, {k, n}, comm, dist::sharding::replicated());
    const std::string message = nd::testing::message_of<nd::shape_error>([&] { (void)dist::matmul(a, replicated_b); });
    EXPECT_NE(message.find("grid"), std::string::npos) << what << ": " << message;
    // Integers are exact (NumPy's wrap-around aside): each panel's product is added by a kernel.
    const auto ia = nd::testing::uniform_integers<std::int32_t>(static_cast<std::size_t>(m * k), -9, 9);
    const auto ib = nd::testing::uniform_integers<std::int32_t>(static_cast<std::size_t>(k * n), -9, 9);
    const auto ic = dist::matmul(dist::distribute<std::int32_t>(ia, {m, k}, comm, spec),
                                 dist::distribute<std::int32_t>(ib, {k, n}, comm, spec))
                        .to_host();
    for (nd::index_t ij = 0; ij < m * n; ++ij) {
      std::int64_t acc = 0;
      for (nd::index_t q = 0; q < k; ++q) {
        acc +=
            std::int64_t{ia[static_cast<std::size_t>(ij / n * k + q)]} * ib[static_cast<std::size_t>(q * n + ij % n)];
      }
      ASSERT_EQ(ic[static_cast<std::size_t>(ij)], acc) << what << ", int32 at " << ij;
    }
  });
}
