// The hand-written edge cases of the ufunc host reference (tests/ops/ufunc_reference.hpp) against
// NumPy 2's own results: tests/data/ufunc_cases.txt, written by tests/data/gen_ufunc_cases.py
// (integer extremes, x // 0, MIN // -1, shifts by the width and by negative counts, float zeros,
// infinities and NaN through floor_divide/remainder, round half to even). Needs no GPU.
#include "ops/ufunc_reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace ref = ufunc_ref;

namespace {

template <class T>
T parse_value(const std::string& s) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(std::strtod(s.c_str(), nullptr));
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(std::stoll(s));
  } else {
    return static_cast<T>(std::stoull(s));
  }
}

template <class T>
bool same_bits(T got, T want) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(want)) return std::isnan(got);
    return got == want && std::signbit(got) == std::signbit(want);
  } else {
    return got == want;
  }
}

template <class T>
std::string check_case(const std::string& op, const std::string& sa, const std::string& sb, const std::string& sr) {
  const T a = parse_value<T>(sa);
  const T b = parse_value<T>(sb);
  const T want = parse_value<T>(sr);
  T got{};
  if constexpr (std::is_floating_point_v<T>) {
    if (op == "floor_divide")
      got = ref::floor_divide_float<T>(a, b);
    else if (op == "remainder")
      got = ref::remainder_float<T>(a, b);
    else if (op == "sign")
      got = static_cast<T>(ref::sign(a));
    else if (op == "round")
      got = static_cast<T>(ref::round_half_even(a));
    else
      return "unknown op " + op;
  } else {
    if (op == "floor_divide")
      got = ref::floor_divide(a, b);
    else if (op == "remainder")
      got = ref::remainder(a, b);
    else if (op == "power")
      got = ref::power(a, b);
    else if (op == "left_shift")
      got = ref::left_shift(a, b);
    else if (op == "right_shift")
      got = ref::right_shift(a, b);
    else if (op == "absolute")
      got = ref::abs_int(a);
    else if (op == "negative")
      got = ref::wrap_neg(a);
    else if (op == "sign")
      got = static_cast<T>(a > 0 ? 1 : (a < 0 ? -1 : 0));
    else
      return "unknown op " + op;
  }
  if (same_bits(got, want)) return "";
  std::ostringstream os;
  os.precision(21);
  os << op << "(" << sa << ", " << sb << "): reference " << +got << ", NumPy " << sr;
  return os.str();
}

}  // namespace

TEST(UfuncReference, EdgeCasesMatchNumpy) {
  std::ifstream file(NDCUDA_TEST_DATA_DIR "/ufunc_cases.txt");
  ASSERT_TRUE(file) << "missing " NDCUDA_TEST_DATA_DIR "/ufunc_cases.txt (run tests/data/gen_ufunc_cases.py)";
  std::string line;
  int checked = 0;
  int failures = 0;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string op, type, a, b, r;
    in >> op >> type >> a >> b >> r;
    std::string error;
    if (type == "int8")
      error = check_case<std::int8_t>(op, a, b, r);
    else if (type == "int16")
      error = check_case<std::int16_t>(op, a, b, r);
    else if (type == "int32")
      error = check_case<std::int32_t>(op, a, b, r);
    else if (type == "int64")
      error = check_case<std::int64_t>(op, a, b, r);
    else if (type == "uint8")
      error = check_case<std::uint8_t>(op, a, b, r);
    else if (type == "uint16")
      error = check_case<std::uint16_t>(op, a, b, r);
    else if (type == "uint32")
      error = check_case<std::uint32_t>(op, a, b, r);
    else if (type == "uint64")
      error = check_case<std::uint64_t>(op, a, b, r);
    else if (type == "float32")
      error = check_case<float>(op, a, b, r);
    else if (type == "float64")
      error = check_case<double>(op, a, b, r);
    else
      error = "unknown dtype " + type;
    ++checked;
    if (!error.empty() && failures++ < 20) ADD_FAILURE() << type << " " << error;
  }
  EXPECT_GT(checked, 4000);
  EXPECT_EQ(failures, 0);
}
