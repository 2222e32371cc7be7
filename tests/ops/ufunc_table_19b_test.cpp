// The last elementwise functions of issue 19 (ldexp, frexp, modf, divmod, round with decimals, sign
// of complex numbers, angle, nan_to_num, isclose, allclose, array_equal, array_equiv) against NumPy
// 2 itself: tests/data/ufunc_cases_19b.txt (gen_ufunc_cases_19b.py). Dtypes and refusals are
// checked on the host, one NVRTC compile per kernel family (every layout variant of the
// two-output kernel), and the values on the GPU as arrays, 0-d and empty.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "jit/elementwise_plan.hpp"
#include "jit/elementwise_state.hpp"
#include "ops/ufunc_case_values.hpp"
#include "ops/ufunc_table_runner.hpp"
#include "support/fake_array.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace {

/// The NumPy cases of one function, input dtype and parameter.
struct group {
  std::string name;
  std::string dtype;
  std::string param;
  std::string out;                              // "d1" or "d1,d2", or "TypeError"
  std::vector<std::vector<std::string>> cases;  // inputs, then results
};

int inputs_of(const std::string& name) {
  return name == "ldexp" || name == "divmod" || name == "isclose" ? 2 : 1;
}
int outputs_of(const std::string& name) {
  return name == "frexp" || name == "modf" || name == "divmod" ? 2 : 1;
}

struct case_file {
  std::vector<group> groups;
  std::vector<std::array<std::string, 3>> ldexp_types;  // x, e, result or TypeError
  std::vector<std::string> whole;                       // allclose/array_equal/array_equiv lines
};

case_file read_cases() {
  std::ifstream file(NDCUDA_TEST_DATA_DIR "/ufunc_cases_19b.txt");
  case_file f;
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string name;
    in >> name;
    if (name == "ldexp_types") {
      std::array<std::string, 3> t;
      in >> t[0] >> t[1] >> t[2];
      f.ldexp_types.push_back(t);
      continue;
    }
    if (name == "whole") {
      f.whole.push_back(line.substr(6));
      continue;
    }
    std::string dtype, param, out;
    in >> dtype >> param >> out;
    auto& g = f.groups;
    if (g.empty() || g.back().name != name || g.back().dtype != dtype || g.back().param != param) {
      g.push_back({name, dtype, param, out, {}});
    }
    if (out == "TypeError") continue;
    std::vector<std::string> c(static_cast<std::size_t>(inputs_of(name) + outputs_of(name)));
    for (auto& v : c) in >> v;
    g.back().cases.push_back(std::move(c));
  }
  return f;
}

const case_file& cases() {
  static const case_file f = read_cases();
  return f;
}

/// Whether got (dtype R) is NumPy's value written as want: integers and bools exactly, floats
/// within `ulps` (signed zeros and NaN included), complex part by part.
template <class R>
bool agrees(const R& got, const std::string& want, int ulps) {
  if constexpr (std::is_same_v<R, bool> || is_int<R>) {
    return got == parse_input<R>(want);
  } else if constexpr (is_cplx<R>) {
    const auto colon = want.find(':');
    using P = typename R::value_type;
    return same_real<P>(got.real(), parse_real(want.substr(0, colon)), ulps, true) &&
           same_real<P>(got.imag(), parse_real(want.substr(colon + 1)), ulps, true);
  } else {
    return same_real<R>(got, parse_real(want), ulps, true);
  }
}

/// Result ulps allowed against NumPy: 0 where both round the same IEEE operations; CUDA's atan2
/// (2 ulp) for angle, plus the degree factor; CUDA's hypot (1 ulp) under sign's division.
int ulps_for(const std::string& name) {
  return name == "angle" ? 4 : name == "sign" ? 2 : 0;
}

/// Values that differ from NumPy by design (docs/differences-from-numpy.md): NumPy rounds float16
/// with decimals in float16 steps (x * 10**d rounded to float16 before rint); ndcuda computes
/// float16 in float32 and rounds once.
bool values_differ_by_design(const group& g) {
  return g.name == "round" && g.dtype == "float16" && g.param != "0";
}

template <class T>
constexpr bool real_dtype = !is_cplx<T>;

