// Random draws into distributed arrays (issue 18): each rank's part of a draw equals its block of
// the single-GPU draw bit for bit, for several distributions, axes and uneven blocks, and the
// generator advances as for one draw. The window arithmetic needs no GPU; each rank's part is
// also checked on one GPU without a communicator (shard_draw), the rest on every visible GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <ndcuda/dist.hpp>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/random.hpp>
#include <ndcuda/random/detail/host_reference.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "support/bitwise.hpp"
#include "support/dist_gpus.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
namespace dist = ndcuda::dist;

namespace {

using nd::testing::all_gpus;
using nd::testing::uneven;

using nd::testing::differing;

template <class T>
std::vector<T> host_of(const nd::ndarray<T>& a) {
  return a.copy().to_host();
}

// The global flat indices a window visits, in the window's own C order.
std::vector<std::uint64_t> visited(const dist::detail::draw_window& w) {
  const auto& shape = w.layout.shape;
  std::vector<std::uint64_t> out;
  const nd::index_t n = nd::shape_size(shape);
  for (nd::index_t flat = 0; flat < n; ++flat) {
    nd::index_t rest = flat;
    nd::index_t offset = 0;
    for (std::size_t a = shape.size(); a-- > 0;) {
      offset += rest % shape[a] * w.layout.strides[a];
      rest /= shape[a];
    }
    out.push_back(w.shift + static_cast<std::uint64_t>(offset));
  }
  return out;
}

// The global flat indices of rank r's block, by the definition of block sharding.
std::vector<std::uint64_t> block_indices(const nd::shape_t& shape, int axis, dist::block_range b) {
  std::vector<std::uint64_t> out;
  const nd::index_t n = nd::shape_size(shape);
  for (nd::index_t flat = 0; flat < n; ++flat) {
    nd::index_t rest = flat;
    nd::index_t along = 0;
    for (std::size_t a = shape.size(); a-- > 0;) {
      if (static_cast<int>(a) == axis) {
        along = rest % shape[a];
      }
      rest /= shape[a];
    }
    if (along >= b.begin && along < b.end) {
      out.push_back(static_cast<std::uint64_t>(flat));
    }
  }
  return out;
}

using draw_t = decltype(std::declval<const nd::random::generator&>().normal<float>(nd::shape_t{}));
using scaled_t = decltype(0.1f * std::declval<draw_t>());

}  // namespace

// ---- no GPU ------------------------------------------------------------------------------------

static_assert(dist::detail::draw_operand<draw_t>);
static_assert(dist::detail::draw_operand<scaled_t>, "an expression over a draw is one");
static_assert(!dist::detail::draw_operand<nd::ndarray<float>>, "plain arrays must be distribute()d");
static_assert(!dist::detail::draw_operand<decltype(std::declval<nd::ndarray<float>>() * 2.0f)>);
static_assert(dist::distributed_operand<scaled_t>);

TEST(DistDrawWindows, EachRanksWindowVisitsItsBlocksGlobalFlatIndices) {
  for (const nd::shape_t& shape : {nd::shape_t{23}, nd::shape_t{7, 5}, nd::shape_t{3, 8, 5}, nd::shape_t{2, 1, 9}}) {
    for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
      for (int p : {1, 2, 3, 4}) {
        for (int r = 0; r < p; ++r) {
          SCOPED_TRACE(nd::format_shape(shape) + " axis " + std::to_string(axis) + " rank " + std::to_string(r) +
                       " of " + std::to_string(p));
          const auto spec = dist::sharding::block(axis);
          const auto w = dist::detail::window_of(shape, shape, spec, p, r);
          const auto block = dist::block_of(shape[static_cast<std::size_t>(axis)], p, r);
          if (shape[static_cast<std::size_t>(axis)] == 1) {
            EXPECT_TRUE(w.whole) << "an axis of extent 1 broadcasts";
            continue;
          }
          ASSERT_FALSE(w.whole);
          EXPECT_EQ(w.box, dist::shard_box(shape, spec, p, r));
          EXPECT_EQ(w.box[static_cast<std::size_t>(axis)], block);
          const auto dw = dist::detail::window_of_draw(shape, w);
          EXPECT_EQ(dw.layout.shape, dist::shard_shape(shape, spec, p, r));
          EXPECT_EQ(visited(dw), block_indices(shape, axis, block));
          if (axis == 0) {  // whole rows: the dense, vectorised path
            EXPECT_TRUE(nd::is_c_contiguous(dw.layout.shape, dw.layout.strides));
          }
        }
      }
    }
  }
}

