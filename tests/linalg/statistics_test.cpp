// Statistics of issue 19: quantile/percentile/median (+nan forms), linalg::norm with every ord,
// cov and corrcoef. CPU: plans, dtypes, errors, NVRTC; GPU: NumPy's cases and random host references.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <fstream>
#include <limits>
#include <ndcuda/linalg.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
using nd::quantile_method;

namespace {

// ---------------------------------------------------------------------------------------------
// CPU: names, plans, checks, dtypes, NVRTC

TEST(QuantileCpu, MethodNamesAndNumPysMessage) {
  EXPECT_EQ(nd::quantile_method_named("linear"), quantile_method::linear);
  EXPECT_EQ(nd::quantile_method_named("inverted_cdf"), quantile_method::inverted_cdf);
  EXPECT_EQ(nd::quantile_method_named("nearest"), quantile_method::nearest);
  EXPECT_EQ(nd::quantile_method_named("median_unbiased"), quantile_method::median_unbiased);
  try {
    (void)nd::quantile_method_named("foo");
    FAIL() << "no throw";
  } catch (const nd::value_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "'foo' is not a valid method. Use one of: dict_keys(['inverted_cdf', 'averaged_inverted_cdf', "
              "'closest_observation', 'interpolated_inverted_cdf', 'hazen', 'weibull', 'linear', 'median_unbiased', "
              "'normal_unbiased', 'lower', 'higher', 'midpoint', 'nearest'])");
  }
}

TEST(QuantileCpu, PlanMovesReducedAxesLast) {
  const auto p = nd::detail::plan_quantile({2, 3, 4}, std::vector<int>{2, 0}, false);
  EXPECT_EQ(p.perm, (std::vector<nd::index_t>{1, 0, 2}));
  EXPECT_EQ(p.rows, 3);
  EXPECT_EQ(p.length, 8);
  EXPECT_EQ(p.result_shape, (nd::shape_t{3}));
  const auto k = nd::detail::plan_quantile({2, 3, 4}, std::vector<int>{-1}, true);
  EXPECT_EQ(k.result_shape, (nd::shape_t{2, 3, 1}));
  EXPECT_EQ(k.length, 4);
  const auto all = nd::detail::plan_quantile({2, 3}, std::nullopt, true);
  EXPECT_EQ(all.result_shape, (nd::shape_t{1, 1}));
  EXPECT_EQ(all.rows, 1);
  EXPECT_EQ(all.length, 6);
  const auto scalar = nd::detail::plan_quantile({}, std::nullopt, false);
  EXPECT_EQ(scalar.length, 1);
  EXPECT_TRUE(scalar.result_shape.empty());
  EXPECT_THROW((void)nd::detail::plan_quantile({2, 3}, std::vector<int>{1, -1}, false), nd::value_error);
  try {
    (void)nd::detail::plan_quantile({2, 3}, std::vector<int>{2}, false);
    FAIL() << "no throw";
  } catch (const nd::shape_error& e) {
    EXPECT_EQ(std::string(e.what()), "axis 2 is out of bounds for array of dimension 2");
  }
}

TEST(QuantileCpu, RangeChecksWithNumPysMessages) {
  EXPECT_NO_THROW(nd::detail::check_quantiles(std::vector<double>{0.0, 0.5, 1.0}, false));
  EXPECT_NO_THROW(nd::detail::check_quantiles(std::vector<double>{0.0, 100.0}, true));
  for (double bad : {-0.1, 1.5, std::nan("")}) {
    try {
      nd::detail::check_quantiles(std::vector<double>{0.5, bad}, false);
      FAIL() << bad;
    } catch (const nd::value_error& e) {
      EXPECT_EQ(std::string(e.what()), "Quantiles must be in the range [0, 1]");
    }
  }
  try {
    nd::detail::check_quantiles(std::vector<double>{100.5}, true);
    FAIL();
  } catch (const nd::value_error& e) {
    EXPECT_EQ(std::string(e.what()), "Percentiles must be in the range [0, 100]");
  }
}

template <class T, quantile_method M, bool Median, bool Weak>
using result_of = typename nd::detail::quantile_types<T, M, Median, Weak>::result;

