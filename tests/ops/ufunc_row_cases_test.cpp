// Every ufunc row with NumPy's cases against NumPy 2 itself: tests/data/ufunc_row_cases.txt
// (tests/data/gen_ufunc_row_cases.py) holds NumPy's result dtype, its TypeErrors and its values on
// integer extremes, float specials and complex numbers for the rows it names (hypot, arcsinh, ...,
// fmod, gcd, sinc, i0, gelu). Each case runs through ndcuda's rows (dtype rules and refusals, no
// GPU), the device helpers compiled on the host (no GPU), NVRTC (every such row and dtype, no GPU)
// and the kernels on the GPU, as arrays of the values, 0-d and empty. A second test compares random
// inputs with a long double reference. Which rows run is read from the table and the file
// (ufunc_row_names.hpp), never listed here.
#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "jit/elementwise_source.hpp"
#include "jit/elementwise_state.hpp"
#include "ops/ufunc_case_values.hpp"
#include "ops/ufunc_row_names.hpp"
#include "ops/ufunc_table_runner.hpp"
#include "support/fake_array.hpp"
#include "support/random_inputs.hpp"

namespace {

/// The NumPy cases of one ufunc and input dtype.
struct group {
  std::string name;
  std::string dtype;
  std::string out;                                 // NumPy's result dtype, or "TypeError"
  std::vector<std::array<std::string, 3>> values;  // a, b (or ""), result
};

/// The arity of each row with NumPy's cases (any other name in the file is a test failure).
const std::map<std::string, int>& arity() {
#define NDCUDA_TEST_NUMPY_ROW(n, a, helper) {#n, a},
  static const std::map<std::string, int> m = {NDCUDA_UFUNC_NUMPY_ROWS(NDCUDA_TEST_NUMPY_ROW)};
#undef NDCUDA_TEST_NUMPY_ROW
  return m;
}

std::vector<group> read_cases() {
  std::ifstream file(NDCUDA_TEST_DATA_DIR "/ufunc_row_cases.txt");
  std::vector<group> groups;
  if (!file) return groups;
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string name, dtype, out;
    in >> name >> dtype >> out;
    if (groups.empty() || groups.back().name != name || groups.back().dtype != dtype) {
      groups.push_back({name, dtype, out, {}});
    }
    if (out == "TypeError") continue;
    std::array<std::string, 3> v;
    const auto it = arity().find(name);
    if (it != arity().end() && it->second == 2) {
      in >> v[0] >> v[1] >> v[2];
    } else {
      in >> v[0] >> v[2];
    }
    groups.back().values.push_back(v);
  }
  return groups;
}

const std::vector<group>& cases() {
  static const std::vector<group> g = read_cases();
  return g;
}

/// ndcuda refuses these where NumPy computes (docs/differences-from-numpy.md): nextafter and
/// spacing of float16 (kernels compute float16 in float, whose steps are not float16's).
bool refused_by_design(const std::string& name, const std::string& dtype) {
  const bool stepping = name == "nextafter" || name == "spacing";
  return stepping && (dtype == "float16" || dtype == "int8" || dtype == "uint8" || dtype == "bool");
}

/// Values that differ from NumPy by design, left out of the value checks: NumPy's sinc and i0 of
/// float16 compute in float16 (sinc(1) is 3e-4, pi * 65504 overflows, i0(0.001) < 1); ndcuda
/// computes float16 in float32 and rounds once (docs/differences-from-numpy.md).
bool values_differ_by_design(const std::string& name, const std::string& dtype) {
  return (name == "sinc" || name == "i0") && dtype == "float16";
}

/// How far from NumPy a float result may be, in units in the last place of the result dtype:
/// 0 where both sides round one IEEE operation (or none), else CUDA's documented bound (asinhf 3,
/// acoshf 4, hypotf 3, powf/pow 2, cyl_bessel_i0 6) plus NumPy's own error (its float32 i0 runs a
/// 30-term Chebyshev series in float32); composed formulas (logaddexp, sinc) add their roundings.
/// gelu: tanh differs by up to 2 ulp between NumPy, the host's libm and CUDA, and 1 + tanh(...)
/// amplifies that up to 3 times on the case file's inputs (none below -1).
int ulps_for(const std::string& name) {
  static const std::map<std::string, int> m = {{"arcsinh", 5},   {"arccosh", 5},    {"arctanh", 5}, {"hypot", 4},
                                               {"logaddexp", 6}, {"logaddexp2", 6}, {"sinc", 6},    {"float_power", 3},
                                               {"i0", 32},       {"deg2rad", 1},    {"rad2deg", 1}, {"gelu", 8}};
  const auto it = m.find(name);
  return it == m.end() ? 0 : it->second;
}