TEST(DistDrawWindows, BroadcastLeavesReadTheirWholeOrTheAlignedPart) {
  const nd::shape_t result{7, 5};
  // A (5,) parameter against rows cut over ranks: every rank reads all of it.
  EXPECT_TRUE(dist::detail::window_of({5}, result, dist::sharding::block(0), 3, 1).whole);
  EXPECT_TRUE(dist::detail::window_of({1, 5}, result, dist::sharding::block(0), 3, 1).whole);
  // Columns cut over ranks: its aligned part.
  const auto w = dist::detail::window_of({5}, result, dist::sharding::block(1), 3, 2);
  ASSERT_FALSE(w.whole);
  EXPECT_EQ(w.box, (dist::block_box{dist::block_of(5, 3, 2)}));
  const auto dw = dist::detail::window_of_draw({5}, w);
  EXPECT_EQ(dw.shift, static_cast<std::uint64_t>(w.box[0].begin));
  // A 2 x 2 grid of a (7, 5) result: rank 3 reads rows [4, 7) and columns [3, 5) of the global
  // draw, whose first element is at flat index 4 * 5 + 3.
  const auto corner = dist::detail::window_of(result, result, dist::sharding::block({0, 1}, {2, 2}), 4, 3);
  ASSERT_FALSE(corner.whole);
  EXPECT_EQ(corner.box, (dist::block_box{{4, 7}, {3, 5}}));
  const auto corner_draw = dist::detail::window_of_draw(result, corner);
  EXPECT_EQ(corner_draw.shift, 23u);
  EXPECT_EQ(corner_draw.layout.shape, (nd::shape_t{3, 2}));
  EXPECT_EQ(corner_draw.layout.strides, nd::contiguous_layout(result).strides);
  // Replicated: the whole leaf, from element 0.
  const auto whole = dist::detail::window_of_draw(result, dist::detail::window_of(result, result, {}, 4, 3));
  EXPECT_EQ(whole.shift, 0u);
  EXPECT_EQ(whole.layout, nd::contiguous_layout(result));
  EXPECT_THROW((void)dist::detail::window_of({4}, result, dist::sharding::block(1), 3, 0), nd::shape_error);
}

namespace {

// A draw leaf made by hand, as a reservation makes it, with no device: its offset cell is never
// read here (the shard stays on the draw's device, so no peer copy is made).
nd::detail::random_leaf<2, 2, nd::dtype::float32> fake_normal_leaf(const nd::shape_t& shape,
                                                                   const std::uint64_t* cell) {
  return {nd::random::detail::reservation{nd::random::detail::source_param{{0x1234u, 0x5678u}, cell, 0}, nullptr,
                                          nd::detail::placeholder_stream(), 0},
          nd::contiguous_layout(shape)};
}

// An array of `shape` on device 0 over host memory that nothing dereferences: views only.
nd::ndarray<float> fake_array(std::vector<float>& memory, const nd::shape_t& shape) {
  return nd::ndarray<float>(nullptr, memory.data(), nd::contiguous_layout(shape), 0, nd::detail::placeholder_stream());
}

}  // namespace