TEST(QuantileCpu, ResultDtypesAsNumPy) {
  using L = std::integral_constant<quantile_method, quantile_method::linear>;
  static_assert(std::is_same_v<result_of<float, L::value, false, true>, float>);    // weak q keeps float32
  static_assert(std::is_same_v<result_of<float, L::value, false, false>, double>);  // a list of q: float64
  static_assert(std::is_same_v<result_of<__half, L::value, false, true>, __half>);  // float16 stays
  static_assert(std::is_same_v<result_of<std::int8_t, L::value, false, true>, double>);
  static_assert(std::is_same_v<result_of<std::int8_t, quantile_method::lower, false, false>, std::int8_t>);
  static_assert(std::is_same_v<result_of<std::int64_t, quantile_method::nearest, false, true>, std::int64_t>);
  static_assert(std::is_same_v<result_of<std::int64_t, quantile_method::midpoint, false, true>, double>);
  static_assert(std::is_same_v<result_of<bool, L::value, true, true>, double>);  // median of bool
  static_assert(std::is_same_v<result_of<float, L::value, true, true>, float>);  // median of float32
  static_assert(std::is_same_v<result_of<std::uint8_t, L::value, true, true>, double>);
  SUCCEED();
}

TEST(QuantileCpu, KernelCompilesWithNvrtc) {
  EXPECT_NO_THROW(nd::detail::compile_quantile_kernels(nd::compute_capability{8, 0}));
}

// ---------------------------------------------------------------------------------------------
// GPU: NumPy's cases (tests/data/gen_quantile_cases_19.py)

struct quantile_case {
  std::string func, method, line;
  bool weak = true, keepdims = false;
  std::optional<std::vector<int>> axes;
  std::string a_dtype;
  nd::shape_t a_shape, q_shape, r_shape;
  std::vector<std::string> a_values, r_values;
  std::vector<double> q;
  std::string r_dtype, error_type, error_message;
};

nd::shape_t read_shape(std::istringstream& in) {
  int ndim = 0;
  in >> ndim;
  nd::shape_t s(static_cast<std::size_t>(ndim));
  for (auto& d : s) {
    in >> d;
  }
  return s;
}

std::vector<std::string> read_rest(std::istringstream& in) {
  std::vector<std::string> v;
  std::string w;
  while (in >> w) {
    v.push_back(w);
  }
  return v;
}

std::vector<quantile_case> load_cases() {
  std::ifstream file(std::string(NDCUDA_TEST_DATA_DIR) + "/quantile_cases_19.txt");
  std::vector<quantile_case> cases;
  std::string line;
  while (std::getline(file, line)) {
    std::istringstream in(line);
    std::string tag;
    in >> tag;
    if (tag == "case") {
      quantile_case c;
      c.line = line;
      std::string axis;
      int weak = 0, keep = 0;
      in >> c.func >> c.method >> weak >> axis >> keep;
      c.weak = weak != 0;
      c.keepdims = keep != 0;
      if (axis != "none") {
        std::vector<int> list;
        std::stringstream parts(axis);
        std::string part;
        while (std::getline(parts, part, ',')) {
          list.push_back(std::stoi(part));
        }
        c.axes = list;
      }
      cases.push_back(c);
    } else if (tag == "a") {
      in >> cases.back().a_dtype;
      cases.back().a_shape = read_shape(in);
      cases.back().a_values = read_rest(in);
    } else if (tag == "q") {
      cases.back().q_shape = read_shape(in);
      for (const auto& w : read_rest(in)) {
        cases.back().q.push_back(std::strtod(w.c_str(), nullptr));
      }
    } else if (tag == "r") {
      in >> cases.back().r_dtype;
      cases.back().r_shape = read_shape(in);
      cases.back().r_values = read_rest(in);
    } else if (tag == "e") {
      in >> cases.back().error_type;
      std::getline(in, cases.back().error_message);
      cases.back().error_message.erase(0, 1);
    }
  }
  return cases;
}

