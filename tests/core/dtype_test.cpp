// dtype properties, names and the C++ type mapping in both directions. Needs no GPU.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <ndcuda/core/dtype.hpp>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

namespace nd = ndcuda;

namespace {

struct expected_dtype {
  nd::dtype type;
  std::string_view name;
  std::string_view cuda_name;
  std::size_t itemsize;
  nd::dtype_kind kind;
};

// Written out independently of the header so a slip in one does not hide in the other.
constexpr expected_dtype expected[] = {
    {nd::dtype::bool_, "bool", "bool", 1, nd::dtype_kind::boolean},
    {nd::dtype::int8, "int8", "signed char", 1, nd::dtype_kind::signed_integer},
    {nd::dtype::int16, "int16", "short", 2, nd::dtype_kind::signed_integer},
    {nd::dtype::int32, "int32", "int", 4, nd::dtype_kind::signed_integer},
    {nd::dtype::int64, "int64", "long long", 8, nd::dtype_kind::signed_integer},
    {nd::dtype::uint8, "uint8", "unsigned char", 1, nd::dtype_kind::unsigned_integer},
    {nd::dtype::uint16, "uint16", "unsigned short", 2, nd::dtype_kind::unsigned_integer},
    {nd::dtype::uint32, "uint32", "unsigned int", 4, nd::dtype_kind::unsigned_integer},
    {nd::dtype::uint64, "uint64", "unsigned long long", 8, nd::dtype_kind::unsigned_integer},
    {nd::dtype::float16, "float16", "__half", 2, nd::dtype_kind::floating},
    {nd::dtype::bfloat16, "bfloat16", "__nv_bfloat16", 2, nd::dtype_kind::floating},
    {nd::dtype::float32, "float32", "float", 4, nd::dtype_kind::floating},
    {nd::dtype::float64, "float64", "double", 8, nd::dtype_kind::floating},
    {nd::dtype::complex64, "complex64", "ndcuda::complex<float>", 8, nd::dtype_kind::complex},
    {nd::dtype::complex128, "complex128", "ndcuda::complex<double>", 16, nd::dtype_kind::complex},
};
static_assert(std::size(expected) == nd::dtype_count);

TEST(Dtype, EnumeratorsAreDenseAndInOrder) {
  ASSERT_EQ(nd::all_dtypes.size(), static_cast<std::size_t>(nd::dtype_count));
  for (std::size_t i = 0; i < nd::all_dtypes.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(nd::all_dtypes[i]), i);
    EXPECT_EQ(nd::all_dtypes[i], expected[i].type);
  }
}

TEST(Dtype, PropertiesMatchTable) {
  for (const auto& e : expected) {
    SCOPED_TRACE(std::string(e.name));
    EXPECT_EQ(nd::name(e.type), e.name);
    EXPECT_EQ(nd::cuda_type_name(e.type), e.cuda_name);
    EXPECT_EQ(nd::itemsize(e.type), e.itemsize);
    EXPECT_EQ(nd::kind(e.type), e.kind);
    EXPECT_EQ(nd::is_integral(e.type),
              e.kind == nd::dtype_kind::signed_integer || e.kind == nd::dtype_kind::unsigned_integer);
    EXPECT_EQ(nd::is_floating(e.type), e.kind == nd::dtype_kind::floating);
    EXPECT_EQ(nd::is_complex(e.type), e.kind == nd::dtype_kind::complex);
    EXPECT_EQ(nd::is_signed(e.type), e.kind != nd::dtype_kind::boolean && e.kind != nd::dtype_kind::unsigned_integer);
  }
}

TEST(Dtype, BoolIsNotIntegral) {
  // NumPy and the array API say so; code generation relies on it to pick logical, not bitwise, ops.
  static_assert(!nd::is_integral(nd::dtype::bool_));
  static_assert(!nd::is_signed(nd::dtype::bool_));
  static_assert(nd::is_integral(nd::dtype::uint8));
}

TEST(Dtype, NamesAreUniqueAndRoundTrip) {
  std::set<std::string_view> names;
  std::set<std::string_view> cuda_names;
  for (nd::dtype t : nd::all_dtypes) {
    names.insert(nd::name(t));
    cuda_names.insert(nd::cuda_type_name(t));
    const auto parsed = nd::dtype_from_name(nd::name(t));
    ASSERT_TRUE(parsed.has_value()) << nd::name(t);
    EXPECT_EQ(*parsed, t);
  }
  EXPECT_EQ(names.size(), static_cast<std::size_t>(nd::dtype_count));
  EXPECT_EQ(cuda_names.size(), static_cast<std::size_t>(nd::dtype_count));
  static_assert(nd::dtype_from_name("complex64") == nd::dtype::complex64);
}

