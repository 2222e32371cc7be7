// Distributed creation needs only the result's device memory (issue 34, item 5): arange and
// linspace write each rank's block straight from its global indices, equal to the single-GPU
// nd::arange / nd::linspace bit for bit; arange, linspace, full, a random draw and distribute from
// host create 8 GiB blocks (2^31 float32 elements: 64-bit indexing) on GPUs with room for 1.5 of them,
// and no device's pool uses more than the block plus O(1) meanwhile.
//
// The room is set with the device pool's limit (what the pool may hold from cudaMalloc), not by
// filling the GPU: ctest runs test processes in parallel, and a GPU filled to 12 GiB would starve
// them. NDCUDA_TEST_DEVICE_FILLER=1 fills the GPUs for real as well (run the test alone then:
// dist_tests --gtest_filter='DistCreationMemory.*').
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <ndcuda/dist.hpp>
#include <ndcuda/memory/default_resource.hpp>
#include <ndcuda/memory/device_pool_resource.hpp>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/random.hpp>
#include <ndcuda/random/detail/host_reference.hpp>
#include <optional>
#include <random>
#include <span>
#include <string>
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

constexpr std::size_t MiB = std::size_t{1} << 20;
constexpr std::size_t GiB = std::size_t{1} << 30;

// The bits of a value (float32/int32 or float64/int64), so that -0.0 and 0.0 differ and NaN equals itself.
template <class T>
auto bits(T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8);
  return std::bit_cast<std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>>(v);
}

using nd::testing::differing;

// A fresh random arange: integer bounds and step for integer types, any for the others; about
// `count` values either way.
struct arange_args {
  double start;
  double stop;
  double step;
};
template <class T>
arange_args random_arange(nd::index_t count) {
  auto& engine = nd::testing::rng();
  const double sign = std::bernoulli_distribution(0.5)(engine) ? 1.0 : -1.0;
  if constexpr (std::is_integral_v<T>) {
    const auto start = static_cast<double>(std::uniform_int_distribution<int>(-100000, 100000)(engine));
    const double step = sign * std::uniform_int_distribution<int>(1, 9)(engine);
    return {start, start + step * static_cast<double>(count) - 0.5 * step, step};
  } else {
    const double start = std::uniform_real_distribution<double>(-1e4, 1e4)(engine);
    const double step = sign * std::uniform_real_distribution<double>(1e-3, 7.0)(engine);
    return {start, start + step * (static_cast<double>(count) - 0.4), step};
  }
}

std::string describe(const arange_args& a) {
  return "arange(" + std::to_string(a.start) + ", " + std::to_string(a.stop) + ", " + std::to_string(a.step) + ")";
}

// ---- the values: blocks equal the single-GPU sequence bit for bit ----------------------------------

template <class T>
void expect_arange_matches(const dist::communicator& comm, const dist::sharding& spec) {
  const arange_args a =
      random_arange<T>(uneven(comm.size(), 1000) + std::uniform_int_distribution<int>(0, 50)(nd::testing::rng()));
  SCOPED_TRACE(std::string(nd::name(nd::dtype_of<T>)) + " " + describe(a) + " " + dist::describe(spec));
  const auto d = dist::arange<T>(a.start, a.stop, a.step, comm, spec);
  const auto want = nd::arange<T>(a.start, a.stop, a.step, nd::default_stream(comm.device(0))).to_host();
  EXPECT_EQ(d.shape(), nd::shape_t{static_cast<nd::index_t>(want.size())});
  EXPECT_EQ(differing(d.to_host(), want), 0U);
}

template <class T>
void expect_linspace_matches(const dist::communicator& comm, const dist::sharding& spec, bool endpoint) {
  auto& engine = nd::testing::rng();
  const double start = std::uniform_real_distribution<double>(-1e4, 1e4)(engine);
  const double stop = std::uniform_real_distribution<double>(-1e4, 1e4)(engine);
  const nd::index_t num = uneven(comm.size(), 1000) + std::uniform_int_distribution<int>(0, 50)(engine);
  SCOPED_TRACE(std::string(nd::name(nd::dtype_of<T>)) + " linspace(" + std::to_string(start) + ", " +
               std::to_string(stop) + ", " + std::to_string(num) + (endpoint ? "" : ", endpoint=false") + ") " +
               dist::describe(spec));
  const auto d = dist::linspace<T>(start, stop, num, endpoint, comm, spec);
  const auto want = nd::linspace<T>(start, stop, num, endpoint, nd::default_stream(comm.device(0))).to_host();
  EXPECT_EQ(d.shape(), nd::shape_t{num});
  EXPECT_EQ(differing(d.to_host(), want), 0U);
}