template <class T>
nd::ndarray<T> make_input(const quantile_case& c) {
  if constexpr (std::is_same_v<T, std::complex<double>>) {
    std::vector<T> v;
    for (const auto& w : c.a_values) {
      const auto colon = w.find(':');
      v.emplace_back(std::strtod(w.substr(0, colon).c_str(), nullptr),
                     std::strtod(w.substr(colon + 1).c_str(), nullptr));
    }
    return nd::asarray(v, c.a_shape);
  } else if constexpr (std::is_integral_v<T>) {
    std::vector<std::int64_t> v;
    for (const auto& w : c.a_values) {
      v.push_back(std::strtoll(w.c_str(), nullptr, 10));
    }
    return nd::asarray(v, c.a_shape).template astype<T>();
  } else {
    std::vector<double> v;
    for (const auto& w : c.a_values) {
      v.push_back(std::strtod(w.c_str(), nullptr));
    }
    return nd::asarray(v, c.a_shape).template astype<T>();
  }
}

nd::axes axes_of(const quantile_case& c) {
  return c.axes ? nd::axes(*c.axes) : nd::axes();
}

template <class R>
void check_result(const quantile_case& c, const nd::ndarray<R>& r) {
  ASSERT_TRUE(c.error_type.empty()) << c.line << ": NumPy raises " << c.error_type << " " << c.error_message;
  EXPECT_EQ(std::string(nd::name(nd::dtype_of<R>)), c.r_dtype) << c.line;
  ASSERT_EQ(r.shape(), c.r_shape) << c.line;
  if constexpr (std::is_integral_v<R>) {
    const auto got = r.template astype<std::int64_t>().to_host();
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i], std::strtoll(c.r_values[i].c_str(), nullptr, 10)) << c.line << " at " << i;
    }
  } else {
    const auto got = r.template astype<double>().to_host();
    // float16 is interpolated in float32 here (NumPy rounds each step to float16): a few ulps.
    const double tol = std::is_same_v<R, __half> ? 4e-3 : 0.0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double want = std::strtod(c.r_values[i].c_str(), nullptr);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got[i])) << c.line << " at " << i << ": " << got[i];
      } else if (tol == 0.0 || std::isinf(want)) {
        EXPECT_EQ(got[i], want) << c.line << " at " << i;
      } else {
        EXPECT_NEAR(got[i], want, tol * std::max(1.0, std::abs(want))) << c.line << " at " << i;
      }
    }
  }
}

template <class F>
void expect_case(const quantile_case& c, F&& f) {
  if (c.error_type.empty()) {
    check_result(c, f());
    return;
  }
  try {
    (void)f();
    ADD_FAILURE() << c.line << ": no throw, NumPy raises " << c.error_type;
  } catch (const nd::error& e) {
    EXPECT_EQ(std::string(e.what()), c.error_message) << c.line;
    if (c.error_type == "ValueError") {
      EXPECT_NE(dynamic_cast<const nd::value_error*>(&e), nullptr) << c.line;
    } else if (c.error_type == "TypeError") {
      EXPECT_NE(dynamic_cast<const nd::type_error*>(&e), nullptr) << c.line;
    } else if (c.error_type == "IndexError") {
      EXPECT_NE(dynamic_cast<const nd::index_error*>(&e), nullptr) << c.line;
    } else {
      EXPECT_NE(dynamic_cast<const nd::shape_error*>(&e), nullptr) << c.line;  // AxisError
    }
  }
}

// The table goes through quantile_of (what every public quantile function forwards to) so that
// the 13 methods are instantiated twice per dtype, not 12 times; PublicFunctions calls each one.
template <class T, quantile_method M>
void run_method(const quantile_case& c, const nd::ndarray<T>& a) {
  const bool percent = c.func.find("percentile") != std::string::npos;
  const bool skip_nan = c.func.rfind("nan", 0) == 0;
  const nd::detail::quantile_options opt(nd::keepdims(c.keepdims));
  if (c.weak) {
    expect_case(c, [&] {
      return nd::detail::quantile_of<M, false, true>(a, nd::detail::ask_for(c.q, {}, percent, skip_nan), axes_of(c),
                                                     opt);
    });
  } else {
    expect_case(c, [&] {
      return nd::detail::quantile_of<M, false, false>(a, nd::detail::ask_for(c.q, c.q_shape, percent, skip_nan),
                                                      axes_of(c), opt);
    });
  }
}