/// The call a group names, on typed arrays: whether ndcuda accepts T (at compile time, as NumPy's
/// TypeError), and the results as a tuple of arrays.
template <class T>
constexpr bool accepted(const std::string& name) {
  if (name == "ldexp" || name == "frexp" || name == "modf" || name == "divmod") return real_dtype<T>;
  if (name == "sign") return nd::detail::sign_op::accepts(nd::dtype_of<T>);
  return true;
}

template <class T, class F>
void with_call(const group& g, F&& f) {
  using A = nd::ndarray<T>;
  using E = nd::ndarray<std::int32_t>;
  const std::string& n = g.name;
  if constexpr (real_dtype<T>) {
    if (n == "ldexp") return f([](const A& a, const E& e) { return std::tuple{nd::eval(nd::ldexp(a, e))}; });
    if (n == "frexp")
      return f([](const A& a) {
        auto [m, e] = nd::frexp(a);
        return std::tuple{m, e};
      });
    if (n == "modf")
      return f([](const A& a) {
        auto [x, i] = nd::modf(a);
        return std::tuple{x, i};
      });
    if (n == "divmod")
      return f([](const A& a, const A& b) {
        auto [q, r] = nd::divmod(a, b);
        return std::tuple{q, r};
      });
  }
  if constexpr (nd::detail::sign_op::accepts(nd::dtype_of<T>)) {
    if (n == "sign") return f([](const A& a) { return std::tuple{nd::eval(nd::sign(a))}; });
  }
  if (n == "round") {
    const int d = std::stoi(g.param);
    return f([d](const A& a) { return std::tuple{nd::eval(nd::round(a, d))}; });
  }
  if (n == "angle") {
    const bool degrees = g.param == "1";
    return f([degrees](const A& a) { return std::tuple{nd::eval(nd::angle(a, nd::deg(degrees)))}; });
  }
  if (n == "nan_to_num") {
    const nd::nan_to_num_options o =
        g.param == "set" ? nd::nan_to_num_options{1.5, 9.0, -9.0} : nd::nan_to_num_options{};
    return f([o](const A& a) { return std::tuple{nd::eval(nd::nan_to_num(a, o))}; });
  }
  if (n == "isclose") {
    const bool en = g.param == "equal_nan";
    return f([en](const A& a, const A& b) { return std::tuple{nd::eval(nd::isclose(a, b, nd::equal_nan(en)))}; });
  }
}

/// The result dtypes of the call on ndarray<T>, from its C++ type alone (nothing runs).
template <class T>
std::string result_dtypes(const group& g) {
  std::string out;
  const auto names = [&]<class... R>(std::type_identity<std::tuple<nd::ndarray<R>...>>) {
    ((out += (out.empty() ? "" : ",") + std::string(nd::name(nd::dtype_of<R>))), ...);
  };
  with_call<T>(g, [&](auto call) {
    if constexpr (std::is_invocable_v<decltype(call), nd::ndarray<T>>) {
      names(std::type_identity<std::invoke_result_t<decltype(call), nd::ndarray<T>>>{});
    } else if constexpr (std::is_invocable_v<decltype(call), nd::ndarray<T>, nd::ndarray<std::int32_t>>) {
      names(std::type_identity<std::invoke_result_t<decltype(call), nd::ndarray<T>, nd::ndarray<std::int32_t>>>{});
    } else {
      names(std::type_identity<std::invoke_result_t<decltype(call), nd::ndarray<T>, nd::ndarray<T>>>{});
    }
  });
  return out;
}

nd::dtype dtype_named(const std::string& name) {
  nd::dtype d = nd::dtype::bool_;
  EXPECT_TRUE(visit_dtype(name, [&]<class T>(std::type_identity<T>) { d = nd::dtype_of<T>; })) << name;
  return d;
}

// ---- the GPU run of one group ---------------------------------------------------------------------

