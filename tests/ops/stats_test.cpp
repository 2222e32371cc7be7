// Issue 19's reductions, scans and statistics: the NumPy-generated cases of
// tests/data/stats_cases_19.txt (gen_stats_cases_19.py) on the GPU, random inputs against double
// host references on the GPU, and on the CPU the case file itself, dtypes, refusals that need no
// device and NVRTC compiles of the new reducers.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <ndcuda/ndcuda.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "support/fake_array.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

using c128 = std::complex<double>;
using nd::detail::reduce_kind;

// ---- the case file ----

struct array_text {
  std::string dtype;
  nd::shape_t shape;
  std::vector<std::string> values;
};

struct stats_case {
  int line = 0;
  std::string op;
  array_text input;
  std::map<std::string, std::string> params;
  std::vector<array_text> outputs;
  std::string error_type;  ///< NumPy's exception when it raises
  std::string error_message;

  [[nodiscard]] bool has(const std::string& key) const { return params.count(key) > 0; }
  [[nodiscard]] const std::string& at(const std::string& key) const { return params.at(key); }
};

std::vector<std::string> split(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t p = s.find(sep, start);
    if (p == std::string::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, p - start));
    start = p + sep.size();
  }
}

nd::shape_t parse_shape(const std::string& s) {
  nd::shape_t shape;
  if (!s.empty()) {
    for (const std::string& d : split(s, ",")) {
      shape.push_back(std::stoll(d));
    }
  }
  return shape;
}

std::vector<std::string> parse_values(const std::string& s) {
  std::vector<std::string> values;
  std::istringstream in(s);
  std::string v;
  while (in >> v) {
    values.push_back(v);
  }
  return values;
}

array_text parse_array(const std::string& s) {
  const std::vector<std::string> parts = split(s, "/");
  return array_text{parts.at(0), parse_shape(parts.at(1)), parse_values(parts.at(2))};
}

