// Issue 19: sort/argsort with nd::none, lexsort, isin and the set functions, and NumPy's complex
// order. On the GPU against NumPy's answers (tests/data/gen_sets_cases_19.py) and, on random data,
// against host std::stable_sort / std::set_* references (skipped without a GPU); on the CPU the
// complex sort keys (src/ops/sort_codec.hpp), NVRTC compiles of the complex ufuncs, and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/ops/sets.hpp>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "jit/elementwise_source.hpp"
#include "jit/elementwise_state.hpp"
#include "ops/sort_codec.hpp"
#include "support/fake_array.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

using c64 = std::complex<float>;
using c128 = std::complex<double>;
using cd = std::complex<double>;

template <class T>
constexpr bool is_cplx = std::is_same_v<T, c64> || std::is_same_v<T, c128>;

struct host_array {
  std::string dtype;
  nd::shape_t shape;
  std::vector<cd> values;  // every dtype read as complex<double> (integers up to 2^63 exactly? see ints)
  std::vector<std::string> text;
};

struct test_case {
  std::string name, option, line;
  host_array a, b, r;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, sep)) {
    out.push_back(item);
  }
  if (!s.empty() && s.back() == sep) {
    out.emplace_back();
  }
  return out;
}

double parse_double(const std::string& t) {
  if (t == "nan") return std::nan("");
  if (t == "-nan") return -std::nan("");
  if (t == "inf") return INFINITY;
  if (t == "-inf") return -INFINITY;
  return std::strtod(t.c_str(), nullptr);  // not stod: it throws on subnormal results (ERANGE)
}

host_array parse_array(const std::string& dtype, const std::string& shape, const std::string& values) {
  host_array h;
  h.dtype = dtype;
  for (const std::string& d : split(shape, ',')) {
    if (!d.empty()) h.shape.push_back(std::stoll(d));
  }
  std::istringstream in(values);
  std::string t;
  while (in >> t) {
    h.text.push_back(t);
    const auto colon = t.find(':');
    if (colon == std::string::npos) {
      h.values.emplace_back(parse_double(t), 0.0);
    } else {
      h.values.emplace_back(parse_double(t.substr(0, colon)), parse_double(t.substr(colon + 1)));
    }
  }
  return h;
}

std::vector<test_case> load_cases() {
  std::ifstream file(std::string(NDCUDA_TEST_DATA_DIR) + "/sets_cases_19.txt");
  std::vector<test_case> out;
  std::string line;
  while (std::getline(file, line)) {
    const auto f = split(line, '|');
    if (f.size() != 11) continue;
    out.push_back({f[0], f[1], line, parse_array(f[2], f[3], f[4]), parse_array(f[5], f[6], f[7]),
                   parse_array(f[8], f[9], f[10])});
  }
  return out;
}

// Host values of the dtype T (integers from their text, so int64 extremes are exact).
template <class T>
T element(const host_array& h, std::size_t i) {
  if constexpr (is_cplx<T>) {
    using R = typename T::value_type;
    return T(static_cast<R>(h.values[i].real()), static_cast<R>(h.values[i].imag()));
  } else if constexpr (std::is_same_v<T, bool>) {
    return h.values[i].real() != 0;
  } else if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>) {
      return static_cast<T>(std::stoll(h.text[i]));
    } else {
      return static_cast<T>(std::stoull(h.text[i]));
    }
  } else {
    return static_cast<T>(h.values[i].real());
  }
}

template <class T>
nd::ndarray<T> upload(const host_array& h) {
  auto data = std::make_unique<T[]>(std::max<std::size_t>(1, h.values.size()));
  for (std::size_t i = 0; i < h.values.size(); ++i) data[i] = element<T>(h, i);
  return nd::asarray(data.get(), h.shape);
}

bool same_part(double x, double y) {
  return (std::isnan(x) && std::isnan(y)) || x == y;
}
bool has_nan(cd z) {
  return std::isnan(z.real()) || std::isnan(z.imag());
}

