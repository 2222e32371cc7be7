// nd::sum / nd::mean with nd::deterministic: bit for bit the host model of the fixed order
// (tests/support/deterministic_reference.hpp), near a double-precision sum, and the same bits
// whatever the layout (strided views, misaligned offsets, other streams). Also the kernels'
// compile check (no GPU) and the dtype errors.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/ops/deterministic.hpp>
#include <numeric>
#include <vector>

#include "support/deterministic_reference.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

template <class T>
std::uint64_t bits(T v) {
  if constexpr (sizeof(T) == 4) {
    return std::bit_cast<std::uint32_t>(v);
  } else {
    return std::bit_cast<std::uint64_t>(v);
  }
}

template <class T>
void check_sizes() {
  // Less than a warp, one block, a block and a bit, many blocks with a short last one.
  for (std::size_t n : {std::size_t{1}, std::size_t{37}, std::size_t{16384}, std::size_t{16385},
                        std::size_t{5 * 16384 + 4099}, std::size_t{1} << 21}) {
    const auto host = nd::testing::normal_values<T>(n, 3.0, 10.0);
    const auto a = nd::asarray<T>(host, {static_cast<nd::index_t>(n)});
    const T sum = nd::sum(a, nd::deterministic).item();
    const T mean = nd::mean(a, nd::deterministic).item();
    EXPECT_EQ(bits(sum), bits(nd::testing::deterministic_reference(host, 1.0))) << n << " elements";
    EXPECT_EQ(bits(mean), bits(nd::testing::deterministic_reference(host, static_cast<double>(n)))) << n;
    const double exact = std::accumulate(host.begin(), host.end(), 0.0);
    EXPECT_NEAR(static_cast<double>(sum), exact, 1e-6 * (std::abs(exact) + 10.0 * std::sqrt(double(n)))) << n;
  }
}

}  // namespace

TEST(DeterministicSum, KernelsCompileWithoutAGpu) {
  EXPECT_NO_THROW(nd::detail::compile_deterministic_kernels({9, 0}));
}

TEST(DeterministicSum, Float32EqualsTheHostModelOfTheFixedOrder) {
  NDCUDA_REQUIRE_GPU();
  check_sizes<float>();
}

TEST(DeterministicSum, Float64EqualsTheHostModelOfTheFixedOrder) {
  NDCUDA_REQUIRE_GPU();
  check_sizes<double>();
}

TEST(DeterministicSum, LayoutOffsetAndStreamDoNotChangeTheBits) {
  NDCUDA_REQUIRE_GPU();
  constexpr nd::index_t n = 3 * 16384 + 777;
  const auto host = nd::testing::uniform_values<float>(static_cast<std::size_t>(2 * n + 3), -1.0, 1.0);
  const auto big = nd::asarray<float>(host, {2 * n + 3});
  // The same n values as a contiguous copy, a view at an odd (misaligned) offset, and a strided
  // view of a 2-d array holding them in its first column.
  const auto offset_view = big(nd::slice(3, n + 3));
  const auto contiguous = nd::ascontiguousarray(offset_view);
  auto columns = nd::empty<float>({n, 2});
  columns(nd::all, 0).assign(offset_view);
  columns(nd::all, 1).assign(0.5f);
  const auto strided = columns(nd::all, 0);
  const std::vector<float> values(host.begin() + 3, host.begin() + 3 + n);
  const auto want = bits(nd::testing::deterministic_reference(values, 1.0));
  EXPECT_EQ(bits(nd::sum(contiguous, nd::deterministic).item()), want);  // item() waits: `other` may read
  const nd::stream other(0);
  const auto on_other_stream = contiguous.on_stream(other);
  EXPECT_EQ(bits(nd::sum(offset_view, nd::deterministic).item()), want);
  EXPECT_EQ(bits(nd::sum(strided, nd::deterministic).item()), want);
  EXPECT_EQ(bits(nd::sum(on_other_stream, nd::deterministic).item()), want);
  // A lazy value is computed first: 2 * x sums to exactly twice (a power of two scales exactly).
  EXPECT_EQ(bits(nd::sum(2.0f * contiguous, nd::deterministic).item()),
            bits(nd::testing::deterministic_reference(values, 0.5)));
}

TEST(DeterministicSum, EmptyArraysSumToZeroAndAverageToNan) {
  NDCUDA_REQUIRE_GPU();
  const auto a = nd::empty<double>({0});
  EXPECT_EQ(nd::sum(a, nd::deterministic).item(), 0.0);
  EXPECT_TRUE(std::isnan(nd::mean(a, nd::deterministic).item()));
}
