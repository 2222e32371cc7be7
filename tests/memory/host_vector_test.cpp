// nd::host_vector without a GPU: it default-initialises (no zero fill), aligns big blocks for huge
// pages, works as a std::vector otherwise, and page population leaves contents as they were.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <ndcuda/memory/host_vector.hpp>
#include <ndcuda/memory/transfer.hpp>
#include <numeric>
#include <vector>

namespace nd = ndcuda;

namespace {

TEST(HostVector, BehavesAsAStdVector) {
  nd::host_vector<int> v(1000);
  std::iota(v.begin(), v.end(), -500);
  v.push_back(7);
  v.resize(2000, 3);  // an explicit value is still written
  ASSERT_EQ(v.size(), 2000U);
  EXPECT_EQ(v[0], -500);
  EXPECT_EQ(v[999], 499);
  EXPECT_EQ(v[1000], 7);
  EXPECT_EQ(v[1999], 3);
  const nd::host_vector<int> copy = v;
  EXPECT_TRUE(std::equal(copy.begin(), copy.end(), v.begin()));
  nd::host_vector<bool> bits(70, true);  // the packed specialisation rebinds the allocator
  bits[3] = false;
  EXPECT_EQ(std::count(bits.begin(), bits.end(), true), 69);
}

TEST(HostVector, ResizeDoesNotZeroWhatIsAlreadyThere) {
  // Storage reused within capacity keeps its bytes: the proof that no value-initialisation runs.
  nd::host_vector<std::uint32_t> v(4096);
  std::fill(v.begin(), v.end(), 0xDEADBEEFU);
  v.resize(0);
  v.resize(4096);
  EXPECT_EQ(std::count(v.begin(), v.end(), 0xDEADBEEFU), 4096);
  std::vector<std::uint32_t> plain(4096, 0xDEADBEEFU);
  plain.resize(0);
  plain.resize(4096);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), 0U), 4096);  // the contrast: std::vector zeroes
}

TEST(HostVector, BigBlocksAreAlignedForHugePages) {
  const nd::host_vector<float> big(nd::detail::huge_block_bytes / sizeof(float) + 1);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.data()) % (std::uintptr_t{2} << 20), 0U);
  const nd::host_vector<double> small(100);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small.data()) % alignof(double), 0U);
}

TEST(HostVector, OversizedRequestsThrowBadAlloc) {
  EXPECT_THROW((void)nd::host_vector<double>(std::size_t{1} << 61), std::length_error);
  nd::host_allocator<double> a;
  EXPECT_THROW((void)a.allocate(std::size_t{1} << 61), std::bad_alloc);
}

// The block cache: a released big block serves the next allocation of exactly its size; other
// sizes, small blocks and blocks over the limit are not kept; the oldest go first.
TEST(HostBlockCache, ReleasedBigBlocksServeTheNextAllocationOfTheirSize) {
  constexpr std::size_t MiB = std::size_t{1} << 20;
  nd::release_host_block_cache();
  const std::size_t previous = nd::set_host_block_cache_limit(20 * MiB);
  const auto address = [](const auto& v) { return reinterpret_cast<std::uintptr_t>(v.data()); };
  std::uintptr_t first = 0;
  {
    nd::host_vector<float> v(8 * MiB / sizeof(float));
    v[0] = 1.5F;
    first = address(v);
  }
  EXPECT_EQ(nd::host_block_cache_bytes(), 8 * MiB);
  {
    const nd::host_vector<float> other(8 * MiB / sizeof(float) + 1024);  // another size: a new block
    EXPECT_NE(address(other), first);
    EXPECT_EQ(nd::host_block_cache_bytes(), 8 * MiB);
    const nd::host_vector<float> again(8 * MiB / sizeof(float));
    EXPECT_EQ(address(again), first);
    EXPECT_EQ(again[0], 1.5F) << "a kept block is handed back as it was (host_vector leaves elements indeterminate)";
    EXPECT_EQ(nd::host_block_cache_bytes(), 0U);
  }
  // Both released (8 MiB, then 8 MiB + 4 KiB): 16 MiB + 4 KiB fit under 20 MiB.
  EXPECT_EQ(nd::host_block_cache_bytes(), 16 * MiB + 4096);
  {
    const nd::host_vector<float> big(6 * MiB / sizeof(float));
  }  // 6 MiB more is over the limit: the oldest kept block (the first, 8 MiB) is freed
  EXPECT_EQ(nd::host_block_cache_bytes(), 14 * MiB + 4096);
  {
    const nd::host_vector<float> small(1024);
    const nd::host_vector<float> huge(24 * MiB / sizeof(float));  // over the whole limit
  }
  EXPECT_EQ(nd::host_block_cache_bytes(), 14 * MiB + 4096);
  EXPECT_EQ(nd::set_host_block_cache_limit(0), 20 * MiB);  // lowering the limit frees at once
  EXPECT_EQ(nd::host_block_cache_bytes(), 0U);
  { const nd::host_vector<float> v(8 * MiB / sizeof(float)); }
  EXPECT_EQ(nd::host_block_cache_bytes(), 0U) << "a limit of 0 keeps nothing";
  nd::set_host_block_cache_limit(previous);
  { const nd::host_vector<float> v(8 * MiB / sizeof(float)); }
  EXPECT_EQ(nd::host_block_cache_bytes(), 8 * MiB);
  nd::release_host_block_cache();
  EXPECT_EQ(nd::host_block_cache_bytes(), 0U);
}

TEST(HostPages, PopulatingKeepsTheContentsAndAcceptsAnyRange) {
  const std::size_t n = (std::size_t{64} << 20) / sizeof(std::uint64_t) + 3;  // spans several slices
  std::vector<std::uint64_t> v(n);
  std::iota(v.begin(), v.end(), std::uint64_t{1});
  nd::detail::advise_huge_pages(v.data(), n * sizeof(std::uint64_t));
  nd::default_transfer_engine().populate(v.data(), n * sizeof(std::uint64_t));
  (void)nd::detail::populate_pages(reinterpret_cast<char*>(v.data()) + 1, 10);  // no whole page: nothing
  (void)nd::detail::populate_pages(v.data(), 0);
  for (std::size_t i = 0; i < n; i += 4099) {
    ASSERT_EQ(v[i], i + 1) << "at " << i;
  }
  EXPECT_EQ(v.back(), n);
}

}  // namespace