// ---- values from the file ---------------------------------------------------------------------

/// x converted to the loop's input dtype I (complex64 -> complex128 for float_power, else convert).
template <class I, class T>
I to_input(T x) {
  if constexpr (is_cplx<I> && is_cplx<T>) {
    using P = typename I::value_type;
    return I(static_cast<P>(x.real()), static_cast<P>(x.imag()));
  } else {
    return convert<I>(x);
  }
}

/// Whether got (dtype R) is NumPy's value written as want.
template <class R>
bool agrees(const R& got, const std::string& want, int ulps) {
  if constexpr (std::is_same_v<R, bool> || is_int<R>) {
    return got == parse_input<R>(want);
  } else if constexpr (is_cplx<R>) {
    const auto colon = want.find(':');
    const cplx w(parse_real(want.substr(0, colon)), parse_real(want.substr(colon + 1)));
    return matches<R>(got, w, tolerance{0, 64, false});
  } else {
    return same_real<R>(got, parse_real(want), ulps, true);
  }
}

// ---- the rows, by name: [](Op, arity, the public call, the device helper) -----------------------

/// Calls v.template operator()<Op, N>(call, helper) for the row named `name`; false if unknown.
template <class V>
bool visit_row(const std::string& name, V&& v) {
#define NDCUDA_TEST_NUMPY_ROW(n, arity, helper)                                                              \
  if (name == #n) {                                                                                          \
    if constexpr ((arity) == 1) {                                                                            \
      v.template operator()<nd::detail::n##_op, 1>([](auto a) { return nd::n(a); }, EMU(helper));            \
    } else {                                                                                                 \
      v.template operator()<nd::detail::n##_op, 2>([](auto a, auto b) { return nd::n(a, b); }, EMU(helper)); \
    }                                                                                                        \
    return true;                                                                                             \
  }
  NDCUDA_UFUNC_NUMPY_ROWS(NDCUDA_TEST_NUMPY_ROW)
#undef NDCUDA_TEST_NUMPY_ROW
  return false;
}

/// The expression type of call on N arrays of T (declared only).
template <class Call, class T, std::size_t... K>
auto call_result(std::index_sequence<K...>)
    -> decltype(std::declval<Call&>()((static_cast<void>(K), std::declval<nd::ndarray<T>>())...));

/// The checks that need no GPU: dtype rules and refusals, and the helpers compiled on the host.
template <class T>
struct host_check {
  const group& g;
  template <class Op, std::size_t N, class Call, class Emu>
  void operator()(Call, Emu emu) const {
    constexpr nd::dtype d = nd::dtype_of<T>;
    const std::string what = g.name + "(" + g.dtype + ")";
    if constexpr (!Op::accepts(d)) {
      EXPECT_TRUE(g.out == "TypeError" || refused_by_design(g.name, g.dtype))
          << what << ": ndcuda refuses it, NumPy gives " << g.out;
    } else {
      ASSERT_NE(g.out, "TypeError") << what << ": NumPy raises TypeError, ndcuda accepts it";
      using X = decltype(call_result<Call, T>(std::make_index_sequence<N>{}));
      using R = typename X::value_type;
      constexpr nd::dtype in = Op::input(d);
      using I = nd::type_of<in>;
      static_assert(nd::dtype_of<R> == Op::result(d));
      EXPECT_EQ(std::string(nd::name(nd::dtype_of<R>)), g.out) << what << ": result dtype";
      if (values_differ_by_design(g.name, g.dtype)) return;
      int reported = 0;
      for (const auto& v : g.values) {
        R got{};
        if constexpr (N == 1) {
          got = from_emu<R>(emu(to_emu(to_input<I>(parse_input<T>(v[0])))));
        } else {
          got = from_emu<R>(emu(to_emu(to_input<I>(parse_input<T>(v[0]))), to_emu(to_input<I>(parse_input<T>(v[1])))));
        }
        if (!agrees<R>(got, v[2], ulps_for(g.name)) && reported++ < 8) {
          ADD_FAILURE() << what << "(" << v[0] << (N == 2 ? ", " + v[1] : "") << "): helper gives " << show(got)
                        << ", NumPy " << v[2];
        }
      }
    }
  }
};