template <class T>
void expect_sequences_match(const dist::communicator& comm) {
  for (const dist::sharding& spec : {dist::sharding::block(0), dist::sharding::replicated()}) {
    for (int trial = 0; trial < 3; ++trial) {
      expect_arange_matches<T>(comm, spec);
      expect_linspace_matches<T>(comm, spec, true);
      expect_linspace_matches<T>(comm, spec, false);
    }
  }
}

// A sequence written piece by piece, each piece from its first global index as a rank writes its
// block: `write(view, range)` for `pieces` uneven blocks of `n`.
template <class T, class Write>
std::vector<T> in_pieces(nd::index_t n, int pieces, const Write& write) {
  const nd::ndarray<T> out = nd::empty<T>({n});
  for (int r = 0; r < pieces; ++r) {
    const dist::block_range b = dist::block_of(n, pieces, r);
    write(out(nd::slice(b.begin, b.end)), b);
  }
  return out.to_host();
}

template <class T>
void expect_pieces_match() {
  SCOPED_TRACE(nd::name(nd::dtype_of<T>));
  constexpr nd::dtype t = nd::dtype_of<T>;
  for (int pieces : {2, 3, 7}) {
    const arange_args a = random_arange<T>(uneven(pieces, 500));
    SCOPED_TRACE(describe(a) + " in " + std::to_string(pieces) + " pieces");
    const nd::index_t n = nd::detail::arange_count(a.start, a.stop, a.step);
    const auto want = nd::arange<T>(a.start, a.stop, a.step).to_host();
    if constexpr (nd::is_integral(t)) {
      const nd::detail::int64_sequence seq = nd::detail::arange_int64(a.start, a.step, n);
      EXPECT_EQ(differing(in_pieces<T>(n, pieces,
                                       [&](const nd::ndarray<T>& v, dist::block_range b) {
                                         nd::detail::sequence_block_i64(t, v.data(), b.begin, b.size(), seq.start,
                                                                        seq.step, v.stream());
                                       }),
                          want),
                0U);
    } else {
      EXPECT_EQ(differing(in_pieces<T>(n, pieces,
                                       [&](const nd::ndarray<T>& v, dist::block_range b) {
                                         nd::detail::sequence_block_f64(t, v.data(), b.begin, b.size(), a.start, a.step,
                                                                        -1, 0.0, false, v.stream());
                                       }),
                          want),
                0U);
    }
    for (bool endpoint : {true, false}) {
      const double stop = a.start + 0.7 * a.step * static_cast<double>(n);
      const nd::detail::linspace_sequence seq = nd::detail::linspace_of(a.start, stop, n, endpoint);
      EXPECT_EQ(differing(in_pieces<T>(n, pieces,
                                       [&](const nd::ndarray<T>& v, dist::block_range b) {
                                         nd::detail::sequence_block_f64(t, v.data(), b.begin, b.size(), a.start,
                                                                        seq.step, seq.last_index, stop,
                                                                        nd::is_integral(t), v.stream());
                                       }),
                          nd::linspace<T>(a.start, stop, n, endpoint).to_host()),
                0U)
          << "linspace to " << stop << (endpoint ? "" : ", endpoint=false");
    }
  }
  // A block far into a sequence: its first index travels in 64 bits. Exact values (quarter steps
  // in double, integers in int64), so the host computes them as the device must.
  const nd::index_t first = (nd::index_t{1} << 40) + 3;
  const nd::index_t n = 1000;
  const nd::ndarray<T> block = nd::empty<T>({n});
  std::vector<T> want(static_cast<std::size_t>(n));
  if constexpr (nd::is_integral(t)) {
    const std::int64_t start = std::is_signed_v<T> ? -5 : 5;
    const std::int64_t step = 1;
    const nd::index_t from = std::is_same_v<T, std::int64_t> ? first : 0;  // int32 values must fit
    nd::detail::sequence_block_i64(t, block.data(), from, n, start, step, block.stream());
    for (nd::index_t j = 0; j < n; ++j) {
      want[static_cast<std::size_t>(j)] = static_cast<T>(start + (from + j) * step);
    }
  } else {
    nd::detail::sequence_block_f64(t, block.data(), first, n, 0.5, 0.25, -1, 0.0, false, block.stream());
    for (nd::index_t j = 0; j < n; ++j) {
      want[static_cast<std::size_t>(j)] = static_cast<T>(0.5 + 0.25 * static_cast<double>(first + j));
    }
  }
  EXPECT_EQ(differing(block.to_host(), want), 0U) << "block at global index " << first;
}

}  // namespace