// The result against NumPy's: dtype, shape and values (NaN equals NaN, -0.0 equals +0.0; with
// `nan_class`, two complex numbers with NaN parts are equal, as np.unique's representative differs).
template <class R>
void expect_result(const test_case& c, const nd::ndarray<R>& got, bool nan_class = false) {
  SCOPED_TRACE(c.line);
  EXPECT_EQ(std::string(nd::name(nd::dtype_of<R>)), c.r.dtype);
  EXPECT_EQ(got.shape(), c.r.shape);
  const std::vector<R> host = got.to_host();
  ASSERT_EQ(host.size(), c.r.values.size());
  for (std::size_t i = 0; i < host.size(); ++i) {
    const R want = element<R>(c.r, i);
    cd g, w;
    if constexpr (is_cplx<R>) {
      g = cd(host[i].real(), host[i].imag());
      w = cd(want.real(), want.imag());
    } else if constexpr (std::is_integral_v<R>) {
      EXPECT_EQ(host[i], want) << "at " << i;
      continue;
    } else {
      g = cd(static_cast<double>(host[i]), 0.0);
      w = cd(static_cast<double>(want), 0.0);
    }
    if (nan_class && has_nan(g) && has_nan(w)) continue;
    EXPECT_TRUE(same_part(g.real(), w.real()) && same_part(g.imag(), w.imag()))
        << "at " << i << ": got " << g << ", NumPy " << w;
  }
}

// Cases on one dtype (a's; b's where it is the same).
template <class T>
void run_one(const test_case& c) {
  const nd::ndarray<T> a = upload<T>(c.a);
  const std::string& n = c.name;
  if (n == "sort_none") return expect_result(c, nd::sort(a, nd::none));
  if (n == "argsort_none") return expect_result(c, nd::argsort(a, nd::none));
  if (n == "sort_axis") return expect_result(c, nd::sort(a, std::stoll(c.option)));
  if (n == "argsort_axis") return expect_result(c, nd::argsort(a, std::stoll(c.option)));
  if (n == "unique") return expect_result(c, nd::unique(a), true);
  if (n == "lexsort_rows") return expect_result(c, nd::lexsort(a));
  if constexpr (is_cplx<T>) {
    if (n == "max" || n == "min" || n == "argmax" || n == "argmin") {
      const bool all = c.option == "none";
      // Several elements with NaN parts: NumPy returns the first, ndcuda one of them (the tree
      // reduction does not track positions), so only the NaN class is compared there.
      if (n == "max")
        return all ? expect_result(c, nd::eval(nd::max(a)), true) : expect_result(c, nd::eval(nd::max(a, 1)), true);
      if (n == "min")
        return all ? expect_result(c, nd::eval(nd::min(a)), true) : expect_result(c, nd::eval(nd::min(a, 1)), true);
      if (n == "argmax") return all ? expect_result(c, nd::argmax(a)) : expect_result(c, nd::argmax(a, 1));
      return all ? expect_result(c, nd::argmin(a)) : expect_result(c, nd::argmin(a, 1));
    }
  }
  const nd::ndarray<T> b = upload<T>(c.b);
  if (n == "lexsort") return expect_result(c, nd::lexsort({a, b}));
  if (n == "searchsorted") {
    return expect_result(c, nd::searchsorted(a, b, c.option == "right" ? nd::side::right : nd::side::left));
  }
  if constexpr (is_cplx<T>) {
    if (n == "less") return expect_result(c, nd::ndarray<bool>(a < b));
    if (n == "less_equal") return expect_result(c, nd::ndarray<bool>(a <= b));
    if (n == "greater") return expect_result(c, nd::ndarray<bool>(a > b));
    if (n == "greater_equal") return expect_result(c, nd::ndarray<bool>(a >= b));
    if (n == "equal") return expect_result(c, nd::ndarray<bool>(a == b));
    if (n == "maximum") return expect_result(c, nd::ndarray<T>(nd::maximum(a, b)));
    if (n == "minimum") return expect_result(c, nd::ndarray<T>(nd::minimum(a, b)));
    if (n == "fmax") return expect_result(c, nd::ndarray<T>(nd::fmax(a, b)));
    if (n == "fmin") return expect_result(c, nd::ndarray<T>(nd::fmin(a, b)));
  }
  FAIL() << "no runner for " << c.line;
}