/// The kernels on the GPU: the values as a 1-d array, the first one as a 0-d array, and an empty one.
template <class T>
struct gpu_check {
  const group& g;
  template <class Op, std::size_t N, class Call, class Emu>
  void operator()(Call call, Emu) const {
    constexpr nd::dtype d = nd::dtype_of<T>;
    if constexpr (Op::accepts(d)) {
      const std::string what = g.name + "(" + g.dtype + ")";
      std::array<std::vector<T>, N> in;
      for (const auto& v : g.values) {
        for (std::size_t k = 0; k < N; ++k) in[k].push_back(parse_input<T>(v[k]));
      }
      const auto n = static_cast<nd::index_t>(g.values.size());
      const auto run = [&](nd::shape_t shape, std::size_t count) {
        const auto arrays = [&]<std::size_t... K>(std::index_sequence<K...>) {
          return std::array<nd::ndarray<T>, N>{
              nd::asarray(std::vector<T>(in[K].begin(), in[K].begin() + static_cast<std::ptrdiff_t>(count)), shape)...};
        }
        (std::make_index_sequence<N>{});
        const auto x = [&]<std::size_t... K>(std::index_sequence<K...>) {
          return call(arrays[K]...);
        }
        (std::make_index_sequence<N>{});
        return nd::eval(x);
      };
      const auto all = run({n}, g.values.size());
      using R = typename std::remove_cvref_t<decltype(all)>::value_type;
      const std::vector<R> got = all.to_host();
      ASSERT_EQ(static_cast<nd::index_t>(got.size()), n) << what;
      if (values_differ_by_design(g.name, g.dtype)) return;
      int reported = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        const auto& v = g.values[i];
        const R r = got[i];
        if (!agrees<R>(r, v[2], ulps_for(g.name)) && reported++ < 8) {
          ADD_FAILURE() << what << "(" << v[0] << (N == 2 ? ", " + v[1] : "") << "): GPU gives " << show(r)
                        << ", NumPy " << v[2];
        }
      }
      const auto scalar = run({}, 1);
      EXPECT_EQ(scalar.ndim(), 0) << what;
      const std::vector<R> one = scalar.to_host();
      ASSERT_EQ(one.size(), 1U) << what;
      EXPECT_TRUE(agrees<R>(R(one[0]), g.values[0][2], ulps_for(g.name))) << what << " 0-d";
      const auto empty = run({0}, 0);
      EXPECT_EQ(empty.ndim(), 1) << what;
      EXPECT_EQ(empty.size(), 0) << what;
    }
  }
};

/// NVRTC compiles the row's kernel for T (no GPU needed).
template <class T>
struct nvrtc_check {
  template <class Op, std::size_t N, class Call, class Emu>
  void operator()(Call call, Emu) const {
    if constexpr (Op::accepts(nd::dtype_of<T>)) {
      const auto a = nd::testing::fake<T>({8});
      const auto x = [&]<std::size_t... K>(std::index_sequence<K...>) {
        return call((static_cast<void>(K), a)...);
      }
      (std::make_index_sequence<N>{});
      using X = std::remove_cvref_t<decltype(x)>;
      using R = typename X::value_type;
      const nd::detail::inputs_of<X> in(x);
      const auto& state = nd::detail::expression_state<R, X>(in);
      EXPECT_NO_THROW(nd::detail::compile_expression(state, nd::compute_capability{9, 0})) << nd::name(nd::dtype_of<T>);
    }
  }
};

// ---- random inputs against a long double reference (independent of the helpers) ----------------

/// A real ufunc's reference (long double, from the operands as the loop sees them) and the range
/// its random operands come from.
struct real_reference {
  std::string name;
  double lo;
  double hi;
  std::function<real(real, real, bool)> f;  // (a, b or 0, computed in float32?)
};

constexpr real pi = 3.14159265358979323846264338327950288L;

