// The type-erased array handle the compiled code takes: a default-constructed one (an index entry
// without an array, a linalg operand that is absent) must create no CUDA stream, which would land
// on the thread's current device whatever device the work is for. Needs no GPU: on a machine
// without one, creating a stream throws, so these tests fail if a stream is created.
#include <gtest/gtest.h>

#include <ndcuda/array/erased_array.hpp>
#include <ndcuda/ops/detail/indexing_entry.hpp>

namespace nd = ndcuda;

TEST(ErasedArray, DefaultConstructedHoldsThePlaceholderStreamAndCreatesNone) {
  const nd::detail::erased_array e;
  EXPECT_EQ(e.s, nd::detail::placeholder_stream());
  EXPECT_FALSE(e.s.owns_handle());
  EXPECT_EQ(e.owner, nullptr);
  EXPECT_EQ(e.size(), 1);  // a 0-d layout: one element, no buffer
}

TEST(ErasedArray, BasicIndexEntriesCarryNoStreamOfTheirOwn) {
  std::vector<nd::detail::index_arg> args(
      3, nd::detail::index_arg{nd::detail::index_entry{nd::detail::index_entry::kind::basic, nd::all, {}, 0}, {}});
  for (const auto& a : args) {
    EXPECT_EQ(a.array.s, nd::detail::placeholder_stream());
  }
}