template <class T>
void gpu_check(const group& g) {
  const std::string what = g.name + "(" + g.dtype + ", " + g.param + ")";
  const auto n_in = static_cast<std::size_t>(inputs_of(g.name));
  std::vector<T> a;
  std::vector<T> b;
  std::vector<std::int32_t> e;
  for (const auto& c : g.cases) {
    a.push_back(parse_input<T>(c[0]));
    if (g.name == "ldexp") {
      e.push_back(parse_input<std::int32_t>(c[1]));
    } else if (n_in == 2) {
      b.push_back(parse_input<T>(c[1]));
    }
  }
  with_call<T>(g, [&](auto call) {
    const auto run = [&](nd::shape_t shape, std::size_t count) {
      const auto first = [&](const auto& v) {
        using V = typename std::remove_cvref_t<decltype(v)>::value_type;
        return nd::asarray(std::vector<V>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(count)), shape);
      };
      if constexpr (std::is_invocable_v<decltype(call), nd::ndarray<T>>) {
        return call(first(a));
      } else if constexpr (std::is_invocable_v<decltype(call), nd::ndarray<T>, nd::ndarray<std::int32_t>>) {
        // For int32 a two-array call of any function takes this branch: only ldexp's exponents are e.
        if constexpr (std::is_same_v<T, std::int32_t>) {
          return call(first(a), first(g.name == "ldexp" ? e : b));
        } else {
          return call(first(a), first(e));
        }
      } else {
        return call(first(a), first(b));
      }
    };
    const auto n = static_cast<nd::index_t>(g.cases.size());
    const auto all = run({n}, g.cases.size());
    const auto zero_d = run({}, 1);
    const auto empty = run({0}, 0);
    std::size_t k = 0;
    const auto check = [&](const auto& out, const auto& scalar, const auto& none) {
      using R = typename std::remove_cvref_t<decltype(out)>::value_type;
      const std::vector<R> got = out.to_host();
      ASSERT_EQ(got.size(), g.cases.size()) << what;
      const std::size_t col = n_in + k++;
      const int ulps = ulps_for(g.name);
      if (!values_differ_by_design(g)) {
        int reported = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
          if (!agrees<R>(got[i], g.cases[i][col], ulps) && reported++ < 8) {
            ADD_FAILURE() << what << " output " << col - n_in << " at (" << g.cases[i][0]
                          << (n_in == 2 ? ", " + g.cases[i][1] : "") << "): GPU gives " << show(got[i]) << ", NumPy "
                          << g.cases[i][col];
          }
        }
        const std::vector<R> one = scalar.to_host();
        EXPECT_EQ(scalar.ndim(), 0) << what;
        ASSERT_EQ(one.size(), 1U) << what;
        EXPECT_TRUE(agrees<R>(one[0], g.cases[0][col], ulps)) << what << " 0-d gives " << show(one[0]);
      }
      EXPECT_EQ(none.ndim(), 1) << what;
      EXPECT_EQ(none.size(), 0) << what;
    };
    std::apply(
        [&](const auto&... outs) {
          std::apply(
              [&](const auto&... scalars) {
                std::apply([&](const auto&... nones) { (check(outs, scalars, nones), ...); }, empty);
              },
              zero_d);
        },
        all);
  });
}

template <class T>
nd::ndarray<double> host_array(const std::string& shape_and_values, std::size_t& pos) {
  (void)pos;
  std::istringstream in(shape_and_values);
  std::string shape_text;
  in >> shape_text;
  nd::shape_t shape;
  if (shape_text != "-") {
    std::istringstream s(shape_text);
    std::string d;
    while (std::getline(s, d, 'x')) shape.push_back(std::stoll(d));
  }
  std::vector<double> v;
  std::string x;
  while (in >> x) v.push_back(static_cast<double>(parse_real(x)));
  return nd::asarray(v, shape);
}

// ---- the device helpers on the host (kernels/ufuncs_float_parts.cuh and ufuncs_rounding.cuh, as C++) --

/// The real type a kernel computes a dtype's parts in (float for float16, P for complex<P>).
template <class T>
struct compute_part {
  using type = decltype(to_emu(T{}));
};
template <class P>
struct compute_part<std::complex<P>> {
  using type = P;
};

