// The one-row-per-ufunc structure without a GPU: every spelling of a ufunc builds the same node
// (so the same row, check and message), the rows' operand rules, and leaf_of's one conversion.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <ndcuda/expr/leaf_ref.hpp>
#include <ndcuda/ops/elementwise.hpp>
#include <type_traits>

#include "support/fake_array.hpp"

namespace nd = ndcuda;
namespace nd_detail = ndcuda::detail;

namespace {

using F = nd::ndarray<float>;
using B = nd::ndarray<bool>;
extern const F f;  // declared only: named inside decltype, never evaluated
extern const B b;

// Operators and their NumPy names are forwards to one row: the same expression type.
static_assert(std::is_same_v<decltype(f - f), decltype(nd::subtract(f, f))>);
static_assert(std::is_same_v<decltype(f + 1.0f), decltype(nd::add(f, 1.0f))>);
static_assert(std::is_same_v<decltype(2 * f), decltype(nd::multiply(2, f))>);
static_assert(std::is_same_v<decltype(f / f), decltype(nd::divide(f, f))>);
static_assert(std::is_same_v<decltype(f / f), decltype(nd::true_divide(f, f))>);
static_assert(std::is_same_v<decltype(f % 3), decltype(nd::mod(f, 3))>);
static_assert(std::is_same_v<decltype(f % 3), decltype(nd::remainder(f, 3))>);
static_assert(std::is_same_v<decltype(-f), decltype(nd::negative(f))>);
static_assert(std::is_same_v<decltype(f < f), decltype(nd::less(f, f))>);
static_assert(std::is_same_v<decltype(b ^ b), decltype(nd::bitwise_xor(b, b))>);
static_assert(std::is_same_v<decltype(~b), decltype(nd::invert(b))>);
static_assert(std::is_same_v<decltype(~b), decltype(nd::bitwise_not(b))>);
static_assert(std::is_same_v<decltype(nd::abs(f)), decltype(nd::absolute(f))>);
static_assert(std::is_same_v<decltype(nd::conj(f)), decltype(nd::conjugate(f))>);
// Expression operands and scalars on either side still reach the row.
static_assert(std::is_same_v<decltype((f + f) - 1.0f), decltype(nd::subtract(nd::add(f, f), 1.0f))>);

// The operand rules, as NumPy raises TypeError.
using nd::dtype;
static_assert(!nd_detail::subtract_op::accepts(dtype::bool_) && nd_detail::subtract_op::accepts(dtype::int8));
static_assert(!nd_detail::negative_op::accepts(dtype::bool_));
static_assert(nd_detail::less_op::accepts(dtype::complex64) && nd_detail::equal_op::accepts(dtype::complex64));
static_assert(!nd_detail::bitwise_and_op::accepts(dtype::float32) && nd_detail::bitwise_and_op::accepts(dtype::bool_));
static_assert(!nd_detail::floor_divide_op::accepts(dtype::complex128));
static_assert(nd_detail::maximum_op::accepts(dtype::complex64) && nd_detail::maximum_op::accepts(dtype::float16));
static_assert(!nd_detail::sign_op::accepts(dtype::bool_) && nd_detail::sign_op::accepts(dtype::complex64));
static_assert(nd_detail::sqrt_op::accepts(dtype::complex128) && !nd_detail::cbrt_op::accepts(dtype::complex128));
static_assert(nd_detail::left_shift_op::accepts(dtype::uint64) && !nd_detail::left_shift_op::accepts(dtype::float64));

}  // namespace

TEST(OpsRows, LeafOfReadsTheArraysFields) {
  const auto a = nd::testing::fake<std::complex<float>>({2, 3}, 0x20000);
  const nd_detail::leaf_ref r = nd_detail::leaf_of(a);
  EXPECT_EQ(r.data, static_cast<const void*>(a.data()));
  EXPECT_EQ(r.layout, &a.layout());
  EXPECT_EQ(r.type, dtype::complex64);
  EXPECT_EQ(r.s, &a.stream());
  EXPECT_EQ(r.device, a.device());
  EXPECT_EQ(r.owner, &a.owner_ref());
  EXPECT_EQ(r.source, nullptr);
}