// isin and the set functions, on a pair of dtypes.
template <class A, class B>
void run_sets(const test_case& c) {
  const nd::ndarray<A> a = upload<A>(c.a);
  const nd::ndarray<B> b = upload<B>(c.b);
  const std::string& n = c.name;
  const bool assume = !c.option.empty() && c.option[0] == '1';
  if (n == "isin") return expect_result(c, nd::isin(a, b, assume, c.option.size() > 1 && c.option[1] == '1'));
  // NumPy's NaN representative in a complex set result is an artefact of its implementation (it
  // can even keep two): only the NaN class is compared there.
  const bool nan_class = is_cplx<A> || is_cplx<B>;
  if (n == "union1d") return expect_result(c, nd::union1d(a, b), nan_class);
  if (n == "intersect1d") return expect_result(c, nd::intersect1d(a, b, assume));
  if (n == "intersect1d_indices_a")
    return expect_result(c, std::get<1>(nd::intersect1d(a, b, false, nd::return_indices)));
  if (n == "intersect1d_indices_b")
    return expect_result(c, std::get<2>(nd::intersect1d(a, b, false, nd::return_indices)));
  if (n == "setdiff1d") return expect_result(c, nd::setdiff1d(a, b, assume), nan_class);
  if (n == "setxor1d") return expect_result(c, nd::setxor1d(a, b, assume), nan_class);
  FAIL() << "no runner for " << c.line;
}

bool is_set_function(const std::string& n) {
  return n == "isin" || n == "union1d" || n == "intersect1d" || n == "intersect1d_indices_a" ||
         n == "intersect1d_indices_b" || n == "setdiff1d" || n == "setxor1d";
}

template <class F>
void with_type(const std::string& d, F&& f) {
  if (d == "float64") return f(double{});
  if (d == "float32") return f(float{});
  if (d == "int64") return f(std::int64_t{});
  if (d == "int32") return f(std::int32_t{});  // also lexsort_rows
  if (d == "int8") return f(std::int8_t{});
  if (d == "uint8") return f(std::uint8_t{});
  if (d == "bool") return f(bool{});
  if (d == "complex64") return f(c64{});
  if (d == "complex128") return f(c128{});
  FAIL() << "unexpected dtype " << d;
}

TEST(SetsGpu, NumPyCases) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<test_case> cases = load_cases();
  ASSERT_GT(cases.size(), 150u);
  const bool trace = std::getenv("NDCUDA_TEST_TRACE") != nullptr;  // which case, should one fault
  for (const test_case& c : cases) {
    if (trace) {
      std::fprintf(stderr, "case %s\n", c.line.c_str());
    }
    if (is_set_function(c.name)) {
      if (c.a.dtype == "int32" && c.b.dtype == "float64") {
        run_sets<std::int32_t, double>(c);
      } else if (c.a.dtype == c.b.dtype) {
        with_type(c.a.dtype, [&](auto t) { run_sets<decltype(t), decltype(t)>(c); });
      } else {
        ADD_FAILURE() << "no dtype pair for " << c.line;
      }
    } else {
      with_type(c.a.dtype, [&](auto t) { run_one<decltype(t)>(c); });
    }
  }
}

// NumPy's sort order of complex numbers on the host: [R + Rj, R + nanj, nan + Rj, nan + nanj].
template <class T>
bool np_complex_less(T x, T y) {
  const auto cls = [](T z) { return (std::isnan(z.real()) ? 2 : 0) + (std::isnan(z.imag()) ? 1 : 0); };
  const int cx = cls(x);
  const int cy = cls(y);
  if (cx != cy) return cx < cy;
  switch (cx) {
    case 0:
      return x.real() < y.real() || (x.real() == y.real() && x.imag() < y.imag());
    case 1:
      return x.real() < y.real();
    case 2:
      return x.imag() < y.imag();
    default:
      return false;
  }
}

template <class T>
std::vector<T> random_complex(std::size_t n) {
  using R = typename T::value_type;
  std::uniform_int_distribution<int> pick(0, 11);
  std::uniform_int_distribution<int> small(-3, 3);
  const auto part = [&] {
    const int k = pick(nd::testing::rng());
    if (k == 0) return std::numeric_limits<R>::quiet_NaN();
    if (k == 1) return -std::numeric_limits<R>::infinity();
    if (k == 2) return std::numeric_limits<R>::infinity();
    if (k == 3) return R(-0.0);
    return static_cast<R>(small(nd::testing::rng())) / R(2);  // many duplicates
  };
  std::vector<T> v(n);
  for (T& z : v) z = T(part(), part());
  return v;
}