template <class T>
void run_typed(const quantile_case& c) {
  const auto a = make_input<T>(c);
  if (c.func == "median") {
    expect_case(c, [&] { return nd::median(a, axes_of(c), nd::keepdims(c.keepdims)); });
    return;
  }
  if (c.func == "nanmedian") {
    expect_case(c, [&] { return nd::nanmedian(a, axes_of(c), nd::keepdims(c.keepdims)); });
    return;
  }
  const quantile_method m = nd::quantile_method_named(c.method);
  if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, bool> || std::is_same_v<T, std::complex<double>>) {
    if (m == quantile_method::lower) {
      run_method<T, quantile_method::lower>(c, a);
    } else {
      run_method<T, quantile_method::linear>(c, a);
    }
  } else {
    switch (m) {
#define NDCUDA_TEST_METHOD(name)                \
  case quantile_method::name:                   \
    run_method<T, quantile_method::name>(c, a); \
    break;
      NDCUDA_TEST_METHOD(inverted_cdf)
      NDCUDA_TEST_METHOD(averaged_inverted_cdf)
      NDCUDA_TEST_METHOD(closest_observation)
      NDCUDA_TEST_METHOD(interpolated_inverted_cdf)
      NDCUDA_TEST_METHOD(hazen)
      NDCUDA_TEST_METHOD(weibull)
      NDCUDA_TEST_METHOD(linear)
      NDCUDA_TEST_METHOD(median_unbiased)
      NDCUDA_TEST_METHOD(normal_unbiased)
      NDCUDA_TEST_METHOD(lower)
      NDCUDA_TEST_METHOD(higher)
      NDCUDA_TEST_METHOD(midpoint)
      NDCUDA_TEST_METHOD(nearest)
#undef NDCUDA_TEST_METHOD
    }
  }
}

TEST(QuantileGpu, NumPyCases) {
  const auto cases = load_cases();
  ASSERT_GT(cases.size(), 250u);
  NDCUDA_REQUIRE_GPU();
  for (const auto& c : cases) {
    if (c.a_dtype == "float64") {
      run_typed<double>(c);
    } else if (c.a_dtype == "float32") {
      run_typed<float>(c);
    } else if (c.a_dtype == "float16") {
      run_typed<__half>(c);
    } else if (c.a_dtype == "int8") {
      run_typed<std::int8_t>(c);
    } else if (c.a_dtype == "int64") {
      run_typed<std::int64_t>(c);
    } else if (c.a_dtype == "uint8") {
      run_typed<std::uint8_t>(c);
    } else if (c.a_dtype == "bool") {
      run_typed<bool>(c);
    } else if (c.a_dtype == "complex128") {
      run_typed<std::complex<double>>(c);
    } else {
      ADD_FAILURE() << "dtype " << c.a_dtype << " in " << c.line;
    }
  }
}