// The draw's parameter block gets the block's first global flat index (key and offset cell kept),
// its layout the block's extent with the global strides; an array parameter becomes the view of
// the part its block reads, a scalar stays as it is.
TEST(DistDrawWindows, ShardingRewritesTheParameterBlockAndWindowsArrayParameters) {
  const std::uint64_t cell_storage = 0;
  const std::uint64_t* cell = &cell_storage;
  const nd::shape_t shape{7, 5};
  using gen = nd::random::generator;
  using normal_t = decltype(std::declval<const gen&>().normal<float>(nd::shape_t{}));
  using affine_t = decltype(std::declval<const gen&>().normal<float>(std::declval<const nd::ndarray<float>&>(), 2.0,
                                                                     std::optional<nd::shape_t>{}));
  using args_t = std::remove_reference_t<decltype(std::declval<affine_t&>().args)>;
  std::vector<float> memory(5);
  const nd::ndarray<float> loc = fake_array(memory, {5});
  const normal_t z{std::tuple{fake_normal_leaf(shape, cell)}};
  const affine_t x{args_t{z, std::tuple_element_t<1, args_t>{loc}, std::tuple_element_t<2, args_t>{2.0f}}};
  const nd::stream& s = nd::detail::placeholder_stream();

  // Columns [4, 5) of rank 2 of 3: the draw from flat index 4 with row stride 5; loc's element 4.
  const affine_t cols = dist::detail::shard_draw(x, shape, dist::sharding::block(1), 3, 2, s);
  const auto& leaf = std::get<0>(std::get<0>(cols.args).args);
  EXPECT_EQ(leaf.draw.param.shift, 4u);
  EXPECT_EQ(leaf.layout.shape, (nd::shape_t{7, 1}));
  EXPECT_EQ(leaf.layout.strides, (nd::strides_t{5, 1}));
  EXPECT_EQ(leaf.draw.param.key[0], 0x1234u);
  EXPECT_EQ(leaf.draw.param.key[1], 0x5678u);
  EXPECT_EQ(leaf.draw.param.offset, cell) << "the same device reads the draw's own cell";
  const auto& loc_part = std::get<1>(cols.args).array;
  EXPECT_EQ(loc_part.shape(), (nd::shape_t{1}));
  EXPECT_EQ(loc_part.data(), memory.data() + 4);
  EXPECT_EQ(std::get<2>(cols.args).value, 2.0f);

  // Rows [3, 5) of rank 1 of 3: from flat index 15, C-contiguous; loc broadcasts, whole.
  const affine_t rows = dist::detail::shard_draw(x, shape, dist::sharding::block(0), 3, 1, s);
  const auto& row_leaf = std::get<0>(std::get<0>(rows.args).args);
  EXPECT_EQ(row_leaf.draw.param.shift, 15u);
  EXPECT_EQ(row_leaf.layout.shape, (nd::shape_t{2, 5}));
  EXPECT_TRUE(nd::is_c_contiguous(row_leaf.layout.shape, row_leaf.layout.strides));
  EXPECT_EQ(std::get<1>(rows.args).array.shape(), (nd::shape_t{5}));
  EXPECT_EQ(std::get<1>(rows.args).array.data(), memory.data());

  // The original is untouched (a draw may be sharded once per rank).
  EXPECT_EQ(std::get<0>(std::get<0>(x.args).args).draw.param.shift, 0u);
  EXPECT_EQ(std::get<0>(std::get<0>(x.args).args).layout, nd::contiguous_layout(shape));
}

// ---- one GPU: every rank's part without a communicator -------------------------------------------

namespace {

// Every rank's part of make(g, shape) for 2 to 4 ranks along every axis (and replicated) equals
// its block of the same draw materialised on one GPU; the generator then stands where it would.
template <class Make>
void expect_parts_equal_blocks(const char* what, Make make, const nd::shape_t& shape) {
  const std::uint64_t seed = nd::testing::rng()();
  auto g1 = nd::random::default_rng(seed);
  auto g2 = nd::random::default_rng(seed);
  using T = typename decltype(make(g1, shape))::value_type;
  const nd::ndarray<T> single = make(g1, shape);
  const auto draw = make(g2, shape);
  const nd::stream& s = nd::default_stream();
  for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
    for (int p : {2, 3, 4}) {
      for (int r = 0; r < p; ++r) {
        SCOPED_TRACE(std::string(what) + " " + nd::format_shape(shape) + " axis " + std::to_string(axis) + " rank " +
                     std::to_string(r) + " of " + std::to_string(p));
        const auto spec = dist::sharding::block(axis);
        const nd::ndarray<T> part = dist::detail::shard_draw(draw, shape, spec, p, r, s);
        const auto block = dist::block_of(shape[static_cast<std::size_t>(axis)], p, r);
        ASSERT_EQ(part.shape(), dist::shard_shape(shape, spec, p, r));
        EXPECT_EQ(differing(host_of(part), host_of(dist::detail::slab(single, axis, block))), 0u);
      }
    }
  }
  const nd::ndarray<T> whole = dist::detail::shard_draw(draw, shape, dist::sharding::replicated(), 3, 1, s);
  EXPECT_EQ(differing(host_of(whole), host_of(single)), 0u) << what << " replicated";
  EXPECT_EQ(g1.offset(), g2.offset()) << what;
  const nd::ndarray<float> next1 = g1.random<float>({257});
  const nd::ndarray<float> next2 = g2.random<float>({257});
  EXPECT_EQ(differing(host_of(next1), host_of(next2)), 0u) << what << ": the next draw";
}

}  // namespace

