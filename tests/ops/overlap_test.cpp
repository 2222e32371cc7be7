// The overlap rule behind assignment: a temporary exactly when an input shares bytes with the
// output but reads them at other positions. Pure host logic.
#include <gtest/gtest.h>

#include <ndcuda/array/view_math.hpp>

namespace nd = ndcuda;

namespace {
bool needs(std::uintptr_t out, const nd::shape_t& os, const nd::strides_t& ost, std::uintptr_t in,
           const nd::shape_t& is, const nd::strides_t& ist) {
  return nd::needs_temporary(out, 4, os, ost, in, 4, is, ist);
}
}  // namespace

TEST(OpsOverlap, IdenticalLayoutNeedsNoTemporary) {
  EXPECT_FALSE(needs(0x1000, {4, 4}, {4, 1}, 0x1000, {4, 4}, {4, 1}));
}

TEST(OpsOverlap, TransposeOfItselfNeedsOne) {
  EXPECT_TRUE(needs(0x1000, {4, 4}, {4, 1}, 0x1000, {4, 4}, {1, 4}));
}

TEST(OpsOverlap, ShiftedSliceNeedsOne) {
  // a[1:] = a[:-1]: the output starts one element later in the same buffer.
  EXPECT_TRUE(needs(0x1004, {9}, {1}, 0x1000, {9}, {1}));
}

TEST(OpsOverlap, DisjointRangesNeedNone) {
  EXPECT_FALSE(needs(0x1000, {8}, {1}, 0x1020, {8}, {1}));
  EXPECT_FALSE(needs(0x1000, {0}, {1}, 0x1000, {8}, {1}));  // nothing written
}

TEST(OpsOverlap, BroadcastInputFromTheSameBufferNeedsOne) {
  // out (4, 4) reading its own first row broadcast down: row 0 is rewritten while others read it.
  EXPECT_TRUE(needs(0x1000, {4, 4}, {4, 1}, 0x1000, {4}, {1}));
}

TEST(OpsOverlap, ReversedViewNeedsOne) {
  // a = a[::-1]: same bytes, negative stride, starting at the last element.
  EXPECT_TRUE(needs(0x1000, {8}, {1}, 0x101c, {8}, {-1}));
}
