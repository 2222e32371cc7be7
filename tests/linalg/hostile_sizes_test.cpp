// Issue 37, item 1: every user-given count, at 2^31, 2^32, 2^62 and negative, in every op that takes
// one. Each call either works (a real result of the asked-for shape) or is refused with a typed error
// (shape_error, value_error, out_of_memory): never std::bad_alloc, never a cuda_error, never a lost
// context. Afterwards the device still computes. Sizes that would be a huge array are refused, and
// negative ones are NumPy's errors. The device pool is limited to 6 GiB more than it holds for the
// test, so results of 2^31 and 2^32 bytes may be made and larger ones end in out_of_memory, as
// they would on a smaller device.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <ndcuda/fft.hpp>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/random.hpp>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/fake_array.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
using nd::index_t;

namespace {

enum class outcome { worked, refused };

// Runs `call` and says what it did; fails the test for an untyped or CUDA error.
outcome run(const std::string& what, const std::function<void()>& call) {
  try {
    call();
    return outcome::worked;
  } catch (const nd::cuda_error& e) {
    ADD_FAILURE() << what << ": a cuda_error reached the user: " << e.what();
  } catch (const nd::shape_error&) {
    return outcome::refused;
  } catch (const nd::value_error&) {
    return outcome::refused;
  } catch (const nd::out_of_memory&) {
    return outcome::refused;
  } catch (const nd::error& e) {
    ADD_FAILURE() << what << ": refused with an untyped nd::error: " << e.what();
  } catch (const std::bad_alloc&) {
    ADD_FAILURE() << what << ": std::bad_alloc reached the user";
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": " << e.what();
  }
  return outcome::refused;
}

constexpr index_t p31 = index_t{1} << 31;
constexpr index_t p32 = index_t{1} << 32;
constexpr index_t p62 = index_t{1} << 62;

// One op's count: 2^31 and 2^32 may work (the shape is checked) or be refused (memory, or NumPy's
// own limit such as k past the axis); 2^62 and negative counts must be refused.
void expect_sizes(const std::string& op, const std::function<nd::shape_t(index_t)>& call,
                  const std::function<nd::shape_t(index_t)>& want, bool negative_refused = true) {
  for (const index_t n : {p31, p32, p62, index_t{-1}, -p32}) {
    const std::string what = op + " with " + std::to_string(n);
    nd::shape_t got;
    const outcome o = run(what, [&] { got = call(n); });
    if (n == p62 || (n < 0 && negative_refused)) {
      EXPECT_EQ(o, outcome::refused) << what << " was accepted";
    } else if (o == outcome::worked) {
      EXPECT_EQ(got, want(n)) << what;
    }
  }
}

// The default device pool of device 0 limited to what it holds now plus `room`, for one scope.
class pool_budget {
 public:
  explicit pool_budget(std::size_t room)
      : pool_(std::dynamic_pointer_cast<nd::device_pool_resource>(nd::default_resource(0))) {
    if (pool_) {
      old_ = pool_->limit();
      (void)pool_->free_all_blocks();
      pool_->set_limit(pool_->stats().reserved_bytes + room);
    }
  }
  ~pool_budget() {
    if (pool_) {
      pool_->set_limit(old_);
      (void)pool_->free_all_blocks();
    }
  }
  pool_budget(const pool_budget&) = delete;
  pool_budget& operator=(const pool_budget&) = delete;
  [[nodiscard]] bool active() const { return pool_ != nullptr; }

 private:
  std::shared_ptr<nd::device_pool_resource> pool_;
  std::optional<std::size_t> old_;
};

}  // namespace