TEST(DistDrawParts, EveryRanksPartEqualsItsBlockOfTheSingleGpuDraw) {
  NDCUDA_REQUIRE_GPU();
  using gen = nd::random::generator;
  for (const nd::shape_t& shape : {nd::shape_t{1001}, nd::shape_t{7, 5}, nd::shape_t{3, 9, 5}}) {
    expect_parts_equal_blocks(
        "random<float>", [](const gen& g, const nd::shape_t& s) { return g.random<float>(s); }, shape);
    expect_parts_equal_blocks(
        "normal<float>", [](const gen& g, const nd::shape_t& s) { return g.normal<float>(s); }, shape);
    expect_parts_equal_blocks(
        "normal<double>", [](const gen& g, const nd::shape_t& s) { return g.normal<double>(s); }, shape);
    expect_parts_equal_blocks(
        "integers<int64>", [](const gen& g, const nd::shape_t& s) { return g.integers<std::int64_t>(-1000, 1000, s); },
        shape);
    expect_parts_equal_blocks(
        "integers<int32> endpoint",
        [](const gen& g, const nd::shape_t& s) { return g.integers<std::int32_t>(-7, 9, s, true); }, shape);
    expect_parts_equal_blocks(
        "gamma<double>", [](const gen& g, const nd::shape_t& s) { return g.gamma<double>(2.5, 1.5, s); }, shape);
  }
  // Array parameters: loc along the last axis, scale along the first (broadcast over the rest).
  const nd::shape_t shape{7, 5};
  const std::vector<float> loc = nd::testing::uniform_values<float>(5, -3.0, 3.0);
  const std::vector<float> scale = nd::testing::uniform_values<float>(7, 0.1, 3.1);  // |U(-3, 3)| + 0.1
  const auto loc_a = nd::asarray<float>(loc, {5});
  const auto scale_a = nd::asarray<float>(scale, {7, 1});
  expect_parts_equal_blocks(
      "normal<float>(loc, scale)",
      [&](const gen& g, const nd::shape_t& s) { return g.normal<float>(loc_a, scale_a, s); }, shape);
  expect_parts_equal_blocks(
      "0.5f * uniform<float>(loc, 4) + 1",
      [&](const gen& g, const nd::shape_t& s) { return 0.5f * g.uniform<float>(loc_a, 4.0, s) + 1.0f; }, shape);
}

// The parts also equal the host reference (the same Philox source compiled for the CPU).
TEST(DistDrawParts, PartsEqualTheHostReference) {
  NDCUDA_REQUIRE_GPU();
  auto g = nd::random::default_rng(nd::testing::rng()());
  (void)g.random<float>({1});  // the offset cell exists; the draw below starts past it
  const nd::random::host::draw where{g.key(), g.offset()};
  const nd::shape_t shape{5, 11};
  const auto draw = g.normal<float>(shape);
  for (int r = 0; r < 3; ++r) {
    const nd::ndarray<float> part =
        dist::detail::shard_draw(draw, shape, dist::sharding::block(1), 3, r, nd::default_stream());
    const auto b = dist::block_of(11, 3, r);
    const auto h = host_of(part);
    for (nd::index_t i = 0; i < 5; ++i) {
      for (nd::index_t j = b.begin; j < b.end; ++j) {
        const float want = nd::random::host::normal_f32(where, static_cast<std::uint64_t>(i * 11 + j));
        const float got = h[static_cast<std::size_t>(i * b.size() + j - b.begin)];
        EXPECT_EQ(std::memcmp(&want, &got, sizeof got), 0) << "rank " << r << " element (" << i << ", " << j << ")";
      }
    }
  }
}

// ---- the distributed array on every visible GPU (one rank with one GPU) ---------------------------