TEST(DistCreationHost, LinspaceSequenceFollowsNumPy) {
  const auto five = nd::detail::linspace_of(0.0, 1.0, 5, true);
  EXPECT_EQ(five.step, 0.25);
  EXPECT_EQ(five.last_index, 4);
  const auto open = nd::detail::linspace_of(0.0, 1.0, 5, false);
  EXPECT_EQ(open.step, 1.0 / 5.0);
  EXPECT_EQ(open.last_index, -1);  // no endpoint: nothing is pinned to stop
  const auto one = nd::detail::linspace_of(2.0, 3.0, 1, true);
  EXPECT_EQ(one.step, 0.0);  // NumPy: linspace(2, 3, 1) is [2.]
  EXPECT_EQ(one.last_index, -1);
  const auto none = nd::detail::linspace_of(2.0, 3.0, 0, true);
  EXPECT_EQ(none.step, 0.0);
  EXPECT_EQ(none.last_index, -1);
  EXPECT_THROW((void)nd::detail::linspace_of(0.0, 1.0, -1, true), nd::shape_error);
}

// The offset kernels on one GPU: any cut of a sequence, each piece written from its first global
// index, equals the whole sequence; also a block 2^40 elements in.
TEST(DistCreationValues, PiecesFromTheirFirstIndexEqualTheWholeSequence) {
  NDCUDA_REQUIRE_GPU();
  expect_pieces_match<float>();
  expect_pieces_match<double>();
  expect_pieces_match<std::int32_t>();
  expect_pieces_match<std::int64_t>();
}

// dist::arange and dist::linspace over every visible GPU (uneven blocks), sharded and replicated.
TEST(DistCreationValues, ArangeAndLinspaceEqualTheSingleGpuArraysBitForBit) {
  NDCUDA_REQUIRE_GPU();
  const auto comm = all_gpus();
  expect_sequences_match<float>(comm);
  expect_sequences_match<double>(comm);
  expect_sequences_match<std::int32_t>(comm);
  expect_sequences_match<std::int64_t>(comm);
  // NumPy's errors, as nd::arange gives them.
  EXPECT_THROW((void)dist::arange<float>(0.0, 1.0, 0.0, comm), nd::shape_error);
  EXPECT_THROW((void)dist::arange<double>(0.0, std::nan(""), 1.0, comm), nd::shape_error);
  EXPECT_THROW((void)dist::arange<std::int64_t>(0.0, 1e30, 1e19, comm), nd::shape_error);
  EXPECT_THROW((void)dist::linspace<float>(0.0, 1.0, -1, comm), nd::shape_error);
  EXPECT_EQ(dist::linspace<float>(0.0, 1.0, 0, comm).shape(), nd::shape_t{0});
}

// ---- the memory: blocks of 8 GiB where 1.5 of them fit ------------------------------------------