TEST(Dtype, FromNameRejectsAliasesAndJunk) {
  for (std::string_view bad : {"", "float", "int", "double", "half", "bool_", "Float32", "float32 ", "int128", "c8"}) {
    EXPECT_FALSE(nd::dtype_from_name(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(Dtype, StreamsItsName) {
  std::ostringstream os;
  os << nd::dtype::bfloat16 << ' ' << nd::dtype::bool_ << ' ' << nd::dtype::complex128;
  EXPECT_EQ(os.str(), "bfloat16 bool complex128");
}

template <std::size_t... I>
void check_round_trips(std::index_sequence<I...>) {
  (
      [] {
        constexpr auto d = static_cast<nd::dtype>(I);
        using T = nd::type_of<d>;
        static_assert(nd::array_element<T>);
        static_assert(nd::dtype_of<T> == d, "dtype_of<type_of<D>> must be D");
        static_assert(std::is_same_v<nd::type_of<nd::dtype_of<T>>, T>);
        static_assert(nd::dtype_of<const T> == d && nd::dtype_of<volatile T> == d &&
                      nd::dtype_of<const volatile T> == d);
        EXPECT_EQ(sizeof(T), nd::itemsize(d)) << nd::name(d);
        EXPECT_EQ(nd::dtype_traits<T>::value, d) << nd::name(d);
      }(),
      ...);
}

TEST(DtypeTraits, RoundTripEveryDtype) {
  check_round_trips(std::make_index_sequence<nd::dtype_count>{});
}

TEST(DtypeTraits, CanonicalTypes) {
  static_assert(std::is_same_v<nd::type_of<nd::dtype::bool_>, bool>);
  static_assert(std::is_same_v<nd::type_of<nd::dtype::int8>, std::int8_t>);
  static_assert(std::is_same_v<nd::type_of<nd::dtype::int16>, std::int16_t>);
  static_assert(std::is_same_v<nd::type_of<nd::dtype::int32>, std::int32_t>);
  static_assert(std::is_same_v<nd::type_of<nd::dtype::int64>, std::int64_t>);
  static_assert(std::is_same_v<nd::type_of<nd::dtype::uint8>, std::uint8_t>);
  static_assert(std::is_same_v<nd::type_of<nd::dtype::uint16>, std::uint16_t>);
  static_assert(std::is_same_v<nd::type_of<nd::dtype::uint32>, std::uint32_t>);
  static_assert(std::is_same_v<nd::type_of<nd::dtype::uint64>, std::uint64_t>);
  static_assert(std::is_same_v<nd::type_of<nd::dtype::float16>, __half>);
  static_assert(std::is_same_v<nd::type_of<nd::dtype::bfloat16>, __nv_bfloat16>);
  static_assert(std::is_same_v<nd::type_of<nd::dtype::float32>, float>);
  static_assert(std::is_same_v<nd::type_of<nd::dtype::float64>, double>);
  static_assert(std::is_same_v<nd::type_of<nd::dtype::complex64>, std::complex<float>>);
  static_assert(std::is_same_v<nd::type_of<nd::dtype::complex128>, std::complex<double>>);
  static_assert(nd::dtype_of<signed char> == nd::dtype::int8);
  static_assert(nd::dtype_of<unsigned char> == nd::dtype::uint8);
}

TEST(DtypeTraits, BothSpellingsOf64BitIntegers) {
  // Whichever of long / long long is not int64_t still maps to int64 (likewise unsigned).
  static_assert(nd::array_element<long> && nd::array_element<long long>);
  static_assert(nd::array_element<unsigned long> && nd::array_element<unsigned long long>);
  static_assert(nd::dtype_of<long long> == nd::dtype::int64);
  static_assert(nd::dtype_of<const long long> == nd::dtype::int64);
  static_assert(nd::dtype_of<unsigned long long> == nd::dtype::uint64);
  static_assert(nd::dtype_of<long> == (sizeof(long) == 8 ? nd::dtype::int64 : nd::dtype::int32));
  static_assert(nd::dtype_of<unsigned long> == (sizeof(long) == 8 ? nd::dtype::uint64 : nd::dtype::uint32));
}

TEST(DtypeTraits, NonElementsAreRejected) {
  // Plain char: signed on x86, unsigned on ARM, so it would change dtype across platforms.
  static_assert(!nd::array_element<char>);
  static_assert(!nd::array_element<wchar_t>);
  static_assert(!nd::array_element<char8_t> && !nd::array_element<char16_t> && !nd::array_element<char32_t>);
  static_assert(!nd::array_element<long double>);
  static_assert(!nd::array_element<std::complex<long double>>);
  static_assert(!nd::array_element<float&> && !nd::array_element<const float&> && !nd::array_element<float*>);
  static_assert(!nd::array_element<void>);
  static_assert(!nd::array_element<std::string>);
  static_assert(!nd::array_element<float[4]>);
}

}  // namespace
