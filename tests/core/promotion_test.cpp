// Promotion checked entry by entry against NumPy 2 (tests/data/promotion_table.csv, written by
// gen_promotion_table.py), plus the bfloat16 rules NumPy cannot check. Needs no GPU.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <fstream>
#include <ndcuda/core/promotion.hpp>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#ifndef NDCUDA_TEST_DATA_DIR
#error "NDCUDA_TEST_DATA_DIR must name tests/data (the build defines it)"
#endif

namespace nd = ndcuda;

namespace {

constexpr std::size_t numpy_dtype_count = 14;  // all but bfloat16
constexpr std::size_t scalar_kind_count = 4;

struct csv_row {
  int line;
  std::string lhs, rhs, result;
};

struct promotion_csv {
  std::string numpy_version;
  std::vector<csv_row> pairs;
  std::vector<csv_row> scalars;
};

promotion_csv read_promotion_csv(const std::string& path) {
  promotion_csv csv;
  std::ifstream in(path);
  if (!in) {
    ADD_FAILURE() << "cannot open " << path << ": run `python3 tests/data/gen_promotion_table.py` (needs NumPy 2)";
    return csv;
  }
  std::string text;
  bool header_seen = false;
  for (int line = 1; std::getline(in, text); ++line) {
    if (!text.empty() && text.back() == '\r') {
      text.pop_back();
    }
    if (text.empty()) {
      continue;
    }
    if (text.front() == '#') {
      if (text.rfind("# numpy ", 0) == 0) {
        csv.numpy_version = text.substr(8);
      }
      continue;
    }
    if (!header_seen) {
      EXPECT_EQ(text, "lhs,rhs,result") << path << ":" << line << ": unexpected header";
      header_seen = true;
      continue;
    }
    csv_row row{line, {}, {}, {}};
    std::istringstream fields(text);
    std::string extra;
    if (!std::getline(fields, row.lhs, ',') || !std::getline(fields, row.rhs, ',') ||
        !std::getline(fields, row.result, ',') || std::getline(fields, extra, ',')) {
      ADD_FAILURE() << path << ":" << line << ": expected 3 fields, got '" << text << "'";
      continue;
    }
    (row.rhs.rfind("<scalar:", 0) == 0 ? csv.scalars : csv.pairs).push_back(std::move(row));
  }
  return csv;
}

const promotion_csv& numpy_table() {
  static const promotion_csv csv = read_promotion_csv(NDCUDA_TEST_DATA_DIR "/promotion_table.csv");
  return csv;
}

nd::dtype parse_dtype(const std::string& s, int line) {
  const auto t = nd::dtype_from_name(s);
  if (!t) {
    ADD_FAILURE() << "promotion_table.csv:" << line << ": unknown dtype '" << s << "'";
  }
  return t.value_or(nd::dtype::bool_);
}

TEST(PromotionTable, HasEveryPairAndScalarRow) {
  const auto& csv = numpy_table();
  EXPECT_FALSE(csv.numpy_version.empty()) << "missing '# numpy X.Y.Z' line";
  EXPECT_EQ(csv.numpy_version.substr(0, 2), "2.") << "the table must come from NumPy 2 (NEP 50)";
  ASSERT_GE(csv.pairs.size(), numpy_dtype_count * numpy_dtype_count)
      << "promotion_table.csv is incomplete; regenerate it with tests/data/gen_promotion_table.py";
  ASSERT_GE(csv.scalars.size(), numpy_dtype_count * scalar_kind_count)
      << "promotion_table.csv is incomplete; regenerate it with tests/data/gen_promotion_table.py";
  std::set<std::pair<std::string, std::string>> distinct;
  for (const auto& row : csv.pairs) {
    distinct.emplace(row.lhs, row.rhs);
  }
  for (const auto& row : csv.scalars) {
    distinct.emplace(row.lhs, row.rhs);
  }
  EXPECT_EQ(distinct.size(), numpy_dtype_count * (numpy_dtype_count + scalar_kind_count));
}

TEST(PromotionTable, ArrayWithArrayMatchesNumPy) {
  const auto& csv = numpy_table();
  ASSERT_GE(csv.pairs.size(), numpy_dtype_count * numpy_dtype_count) << "see HasEveryPairAndScalarRow";
  for (const auto& row : csv.pairs) {
    const nd::dtype a = parse_dtype(row.lhs, row.line);
    const nd::dtype b = parse_dtype(row.rhs, row.line);
    EXPECT_EQ(nd::name(nd::promote_types(a, b)), row.result)
        << "promote_types(" << row.lhs << ", " << row.rhs << "), promotion_table.csv:" << row.line;
  }
}

TEST(PromotionTable, ArrayWithScalarMatchesNumPy) {
  const auto& csv = numpy_table();
  ASSERT_GE(csv.scalars.size(), numpy_dtype_count * scalar_kind_count) << "see HasEveryPairAndScalarRow";
  for (const auto& row : csv.scalars) {
    nd::scalar_kind s{};
    if (row.rhs == "<scalar:bool>") {
      s = nd::scalar_kind::boolean;
    } else if (row.rhs == "<scalar:int>") {
      s = nd::scalar_kind::integer;
    } else if (row.rhs == "<scalar:float>") {
      s = nd::scalar_kind::floating;
    } else if (row.rhs == "<scalar:complex>") {
      s = nd::scalar_kind::complex;
    } else {
      ADD_FAILURE() << "promotion_table.csv:" << row.line << ": unknown scalar '" << row.rhs << "'";
      continue;
    }
    const nd::dtype a = parse_dtype(row.lhs, row.line);
    EXPECT_EQ(nd::name(nd::promote_with_scalar(a, s)), row.result)
        << row.lhs << " array with " << row.rhs << ", promotion_table.csv:" << row.line;
  }
}

TEST(Promotion, SymmetricForAllPairs) {
  for (nd::dtype a : nd::all_dtypes) {
    for (nd::dtype b : nd::all_dtypes) {
      EXPECT_EQ(nd::promote_types(a, b), nd::promote_types(b, a)) << a << ", " << b;
    }
  }
}

TEST(Promotion, IdempotentAndBoolIsIdentity) {
  for (nd::dtype a : nd::all_dtypes) {
    EXPECT_EQ(nd::promote_types(a, a), a) << a;
    EXPECT_EQ(nd::promote_types(a, nd::dtype::bool_), a) << a;
    EXPECT_EQ(nd::promote_with_scalar(a, nd::scalar_kind::boolean), a) << a;
  }
}

TEST(Promotion, BFloat16Rules) {
  using nd::dtype;
  const std::pair<dtype, dtype> cases[] = {
      {dtype::bool_, dtype::bfloat16},  {dtype::int8, dtype::bfloat16},       {dtype::uint8, dtype::bfloat16},
      {dtype::int16, dtype::float32},   {dtype::uint16, dtype::float32},      {dtype::int32, dtype::float64},
      {dtype::uint32, dtype::float64},  {dtype::int64, dtype::float64},       {dtype::uint64, dtype::float64},
      {dtype::float16, dtype::float32}, {dtype::bfloat16, dtype::bfloat16},   {dtype::float32, dtype::float32},
      {dtype::float64, dtype::float64}, {dtype::complex64, dtype::complex64}, {dtype::complex128, dtype::complex128},
  };
  static_assert(std::size(cases) == nd::dtype_count);
  for (const auto& [other, expected] : cases) {
    EXPECT_EQ(nd::promote_types(dtype::bfloat16, other), expected) << "bfloat16 + " << other;
    EXPECT_EQ(nd::promote_types(other, dtype::bfloat16), expected) << other << " + bfloat16";
  }
}

TEST(Promotion, BFloat16MirrorsFloat16ExceptAgainstItself) {
  // Outside the bf16/f16 pair, swapping float16 for bfloat16 in the operands swaps it in the result.
  auto swap_half = [](nd::dtype t) { return t == nd::dtype::float16 ? nd::dtype::bfloat16 : t; };
  for (nd::dtype other : nd::all_dtypes) {
    if (other == nd::dtype::float16 || other == nd::dtype::bfloat16) {
      continue;
    }
    EXPECT_EQ(nd::promote_types(nd::dtype::bfloat16, other), swap_half(nd::promote_types(nd::dtype::float16, other)))
        << other;
  }
  for (auto s :
       {nd::scalar_kind::boolean, nd::scalar_kind::integer, nd::scalar_kind::floating, nd::scalar_kind::complex}) {
    EXPECT_EQ(nd::promote_with_scalar(nd::dtype::bfloat16, s),
              swap_half(nd::promote_with_scalar(nd::dtype::float16, s)));
  }
}

TEST(Promotion, ScalarExamplesFromTheSpec) {
  using nd::dtype;
  using nd::scalar_kind;
  static_assert(nd::promote_with_scalar(dtype::bool_, scalar_kind::integer) == dtype::int64);
  static_assert(nd::promote_with_scalar(dtype::int32, scalar_kind::floating) == dtype::float64);
  static_assert(nd::promote_with_scalar(dtype::float16, scalar_kind::floating) == dtype::float16);
  static_assert(nd::promote_with_scalar(dtype::float32, scalar_kind::complex) == dtype::complex64);
  static_assert(nd::promote_with_scalar(dtype::float16, scalar_kind::complex) == dtype::complex64);
  static_assert(nd::promote_with_scalar(dtype::int8, scalar_kind::complex) == dtype::complex128);
  static_assert(nd::promote_with_scalar(dtype::bool_, scalar_kind::floating) == dtype::float64);
  static_assert(nd::promote_with_scalar(dtype::bfloat16, scalar_kind::floating) == dtype::bfloat16);
  static_assert(nd::promote_with_scalar(dtype::bfloat16, scalar_kind::complex) == dtype::complex64);
  static_assert(nd::promote_with_scalar(dtype::uint8, scalar_kind::integer) == dtype::uint8);
}

TEST(Promotion, ScalarKinds) {
  static_assert(nd::scalar_kind_of<bool> == nd::scalar_kind::boolean);
  static_assert(nd::scalar_kind_of<const bool> == nd::scalar_kind::boolean);
  static_assert(nd::scalar_kind_of<char> == nd::scalar_kind::integer);
  static_assert(nd::scalar_kind_of<int> == nd::scalar_kind::integer);
  static_assert(nd::scalar_kind_of<unsigned long long> == nd::scalar_kind::integer);
  static_assert(nd::scalar_kind_of<std::int8_t> == nd::scalar_kind::integer);
  static_assert(nd::scalar_kind_of<float> == nd::scalar_kind::floating);
  static_assert(nd::scalar_kind_of<const double> == nd::scalar_kind::floating);
  static_assert(nd::scalar_kind_of<long double> == nd::scalar_kind::floating);
  static_assert(nd::scalar_kind_of<std::complex<float>> == nd::scalar_kind::complex);
  static_assert(nd::scalar_kind_of<std::complex<double>> == nd::scalar_kind::complex);
  // The half types name a precision; they are not weak.
  static_assert(!nd::weak_scalar<__half> && !nd::weak_scalar<__nv_bfloat16>);
  static_assert(!nd::weak_scalar<std::string> && !nd::weak_scalar<double*> && !nd::weak_scalar<void>);
}

TEST(Promotion, TypeAliases) {
  static_assert(std::is_same_v<nd::promote_t<std::int32_t, float>, double>);
  static_assert(std::is_same_v<nd::promote_t<std::uint64_t, std::int64_t>, double>);
  static_assert(std::is_same_v<nd::promote_t<unsigned long long, long long>, double>);
  static_assert(std::is_same_v<nd::promote_t<std::uint8_t, std::int8_t>, std::int16_t>);
  static_assert(std::is_same_v<nd::promote_t<std::uint32_t, std::int32_t>, std::int64_t>);
  static_assert(std::is_same_v<nd::promote_t<__half, std::int8_t>, __half>);
  static_assert(std::is_same_v<nd::promote_t<__half, __nv_bfloat16>, float>);
  static_assert(std::is_same_v<nd::promote_t<__nv_bfloat16, std::uint8_t>, __nv_bfloat16>);
  static_assert(std::is_same_v<nd::promote_t<const float, double>, double>);
  static_assert(std::is_same_v<nd::promote_t<double, std::complex<float>>, std::complex<double>>);
  static_assert(std::is_same_v<nd::promote_t<bool, bool>, bool>);

  static_assert(std::is_same_v<nd::promote_scalar_t<float, double>, float>);
  static_assert(std::is_same_v<nd::promote_scalar_t<bool, int>, std::int64_t>);
  static_assert(std::is_same_v<nd::promote_scalar_t<std::int8_t, long long>, std::int8_t>);
  static_assert(std::is_same_v<nd::promote_scalar_t<std::int32_t, float>, double>);
  static_assert(std::is_same_v<nd::promote_scalar_t<float, std::complex<double>>, std::complex<float>>);
  static_assert(std::is_same_v<nd::promote_scalar_t<__nv_bfloat16, double>, __nv_bfloat16>);
  static_assert(std::is_same_v<nd::promote_scalar_t<__half, std::complex<float>>, std::complex<float>>);
  static_assert(std::is_same_v<nd::promote_scalar_t<std::uint16_t, bool>, std::uint16_t>);
  SUCCEED();
}

}  // namespace