TEST(HostileSizes, EveryCountIsCheckedBeforeAnyWorkOnTheGpu) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<float> host = nd::testing::uniform_values<float>(6, -1.0, 1.0);
  const nd::ndarray<std::uint8_t> one = nd::full<std::uint8_t>({1}, 7);
  const nd::ndarray<std::uint8_t> two = nd::full<std::uint8_t>({2}, 3);
  const nd::ndarray<float> x = nd::asarray(host, {6});
  auto g = nd::random::default_rng(nd::testing::rng()());
  (void)g.random<float>({1}).eval();  // the generator's offset cell exists before the budget
  const pool_budget budget(std::size_t{6} << 30);
  ASSERT_TRUE(budget.active()) << "the default resource of device 0 is not the built-in device pool";

  expect_sizes(
      "repeat(one, n)", [&](index_t n) { return nd::repeat(one, n).shape(); },
      [](index_t n) { return nd::shape_t{n}; });
  expect_sizes(
      "repeat(two, {n, n})",
      [&](index_t n) {
        return nd::repeat(two, std::vector<index_t>{n, n}).shape();
      },
      [](index_t n) { return nd::shape_t{2 * n}; });
  expect_sizes(
      "repeat(two, device {n, 1})",
      [&](index_t n) {
        return nd::repeat(two, nd::asarray(std::vector<index_t>{n, 1}, {2})).shape();
      },
      [](index_t n) { return nd::shape_t{n + 1}; });
  expect_sizes(
      "tile(one, n)", [&](index_t n) { return nd::tile(one, n).shape(); }, [](index_t n) { return nd::shape_t{n}; });
  expect_sizes(
      "pad(one, (0, n))",
      [&](index_t n) {
        return nd::pad(one, nd::pad_width(std::vector<std::pair<index_t, index_t>>{{0, n}})).shape();
      },
      [](index_t n) { return nd::shape_t{n + 1}; });
  expect_sizes(
      "eye<uint8>(n, 1)", [&](index_t n) { return nd::eye<std::uint8_t>(n, 1).shape(); },
      [](index_t n) {
        return nd::shape_t{n, 1};
      });
  expect_sizes(
      "linspace(0, 1, n)", [&](index_t n) { return nd::linspace<std::uint8_t>(0.0, 1.0, n).shape(); },
      [](index_t n) { return nd::shape_t{n}; });
  // NumPy's arange(-1) is empty, not an error.
  expect_sizes(
      "arange<uint8>(n)", [&](index_t n) { return nd::arange<std::uint8_t>(double(n)).shape(); },
      [](index_t n) { return nd::shape_t{n < 0 ? 0 : n}; }, false);
  expect_sizes(
      "histogram(x, n)",
      [&](index_t n) {
        return nd::histogram(x, n, nd::bin_range{-1.0, 1.0}).counts.shape();
      },
      [](index_t n) { return nd::shape_t{n}; });
  expect_sizes(
      "histogram2d(x, x, {n, n})",
      [&](index_t n) {
        return nd::histogram2d(x, x, {n, n}).counts.shape();
      },
      [](index_t n) {
        return nd::shape_t{n, n};
      });
  expect_sizes(
      "bincount(one, minlength n)", [&](index_t n) { return nd::bincount(one, n).shape(); },
      [](index_t n) { return nd::shape_t{n}; });
  expect_sizes(
      "fft::fft(x, n)", [&](index_t n) { return nd::fft::fft(x, n).shape(); },
      [](index_t n) { return nd::shape_t{n}; });
  // In fftn's s, -1 is NumPy's "the input's length" (a (2, 3) result); -2^32 is refused.
  expect_sizes(
      "fft::fftn(x2, s = (n, n))",
      [&](index_t n) {
        return nd::fft::fftn(x.reshape({2, 3}), nd::shape_t{n, n}).shape();
      },
      [](index_t n) {
        return n == -1 ? nd::shape_t{2, 3} : nd::shape_t{n, n};
      },
      false);
  EXPECT_EQ(run("fftn(x2, s = (-2, -2))",
                [&] {
                  (void)nd::fft::fftn(x.reshape({2, 3}), nd::shape_t{-2, -2});
                }),
            outcome::refused);
  expect_sizes(
      "random<float>({n}) (lazy)", [&](index_t n) { return g.random<float>({n}).shape(); },
      [](index_t n) { return nd::shape_t{n}; });
  expect_sizes(
      "integers<int32>(0, 9, {n}) (lazy)", [&](index_t n) { return g.integers<std::int32_t>(0, 9, {n}).shape(); },
      [](index_t n) { return nd::shape_t{n}; });
  expect_sizes(
      "permutation(n)", [&](index_t n) { return g.permutation(n).shape(); }, [](index_t n) { return nd::shape_t{n}; });
  expect_sizes(
      "choice(6, n)", [&](index_t n) { return g.choice(6, nd::shape_t{n}).shape(); },
      [](index_t n) { return nd::shape_t{n}; });
  expect_sizes(
      "topk(x, n)", [&](index_t n) { return nd::topk(x, n).values.shape(); }, [](index_t n) { return nd::shape_t{n}; });
  // kth = -1 is NumPy's last element (a (6,) result); -2^32 is out of range.
  expect_sizes(
      "partition(x, n)", [&](index_t n) { return nd::partition(x, n).shape(); }, [](index_t) { return nd::shape_t{6}; },
      false);
  EXPECT_EQ(run("partition(x, -7)", [&] { (void)nd::partition(x, -7); }), outcome::refused);
  // split/array_split: tests/ops/arrange_plan_test.cpp (2^40, 2^62, -1 sections, no GPU needed).

  // A huge total of per-element host counts, and device counts whose int64 sums would wrap to a
  // small or empty result, are refused rather than computed wrongly.
  EXPECT_EQ(run("repeat(two, {2^40, 2^40})",
                [&] {
                  (void)nd::repeat(two, std::vector<index_t>{index_t{1} << 40, index_t{1} << 40});
                }),
            outcome::refused);
  const nd::ndarray<index_t> wraps = nd::asarray(std::vector<index_t>{p62, p62, p62, p62}, {4});
  EXPECT_EQ(run("repeat(four, device {2^62} * 4)", [&] { (void)nd::repeat(nd::zeros<std::uint8_t>({4}), wraps); }),
            outcome::refused);
  const nd::ndarray<std::uint64_t> past = nd::asarray(std::vector<std::uint64_t>{5, ~std::uint64_t{0}}, {2});
  EXPECT_EQ(run("repeat(two, device uint64 {5, 2^64 - 1})", [&] { (void)nd::repeat(two, past); }), outcome::refused);
  const nd::ndarray<index_t> top = nd::asarray(std::vector<index_t>{3, INT64_MAX}, {2});
  EXPECT_EQ(run("bincount of INT64_MAX", [&] { (void)nd::bincount(top); }), outcome::refused);
  EXPECT_EQ(run("histogram(x, INT64_MAX)", [&] { (void)nd::histogram(x, INT64_MAX); }), outcome::refused);
  EXPECT_EQ(run("histogram2d(x, x, {2^32 + 1, 2^32})",
                [&] {
                  (void)nd::histogram2d(x, x, {p32 + 1, p32});
                }),
            outcome::refused);
  EXPECT_EQ(run("spawn(2^62)", [&] { (void)g.spawn(std::size_t{1} << 62); }), outcome::refused);

  // The context survived everything above: a fresh computation is right.
  double want = 0.0;
  for (float v : host) {
    want += 2.0 * v;
  }
  EXPECT_NEAR(nd::sum(x * 2.0F).item(), want, 1e-5);
  const nd::ndarray<std::uint8_t> rep = nd::repeat(two, std::vector<index_t>{2, 3});
  EXPECT_EQ(rep.to_host(), (std::vector<std::uint8_t>(5, 3)));
}

// Issue 37, item 8: numpy.linalg.norm's refusals, before anything runs (fake arrays: no GPU needed).
TEST(HostileSizes, NormOrdersAreRefusedAsNumPyDoes) {
  const auto vector = nd::testing::fake<float>({5});
  const auto stack = nd::testing::fake<float>({2, 3, 4});
  const auto message = [](const auto& call) {
    try {
      call();
    } catch (const nd::value_error& e) {
      return std::string(e.what());
    }
    return std::string("<no value_error>");
  };
  EXPECT_NE(message([&] { (void)nd::linalg::norm(vector, "fro"); }).find("Invalid norm order 'fro' for vectors"),
            std::string::npos);
  EXPECT_NE(message([&] { (void)nd::linalg::norm(stack, "fro"); }).find("Improper number of dimensions to norm."),
            std::string::npos);
  EXPECT_NE(message([&] { (void)nd::linalg::norm(stack, 2.0); }).find("Improper number of dimensions to norm."),
            std::string::npos);
}