std::vector<real_reference> real_references() {
  return {
      {"hypot", -1e3, 1e3, [](real a, real b, bool) { return std::hypot(a, b); }},
      {"arcsinh", -50, 50, [](real a, real, bool) { return std::asinh(a); }},
      {"arccosh", 1, 50, [](real a, real, bool) { return std::acosh(a); }},
      {"arctanh", -0.999, 0.999, [](real a, real, bool) { return std::atanh(a); }},
      {"square", -1e3, 1e3, [](real a, real, bool) { return a * a; }},
      {"reciprocal", -1e3, 1e3, [](real a, real, bool) { return 1 / a; }},
      {"copysign", -10, 10, [](real a, real b, bool) { return std::copysign(a, b); }},
      // Operands >= 0 keep x + log1p(...) free of cancellation, which NumPy's formula shares.
      {"logaddexp", 0, 100,
       [](real a, real b, bool) { return std::max(a, b) + std::log1p(std::exp(-std::fabs(a - b))); }},
      {"logaddexp2", 0, 100,
       [](real a, real b, bool) { return std::max(a, b) + std::log2(1 + std::exp2(-std::fabs(a - b))); }},
      {"deg2rad", -720, 720,
       [](real a, real, bool f) { return f ? a * real(float(pi / 180)) : a * real(double(pi / 180)); }},
      {"rad2deg", -10, 10,
       [](real a, real, bool f) { return f ? a * real(float(180 / pi)) : a * real(double(180 / pi)); }},
      {"fmod", -100, 100, [](real a, real b, bool) { return std::fmod(a, b); }},
      {"float_power", 0.01, 10, [](real a, real b, bool) { return std::pow(a, b); }},
      {"sinc", -20, 20,
       [](real a, real, bool f) {
         // NumPy's formula: y = pi * x rounded to the loop's type, then sin(y) / y.
         const real y = f ? real(float(pi) * float(a)) : real(double(pi) * double(a));
         return y == 0 ? real(1) : std::sin(y) / y;
       }},
      {"i0", -30, 30, [](real a, real, bool) { return std::cyl_bessel_i(real(0), std::fabs(a)); }},  // long double
  };
}

/// One real ufunc on fresh random float32/float64 operands: the helpers on the host, or the GPU.
template <class T>
struct random_check {
  const real_reference& r;
  bool on_gpu;
  template <class Op, std::size_t N, class Call, class Emu>
  void operator()(Call call, Emu emu) const {
    if constexpr (Op::accepts(nd::dtype_of<T>)) {
      using X = decltype(call_result<Call, T>(std::make_index_sequence<N>{}));
      if constexpr (std::is_floating_point_v<typename X::value_type>) run<Op, N>(call, emu);
    }
  }
  template <class Op, std::size_t N, class Call, class Emu>
  void run(Call call, Emu emu) const {
    auto& g = nd::testing::rng();
    std::uniform_real_distribution<double> u(r.lo, r.hi);
    std::array<std::vector<T>, N> in;
    for (int i = 0; i < 4096; ++i) {
      for (std::size_t k = 0; k < N; ++k) in[k].push_back(static_cast<T>(u(g)));
    }
    using X = decltype(call_result<Call, T>(std::make_index_sequence<N>{}));
    using R = typename X::value_type;
    std::vector<R> got(in[0].size());
    if (on_gpu) {
      const auto x = [&]<std::size_t... K>(std::index_sequence<K...>) {
        return call(nd::asarray(in[K], {static_cast<nd::index_t>(in[K].size())})...);
      }
      (std::make_index_sequence<N>{});
      got = nd::eval(x).to_host();
    } else {
      using I = nd::type_of<Op::input(nd::dtype_of<T>)>;
      for (std::size_t i = 0; i < got.size(); ++i) {
        if constexpr (N == 1) {
          got[i] = from_emu<R>(emu(to_emu(to_input<I>(in[0][i]))));
        } else {
          got[i] = from_emu<R>(emu(to_emu(to_input<I>(in[0][i])), to_emu(to_input<I>(in[1][i]))));
        }
      }
    }
    int reported = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      // float_power computes in float64 whatever T is.
      const bool f32 = std::is_same_v<T, float> && !std::is_same_v<R, double>;
      const real want = r.f(real(in[0][i]), N == 2 ? real(in[N - 1][i]) : real(0), f32);
      if (!same_real<R>(got[i], want, std::max(ulps_for(r.name), 1), false) && reported++ < 8) {
        ADD_FAILURE() << r.name << "<" << nd::name(nd::dtype_of<T>) << ">(" << show(in[0][i])
                      << (N == 2 ? ", " + show(in[N - 1][i]) : "") << "): " << (on_gpu ? "GPU" : "helper") << " gives "
                      << show(got[i]) << ", reference " << show(static_cast<double>(want));
      }
    }
  }
};

void random_inputs_match_reference(bool on_gpu) {
  for (const real_reference& r : real_references()) {
    EXPECT_TRUE(visit_row(r.name, random_check<float>{r, on_gpu})) << r.name;
    EXPECT_TRUE(visit_row(r.name, random_check<double>{r, on_gpu})) << r.name;
  }
}

// NumPy's aliases build the node of the ufunc they name.
template <class A, class B>
constexpr bool same_node = std::is_same_v<std::remove_cvref_t<A>, std::remove_cvref_t<B>>;
static_assert(same_node<decltype(nd::radians(std::declval<nd::ndarray<float>>())),
                        decltype(nd::deg2rad(std::declval<nd::ndarray<float>>()))>);