/// The helpers' results for one case, as the generated body computes them, stored into the
/// result dtypes R... (angle is arctan2 and multiply, covered by their rows).
template <class T, class Out>
std::vector<std::string> host_results(const group& g, const std::vector<std::string>& c) {
  std::vector<std::string> bad;
  const T x = parse_input<T>(c[0]);
  const auto want = [&]<class R>(std::type_identity<R>, const auto& value, std::size_t k) {
    const R got = from_emu<R>(value);
    const std::string& w = c[static_cast<std::size_t>(inputs_of(g.name)) + k];
    if (!agrees<R>(got, w, ulps_for(g.name))) bad.push_back(show(got) + " (NumPy " + w + ")");
  };
  using R0 = typename std::tuple_element_t<0, Out>::value_type;
  if constexpr (std::tuple_size_v<Out> == 2) {
    using R1 = typename std::tuple_element_t<1, Out>::value_type;
    if (g.name == "frexp") {
      int e = 0;
      const auto m = dev::nd_frexp(to_emu(convert<float_of_t<T>>(x)), e);
      want(std::type_identity<R0>{}, m, 0);
      want(std::type_identity<R1>{}, e, 1);
    } else if (g.name == "modf") {
      auto in = to_emu(convert<float_of_t<T>>(x));
      const auto f = dev::nd_modf(in, in);
      want(std::type_identity<R0>{}, f, 0);
      want(std::type_identity<R1>{}, in, 1);
    } else if constexpr (!is_cplx<T>) {  // divmod
      using I = typename int8_in::type<T>;
      const auto a = to_emu(convert<I>(x));
      const auto b = to_emu(convert<I>(parse_input<T>(c[1])));
      want(std::type_identity<R0>{}, dev::nd_floor_divide(a, b), 0);
      want(std::type_identity<R1>{}, dev::nd_remainder(a, b), 1);
    }
  } else if (g.name == "ldexp") {
    if constexpr (!is_cplx<T>) {
      const auto e = static_cast<long long>(parse_input<std::int32_t>(c[1]));
      want(std::type_identity<R0>{}, dev::nd_ldexp(to_emu(convert<float_of_t<T>>(x)), e), 0);
    }
  } else if (g.name == "round") {
    using I = std::conditional_t<std::is_same_v<T, bool>, __half, T>;
    want(std::type_identity<R0>{}, dev::nd_round_decimals(to_emu(convert<I>(x)), std::stoi(g.param)), 0);
  } else if (g.name == "sign") {
    if constexpr (!std::is_same_v<T, bool>) want(std::type_identity<R0>{}, dev::nd_sign(to_emu(x)), 0);
  } else if (g.name == "nan_to_num") {
    using P = typename compute_part<std::conditional_t<is_cplx<T> || is_float<T>, T, double>>::type;
    const bool set = g.param == "set";
    const double hi = std::is_same_v<T, __half> ? 65504.0 : static_cast<double>(std::numeric_limits<P>::max());
    const auto v = dev::nd_nan_to_num(to_emu(x), static_cast<P>(set ? 1.5 : 0.0), static_cast<P>(set ? 9.0 : hi),
                                      static_cast<P>(set ? -9.0 : -hi));
    want(std::type_identity<R0>{}, v, 0);
  } else if (g.name == "isclose") {
    using C = std::conditional_t<is_cplx<T> || is_float<T>, T, double>;
    using P = typename compute_part<C>::type;
    const auto a = to_emu(convert<C>(x));
    const auto b = to_emu(convert<C>(parse_input<T>(c[1])));
    P atol = static_cast<P>(1e-08);
    P rtol = static_cast<P>(1e-05);
    want(std::type_identity<R0>{}, dev::nd_isclose(a, b, atol, rtol, g.param == "equal_nan"), 0);
  }
  return bad;
}

}  // namespace

TEST(UfuncsIssue19b, NumpyCasesCoverEveryFunction) {
  const std::set<std::string> want = {"ldexp", "frexp", "modf",    "divmod",    "round",
                                      "sign",  "angle", "isclose", "nan_to_num"};
  std::set<std::string> names;
  for (const group& g : cases().groups) {
    names.insert(g.name);
    EXPECT_TRUE(g.out == "TypeError" || !g.cases.empty()) << g.name << " " << g.dtype;
  }
  EXPECT_EQ(names, want) << "missing or unknown functions in " NDCUDA_TEST_DATA_DIR "/ufunc_cases_19b.txt";
  EXPECT_FALSE(cases().ldexp_types.empty());
  EXPECT_FALSE(cases().whole.empty());
}