namespace {

std::shared_ptr<nd::device_pool_resource> pool_of(int device) {
  return std::dynamic_pointer_cast<nd::device_pool_resource>(nd::default_resource(device));
}

bool real_filler_requested() {
  const char* v = std::getenv("NDCUDA_TEST_DEVICE_FILLER");
  return v != nullptr && std::string(v) == "1";
}

/// Every local rank's device with `room` bytes to create in: its default pool may hold only `room`
/// more than it holds now (and, with a filler, the GPU itself has only about `room` free). Undone
/// on destruction: the filler freed, the limit restored, the cached blocks given back.
class tight_devices {
 public:
  tight_devices(const dist::communicator& comm, std::size_t room, bool filler) : comm_(comm) {
    for (int l = 0; l < comm.local_size(); ++l) {
      budget b{pool_of(comm.device(l)), std::nullopt, std::nullopt, 0, l};
      if (!b.pool) {
        ADD_FAILURE() << "device " << comm.device(l) << ": the default resource is not the built-in device pool";
        continue;
      }
      b.old_limit = b.pool->limit();
      (void)b.pool->free_all_blocks();
      if (filler) {
        const std::size_t free = nd::device(comm.device(l)).memory().free;
        if (free > room + 64 * MiB) {
          b.filler.emplace(nd::empty<std::uint8_t>({static_cast<nd::index_t>(free - room)}, comm.stream(l)));
        }
      }
      b.pool->set_limit(b.pool->stats().reserved_bytes + room);
      budgets_.push_back(std::move(b));
    }
  }
  ~tight_devices() {
    for (budget& b : budgets_) {
      b.filler.reset();
      b.pool->set_limit(b.old_limit);
      (void)b.pool->free_all_blocks();
    }
  }
  tight_devices(const tight_devices&) = delete;
  tight_devices& operator=(const tight_devices&) = delete;

  /// Gives every cached block back and restarts the peaks: each step starts from the same state.
  void start_step() {
    // The previous step's result was released on the ranks' streams: once they have run, its
    // block is free, and free_all_blocks gives it back (a pending release would stay cached).
    comm_.synchronize();
    for (budget& b : budgets_) {
      (void)b.pool->free_all_blocks();
      // A small free chunk for the step's small allocations (offset cells, flags): best fit puts
      // them there. Otherwise one could split the freed chunk of the previous step's 8 GiB block,
      // which then could not be given back, and the step would need room for two blocks.
      const nd::stream& s = comm_.stream(b.local);
      void* warm = b.pool->allocate(MiB, s);
      b.pool->deallocate(warm, MiB, s);
      b.pool->reset_peak();
      b.used_before = b.pool->stats().used_bytes;  // the filler, a generator's state, ...
    }
  }
  /// The most any of the pools handed out at once since start_step(), beyond what it held then.
  [[nodiscard]] std::size_t peak_used() const {
    std::size_t peak = 0;
    for (const budget& b : budgets_) {
      const std::size_t p = b.pool->stats().peak_used_bytes;
      peak = std::max(peak, p > b.used_before ? p - b.used_before : 0);
    }
    return peak;
  }

 private:
  struct budget {
    std::shared_ptr<nd::device_pool_resource> pool;
    std::optional<nd::ndarray<std::uint8_t>> filler;
    std::optional<std::size_t> old_limit;
    std::size_t used_before = 0;
    int local = 0;  // the communicator's local rank on this pool's device
  };
  const dist::communicator& comm_;
  std::vector<budget> budgets_;
};

/// What one creation may use beyond its largest block: an 8-byte offset cell and the like.
constexpr std::size_t slack = 64 * MiB;

/// Runs `make` as one step under `t`: it must not run out of memory, and no pool may have handed
/// out more than `block_bytes` + slack meanwhile. Returns the result (nullopt when it threw).
template <class Make>
auto created(tight_devices& t, const dist::communicator& comm, std::size_t block_bytes, const Make& make)
    -> std::optional<decltype(make())> {
  t.start_step();
  std::optional<decltype(make())> out;
  try {
    out.emplace(make());
    comm.synchronize();
  } catch (const nd::out_of_memory& e) {
    ADD_FAILURE() << "out of memory with room for 1.5 blocks of " << nd::format_bytes(block_bytes) << ": " << e.what();
    return std::nullopt;
  }
  EXPECT_LE(t.peak_used(), block_bytes + slack)
      << "a pool handed out more than the block (" << nd::format_bytes(block_bytes) << ") plus O(1)";
  return out;
}

/// `want(i)` at a few global indices of every local block: its ends, its second and its middle.
template <class T, class Want>
void expect_samples(const dist::distributed_array<T>& d, const Want& want) {
  const dist::communicator& comm = d.comm();
  for (int l = 0; l < comm.local_size(); ++l) {
    const dist::block_range b = dist::block_of(d.shape()[0], comm.size(), comm.rank(l));
    const nd::ndarray<T>& shard = d.local_shard(l);
    for (nd::index_t j : {nd::index_t{0}, nd::index_t{1}, b.size() / 2, b.size() - 1}) {
      const T got = shard(j).item();
      const T expected = want(b.begin + j);
      EXPECT_EQ(bits(got), bits(expected))
          << "rank " << comm.rank(l) << ", global index " << b.begin + j << ": " << got << " instead of " << expected;
    }
  }
}

}  // namespace