template <class T>
void random_complex_sorts() {
  const std::vector<T> host = random_complex<T>(6 * 1000);
  const nd::ndarray<T> a = nd::asarray(host, {6, 1000});
  for (int axis : {0, 1}) {
    SCOPED_TRACE(axis);
    const std::vector<std::int64_t> got = nd::argsort(a, axis).to_host();
    const std::vector<T> sorted = nd::sort(a, axis).to_host();
    const nd::index_t rows = axis == 1 ? 6 : 1000;
    const nd::index_t len = axis == 1 ? 1000 : 6;
    const auto at = [&](nd::index_t r, nd::index_t k) { return axis == 1 ? r * 1000 + k : k * 1000 + r; };
    for (nd::index_t r = 0; r < rows; ++r) {
      std::vector<std::int64_t> want(static_cast<std::size_t>(len));
      std::iota(want.begin(), want.end(), 0);
      std::stable_sort(want.begin(), want.end(), [&](std::int64_t i, std::int64_t j) {
        return np_complex_less(host[static_cast<std::size_t>(at(r, i))], host[static_cast<std::size_t>(at(r, j))]);
      });
      for (nd::index_t k = 0; k < len; ++k) {
        const auto p = static_cast<std::size_t>(at(r, k));
        ASSERT_EQ(got[p], want[static_cast<std::size_t>(k)]) << "row " << r << " place " << k;
        const T w = host[static_cast<std::size_t>(at(r, want[static_cast<std::size_t>(k)]))];
        ASSERT_EQ(std::memcmp(&sorted[p], &w, sizeof(T)), 0) << "row " << r << " place " << k;
      }
    }
  }
  // unique: the distinct elements (every NaN one) in order; searchsorted of every element.
  std::vector<T> flat = host;
  std::stable_sort(flat.begin(), flat.end(), np_complex_less<T>);
  std::vector<T> distinct;
  for (const T& z : flat) {
    const bool nan = std::isnan(z.real()) || std::isnan(z.imag());
    if (distinct.empty()) {
      distinct.push_back(z);
      continue;
    }
    const T& last = distinct.back();
    const bool last_nan = std::isnan(last.real()) || std::isnan(last.imag());
    if (!(nan && last_nan) && !(z == last)) distinct.push_back(z);
  }
  // One row (the single-segment radix path): argsort of the flattened array is the stable order.
  std::vector<std::int64_t> flat_order(host.size());
  std::iota(flat_order.begin(), flat_order.end(), 0);
  std::stable_sort(flat_order.begin(), flat_order.end(), [&](std::int64_t i, std::int64_t j) {
    return np_complex_less(host[static_cast<std::size_t>(i)], host[static_cast<std::size_t>(j)]);
  });
  EXPECT_EQ(nd::argsort(a, nd::none).to_host(), flat_order);
  const std::vector<T> u = nd::unique(a).to_host();
  ASSERT_EQ(u.size(), distinct.size());
  for (std::size_t i = 0; i < u.size(); ++i) {
    EXPECT_EQ(np_complex_less(u[i], distinct[i]) || np_complex_less(distinct[i], u[i]), false) << i;
  }
  const nd::ndarray<T> s = nd::asarray(flat, {static_cast<nd::index_t>(flat.size())});
  const std::vector<std::int64_t> left = nd::searchsorted(s, a).to_host();
  const std::vector<std::int64_t> right = nd::searchsorted(s, a, nd::side::right).to_host();
  for (std::size_t i = 0; i < host.size(); ++i) {
    EXPECT_EQ(left[i], std::lower_bound(flat.begin(), flat.end(), host[i], np_complex_less<T>) - flat.begin()) << i;
    EXPECT_EQ(right[i], std::upper_bound(flat.begin(), flat.end(), host[i], np_complex_less<T>) - flat.begin()) << i;
  }
}

TEST(SetsGpu, RandomComplexSortsMatchStableSort) {
  NDCUDA_REQUIRE_GPU();
  random_complex_sorts<c64>();
  random_complex_sorts<c128>();
}

// Random integer sets against std::set_* on the host.
TEST(SetsGpu, RandomIntegerSetsMatchTheHost) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<std::int32_t> x = nd::testing::uniform_values<std::int32_t>(3000, -50, 50),
                                  y = nd::testing::uniform_values<std::int32_t>(2000, -50, 50);
  std::vector<std::int32_t> ux = x, uy = y;
  std::sort(ux.begin(), ux.end());
  ux.erase(std::unique(ux.begin(), ux.end()), ux.end());
  std::sort(uy.begin(), uy.end());
  uy.erase(std::unique(uy.begin(), uy.end()), uy.end());
  std::vector<std::int32_t> both, either, only_x, one;
  std::set_intersection(ux.begin(), ux.end(), uy.begin(), uy.end(), std::back_inserter(both));
  std::set_union(ux.begin(), ux.end(), uy.begin(), uy.end(), std::back_inserter(either));
  std::set_difference(ux.begin(), ux.end(), uy.begin(), uy.end(), std::back_inserter(only_x));
  std::set_symmetric_difference(ux.begin(), ux.end(), uy.begin(), uy.end(), std::back_inserter(one));
  const auto a = nd::asarray(x, {30, 100});
  const auto b = nd::asarray(y, {2000});
  EXPECT_EQ(nd::intersect1d(a, b).to_host(), both);
  EXPECT_EQ(nd::union1d(a, b).to_host(), either);
  EXPECT_EQ(nd::setdiff1d(a, b).to_host(), only_x);
  EXPECT_EQ(nd::setxor1d(a, b).to_host(), one);
  const std::vector<bool> in = [&] {
    const auto h = nd::isin(a, b).to_host();
    return std::vector<bool>(h.begin(), h.end());
  }();
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(in[i], std::binary_search(uy.begin(), uy.end(), x[i])) << i;
  }
}