TEST(UfuncsIssue19b, DtypesAndRefusalsMatchNumpy) {
  for (const group& g : cases().groups) {
    const std::string what = g.name + "(" + g.dtype + ", " + g.param + ")";
    const bool known = visit_dtype(g.dtype, [&]<class T>(std::type_identity<T>) {
      if (g.name == "round" && std::is_same_v<T, bool> && g.param != "0") {
        // A run-time refusal (decimals is a value): before anything touches a device.
        EXPECT_EQ(g.out, "TypeError") << what;
        EXPECT_THROW((void)nd::round(nd::testing::fake<bool>({4}), std::stoi(g.param)), nd::type_error) << what;
        return;
      }
      if (!accepted<T>(g.name)) {
        EXPECT_EQ(g.out, "TypeError") << what << ": ndcuda refuses it";
        return;
      }
      ASSERT_NE(g.out, "TypeError") << what << ": NumPy raises TypeError, ndcuda accepts it";
      EXPECT_EQ(result_dtypes<T>(g), g.out) << what;
    });
    EXPECT_TRUE(known) << g.dtype;
  }
}

TEST(UfuncsIssue19b, DeviceHelpersOnTheHostMatchNumpy) {
  for (const group& g : cases().groups) {
    if (g.out == "TypeError" || g.name == "angle" || values_differ_by_design(g)) continue;
    visit_dtype(g.dtype, [&]<class T>(std::type_identity<T>) {
      with_call<T>(g, [&](auto call) {
        using F = decltype(call);
        using Out =
            std::conditional_t<std::is_invocable_v<F, nd::ndarray<T>>, std::invoke_result<F, nd::ndarray<T>>,
                               std::conditional_t<std::is_invocable_v<F, nd::ndarray<T>, nd::ndarray<std::int32_t>>,
                                                  std::invoke_result<F, nd::ndarray<T>, nd::ndarray<std::int32_t>>,
                                                  std::invoke_result<F, nd::ndarray<T>, nd::ndarray<T>>>>;
        int reported = 0;
        for (const auto& c : g.cases) {
          for (const std::string& b : host_results<T, typename Out::type>(g, c)) {
            if (reported++ < 8) {
              ADD_FAILURE() << g.name << "(" << g.dtype << ", " << g.param << ") at (" << c[0]
                            << (inputs_of(g.name) == 2 ? ", " + c[1] : "") << "): helper gives " << b;
            }
          }
        }
      });
    });
  }
}

TEST(UfuncsIssue19b, LdexpDtypeTableMatchesNumpy) {
  for (const auto& [x, e, r] : cases().ldexp_types) {
    const nd::dtype dx = dtype_named(x);
    const nd::dtype de = dtype_named(e);
    using op = nd::detail::ldexp_op;
    EXPECT_EQ(op::accepts(dx, de), r != "TypeError") << "ldexp(" << x << ", " << e << ")";
    if (op::accepts(dx, de)) {
      EXPECT_EQ(std::string(nd::name(op::result(dx, de))), r) << "ldexp(" << x << ", " << e << ")";
    }
  }
  // A C++ integer exponent is an int64 kernel parameter; the mantissa keeps its dtype.
  using X = decltype(nd::ldexp(std::declval<nd::ndarray<__half>>(), 3));
  static_assert(X::type() == nd::dtype::float16 && X::scalars == 1);
}

TEST(UfuncsIssue19b, OptionsAndScalarOperandsBuildTheRightNodes) {
  const auto a = nd::testing::fake<float>({4});
  using C = decltype(nd::isclose(a, 1, nd::rtol(1e-3), nd::atol(0), nd::equal_nan));
  static_assert(C::type() == nd::dtype::bool_);
  using D = decltype(nd::divmod(a, 2));
  static_assert(std::is_same_v<D, std::pair<nd::ndarray<float>, nd::ndarray<float>>>);
  using B = decltype(nd::divmod(nd::testing::fake<bool>({4}), nd::testing::fake<bool>({4})));
  static_assert(std::is_same_v<B, std::pair<nd::ndarray<std::int8_t>, nd::ndarray<std::int8_t>>>);
  using F = decltype(nd::frexp(nd::testing::fake<std::int16_t>({4})));
  static_assert(std::is_same_v<F, std::pair<nd::ndarray<float>, nd::ndarray<std::int32_t>>>);
  static_assert(decltype(nd::around(a, 2))::type() == nd::dtype::float32);
  static_assert(std::is_same_v<decltype(nd::round(nd::testing::fake<std::complex<float>>({4}))),
                               decltype(nd::round(nd::testing::fake<std::complex<float>>({4}), 0))>);
  static_assert(decltype(nd::angle(nd::testing::fake<std::complex<float>>({4}), nd::deg))::type() ==
                nd::dtype::float32);
  static_assert(decltype(nd::nan_to_num(nd::testing::fake<std::complex<double>>({4}), {.nan = 1.0}))::type() ==
                nd::dtype::complex128);
}

