// Complex division against NumPy 2's own results (tests/data/complex_division.csv, written by
// gen_complex_division.py): zero divisors give NumPy's infinities ((1+1j)/0 is inf+infj, (1+0j)/0
// inf+nanj), NaN and infinite parts, subnormal and huge values, random magnitudes. The device's
// algorithm (kernels/complex.cuh) is compiled on the host here as well, so the table is checked
// without a GPU; the GPU test runs the same table through a fused kernel.
// Tolerance: NaN, infinities (with their sign) and zeros exactly; finite values within 8 eps of
// |a| / |b| per part (NVRTC contracts into FMAs, so the last bits may differ from NumPy's).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <ndcuda/ndcuda.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/gpu.hpp"

// kernels/complex.cuh is written for NVRTC; two device names stand in on the host.
using std::isinf;
inline float __int_as_float(int bits) {  // NOLINT: the CUDA intrinsic's name
  float f = 0;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
namespace device_side {
#include "../../kernels/complex.cuh"
}  // namespace device_side

namespace nd = ndcuda;

namespace {

template <class T>
struct division_case {
  std::complex<T> a;
  std::complex<T> b;
  std::complex<T> q;  // NumPy's a / b
  int line = 0;
};

std::complex<double> parse_pair(const std::string& cell) {
  std::istringstream in(cell);
  std::string re;
  std::string im;
  in >> re >> im;
  return {std::strtod(re.c_str(), nullptr), std::strtod(im.c_str(), nullptr)};
}

template <class T>
std::vector<division_case<T>> load_cases(const char* type_name) {
  std::ifstream file(NDCUDA_TEST_DATA_DIR "/complex_division.csv");
  EXPECT_TRUE(file) << "missing " NDCUDA_TEST_DATA_DIR "/complex_division.csv (run tests/data/gen_complex_division.py)";
  std::vector<division_case<T>> cases;
  std::string line;
  int number = 0;
  while (std::getline(file, line)) {
    ++number;
    if (line.empty() || line[0] == '#') {
      continue;
    }
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ';');) {
      cells.push_back(cell);
    }
    if (cells.size() != 4 || cells[0] != type_name) {
      continue;
    }
    cases.push_back({std::complex<T>(parse_pair(cells[1])), std::complex<T>(parse_pair(cells[2])),
                     std::complex<T>(parse_pair(cells[3])), number});
  }
  return cases;
}

// One part of a quotient: NaN, infinities and zeros exactly (the sign of an infinity counts), finite
// values within 8 eps of the quotient's scale |a| / |b|.
template <class T>
bool part_matches(T got, T want, long double scale) {
  if (std::isnan(want) || std::isnan(got)) {
    return std::isnan(want) && std::isnan(got);
  }
  if (std::isinf(want) || std::isinf(got)) {
    return got == want;
  }
  const long double eps = std::numeric_limits<T>::epsilon();
  const long double tolerance = 8 * eps * scale + 2 * static_cast<long double>(std::numeric_limits<T>::denorm_min());
  return std::fabs(static_cast<long double>(got) - static_cast<long double>(want)) <= tolerance;
}

template <class T>
long double scale_of(const division_case<T>& c) {
  const long double num = std::hypot(static_cast<long double>(c.a.real()), static_cast<long double>(c.a.imag()));
  const long double den = std::hypot(static_cast<long double>(c.b.real()), static_cast<long double>(c.b.imag()));
  return num / den;
}

template <class T>
void expect_matches(const division_case<T>& c, std::complex<T> got) {
  const long double scale = scale_of(c);
  EXPECT_TRUE(part_matches(got.real(), c.q.real(), scale) && part_matches(got.imag(), c.q.imag(), scale))
      << "line " << c.line << ": (" << c.a.real() << ", " << c.a.imag() << ") / (" << c.b.real() << ", " << c.b.imag()
      << ") gave (" << got.real() << ", " << got.imag() << "), NumPy (" << c.q.real() << ", " << c.q.imag() << ")";
}

template <class T>
void check_host(const char* type_name) {
  const auto cases = load_cases<T>(type_name);
  ASSERT_GT(cases.size(), 1000U);
  for (const auto& c : cases) {
    const device_side::ndcuda::complex<T> a(c.a.real(), c.a.imag());
    const device_side::ndcuda::complex<T> b(c.b.real(), c.b.imag());
    const auto q = a / b;
    expect_matches(c, std::complex<T>(q.real(), q.imag()));
  }
}

template <class T>
void check_device(const char* type_name) {
  const auto cases = load_cases<T>(type_name);
  ASSERT_GT(cases.size(), 1000U);
  std::vector<std::complex<T>> a;
  std::vector<std::complex<T>> b;
  for (const auto& c : cases) {
    a.push_back(c.a);
    b.push_back(c.b);
  }
  const auto da = nd::asarray<std::complex<T>>(a);
  const auto db = nd::asarray<std::complex<T>>(b);
  const nd::ndarray<std::complex<T>> q = da / db;
  const std::vector<std::complex<T>> got = q.to_host();
  ASSERT_EQ(got.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    expect_matches(cases[i], got[i]);
  }
}

}  // namespace

TEST(ComplexDivision, HostAlgorithmMatchesNumPyIncludingZeroDivisors) {
  check_host<float>("complex64");
  check_host<double>("complex128");
  // The cases the issue names, spelled out: NumPy divides each part by +0.
  using c128 = device_side::ndcuda::complex<double>;
  const c128 zero(0.0, 0.0);
  const c128 q1 = c128(1.0, 1.0) / zero;
  EXPECT_TRUE(std::isinf(q1.real()) && q1.real() > 0 && std::isinf(q1.imag()) && q1.imag() > 0);
  const c128 q2 = c128(1.0, 0.0) / zero;
  EXPECT_TRUE(std::isinf(q2.real()) && q2.real() > 0 && std::isnan(q2.imag()));
  const c128 q3 = c128(-1.0, 0.0) / c128(-0.0, 0.0);
  EXPECT_TRUE(std::isinf(q3.real()) && q3.real() < 0 && std::isnan(q3.imag()));
  const c128 q4 = zero / zero;
  EXPECT_TRUE(std::isnan(q4.real()) && std::isnan(q4.imag()));
}

TEST(ComplexDivisionGpu, FusedKernelMatchesNumPyIncludingZeroDivisors) {
  NDCUDA_REQUIRE_GPU();
  check_device<float>("complex64");
  check_device<double>("complex128");
}