namespace {

void expect_fill_matches(const dist::communicator& comm, const nd::shape_t& shape, const dist::sharding& spec,
                         const nd::ndarray<double>& mu) {
  const std::uint64_t seed = nd::testing::rng()();
  auto g1 = nd::random::default_rng(seed);
  auto g2 = nd::random::default_rng(seed);
  const nd::ndarray<float> n1 = g1.normal<float>(shape);
  const auto n2 = dist::distribute(g2.normal<float>(shape), comm, spec);
  EXPECT_EQ(differing(n2.to_host(), host_of(n1)), 0u) << "normal<float>";
  for (int l = 0; l < comm.local_size(); ++l) {
    EXPECT_EQ(n2.local_shard(l).device(), comm.device(l));
  }
  // Into an existing array, several distributions in turn.
  const auto d = dist::zeros<double>(shape, comm, spec);
  const nd::ndarray<double> r1 = g1.random<double>(shape);
  d.assign(g2.random<double>(shape));
  EXPECT_EQ(differing(d.to_host(), host_of(r1)), 0u) << "random<double>";
  const nd::ndarray<double> m1 = g1.normal<double>(mu, 0.5, shape);
  d.assign(g2.normal<double>(mu, 0.5, shape));
  EXPECT_EQ(differing(d.to_host(), host_of(m1)), 0u) << "normal<double>(mu, 0.5)";
  const nd::ndarray<std::int64_t> i1 = g1.integers<std::int64_t>(-50, 50, shape);
  const auto i2 = dist::distribute(g2.integers<std::int64_t>(-50, 50, shape), comm, spec);
  EXPECT_EQ(differing(i2.to_host(), host_of(i1)), 0u) << "integers<int64>";
  EXPECT_EQ(g1.offset(), g2.offset());
  const nd::ndarray<float> next1 = g1.standard_exponential<float>({1000});
  const nd::ndarray<float> next2 = g2.standard_exponential<float>({1000});
  EXPECT_EQ(differing(host_of(next2), host_of(next1)), 0u) << "the draw after the distributed ones";
}

nd::ndarray<double> random_row(nd::index_t n) {
  return nd::asarray<double>(nd::testing::uniform_values<double>(static_cast<std::size_t>(n), -5.0, 5.0), {n},
                             nd::default_stream(0));
}

}  // namespace

TEST(DistDraw, DistributeAndAssignEqualTheSingleGpuDraw) {
  NDCUDA_REQUIRE_GPU();
  const auto comm = all_gpus();
  const int p = comm.size();
  for (const nd::shape_t& shape : {nd::shape_t{uneven(p, 9), 5}, nd::shape_t{3, uneven(p, 4), 7}}) {
    const auto mu = random_row(shape.back());
    for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
      SCOPED_TRACE(nd::format_shape(shape) + " axis " + std::to_string(axis));
      expect_fill_matches(comm, shape, dist::sharding::block(axis), mu);
    }
    SCOPED_TRACE(nd::format_shape(shape) + " replicated");
    expect_fill_matches(comm, shape, dist::sharding::replicated(), mu);
  }
}

TEST(DistDraw, ExpressionsMixDistributedArraysAndDraws) {
  NDCUDA_REQUIRE_GPU();
  const auto comm = all_gpus();
  const nd::shape_t shape{uneven(comm.size(), 6), 9};
  const std::vector<float> hx =
      nd::testing::uniform_values<float>(static_cast<std::size_t>(nd::shape_size(shape)), -4.0, 4.0);
  for (int axis = 0; axis < 2; ++axis) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    const std::uint64_t seed = nd::testing::rng()();
    auto g1 = nd::random::default_rng(seed);
    auto g2 = nd::random::default_rng(seed);
    const auto x = dist::distribute<float>(hx, shape, comm, axis);
    // x + 0.1 z: one fused kernel per rank; z is the single-GPU draw (host arithmetic in double).
    const auto z = host_of(nd::ndarray<float>(g1.normal<float>(shape)));
    const dist::distributed_array<float> y = x + 0.1f * g2.normal<float>(x.shape());
    const auto hy = y.to_host();
    for (std::size_t i = 0; i < hx.size(); ++i) {
      const double want = double(hx[i]) + double(0.1f) * double(z[i]);
      ASSERT_NEAR(hy[i], want, 1e-6 * (std::abs(want) + 1.0)) << i;
    }
    // In place, with a draw of one row that broadcasts over the rows: a single IEEE add, exact.
    const auto w = x.copy();
    auto target = w;
    target += g2.random<float>({shape[1]});
    const auto row = host_of(nd::ndarray<float>(g1.random<float>({shape[1]})));
    const auto hw = w.to_host();
    for (std::size_t i = 0; i < hx.size(); ++i) {
      ASSERT_EQ(hw[i], hx[i] + row[i % static_cast<std::size_t>(shape[1])]) << i;
    }
    EXPECT_EQ(g1.offset(), g2.offset());
  }
}