TEST(QuantileGpu, PublicFunctions) {
  NDCUDA_REQUIRE_GPU();
  const auto a = nd::asarray(std::vector<double>{4, 1, 3, 2, 8, 5}, {2, 3});  // rows {4,1,3}, {2,8,5}
  const auto q = nd::quantile(a, 0.5, 1).to_host();
  EXPECT_EQ(q, (std::vector<double>{3, 5}));
  const auto p = nd::percentile<quantile_method::lower>(a, std::vector<double>{0, 100}, 1, nd::keepdims);
  EXPECT_EQ(p.shape(), (nd::shape_t{2, 2, 1}));
  EXPECT_EQ(p.to_host(), (std::vector<double>{1, 2, 4, 8}));
  const auto qa = nd::asarray(std::vector<double>{0.0, 0.5, 1.0, 0.25}, {2, 2});
  const auto r = nd::quantile(a, qa);
  EXPECT_EQ(r.shape(), (nd::shape_t{2, 2}));
  EXPECT_EQ(r.to_host(), (std::vector<double>{1, 3.5, 8, 2.25}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto b = nd::asarray(std::vector<double>{1, nan, 3, nan, nan, nan}, {2, 3});
  const auto nq = nd::nanquantile(b, 0.5, 1).to_host();
  EXPECT_EQ(nq[0], 2.0);
  EXPECT_TRUE(std::isnan(nq[1]));
  EXPECT_EQ(nd::nanpercentile(b, 100.0).item(), 3.0);
  EXPECT_EQ(nd::median(a).item(), 3.5);
  EXPECT_EQ(nd::nanmedian(b, 0).to_host()[0], 1.0);
  // Expressions are evaluated first; a stream may be given.
  const nd::stream s;
  EXPECT_EQ(nd::median(a * 2.0, 1, s).to_host(), (std::vector<double>{6, 10}));
  EXPECT_EQ(nd::quantile<quantile_method::nearest>(a + 0.0, 0.5, s).item(), 3.0);  // index 2.5 rounds to even
}

// A double host reference on fresh random input (NaNs sprinkled in) for linear, lower and median.
TEST(QuantileGpu, RandomAgainstHostReference) {
  NDCUDA_REQUIRE_GPU();
  auto& gen = nd::testing::rng();
  std::uniform_int_distribution<int> extent(1, 40);
  for (int trial = 0; trial < 6; ++trial) {
    const nd::index_t rows = extent(gen), length = extent(gen);
    const std::vector<double> host = nd::testing::with_nans(
        nd::testing::normal_values<double>(static_cast<std::size_t>(rows * length), 0.0, 10.0), 1.0 / 9);
    // Stored as (length, rows): the quantile runs over axis 0, a strided axis.
    const auto a = nd::asarray(host, {rows, length}).T();
    const std::vector<double> qs{0.0, 0.13, 0.5, 0.77, 1.0};
    const auto got = nd::nanquantile(a, qs, 0).to_host();
    const auto low = nd::nanquantile<quantile_method::lower>(a, qs, 0).to_host();
    const auto med = nd::nanmedian(a, 0).to_host();
    for (nd::index_t r = 0; r < rows; ++r) {
      std::vector<double> row;
      for (nd::index_t j = 0; j < length; ++j) {
        const double v = host[static_cast<std::size_t>(r * length + j)];
        if (!std::isnan(v)) {
          row.push_back(v);
        }
      }
      std::sort(row.begin(), row.end());
      const auto n = static_cast<double>(row.size());
      for (std::size_t i = 0; i < qs.size(); ++i) {
        const double g = got[i * static_cast<std::size_t>(rows) + static_cast<std::size_t>(r)];
        const double l = low[i * static_cast<std::size_t>(rows) + static_cast<std::size_t>(r)];
        if (row.empty()) {
          EXPECT_TRUE(std::isnan(g));
          continue;
        }
        const double v = (n - 1) * qs[i];
        const auto lo = static_cast<std::size_t>(std::floor(v));
        const std::size_t hi = std::min(lo + 1, row.size() - 1);
        const double want = row[lo] + (row[hi] - row[lo]) * (v - std::floor(v));
        EXPECT_NEAR(g, want, 1e-12 * (1 + std::abs(want))) << "trial " << trial << " row " << r << " q " << qs[i];
        EXPECT_EQ(l, row[lo]);
      }
      const double m = med[static_cast<std::size_t>(r)];
      if (row.empty()) {
        EXPECT_TRUE(std::isnan(m));
      } else {
        const std::size_t h = row.size() / 2;
        const double want = row.size() % 2 ? row[h] : (row[h - 1] + row[h]) / 2;
        EXPECT_DOUBLE_EQ(m, want);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// norm, cov, corrcoef: NumPy's cases (norm_cov_cases_19.txt, from the same script)

struct host_values {
  std::string dtype;
  nd::shape_t shape;
  std::vector<std::string> values;
};

struct norm_cov_case {
  std::vector<std::string> head;  // the case line's words
  std::string line;
  host_values a, r;
  std::optional<host_values> y;
  std::string error_type, error_message;
};

host_values read_values(std::istringstream& in) {
  host_values h;
  in >> h.dtype;
  h.shape = read_shape(in);
  h.values = read_rest(in);
  return h;
}

std::vector<norm_cov_case> load_norm_cov_cases() {
  std::ifstream file(std::string(NDCUDA_TEST_DATA_DIR) + "/norm_cov_cases_19.txt");
  std::vector<norm_cov_case> cases;
  std::string line;
  while (std::getline(file, line)) {
    std::istringstream in(line);
    std::string tag;
    in >> tag;
    if (tag == "a") {
      cases.back().a = read_values(in);
    } else if (tag == "y") {
      cases.back().y = read_values(in);
    } else if (tag == "r") {
      cases.back().r = read_values(in);
    } else if (tag == "e") {
      in >> cases.back().error_type;
      std::getline(in, cases.back().error_message);
      cases.back().error_message.erase(0, 1);
    } else if (!tag.empty()) {
      norm_cov_case c;
      c.line = line;
      c.head.push_back(tag);
      for (const auto& w : read_rest(in)) {
        c.head.push_back(w);
      }
      cases.push_back(c);
    }
  }
  return cases;
}

std::complex<double> parse_value(const std::string& w) {
  const auto colon = w.find(':');
  if (colon == std::string::npos) {
    return {std::strtod(w.c_str(), nullptr), 0.0};
  }
  return {std::strtod(w.substr(0, colon).c_str(), nullptr), std::strtod(w.substr(colon + 1).c_str(), nullptr)};
}

template <class T>
nd::ndarray<T> make_values(const host_values& h) {
  std::vector<std::complex<double>> v;
  for (const auto& w : h.values) {
    v.push_back(parse_value(w));
  }
  if constexpr (std::is_same_v<T, std::complex<double>>) {
    return nd::asarray(v, h.shape);
  } else {
    std::vector<double> re;
    for (const auto& z : v) {
      re.push_back(z.real());
    }
    return nd::asarray(re, h.shape).template astype<T>();
  }
}

std::vector<double> list_of(const std::string& w) {
  std::vector<double> v;
  std::stringstream parts(w);
  std::string part;
  while (std::getline(parts, part, ',')) {
    v.push_back(std::strtod(part.c_str(), nullptr));
  }
  return v;
}

template <class R>
void check_values(const norm_cov_case& c, const nd::ndarray<R>& r, double tol) {
  ASSERT_TRUE(c.error_type.empty()) << c.line << ": NumPy raises " << c.error_type << " " << c.error_message;
  EXPECT_EQ(std::string(nd::name(nd::dtype_of<R>)), c.r.dtype) << c.line;
  ASSERT_EQ(r.shape(), c.r.shape) << c.line;
  std::vector<std::complex<double>> got;
  if constexpr (std::is_same_v<R, std::complex<double>>) {
    got = r.to_host();
  } else {
    for (double v : r.template astype<double>().to_host()) {
      got.emplace_back(v, 0.0);
    }
  }
  double scale = 1.0;
  for (const auto& w : c.r.values) {
    scale = std::max(scale, std::abs(parse_value(w)));
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto want = parse_value(c.r.values[i]);
    if (std::isnan(want.real()) || std::isnan(want.imag())) {  // e.g. cov with ddof >= n
      EXPECT_TRUE(std::isnan(got[i].real()) || std::isnan(got[i].imag())) << c.line << " at " << i << ": " << got[i];
    } else if (std::isinf(want.real())) {
      EXPECT_EQ(got[i].real(), want.real()) << c.line << " at " << i;
    } else {
      EXPECT_LE(std::abs(got[i] - want), tol * scale) << c.line << " at " << i << ": " << got[i] << " vs " << want;
    }
  }
}

template <class F>
void expect_norm_cov(const norm_cov_case& c, double tol, F&& f) {
  if (c.error_type.empty()) {
    check_values(c, f(), tol);
    return;
  }
  try {
    (void)f();
    ADD_FAILURE() << c.line << ": no throw, NumPy raises " << c.error_type;
  } catch (const nd::error& e) {
    // NumPy's RuntimeErrors are shape_errors here, their text extended with the sizes.
    EXPECT_EQ(std::string(e.what()).rfind(c.error_message, 0), 0u) << c.line << ": " << e.what();
    if (c.error_type == "ValueError") {
      EXPECT_NE(dynamic_cast<const nd::value_error*>(&e), nullptr) << c.line;
    } else if (c.error_type == "TypeError") {
      EXPECT_NE(dynamic_cast<const nd::type_error*>(&e), nullptr) << c.line;
    } else {
      EXPECT_NE(dynamic_cast<const nd::shape_error*>(&e), nullptr) << c.line;
    }
  }
}

template <class T>
void run_norm_cov(const norm_cov_case& c) {
  const auto a = make_values<T>(c.a);
  const double tol = (std::is_same_v<T, float> ? 3e-6 : 1e-12) * 64;
  const std::string& kind = c.head[0];
  if (kind == "norm") {
    const std::string& ord = c.head[1];
    const nd::axes ax = c.head[2] == "none" ? nd::axes() : [&] {
      std::vector<int> list;
      for (double v : list_of(c.head[2])) {
        list.push_back(static_cast<int>(v));
      }
      return nd::axes(list);
    }();
    const auto keep = nd::keepdims(c.head[3] == "1");
    if (ord == "none") {
      expect_norm_cov(c, tol, [&] { return nd::linalg::norm(a, nd::none, ax, keep); });
    } else if (ord == "fro" || ord == "nuc") {
      expect_norm_cov(c, tol, [&] { return nd::linalg::norm(a, std::string_view(ord), ax, keep); });
    } else {
      expect_norm_cov(c, tol, [&] { return nd::linalg::norm(a, std::strtod(ord.c_str(), nullptr), ax, keep); });
    }
    return;
  }
  const bool has_y = c.head.back() == "1";
  if (kind == "corrcoef") {
    const bool rowvar = c.head[1] == "1";
    if (has_y) {
      const auto y = make_values<T>(*c.y);
      expect_norm_cov(c, tol, [&] { return nd::linalg::corrcoef(a, y, rowvar); });
    } else {
      expect_norm_cov(c, tol, [&] { return nd::linalg::corrcoef(a, rowvar); });
    }
    return;
  }
  nd::linalg::cov_options o;
  o.rowvar = c.head[1] == "1";
  o.bias = c.head[2] == "1";
  if (c.head[3] != "none") {
    o.ddof = std::stoi(c.head[3]);
  }
  if (c.head[4] != "none") {
    o.fweights = list_of(c.head[4]);
  }
  if (c.head[5] != "none") {
    o.aweights = list_of(c.head[5]);
  }
  if (has_y) {
    const auto y = make_values<T>(*c.y);
    expect_norm_cov(c, tol, [&] { return nd::linalg::cov(a, y, o); });
  } else {
    expect_norm_cov(c, tol, [&] { return nd::linalg::cov(a, o); });
  }
}

TEST(NormCovGpu, NumPyCases) {
  const auto cases = load_norm_cov_cases();
  ASSERT_GT(cases.size(), 100u);
  NDCUDA_REQUIRE_GPU();
  for (const auto& c : cases) {
    if (c.a.dtype == "float64") {
      run_norm_cov<double>(c);
    } else if (c.a.dtype == "float32") {
      run_norm_cov<float>(c);
    } else if (c.a.dtype == "int64") {
      run_norm_cov<std::int64_t>(c);
    } else if (c.a.dtype == "complex128") {
      run_norm_cov<std::complex<double>>(c);
    } else {
      ADD_FAILURE() << "dtype " << c.a.dtype << " in " << c.line;
    }
  }
}

// Random input against double host references: p-norms along an axis, cov with weights.
TEST(NormCovGpu, RandomAgainstHostReference) {
  NDCUDA_REQUIRE_GPU();
  const nd::index_t rows = 5, cols = 33;
  const std::vector<double> host = nd::testing::normal_values<double>(static_cast<std::size_t>(rows * cols), 0.0, 3.0);
  const auto a = nd::asarray(host, {rows, cols});
  for (double p : {0.0, 0.7, 1.0, 2.0, 3.5, -1.5, std::numeric_limits<double>::infinity()}) {
    const auto got = nd::linalg::norm(a, p, 1).to_host();
    for (nd::index_t r = 0; r < rows; ++r) {
      double acc = 0, top = 0;
      for (nd::index_t j = 0; j < cols; ++j) {
        const double v = std::abs(host[static_cast<std::size_t>(r * cols + j)]);
        acc += p == 0 ? (v != 0) : std::pow(v, p);
        top = std::max(top, v);
      }
      const double want = std::isinf(p) ? top : p == 0 ? acc : std::pow(acc, 1 / p);
      EXPECT_NEAR(got[static_cast<std::size_t>(r)], want, 1e-11 * (1 + want)) << "ord " << p << " row " << r;
    }
  }
  const std::vector<double> aw = nd::testing::uniform_values<double>(static_cast<std::size_t>(cols), 0.1, 2.0);
  nd::linalg::cov_options o;
  o.aweights = aw;
  const auto c = nd::linalg::cov(a, o).to_host();
  double wsum = 0, w2 = 0;
  for (double w : aw) {
    wsum += w;
    w2 += w * w;
  }
  std::vector<double> mean(static_cast<std::size_t>(rows), 0.0);
  for (nd::index_t r = 0; r < rows; ++r) {
    for (nd::index_t j = 0; j < cols; ++j) {
      mean[static_cast<std::size_t>(r)] +=
          aw[static_cast<std::size_t>(j)] * host[static_cast<std::size_t>(r * cols + j)];
    }
    mean[static_cast<std::size_t>(r)] /= wsum;
  }
  const double fact = wsum - w2 / wsum;  // ddof 1 with aweights
  for (nd::index_t i = 0; i < rows; ++i) {
    for (nd::index_t k = 0; k < rows; ++k) {
      double acc = 0;
      for (nd::index_t j = 0; j < cols; ++j) {
        acc += aw[static_cast<std::size_t>(j)] *
               (host[static_cast<std::size_t>(i * cols + j)] - mean[static_cast<std::size_t>(i)]) *
               (host[static_cast<std::size_t>(k * cols + j)] - mean[static_cast<std::size_t>(k)]);
      }
      EXPECT_NEAR(c[static_cast<std::size_t>(i * rows + k)], acc / fact, 1e-11 * (1 + std::abs(acc / fact)));
    }
  }
  const auto r = nd::linalg::corrcoef(a).to_host();
  for (nd::index_t i = 0; i < rows; ++i) {
    EXPECT_NEAR(r[static_cast<std::size_t>(i * rows + i)], 1.0, 1e-12);
  }
}

TEST(NormCovCpu, OptionsAndTypes) {
  const nd::linalg::cov_options o{.rowvar = false, .ddof = 0};
  EXPECT_FALSE(o.rowvar);
  EXPECT_EQ(nd::linalg::detail::cov_divisor(o, std::nullopt, 10), 10.0);
  EXPECT_EQ(nd::linalg::detail::cov_divisor(nd::linalg::cov_options{}, std::nullopt, 10), 9.0);
  EXPECT_EQ(nd::linalg::detail::cov_divisor(nd::linalg::cov_options{}, std::nullopt, 1), 0.0);  // NumPy: fact 0
  nd::linalg::cov_options f;
  f.fweights = std::vector<double>{1, 2, 3};
  const auto w = nd::linalg::detail::cov_weights(f, 3);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(nd::linalg::detail::cov_divisor(f, w, 3), 5.0);  // sum 6 - ddof 1
  EXPECT_THROW((void)nd::linalg::detail::cov_weights(f, 4), nd::shape_error);
  f.fweights = std::vector<double>{1, 2.5, 3};
  EXPECT_THROW((void)nd::linalg::detail::cov_weights(f, 3), nd::type_error);
  nd::linalg::cov_options z;
  z.aweights = std::vector<double>{0, 0};
  EXPECT_THROW((void)nd::linalg::detail::cov_weights(z, 2), nd::value_error);
  static_assert(std::is_same_v<nd::linalg::detail::cov_t<nd::ndarray<float>>, double>);
  static_assert(std::is_same_v<nd::linalg::detail::cov_t<nd::ndarray<std::complex<float>>>, std::complex<double>>);
}

}  // namespace