TEST(DistCreationMemory, ArangeLinspaceFullDrawAndDistributeNeedOnlyTheResultsBytes) {
  NDCUDA_REQUIRE_GPU();
  const auto comm = all_gpus();
  const int p = comm.size();
  const bool filler = real_filler_requested();
  // Blocks of 8 GiB, smaller only on a GPU that lacks the room (others' processes use it too).
  std::size_t least_free = std::numeric_limits<std::size_t>::max();
  for (int l = 0; l < comm.local_size(); ++l) {
    if (auto pool = pool_of(comm.device(l))) {
      (void)pool->free_all_blocks();
    }
    least_free = std::min(least_free, nd::device(comm.device(l)).memory().free);
  }
  std::size_t block_bytes = 8 * GiB;
  const std::size_t margin = 2 * GiB;
  if (least_free < block_bytes * 3 / 2 + margin) {
    ASSERT_GT(least_free, margin + 768 * MiB) << "no GPU memory to speak of is free";
    block_bytes = (least_free - margin) / 3 * 2 / (256 * MiB) * (256 * MiB);
  }
  const auto m = static_cast<nd::index_t>(block_bytes / sizeof(float));  // the longest block's elements
  const nd::index_t n = uneven(p, m - 1);                                // blocks of m and m - 1 elements
  std::printf("[ ndcuda ] %d rank(s), blocks of %s, room for 1.5 of them%s\n", p, nd::format_bytes(block_bytes).c_str(),
              filler ? " (GPUs filled)" : " (pool limit)");
  tight_devices t(comm, block_bytes * 3 / 2, filler);

  // arange in float32: -1 + i / 2 is exact in double, so the host knows each value.
  if (const auto a = created(t, comm, block_bytes, [&] {
        return dist::arange<float>(-1.0, -1.0 + 0.5 * static_cast<double>(n), 0.5, comm);
      })) {
    EXPECT_EQ(a->shape(), nd::shape_t{n});
    expect_samples(*a, [](nd::index_t i) { return static_cast<float>(-1.0 + 0.5 * static_cast<double>(i)); });
  }
  // linspace in float32 with a step of exactly 1/4, the last value exactly stop.
  const double last = -2.0 + 0.25 * static_cast<double>(n - 1);
  if (const auto s = created(t, comm, block_bytes, [&] { return dist::linspace<float>(-2.0, last, n, comm); })) {
    expect_samples(*s, [](nd::index_t i) { return static_cast<float>(-2.0 + 0.25 * static_cast<double>(i)); });
  }
  // full.
  const float value = nd::testing::uniform_values<float>(1, 1.0, 2.0)[0];
  if (const auto f = created(t, comm, block_bytes, [&] { return dist::full<float>({n}, value, comm); })) {
    expect_samples(*f, [&](nd::index_t) { return value; });
  }
  // A random draw, each rank computing its block at its global flat indices; the host reference
  // gives the values.
  auto g = nd::random::default_rng(nd::testing::rng()());
  (void)g.random<float>({1});  // the offset cell exists; the draw below starts past it
  const nd::random::host::draw where{g.key(), g.offset()};
  if (const auto r = created(t, comm, block_bytes, [&] { return dist::distribute(g.random<float>({n}), comm); })) {
    expect_samples(*r,
                   [&](nd::index_t i) { return nd::random::host::random_f32(where, static_cast<std::uint64_t>(i)); });
  }
  // distribute from host, the block of each of 3 rows (the packed path): the device holds the
  // shard and nothing else; the packing happens in host memory. Smaller, to spare host memory.
  const nd::index_t k = uneven(p, nd::index_t{1} << 22);
  const auto host = nd::testing::uniform_values<float>(static_cast<std::size_t>(3 * k), -1.0, 1.0);
  const std::size_t shard_bytes = 3 * static_cast<std::size_t>(dist::block_of(k, p, 0).size()) * sizeof(float);
  if (const auto h = created(t, comm, shard_bytes, [&] {
        return dist::distribute<float>(std::span<const float>(host), {3, k}, comm, dist::sharding::block(1));
      })) {
    EXPECT_EQ(h->to_host(), host);
  }
}