static_assert(same_node<decltype(nd::degrees(std::declval<nd::ndarray<double>>())),
                        decltype(nd::rad2deg(std::declval<nd::ndarray<double>>()))>);

}  // namespace

TEST(UfuncRowCases, NumpyCasesCoverEveryRowAndDtype) {
  ASSERT_FALSE(cases().empty()) << "missing " NDCUDA_TEST_DATA_DIR "/ufunc_row_cases.txt (run gen_ufunc_row_cases.py)";
  std::map<std::string, std::set<std::string>> dtypes;
  for (const group& g : cases()) {
    dtypes[g.name].insert(g.dtype);
    EXPECT_TRUE(arity().count(g.name)) << g.name << " has NumPy cases but no row of ops/ufuncs.hpp that calls a helper";
    EXPECT_TRUE(g.out == "TypeError" || !g.values.empty()) << g.name << " " << g.dtype;
  }
  EXPECT_EQ(dtypes.size(), arity().size());
  for (const auto& [name, seen] : dtypes) {
    EXPECT_EQ(seen.size(), 14U) << name << ": NumPy's cases cover " << seen.size() << " of its 14 dtypes";
  }
  // Every row of ops/ufuncs.hpp has NumPy's cases here or a row in the long double table
  // (ufunc_table.hpp checks that); here, that the file names rows by their arity.
  for (const ufunc_rows::row_name& r : ufunc_rows::all()) {
    const auto it = arity().find(r.name);
    if (it != arity().end()) EXPECT_EQ(it->second, r.arity) << r.name;
  }
}

TEST(UfuncRowCases, DtypesRefusalsAndHelpersMatchNumpy) {
  for (const group& g : cases()) {
    const bool known_dtype = visit_dtype(g.dtype, [&]<class T>(std::type_identity<T>) {
      EXPECT_TRUE(visit_row(g.name, host_check<T>{g})) << "no row for " << g.name;
    });
    EXPECT_TRUE(known_dtype) << g.dtype;
  }
}

TEST(UfuncRowCases, EveryRowCompilesWithNvrtcForEveryDtype) {
  for (const auto& [name, n] : arity()) {
    [&]<class... Ts>(types<Ts...>) { (visit_row(name, nvrtc_check<Ts>{}), ...); }(all_types{});
  }
}

TEST(UfuncRowCases, GpuMatchesNumpyOnArraysZeroDAndEmpty) {
  NDCUDA_REQUIRE_GPU();
  for (const group& g : cases()) {
    if (g.out == "TypeError") continue;
    visit_dtype(g.dtype, [&]<class T>(std::type_identity<T>) { visit_row(g.name, gpu_check<T>{g}); });
  }
}

TEST(UfuncRowCases, HelpersMatchLongDoubleReferenceOnRandomInputs) {
  random_inputs_match_reference(false);
}

TEST(UfuncRowCases, GpuMatchesLongDoubleReferenceOnRandomInputs) {
  NDCUDA_REQUIRE_GPU();
  random_inputs_match_reference(true);
}

// clip with one bound (NumPy's clip(a, None, hi) and clip(a, lo, None)) is minimum or maximum.
static_assert(same_node<decltype(nd::clip(std::declval<nd::ndarray<std::int8_t>>(), nd::none, 3)),
                        decltype(nd::minimum(std::declval<nd::ndarray<std::int8_t>>(), 3))>);
static_assert(same_node<decltype(nd::clip(std::declval<nd::ndarray<float>>(), 0.5f, nd::none)),
                        decltype(nd::maximum(std::declval<nd::ndarray<float>>(), 0.5f))>);

TEST(UfuncRowCases, ClipWithOneBoundOnGpu) {
  NDCUDA_REQUIRE_GPU();
  std::vector<float> h = nd::testing::uniform_values<float>(1000, -10.0, 10.0);
  h[0] = std::numeric_limits<float>::quiet_NaN();
  const auto a = nd::asarray(h, {static_cast<nd::index_t>(h.size())});
  const std::vector<float> hi = nd::eval(nd::clip(a, nd::none, 2.5f)).to_host();
  const std::vector<float> lo = nd::eval(nd::clip(a, -1.0f, nd::none)).to_host();
  EXPECT_TRUE(std::isnan(hi[0]) && std::isnan(lo[0]));  // NaN propagates, as NumPy's clip
  for (std::size_t i = 1; i < h.size(); ++i) {
    EXPECT_EQ(hi[i], h[i] > 2.5f ? 2.5f : h[i]) << i;
    EXPECT_EQ(lo[i], h[i] < -1.0f ? -1.0f : h[i]) << i;
  }
}
