// Overflow-checked sizes (core/checked_size.hpp) and the shape rules that use them: NumPy's "array
// is too big" for counts, bytes and broadcasts, offsets and reaches that wrap, host out of memory.
// No GPU needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/shape.hpp>
#include <string>

#include "support/error_message.hpp"

namespace nd = ndcuda;

namespace {

constexpr nd::index_t max_index = std::numeric_limits<nd::index_t>::max();
constexpr nd::index_t min_index = std::numeric_limits<nd::index_t>::min();

template <class F>
std::string shape_error_of(F&& f) {
  return nd::testing::message_of<nd::shape_error>(std::forward<F>(f));
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST(CheckedSize, MulAndAdd) {
  nd::index_t out = 0;
  EXPECT_TRUE(nd::try_mul(1LL << 31, 1LL << 31, out));
  EXPECT_EQ(out, 1LL << 62);
  EXPECT_FALSE(nd::try_mul(1LL << 32, 1LL << 31, out));
  EXPECT_FALSE(nd::try_mul(min_index, -1, out));
  EXPECT_FALSE(nd::try_add(max_index, 1, out));
  EXPECT_TRUE(nd::try_add(min_index, max_index, out));
  EXPECT_EQ(out, -1);
  EXPECT_EQ(nd::checked_mul(-3, 7, "x"), -21);
  EXPECT_EQ(nd::checked_add(-3, 7, "x"), 4);
  EXPECT_TRUE(contains(shape_error_of([] { (void)nd::checked_mul(max_index, 2, "slice offset"); }), "slice offset"));
  EXPECT_THROW((void)nd::checked_add(max_index, max_index, "x"), nd::shape_error);
}

TEST(CheckedSize, BytesFollowNumPysLimit) {
  EXPECT_EQ(nd::checked_bytes(0, 8), 0U);
  EXPECT_EQ(nd::checked_bytes(1LL << 60, 4), std::size_t{1} << 62);
  // np.empty(2**62, np.float32): "array is too big; `arr.size * arr.dtype.itemsize` is larger ..."
  const std::string e = shape_error_of([] { (void)nd::checked_bytes(1LL << 62, 4); });
  EXPECT_TRUE(contains(e, "array is too big")) << e;
  EXPECT_TRUE(contains(e, "arr.size * arr.dtype.itemsize")) << e;
  EXPECT_THROW((void)nd::checked_bytes(1LL << 61, 4), nd::shape_error);  // 2^63 bytes: one too many
  EXPECT_THROW((void)nd::checked_bytes(-1, 1), nd::shape_error);
  EXPECT_THROW((void)nd::checked_bytes(max_index, 16), nd::shape_error);
}

TEST(CheckedSize, NbytesCountsNonZeroExtentsEvenWhenEmpty) {
  EXPECT_EQ(nd::checked_nbytes(nd::shape_t{}, 8), 8U);
  EXPECT_EQ(nd::checked_nbytes(nd::shape_t{3, 4}, 2), 24U);
  EXPECT_EQ(nd::checked_nbytes(nd::shape_t{3, 0, 7}, 4), 0U);
  EXPECT_EQ(nd::checked_nbytes(nd::shape_t{1LL << 30, 1LL << 30}, 4), std::size_t{1} << 62);
  EXPECT_THROW((void)nd::checked_nbytes(nd::shape_t{1LL << 30, 1LL << 30}, 8), nd::shape_error);  // 2^63
  EXPECT_TRUE(contains(shape_error_of([] { (void)nd::checked_nbytes(nd::shape_t{1LL << 62}, 4); }),
                       "array is too big: shape (4611686018427387904,)"));
  // NumPy: np.empty((2**40, 2**40, 0)) is too big although it has no element.
  EXPECT_THROW((void)nd::checked_nbytes(nd::shape_t{1LL << 40, 1LL << 40, 0}, 1), nd::shape_error);
  EXPECT_TRUE(contains(shape_error_of([] {
                         (void)nd::checked_nbytes(nd::shape_t{4, -1}, 4);
                       }),
                       "negative dimensions are not allowed"));
  EXPECT_THROW((void)nd::checked_nbytes(nd::shape_t{1LL << 32, 1LL << 32}, 1), nd::shape_error);  // 2^64
}

TEST(CheckedSize, ReachOfStridedViews) {
  auto reach = nd::checked_reach(nd::shape_t{3, 4}, nd::strides_t{4, 1});
  EXPECT_EQ(reach.low, 0);
  EXPECT_EQ(reach.high, 11);
  reach = nd::checked_reach(nd::shape_t{3, 4}, nd::strides_t{-4, 1});
  EXPECT_EQ(reach.low, -8);
  EXPECT_EQ(reach.high, 3);
  reach = nd::checked_reach(nd::shape_t{5, 0}, nd::strides_t{max_index, 1});  // empty: reaches nothing
  EXPECT_EQ(reach.low, 0);
  EXPECT_EQ(reach.high, 0);
  reach = nd::checked_reach(nd::shape_t{1, 7}, nd::strides_t{max_index, 0});  // extent 1: stride unused
  EXPECT_EQ(reach.high, 0);
  EXPECT_THROW((void)nd::checked_reach(nd::shape_t{3}, nd::strides_t{max_index}), nd::shape_error);
  EXPECT_THROW((void)nd::checked_reach(nd::shape_t{2, 2}, nd::strides_t{max_index, max_index}), nd::shape_error);
  EXPECT_THROW((void)nd::checked_reach(nd::shape_t{3}, nd::strides_t{min_index / 2 - 1}), nd::shape_error);
  EXPECT_THROW((void)nd::checked_reach(nd::shape_t{3}, nd::strides_t{1, 1}), nd::shape_error);
  EXPECT_THROW((void)nd::checked_reach(nd::shape_t{-3}, nd::strides_t{1}), nd::shape_error);
}

TEST(CheckedSize, ViewBytesMustExist) {
  EXPECT_NO_THROW(nd::check_view(nd::shape_t{3, 4}, nd::strides_t{4, 1}, 0, 8, "t"));
  EXPECT_NO_THROW(nd::check_view(nd::shape_t{3, 4}, nd::strides_t{-4, 1}, 8, 8, "t"));
  EXPECT_NO_THROW(nd::check_view(nd::shape_t{0, 4}, nd::strides_t{max_index, 1}, 0, 8, "t"));
  // Element offsets fit, byte offsets do not.
  EXPECT_TRUE(
      contains(shape_error_of([] { nd::check_view(nd::shape_t{2}, nd::strides_t{1LL << 61}, 0, 8, "from_device"); }),
               "from_device"));
  EXPECT_THROW(nd::check_view(nd::shape_t{2}, nd::strides_t{1}, max_index, 1, "t"), nd::shape_error);
  EXPECT_THROW(nd::check_view(nd::shape_t{2}, nd::strides_t{-1}, min_index, 1, "t"), nd::shape_error);
}

TEST(CheckedSize, HostAllocationFailureIsOutOfMemoryNamingTheHost) {
  try {
    (void)nd::checked_host_vector<float>(std::size_t{1} << 60, "to_host()");  // 4 EiB
    FAIL() << "4 EiB of host memory was allocated";
  } catch (const nd::out_of_memory& e) {
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "to_host()")) << what;
    EXPECT_TRUE(contains(what, "host memory")) << what;
    EXPECT_TRUE(contains(what, "4611686018427387904 bytes")) << what;
  }
  EXPECT_THROW(EXPECT_EQ(nd::checked_host_vector<double>(std::numeric_limits<std::size_t>::max() / 4, "x").size(), 0U),
               nd::out_of_memory);
  // Used, so that the compiler cannot drop the allocation.
  EXPECT_THROW(EXPECT_EQ(nd::host_array<bool>(std::numeric_limits<std::size_t>::max(), "x").get(), nullptr),
               nd::out_of_memory);
  EXPECT_EQ(nd::checked_host_vector<int>(5, "x").size(), 5U);
}