TEST(DistDraw, ADrawOfAnotherShapeThrowsNamingBoth) {
  NDCUDA_REQUIRE_GPU();
  const auto comm = all_gpus();
  auto g = nd::random::default_rng(7);
  const auto d = dist::zeros<float>({uneven(comm.size(), 4), 3}, comm);
  try {
    d.assign(g.normal<float>({4, 4}));  // (n, 3) for any number of ranks: never (4, 4)
    FAIL() << "a (4, 4) draw was assigned to " << nd::format_shape(d.shape());
  } catch (const nd::shape_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("(4, 4)"), std::string::npos) << m;
    EXPECT_NE(m.find(nd::format_shape(d.shape())), std::string::npos) << m;
  }
  EXPECT_THROW((void)dist::eval(d + g.normal<float>({2})), nd::shape_error);
}

// The generator lives on the last GPU and the parameter on the first: every other rank reads the
// draw's offset from a peer copy (and the parameter's part from another), the values unchanged.
TEST(DistDraw, RanksOnOtherGpusThanTheGeneratorMatchOneGpuMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  const auto comm = all_gpus();
  const int last = comm.device(comm.size() - 1);
  const std::uint64_t seed = nd::testing::rng()();
  auto g1 = nd::random::default_rng(seed);
  auto g2 = nd::random::default_rng(seed);
  const nd::shape_t shape{uneven(comm.size(), 5), 6};
  const auto mu = random_row(6);  // on device 0
  for (int axis = 0; axis < 2; ++axis) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    const nd::ndarray<double> single = g1.normal<double>(mu, 2.0, shape);
    dist::distributed_array<double> d = [&] {
      const nd::device_guard guard(last);  // g2's draws reserve on the last GPU
      return dist::distribute(g2.normal<double>(mu, 2.0, shape), comm, axis);
    }();
    EXPECT_EQ(differing(d.to_host(), host_of(single)), 0u);
    const nd::ndarray<float> e1 = g1.normal<float>(shape);
    {
      const nd::device_guard guard(last);
      d.assign(g2.normal<float>(shape) * 1.0f);
    }
    EXPECT_EQ(differing(d.to_host(), host_of(nd::ndarray<double>(e1.astype<double>()))), 0u);
    const nd::device_guard guard(last);
    EXPECT_EQ(g2.offset(), g1.offset(nd::default_stream(0)));
  }
}

// A distributed fill captured into a graph (one rank, so one GPU and one stream) draws anew on
// every replay, continuing the generator's sequence exactly as single-GPU draws do.
TEST(DistDraw, GraphReplaysOfADistributedFillDrawFreshNumbers) {
  NDCUDA_REQUIRE_GPU();
  const dist::communicator comm(std::vector<int>{0}, {std::chrono::seconds(120)});
  const nd::stream& s = comm.stream(0);
  const nd::shape_t shape{999, 7};
  const std::uint64_t seed = nd::testing::rng()();
  auto g = nd::random::default_rng(seed);
  auto ref = nd::random::default_rng(seed);
  const auto d = dist::zeros<float>(shape, comm, dist::sharding::block(1));
  d.assign(g.normal<float>(shape, s));  // the offset cell and the kernel exist before the capture
  const nd::ndarray<float> warm = ref.normal<float>(shape);
  EXPECT_EQ(differing(d.to_host(), host_of(warm)), 0u);
  nd::graph gr = nd::capture(s, [&] { d.assign(g.normal<float>(shape, s)); });
  gr.launch(s);
  const auto first = d.to_host();
  gr.launch(s);
  const auto second = d.to_host();
  const nd::ndarray<float> r1 = ref.normal<float>(shape);
  const nd::ndarray<float> r2 = ref.normal<float>(shape);
  EXPECT_EQ(differing(first, host_of(r1)), 0u) << "first replay";
  EXPECT_EQ(differing(second, host_of(r2)), 0u) << "second replay";
  EXPECT_EQ(g.offset(s), ref.offset());
}