std::vector<stats_case> load_cases() {
  std::ifstream in(std::string(NDCUDA_TEST_DATA_DIR) + "/stats_cases_19.txt");
  std::vector<stats_case> cases;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (text.empty() || text[0] == '#') {
      continue;
    }
    const std::vector<std::string> f = split(text, "|");
    stats_case c;
    c.line = line;
    c.op = f.at(0);
    c.input = array_text{f.at(1), parse_shape(f.at(2)), parse_values(f.at(3))};
    if (!f.at(4).empty()) {
      for (const std::string& p : split(f.at(4), ";")) {
        const std::size_t eq = p.find('=');
        c.params[p.substr(0, eq)] = p.substr(eq + 1);
      }
    }
    if (f.at(5).rfind("error ", 0) == 0) {
      const std::string rest = f.at(5).substr(6);
      const std::size_t space = rest.find(' ');
      c.error_type = rest.substr(0, space);
      c.error_message = rest.substr(space + 1);
    } else {
      for (const std::string& o : split(f.at(5), " & ")) {
        c.outputs.push_back(parse_array(o));
      }
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

// ---- host values ----

template <class T>
T parse_value(const std::string& s) {
  if constexpr (nd::detail::is_std_complex<T>) {
    const std::size_t colon = s.find(':');
    return T(std::strtod(s.substr(0, colon).c_str(), nullptr), std::strtod(s.substr(colon + 1).c_str(), nullptr));
  } else if constexpr (std::is_same_v<T, bool>) {
    return s == "1";
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::stoll(s));
  } else {
    return static_cast<T>(std::strtod(s.c_str(), nullptr));  // also nan, inf, -inf
  }
}

template <class T>
nd::ndarray<T> make(const array_text& t) {
  std::vector<T> v;
  for (const std::string& s : t.values) {
    v.push_back(parse_value<T>(s));
  }
  return nd::asarray(v, t.shape);
}

template <class T>
c128 wide(T x) {
  if constexpr (nd::detail::is_std_complex<T>) {
    return c128(static_cast<double>(x.real()), static_cast<double>(x.imag()));
  } else {
    return c128(static_cast<double>(x), 0.0);
  }
}

struct observed {
  std::string dtype;
  nd::shape_t shape;
  std::vector<c128> values;
};

template <class E>
observed observe(const nd::ndarray<E>& r) {
  observed o{std::string(nd::name(nd::dtype_of<E>)), r.shape(), {}};
  const auto host = r.to_host();
  for (std::size_t i = 0; i < host.size(); ++i) {
    o.values.push_back(wide<E>(host[i]));
  }
  return o;
}
/// A lazy reduction (nd::reduction_expr) observed as the array it evaluates to.
template <class X>
requires(!nd::detail::is_ndarray<X> && nd::array_operand<X>) observed observe(const X& lazy) {
  return observe(nd::eval(lazy));
}

bool close(double got, double want, double rtol) {
  if (std::isnan(want)) {
    return std::isnan(got);
  }
  if (std::isinf(want)) {
    return got == want;
  }
  return std::abs(got - want) <= rtol * std::max(1.0, std::abs(want));
}

void expect_output(const observed& got, const array_text& want, const std::string& where) {
  EXPECT_EQ(got.dtype, want.dtype) << where;
  EXPECT_EQ(got.shape, want.shape) << where;
  ASSERT_EQ(got.values.size(), want.values.size()) << where;
  for (std::size_t i = 0; i < want.values.size(); ++i) {
    const c128 w = want.dtype.rfind("complex", 0) == 0 ? parse_value<c128>(want.values[i])
                                                       : c128(parse_value<double>(want.values[i]), 0.0);
    // Sums here have a few terms: float64 agrees with NumPy to a few ulps of the largest term.
    EXPECT_TRUE(close(got.values[i].real(), w.real(), 1e-12) && close(got.values[i].imag(), w.imag(), 1e-12))
        << where << " element " << i << ": got " << got.values[i] << ", NumPy " << want.values[i];
  }
}

// ---- running one case ----

std::optional<int> axis_of(const stats_case& c) {
  if (!c.has("axis") || c.at("axis") == "none") {
    return std::nullopt;
  }
  return std::stoi(c.at("axis"));
}

nd::axes axes_of(const stats_case& c) {
  const std::optional<int> a = axis_of(c);
  return a ? nd::axes(*a) : nd::axes{};
}

bool flag(const stats_case& c, const std::string& key) {
  return c.has(key) && c.at(key) == "1";
}

/// Calls fn(options...) with nd::keepdims and, where the case has them, where= and initial=.
template <bool Initial, class F>
observed with_options(const stats_case& c, const F& fn) {
  const nd::keepdims_t k = nd::keepdims(flag(c, "keepdims"));
  const bool masked = c.has("mask");
  if constexpr (Initial) {
    if (c.has("initial")) {
      const nd::initial init(std::stoll(c.at("initial")));
      if (masked) {
        return observe(fn(k, nd::where_mask(make<bool>(parse_array(c.at("mask")))), init));
      }
      return observe(fn(k, init));
    }
  }
  if (masked) {
    return observe(fn(k, nd::where_mask(make<bool>(parse_array(c.at("mask"))))));
  }
  return observe(fn(k));
}

template <class T>
std::optional<observed> run_reduction(const stats_case& c, const nd::ndarray<T>& a, const std::string& op) {
  const nd::axes ax = axes_of(c);
  const nd::ddof dd(c.has("ddof") ? std::stoi(c.at("ddof")) : 0);
  if (op == "nanprod") {
    return with_options<true>(c, [&](const auto&... o) { return nd::nanprod(a, ax, o...); });
  }
  if (op == "nanvar") {
    return with_options<false>(c, [&](const auto&... o) { return nd::nanvar(a, ax, dd, o...); });
  }
  if (op == "nanstd") {
    return with_options<false>(c, [&](const auto&... o) { return nd::nanstd(a, ax, dd, o...); });
  }
  if constexpr (!nd::detail::is_std_complex<T>) {
    if (op == "sum") {
      return with_options<true>(c, [&](const auto&... o) { return nd::sum(a, ax, o...); });
    }
    if (op == "prod") {
      return with_options<true>(c, [&](const auto&... o) { return nd::prod(a, ax, o...); });
    }
    if (op == "nansum") {
      return with_options<true>(c, [&](const auto&... o) { return nd::nansum(a, ax, o...); });
    }
    if (op == "min") {
      return with_options<true>(c, [&](const auto&... o) { return nd::min(a, ax, o...); });
    }
    if (op == "max") {
      return with_options<true>(c, [&](const auto&... o) { return nd::max(a, ax, o...); });
    }
    if (op == "nanmin") {
      return with_options<true>(c, [&](const auto&... o) { return nd::nanmin(a, ax, o...); });
    }
    if (op == "nanmax") {
      return with_options<true>(c, [&](const auto&... o) { return nd::nanmax(a, ax, o...); });
    }
    if (op == "any") {
      return with_options<false>(c, [&](const auto&... o) { return nd::any(a, ax, o...); });
    }
    if (op == "all") {
      return with_options<false>(c, [&](const auto&... o) { return nd::all(a, ax, o...); });
    }
    if (op == "mean") {
      return with_options<false>(c, [&](const auto&... o) { return nd::mean(a, ax, o...); });
    }
    if (op == "nanmean") {
      return with_options<false>(c, [&](const auto&... o) { return nd::nanmean(a, ax, o...); });
    }
    if (op == "var") {
      return with_options<false>(c, [&](const auto&... o) { return nd::var(a, ax, dd, o...); });
    }
    if (op == "std") {
      return with_options<false>(c, [&](const auto&... o) { return nd::std(a, ax, dd, o...); });
    }
  }
  return std::nullopt;
}

template <class T>
std::vector<nd::gradient_spacing> spacing_of(const stats_case& c) {
  if (c.has("dx")) {
    return {std::stod(c.at("dx"))};
  }
  std::vector<nd::gradient_spacing> s;
  for (int k = 0;; ++k) {
    const std::string coords = "coords" + std::to_string(k), dx = "dx" + std::to_string(k);
    if (c.has(coords)) {
      s.emplace_back(make<double>(parse_array(c.at(coords))));
    } else if (c.has(dx)) {
      s.emplace_back(std::stod(c.at(dx)));
    } else {
      return s;
    }
  }
}

template <class T, class... U>
inline constexpr bool one_of = (std::is_same_v<T, U> || ...);

/// The outputs of case `c` on input `a`. Each op is instantiated only for the dtypes the case
/// file gives it (every instantiation costs build time).
template <class T>
std::vector<observed> run_case(const stats_case& c, const nd::ndarray<T>& a) {
  using i8 = std::int8_t;
  using i32 = std::int32_t;
  const std::string& op = c.op;
  std::string base = op;
  for (const std::string suffix : {"_where", "_initial"}) {
    if (base.size() > suffix.size() && base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0) {
      base.resize(base.size() - suffix.size());
    }
  }
  const std::optional<int> axis = axis_of(c);
  const std::optional<nd::index_t> scan_axis = axis ? std::optional<nd::index_t>(*axis) : std::optional<nd::index_t>();
  if constexpr (one_of<T, double, c128, i8>) {
    if (auto r = run_reduction(c, a, base)) {
      return {*r};
    }
    if (op == "nancumsum") {
      return {observe(nd::eval(nd::nancumsum(a, scan_axis)))};
    }
    if (op == "nancumprod") {
      return {observe(nd::eval(nd::nancumprod(a, scan_axis)))};
    }
  }
  if constexpr (one_of<T, double, i8>) {
    if (op == "nanargmin") {
      return {observe(nd::nanargmin(a, axis, nd::keepdims(flag(c, "keepdims"))))};
    }
    if (op == "nanargmax") {
      return {observe(nd::nanargmax(a, axis, nd::keepdims(flag(c, "keepdims"))))};
    }
    if (op == "ediff1d") {
      std::optional<nd::ndarray<T>> to_end, to_begin;
      if (c.has("to_end")) {
        to_end = make<T>(parse_array(c.at("to_end")));
      }
      if (c.has("to_begin")) {
        to_begin = make<T>(parse_array(c.at("to_begin")));
      }
      return {observe(nd::ediff1d(a, to_end, to_begin))};
    }
  }
  if constexpr (one_of<T, double, i32, c128>) {
    if (op == "trapezoid") {
      const nd::index_t ax = axis.value_or(-1);
      if (c.has("x")) {
        return {observe(nd::trapezoid(a, make<double>(parse_array(c.at("x"))), ax))};
      }
      return {observe(nd::trapezoid(a, c.has("dx") ? std::stod(c.at("dx")) : 1.0, ax))};
    }
  }
  if constexpr (one_of<T, double, i32>) {
    if (op == "average") {
      if (c.has("weights")) {
        const nd::ndarray<double> w = make<double>(parse_array(c.at("weights")));
        if (flag(c, "returned")) {
          const auto r = nd::average_returned(a, axis, w);
          return {observe(r.average), observe(r.sum_of_weights)};
        }
        return {observe(nd::average(a, axis, w))};
      }
      if (flag(c, "returned")) {
        const auto r = nd::average_returned(a, axis);
        return {observe(r.average), observe(r.sum_of_weights)};
      }
      return {observe(nd::average(a, axis))};
    }
    if (op == "gradient") {
      std::vector<int> axes;
      if (axis) {
        axes.push_back(*axis);
      }
      std::vector<observed> out;
      for (const auto& g : nd::gradient(a, spacing_of<T>(c), axes, std::stoi(c.at("edge_order")))) {
        out.push_back(observe(g));
      }
      return out;
    }
  }
  if constexpr (one_of<T, double, i8, i32, bool>) {
    if (op == "ptp") {
      return {observe(nd::ptp(a, axes_of(c)))};
    }
  }
  if constexpr (one_of<T, double, i8, bool>) {
    if (op == "cumulative_sum") {
      return {flag(c, "include_initial") ? observe(nd::cumulative_sum(a, scan_axis, nd::include_initial))
                                         : observe(nd::cumulative_sum(a, scan_axis))};
    }
    if (op == "cumulative_prod") {
      return {flag(c, "include_initial") ? observe(nd::cumulative_prod(a, scan_axis, nd::include_initial))
                                         : observe(nd::cumulative_prod(a, scan_axis))};
    }
  }
  if constexpr (one_of<T, double, i8, bool, std::uint8_t>) {
    if (op == "diff") {
      std::optional<nd::ndarray<T>> prepend, append;
      if (c.has("prepend")) {
        prepend = make<T>(parse_array(c.at("prepend")));
      }
      if (c.has("append")) {
        append = make<T>(parse_array(c.at("append")));
      }
      return {observe(nd::diff(a, std::stoi(c.at("n")), axis.value_or(-1), prepend, append))};
    }
  }
  ADD_FAILURE() << "line " << c.line << ": no runner for " << op << " of " << c.input.dtype;
  return {};
}

template <class T>
void check_case(const stats_case& c) {
  const std::string where =
      "stats_cases_19.txt line " + std::to_string(c.line) + " (" + c.op + " of " + c.input.dtype + ")";
  const nd::ndarray<T> a = make<T>(c.input);
  if (!c.error_type.empty()) {
    try {
      (void)run_case(c, a);
      ADD_FAILURE() << where << ": NumPy raises " << c.error_type << " (" << c.error_message << "), ndcuda did not";
    } catch (const nd::error& e) {
      // NumPy's text, except where ndcuda words it itself (differences-from-numpy.md).
      if (c.error_message.rfind("input operand has more dimensions", 0) != 0) {
        EXPECT_NE(std::string(e.what()).find(c.error_message), std::string::npos)
            << where << ": " << e.what() << "\nNumPy: " << c.error_message;
      }
    }
    return;
  }
  const std::vector<observed> got = run_case(c, a);
  ASSERT_EQ(got.size(), c.outputs.size()) << where;
  for (std::size_t i = 0; i < got.size(); ++i) {
    expect_output(got[i], c.outputs[i], where + " output " + std::to_string(i));
  }
}

// ---- CPU: the case file, dtypes, refusals, kernels ----

TEST(StatsCases, FileParsesAndCoversEveryFunction) {
  const std::vector<stats_case> cases = load_cases();
  ASSERT_GT(cases.size(), 600u);
  std::map<std::string, int> per_op;
  for (const stats_case& c : cases) {
    ++per_op[c.op];
    EXPECT_EQ(nd::shape_size(c.input.shape), static_cast<nd::index_t>(c.input.values.size())) << c.line;
    for (const array_text& o : c.outputs) {
      EXPECT_EQ(nd::shape_size(o.shape), static_cast<nd::index_t>(o.values.size())) << c.line;
    }
    EXPECT_TRUE(c.error_type.empty() != c.outputs.empty()) << c.line;
  }
  for (const char* op :
       {"nanprod",        "nanvar",          "nanstd",      "nanargmin",  "nanargmax",    "nancumsum", "nancumprod",
        "sum_where",      "min_where",       "max_initial", "mean_where", "nanvar_where", "average",   "ptp",
        "cumulative_sum", "cumulative_prod", "diff",        "ediff1d",    "gradient",     "trapezoid"}) {
    EXPECT_GT(per_op[op], 0) << op;
  }
}

TEST(StatsDtypes, FollowNumPy) {
  using nd::testing::fake;
  const auto f = fake<float>({4, 5});
  const auto i8 = fake<std::int8_t>({4, 5});
  const auto c = fake<std::complex<float>>({4, 5});
  static_assert(std::is_same_v<decltype(nd::nanprod(i8))::value_type, std::int64_t>);
  static_assert(std::is_same_v<decltype(nd::nanvar(i8))::value_type, double>);
  static_assert(std::is_same_v<decltype(nd::nanstd(c))::value_type, float>);
  static_assert(std::is_same_v<decltype(nd::nanvar<double>(f))::value_type, double>);
  static_assert(std::is_same_v<decltype(nd::nanargmax(f, 0))::value_type, std::int64_t>);
  static_assert(std::is_same_v<decltype(nd::sum(i8, 0, nd::where_mask(f > 0)))::value_type, std::int64_t>);
  static_assert(std::is_same_v<decltype(nd::mean(i8, 0, nd::where_mask(f > 0)))::value_type, double>);
  static_assert(std::is_same_v<decltype(nd::var(c, 0, nd::where_mask(f > 0)))::value_type, float>);
  static_assert(std::is_same_v<decltype(nd::min(i8, 0, nd::initial(3)))::value_type, std::int8_t>);
  static_assert(std::is_same_v<decltype(nd::ptp(i8, 1))::value_type, std::int8_t>);
  static_assert(std::is_same_v<decltype(nd::average(i8, 1, f))::value_type, double>);
  static_assert(std::is_same_v<decltype(nd::average(f, 1, f))::value_type, float>);
  static_assert(std::is_same_v<decltype(nd::average(f))::value_type, float>);
  static_assert(std::is_same_v<decltype(nd::cumulative_sum(i8, 0))::value_type, std::int64_t>);
  static_assert(std::is_same_v<decltype(nd::nancumsum(f, 0))::value_type, float>);
  static_assert(std::is_same_v<decltype(nd::diff(i8))::value_type, std::int8_t>);
  static_assert(std::is_same_v<decltype(nd::trapezoid(i8))::value_type, double>);
  static_assert(std::is_same_v<decltype(nd::trapezoid(f))::value_type, float>);
  static_assert(std::is_same_v<decltype(nd::gradient(i8))::value_type::value_type, double>);
  static_assert(std::is_same_v<decltype(nd::gradient(c))::value_type::value_type, std::complex<float>>);
  (void)f;
  (void)i8;
  (void)c;
}

// Refusals that happen before anything reaches a device: NumPy's texts.
template <class F>
std::string message_of(const F& f) {
  try {
    f();
  } catch (const nd::error& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(StatsErrors, NumPyTextsWithoutADevice) {
  using nd::testing::fake;
  const auto f = fake<double>({3, 4});
  const auto b = fake<bool>({3, 4});
  const auto m = fake<bool>({4});
  EXPECT_EQ(message_of([&] { (void)nd::min(f, 1, nd::where_mask(m)); }),
            "reduction operation 'minimum' does not have an identity, so to use a where mask one has to specify "
            "'initial'");
  EXPECT_EQ(message_of([&] { (void)nd::nanmax(f, nd::where_mask(m)); }),
            "reduction operation 'fmax' does not have an identity, so to use a where mask one has to specify "
            "'initial'");
  EXPECT_NE(message_of([&] {
              (void)nd::sum(f, nd::where_mask(fake<bool>({2, 3, 4})));
            }).find("does not broadcast"),
            std::string::npos);
  EXPECT_NE(message_of([&] { (void)nd::mean(f, 0, nd::where_mask(fake<bool>({3}))); }).find("does not broadcast"),
            std::string::npos);
  EXPECT_EQ(message_of([&] {
              (void)nd::nanargmin(fake<double>({0, 3}), 0);
            }),
            "attempt to get argmin of an empty sequence");
  EXPECT_NE(message_of([&] { (void)nd::ptp(b, 0); }).find("numpy boolean subtract"), std::string::npos);
  EXPECT_EQ(message_of([&] { (void)nd::diff(f, -1); }), "order must be non-negative but got -1");
  EXPECT_EQ(message_of([&] { (void)nd::diff(fake<double>({})); }),
            "diff requires input that is at least one dimensional");
  EXPECT_NE(message_of([&] { (void)nd::cumulative_sum(f); }).find("``axis`` argument is required"), std::string::npos);
  EXPECT_EQ(message_of([&] { (void)nd::gradient(f, {}, {}, 3); }), "'edge_order' greater than 2 not supported");
  EXPECT_EQ(message_of([&] {
              (void)nd::gradient(fake<double>({3, 2}), {}, {1}, 2);
            }),
            "Shape of array too small to calculate a numerical gradient, at least (edge_order + 1) elements are "
            "required.");
  EXPECT_EQ(message_of([&] { (void)nd::gradient(f, {1.0, 2.0, 3.0}); }), "invalid number of arguments");
  EXPECT_EQ(message_of([&] { (void)nd::average(f, std::nullopt, fake<double>({4})); }),
            "Axis must be specified when shapes of a and weights differ.");
  EXPECT_EQ(message_of([&] { (void)nd::average(f, 1, fake<double>({3})); }),
            "Shape of weights must be consistent with shape of a along specified axis.");
  EXPECT_EQ(message_of([&] {
              (void)nd::average(f, 1, fake<double>({4, 1}));
            }),
            "1D weights expected when shapes of a and weights differ.");
}

// One NVRTC compile per new reducer family: nanprod and nanargmax of float64 rows, nanstd (the
// nanvar reducer) of complex64 columns.
template <reduce_kind K, class X>
void compile_reducer(const X& x, const nd::shape_t& shape, const std::vector<bool>& mask) {
  using N = nd::detail::node_t<const X&>;
  const N node = nd::detail::as_node(x);
  const nd::detail::inputs_of<N> in(node);
  const std::vector<nd::strides_t> strides(1, nd::c_strides(shape));
  SCOPED_TRACE(nd::detail::reduce_name(K));
  EXPECT_NO_THROW(nd::detail::compile_reduction(nd::detail::reduction_state_for<K, void, N>(in),
                                                nd::compute_capability{9, 0}, shape, mask, strides));
}

TEST(StatsKernels, NewReducersCompileWithNvrtc) {
  const auto d = nd::testing::fake<double>({64, 4096});
  compile_reducer<reduce_kind::nanprod>(d, {64, 4096}, {false, true});
  compile_reducer<reduce_kind::nanargmax>(d, {64, 4096}, {false, true});
  const auto c = nd::testing::fake<std::complex<float>>({4096, 64});
  compile_reducer<reduce_kind::nanstd>(c, {4096, 64}, {true, false});
}

// ---- GPU: NumPy's cases ----

TEST(StatsGpu, NumPyCases) {
  NDCUDA_REQUIRE_GPU();
  for (const stats_case& c : load_cases()) {
    const std::string& t = c.input.dtype;
    if (t == "float64") {
      check_case<double>(c);
    } else if (t == "complex128") {
      check_case<c128>(c);
    } else if (t == "int8") {
      check_case<std::int8_t>(c);
    } else if (t == "int32") {
      check_case<std::int32_t>(c);
    } else if (t == "uint8") {
      check_case<std::uint8_t>(c);
    } else if (t == "bool") {
      check_case<bool>(c);
    } else {
      ADD_FAILURE() << "line " << c.line << ": no runner for dtype " << t;
    }
  }
}

// ---- GPU: random inputs against double host references ----

TEST(StatsGpu, NanReductionsAlongRowsMatchAHostReference) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t rows = 37, cols = 1531;
  std::vector<double> h = nd::testing::with_nans(nd::testing::uniform_values<double>(rows * cols, -4.0, 4.0), 0.1);
  for (std::size_t j = 0; j < cols; ++j) {
    h[5 * cols + j] = std::numeric_limits<double>::quiet_NaN();  // an all-NaN row
  }
  for (std::size_t j = 0; j < cols; ++j) {
    h[7 * cols + j] = 1.0 + 1e-3 * std::sin(double(j));  // a row whose product stays near 1
  }
  const auto a = nd::asarray(h, {nd::index_t(rows), nd::index_t(cols)});
  const auto var = nd::nanvar(a, 1, nd::ddof(1)).to_host();
  const auto sd = nd::nanstd(a, 1).to_host();
  const auto prod = nd::nanprod(a(nd::slice(7, 8)), 1).to_host();
  const auto amin = nd::nanargmin(a(nd::slice(0, 5)), 1).to_host();
  const auto amax = nd::nanargmax(a(nd::slice(6, nd::none)), 1).to_host();
  EXPECT_THROW((void)nd::nanargmin(a, 1), nd::value_error);
  for (std::size_t i = 0; i < rows; ++i) {
    double n = 0, s = 0, p = 1;
    for (std::size_t j = 0; j < cols; ++j) {
      const double x = h[i * cols + j];
      if (!std::isnan(x)) {
        n += 1;
        s += x;
        p *= x;
      }
    }
    const double mean = s / n;
    double ss = 0;
    for (std::size_t j = 0; j < cols; ++j) {
      const double x = h[i * cols + j];
      if (!std::isnan(x)) {
        ss += (x - mean) * (x - mean);
      }
    }
    if (n == 0) {
      EXPECT_TRUE(std::isnan(var[i]) && std::isnan(sd[i])) << "all-NaN row " << i;
      continue;
    }
    EXPECT_NEAR(var[i], ss / (n - 1), 1e-12 * ss / (n - 1)) << "row " << i;
    EXPECT_NEAR(sd[i], std::sqrt(ss / n), 1e-12 * std::sqrt(ss / n)) << "row " << i;
    if (i == 7) {
      EXPECT_NEAR(prod[0], p, 1e-12 * std::abs(p));
    }
    std::size_t lo = cols, hi = cols;
    for (std::size_t j = 0; j < cols; ++j) {
      const double x = h[i * cols + j];
      if (std::isnan(x)) {
        continue;
      }
      if (lo == cols || x < h[i * cols + lo]) {
        lo = j;
      }
      if (hi == cols || x > h[i * cols + hi]) {
        hi = j;
      }
    }
    if (i < 5) {
      EXPECT_EQ(amin[i], static_cast<std::int64_t>(lo)) << "row " << i;
    } else if (i >= 6) {
      EXPECT_EQ(amax[i - 6], static_cast<std::int64_t>(hi)) << "row " << i;
    }
  }
}

TEST(StatsGpu, WhereMasksMatchAHostReference) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t rows = 301, cols = 517;
  const std::vector<double> h = nd::testing::uniform_values<double>(rows * cols, -4.0, 4.0);
  std::vector<float> hf(h.begin(), h.end());
  std::vector<bool> hm(cols);
  auto& g = nd::testing::rng();
  for (std::size_t j = 0; j < cols; ++j) {
    hm[j] = g() % 3 != 0;
  }
  const auto a = nd::asarray(hf, {nd::index_t(rows), nd::index_t(cols)});
  const auto m = nd::asarray(hm, {nd::index_t(cols)});
  const auto sum = nd::sum(a, 1, nd::where_mask(m), nd::initial(2)).to_host();
  const auto mean = nd::mean(a, 1, nd::where_mask(m)).to_host();
  const auto var = nd::var(a, 1, nd::where_mask(m), nd::ddof(1)).to_host();
  const auto mx = nd::max(a, 1, nd::where_mask(m), nd::initial(-100)).to_host();
  const auto col = nd::sum(a * 2.0f, 0, nd::where_mask(a > 0.0f)).to_host();
  for (std::size_t i = 0; i < rows; ++i) {
    double n = 0, s = 0, best = -100, abs_sum = 0;
    for (std::size_t j = 0; j < cols; ++j) {
      if (hm[j]) {
        const double x = hf[i * cols + j];
        n += 1;
        s += x;
        abs_sum += std::abs(x);
        best = std::max(best, x);
      }
    }
    const double mu = s / n;
    double ss = 0;
    for (std::size_t j = 0; j < cols; ++j) {
      if (hm[j]) {
        ss += (hf[i * cols + j] - mu) * (hf[i * cols + j] - mu);
      }
    }
    const double u = std::numeric_limits<float>::epsilon();
    EXPECT_NEAR(sum[i], s + 2, 4 * u * (abs_sum + 2)) << "row " << i;
    EXPECT_NEAR(mean[i], mu, 4 * u * abs_sum / n) << "row " << i;
    EXPECT_NEAR(var[i], ss / (n - 1), 1e-4 * ss / (n - 1)) << "row " << i;
    EXPECT_EQ(mx[i], static_cast<float>(best)) << "row " << i;
  }
  for (std::size_t j = 0; j < cols; ++j) {
    double s = 0, abs_sum = 0;
    for (std::size_t i = 0; i < rows; ++i) {
      const double x = hf[i * cols + j];
      if (x > 0) {
        s += 2 * x;
        abs_sum += 2 * x;
      }
    }
    EXPECT_NEAR(col[j], s, 4 * std::numeric_limits<float>::epsilon() * abs_sum) << "column " << j;
  }
}

TEST(StatsGpu, DifferencesAndIntegralsMatchAHostReference) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t rows = 45, cols = 263;
  const std::vector<double> h = nd::testing::uniform_values<double>(rows * cols, -4.0, 4.0);
  std::vector<double> x(cols);
  double t = 0;
  auto& g = nd::testing::rng();
  for (double& v : x) {
    t += 0.1 + double(g() % 1000) / 500.0;
    v = t;
  }
  const auto a = nd::asarray(h, {nd::index_t(rows), nd::index_t(cols)});
  const auto xs = nd::asarray(x);
  const auto d2 = nd::diff(a, 2, 0).to_host();
  const auto cs = nd::cumulative_sum(a, 1, nd::include_initial).to_host();
  const auto tz = nd::trapezoid(a, xs, 1).to_host();
  const auto gr = nd::gradient(a, {xs}, {1}, 2).at(0).to_host();
  const auto avg = nd::average(a, 1, xs).to_host();
  const auto at = [&](std::size_t i, std::size_t j) { return h[i * cols + j]; };
  for (std::size_t i = 0; i + 2 < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      const double want = at(i + 2, j) - 2 * at(i + 1, j) + at(i, j);
      ASSERT_NEAR(d2[i * cols + j], want, 1e-14 * 16) << i << "," << j;
    }
  }
  for (std::size_t i = 0; i < rows; ++i) {
    double run = 0, area = 0, wsum = 0, wx = 0, abs_run = 0;
    ASSERT_EQ(cs[i * (cols + 1)], 0.0);
    for (std::size_t j = 0; j < cols; ++j) {
      run += at(i, j);
      abs_run += std::abs(at(i, j));
      EXPECT_NEAR(cs[i * (cols + 1) + j + 1], run, 1e-15 * 64 * abs_run) << i << "," << j;
      if (j + 1 < cols) {
        area += (x[j + 1] - x[j]) * (at(i, j + 1) + at(i, j)) / 2;
      }
      wsum += x[j];
      wx += x[j] * at(i, j);
    }
    EXPECT_NEAR(tz[i], area, 1e-12 * (1 + std::abs(area)) + 1e-12 * x.back() * 8) << "row " << i;
    EXPECT_NEAR(avg[i], wx / wsum, 1e-12 * 8) << "row " << i;
    for (std::size_t j = 0; j < cols; ++j) {
      double want = 0;
      if (j == 0 || j + 1 == cols) {  // second-order one-sided
        const std::size_t k = j == 0 ? 0 : cols - 3;
        const double d1 = x[k + 1] - x[k], dd2 = x[k + 2] - x[k + 1];
        if (j == 0) {
          want = -(2 * d1 + dd2) / (d1 * (d1 + dd2)) * at(i, 0) + (d1 + dd2) / (d1 * dd2) * at(i, 1) -
                 d1 / (dd2 * (d1 + dd2)) * at(i, 2);
        } else {
          want = dd2 / (d1 * (d1 + dd2)) * at(i, k) - (dd2 + d1) / (d1 * dd2) * at(i, k + 1) +
                 (2 * dd2 + d1) / (dd2 * (d1 + dd2)) * at(i, k + 2);
        }
      } else {
        const double d1 = x[j] - x[j - 1], dd2 = x[j + 1] - x[j];
        want = -dd2 / (d1 * (d1 + dd2)) * at(i, j - 1) + (dd2 - d1) / (d1 * dd2) * at(i, j) +
               d1 / (dd2 * (d1 + dd2)) * at(i, j + 1);
      }
      EXPECT_NEAR(gr[i * cols + j], want, 1e-9 * (1 + std::abs(want))) << "gradient " << i << "," << j;
    }
  }
}

}  // namespace