TEST(CheckedShapes, SizeOverflowAndNegativeExtents) {
  EXPECT_THROW((void)nd::shape_size(nd::shape_t{1LL << 40, 1LL << 40, 0}), nd::shape_error);
  EXPECT_THROW((void)nd::shape_size(nd::shape_t{1LL << 32, 1LL << 32}), nd::shape_error);
  EXPECT_EQ(nd::shape_size(nd::shape_t{1LL << 31, 1LL << 31, 0}), 0);
  EXPECT_EQ(nd::shape_size(nd::shape_t{1LL << 31, 1LL << 31, 1}), 1LL << 62);
  EXPECT_THROW((void)nd::shape_size(nd::shape_t{1LL << 31, 1LL << 31, 2}), nd::shape_error);  // 2^63
  EXPECT_THROW((void)nd::c_strides(nd::shape_t{1LL << 32, 1LL << 32, 2}), nd::shape_error);
  EXPECT_FALSE(nd::is_c_contiguous(nd::shape_t{3, 4}, nd::strides_t{1}));  // lengths differ
}

TEST(CheckedShapes, BroadcastRefusesNegativeAndTooLargeShapes) {
  // np.broadcast_shapes((-1,), (1,)): negative dimensions are not allowed
  EXPECT_TRUE(contains(shape_error_of([] { (void)nd::broadcast_shapes(nd::shape_t{-1}, nd::shape_t{1}); }),
                       "negative dimensions are not allowed"));
  // np.broadcast_shapes((2**32, 1), (1, 2**32)): broadcast dimensions too large.
  EXPECT_TRUE(contains(shape_error_of([] {
                         (void)nd::broadcast_shapes(nd::shape_t{1LL << 32, 1}, nd::shape_t{1, 1LL << 32});
                       }),
                       "broadcast dimensions too large"));
  EXPECT_EQ(nd::broadcast_shapes(nd::shape_t{1LL << 31, 1}, nd::shape_t{1, 1LL << 31}),
            (nd::shape_t{1LL << 31, 1LL << 31}));
  // np.broadcast_to(x, (-1,)): all elements of broadcast shape must be non-negative
  EXPECT_TRUE(
      contains(shape_error_of([] { (void)nd::broadcast_strides(nd::shape_t{1}, nd::strides_t{1}, nd::shape_t{-1}); }),
               "all elements of broadcast shape must be non-negative"));
  EXPECT_THROW((void)nd::broadcast_strides(nd::shape_t{1}, nd::strides_t{1}, nd::shape_t{1LL << 32, 1LL << 32}),
               nd::shape_error);
  EXPECT_THROW((void)nd::broadcast_strides(nd::shape_t{1}, nd::strides_t{}, nd::shape_t{3}), nd::shape_error);
}

TEST(CheckedShapes, AssignmentUsesNumPysMessage) {
  EXPECT_NO_THROW(nd::check_assignable(nd::shape_t{1, 4}, nd::shape_t{3, 4}));
  EXPECT_NO_THROW(nd::check_assignable(nd::shape_t{}, nd::shape_t{3, 4}));
  EXPECT_NO_THROW(nd::check_assignable(nd::shape_t{3, 1}, nd::shape_t{3, 1}));
  EXPECT_TRUE(contains(shape_error_of([] {
                         nd::check_assignable(nd::shape_t{3, 4}, nd::shape_t{3, 1});
                       }),
                       "could not broadcast input array from shape (3,4) into shape (3,1)"));
  EXPECT_TRUE(contains(shape_error_of([] {
                         nd::check_assignable(nd::shape_t{2, 3, 4}, nd::shape_t{3, 4});
                       }),
                       "could not broadcast input array from shape (2,3,4) into shape (3,4)"));
  EXPECT_TRUE(contains(shape_error_of([] { nd::check_assignable(nd::shape_t{5}, nd::shape_t{}); }),
                       "could not broadcast input array from shape (5,) into shape ()"));
}