// ---- CPU: keys, code generation, errors ------------------------------------------------------

template <class R, class U>
U bits_of(R x) {
  U u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// The complex sort keys order exactly as NumPy's sort does, on every pair of a set of special parts.
template <class R, class U>
void keys_follow_numpy_order() {
  const R nan = std::numeric_limits<R>::quiet_NaN();
  const R inf = std::numeric_limits<R>::infinity();
  const std::vector<R> parts = {-inf, R(-2.5), R(-0.0), R(0.0), std::numeric_limits<R>::denorm_min(),
                                R(1), inf,     nan,     -nan};
  std::vector<std::complex<R>> all;
  for (R re : parts) {
    for (R im : parts) all.emplace_back(re, im);
  }
  for (const auto& x : all) {
    for (const auto& y : all) {
      const auto kx = nd::detail::complex_sort_key<U>(bits_of<R, U>(x.real()), bits_of<R, U>(x.imag()));
      const auto ky = nd::detail::complex_sort_key<U>(bits_of<R, U>(y.real()), bits_of<R, U>(y.imag()));
      EXPECT_EQ(nd::detail::complex_key_less(kx, ky), np_complex_less(x, y)) << x << " < " << y;
      const bool same = (has_nan(cd(x.real(), x.imag())) && has_nan(cd(y.real(), y.imag()))) || x == y;
      EXPECT_EQ(nd::detail::complex_same_element(kx, ky), same) << x << " ~ " << y;
    }
  }
}

TEST(SetsCpu, ComplexSortKeysFollowNumPysOrder) {
  keys_follow_numpy_order<float, std::uint32_t>();
  keys_follow_numpy_order<double, std::uint64_t>();
}

template <class Out, class X>
const nd::jit::detail::elementwise_state& state_of(const X& x) {
  const nd::detail::inputs_of<X> in(x);
  return nd::detail::expression_state<Out, X>(in);
}

TEST(SetsCpu, ComplexOrderingUfuncsCompileWithNvrtc) {
  const nd::compute_capability sm90{9, 0};
  const auto c = nd::testing::fake<c64>({8});
  const auto z = nd::testing::fake<c128>({8});
  EXPECT_NO_THROW(nd::detail::compile_expression(
      state_of<c64>(nd::where((c < c) | (c >= c), nd::maximum(c, c), nd::fmin(c, c))), sm90));
  EXPECT_NO_THROW(nd::detail::compile_expression(
      state_of<c128>(nd::where((z <= z) & (z > z), nd::minimum(z, z), nd::fmax(z, z))), sm90));
  EXPECT_NO_THROW(nd::detail::compile_expression(state_of<c64>(nd::clip(c, c, c)), sm90));
}

TEST(SetsCpu, LexsortRefusesNoKeysAndMismatchedShapes) {
  EXPECT_THROW((void)nd::lexsort(std::vector<nd::ndarray<double>>{}), nd::type_error);
  const auto a = nd::testing::fake<double>({4});
  const auto b = nd::testing::fake<double>({5});
  try {
    (void)nd::lexsort({a, b});
    ADD_FAILURE() << "no error";
  } catch (const nd::value_error& e) {
    EXPECT_NE(std::string(e.what()).find("all keys need to be the same shape"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)nd::lexsort(nd::testing::fake<double>({})), nd::type_error);
}

TEST(SetsCpu, ComplexNanExtremesAreStillRefused) {
  const auto c = nd::testing::fake<c64>({8});
  EXPECT_THROW((void)nd::nanmax(c), nd::error);
  EXPECT_THROW((void)nd::partition(c, 2), nd::error);
}

}  // namespace