TEST(UfuncsIssue19b, EachKernelFamilyCompilesWithNvrtc) {
  const nd::compute_capability cc{9, 0};
  const auto compile = [&](const auto& x, const char* what) {
    using X = std::remove_cvref_t<decltype(x)>;
    using R = typename X::value_type;
    const nd::detail::inputs_of<X> in(x);
    const auto& state = nd::detail::expression_state<R, X>(in);
    EXPECT_NO_THROW(nd::detail::compile_expression(state, cc)) << what;
  };
  const auto h = nd::testing::fake<__half>({8});
  const auto f = nd::testing::fake<float>({8});
  const auto i = nd::testing::fake<std::int32_t>({8});
  const auto z = nd::testing::fake<std::complex<float>>({8});
  compile(nd::ldexp(h, i), "ldexp(float16, int32)");
  compile(nd::round(f * 2.0f, 2), "round(float32 expression, 2)");
  compile(nd::round(i, -1), "round(int32, -1)");
  compile(nd::sign(z), "sign(complex64)");
  compile(nd::angle(z, nd::deg), "angle(complex64, deg)");
  compile(nd::nan_to_num(h), "nan_to_num(float16)");
  compile(nd::nan_to_num(z, {.nan = 1.0}), "nan_to_num(complex64)");
  compile(nd::isclose(f, i, nd::equal_nan), "isclose(float32, int32)");

  // The two-output kernel: every layout variant the engine picks (the slot is a computed input).
  namespace jd = nd::jit::detail;
  const nd::detail::leaf_ref hi = nd::detail::leaf_of(h);
  const nd::detail::leaf_ref di = nd::detail::leaf_of(nd::testing::fake<double>({8}));
  const nd::detail::leaf_ref ii = nd::detail::leaf_of(i);
  const float two = 2.0f;
  const nd::detail::pair_operand frexp_in[] = {{&hi}};
  const nd::detail::pair_operand modf_in[] = {{&di}};
  const nd::detail::pair_operand divmod_in[] = {{&ii}, {nullptr, nd::dtype::float32, &two}};
  using nd::detail::pair_kind;
  const auto& fr =
      nd::detail::pair_state(pair_kind::frexp, frexp_in, nd::dtype::float16, nd::dtype::float16, nd::dtype::int32);
  const auto& mo =
      nd::detail::pair_state(pair_kind::modf, modf_in, nd::dtype::float64, nd::dtype::float64, nd::dtype::float64);
  const auto& dm =
      nd::detail::pair_state(pair_kind::divmod, divmod_in, nd::dtype::float32, nd::dtype::float32, nd::dtype::float32);
  EXPECT_NO_THROW(nd::detail::compile_expression(fr, cc)) << "frexp(float16)";
  EXPECT_NO_THROW(nd::detail::compile_expression(mo, cc)) << "modf(float64)";
  EXPECT_NO_THROW(nd::detail::compile_expression(dm, cc)) << "divmod(int32, 2.0f)";
  // divmod(int32 (64, 64) transposed, scalar) into (64, 64): strided 3-d, 2-d, 2-d vectors, tiled.
  const std::vector<std::size_t> sizes{4, 4, 4};
  const auto variant = [&](nd::shape_t shape, std::vector<nd::strides_t> strides, const char* what) {
    const std::vector<std::uintptr_t> addresses{256, 256, 0};
    const jd::elementwise_plan plan = jd::plan_strided(shape, strides, addresses, sizes);
    EXPECT_NO_THROW(jd::compile_for(dm.variant(plan).kernel, cc)) << what;
    return plan;
  };
  EXPECT_EQ(variant({4, 5, 6}, {{30, 6, 1}, {0, 1, 5}, {30, 6, 1}}, "3-d").ndim(), 3);
  EXPECT_EQ(variant({40, 5}, {{5, 1}, {0, 1}, {5, 1}}, "2-d").ndim(), 2);
  EXPECT_TRUE(variant({40, 64}, {{64, 1}, {0, 1}, {64, 1}}, "2-d vectors").row_vectors());
  EXPECT_TRUE(variant({64, 64}, {{64, 1}, {1, 64}, {64, 1}}, "tiled").tiled());
}

TEST(UfuncsIssue19b, GpuMatchesNumpyOnArraysZeroDAndEmpty) {
  NDCUDA_REQUIRE_GPU();
  const bool trace = std::getenv("NDCUDA_TEST_TRACE") != nullptr;  // which group, should one crash
  for (const group& g : cases().groups) {
    if (g.out == "TypeError") continue;
    if (trace) std::fprintf(stderr, "group %s %s %s\n", g.name.c_str(), g.dtype.c_str(), g.param.c_str());
    visit_dtype(g.dtype, [&]<class T>(std::type_identity<T>) { gpu_check<T>(g); });
  }
}

TEST(UfuncsIssue19b, GpuAllcloseArrayEqualAndArrayEquivMatchNumpy) {
  NDCUDA_REQUIRE_GPU();
  for (const std::string& line : cases().whole) {
    std::istringstream in(line);
    std::string fn, flag;
    in >> fn >> flag;
    std::string rest;
    std::getline(in, rest);
    const auto bar1 = rest.find('|');
    const auto bar2 = rest.find('|', bar1 + 1);
    std::size_t pos = 0;
    const auto a = host_array<double>(rest.substr(0, bar1), pos);
    const auto b = host_array<double>(rest.substr(bar1 + 1, bar2 - bar1 - 1), pos);
    std::string want = rest.substr(bar2 + 1);
    want.erase(0, want.find_first_not_of(' '));
    const bool en = flag == "1";
    if (want == "ValueError") {  // NumPy's broadcast error: an nd::error (shape_error) here
      EXPECT_THROW((void)nd::allclose(a, b, nd::equal_nan(en)), nd::error) << line;
      continue;
    }
    bool got = false;
    if (fn == "allclose") {
      got = nd::allclose(a, b, nd::equal_nan(en));
    } else if (fn == "array_equal") {
      got = nd::array_equal(a, b, nd::equal_nan(en));
    } else {
      got = nd::array_equiv(a, b);
    }
    EXPECT_EQ(got, want == "1") << line;
  }
}

TEST(UfuncsIssue19b, GpuDivmodFrexpModfOnRandomStridedInputs) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<double> x = nd::testing::uniform_values<double>(60 * 70, -1e3, 1e3);
  const std::vector<double> y = nd::testing::uniform_values<double>(70, -1e3 / 10 + 0.5, 1e3 / 10 + 0.5);
  // x transposed (a strided view) against y broadcast along rows: the 2-d and tiled variants.
  const auto xa = nd::asarray(x, {60, 70});
  const auto xt = xa.T();
  const auto ya = nd::asarray(y, {70, 1});
  const auto [q, r] = nd::divmod(xt, ya);
  const auto [m, e] = nd::frexp(xt);
  const auto [fr, in] = nd::modf(xt * 3.0);
  const std::vector<double> hq = q.to_host(), hr = r.to_host(), hm = m.to_host(), hf = fr.to_host(), hi = in.to_host();
  const std::vector<std::int32_t> he = e.to_host();
  int bad = 0;
  for (std::size_t i = 0; i < 70; ++i) {
    for (std::size_t j = 0; j < 60; ++j) {
      const std::size_t k = i * 60 + j;
      const double a = x[j * 70 + i];
      const double b = y[i];
      const double mod = std::fmod(a, b);
      double rem = mod != 0 && ((b < 0) != (mod < 0)) ? mod + b : mod;
      if (mod == 0) rem = std::copysign(0.0, b);
      double div = (a - mod) / b;
      if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
      double fl = std::floor(div);
      if (div - fl > 0.5) fl += 1;
      if (div == 0) fl = std::copysign(0.0, a / b);
      int ex = 0;
      const double mant = std::frexp(a, &ex);
      double ip = 0;
      const double frac = std::modf(a * 3.0, &ip);
      const bool ok = hq[k] == fl && hr[k] == rem && hm[k] == mant && he[k] == ex && hf[k] == frac && hi[k] == ip;
      if (!ok && bad++ < 8) {
        ADD_FAILURE() << "at (" << i << ", " << j << ") x=" << a << " y=" << b << ": divmod " << hq[k] << ", " << hr[k]
                      << " (want " << fl << ", " << rem << "), frexp " << hm[k] << ", " << he[k] << " (want " << mant
                      << ", " << ex << "), modf " << hf[k] << ", " << hi[k] << " (want " << frac << ", " << ip << ")";
      }
    }
  }
}
