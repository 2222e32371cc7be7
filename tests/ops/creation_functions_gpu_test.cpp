// logspace, geomspace, linspace (retstep, array endpoints), full with an array, fromfunction, tri
// and vander on the GPU against NumPy (tests/data/creation_cases_19.txt from
// gen_creation_cases_19.py), plus vander and linspace on fresh random input against a double host
// reference; nd::str of a device array. Skips without a GPU, except the NVRTC compile of the
// kernels these functions generate (one per family), which runs on the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <fstream>
#include <map>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/ops/creation_functions.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "jit/elementwise_source.hpp"
#include "jit/elementwise_state.hpp"
#include "support/fake_array.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

struct creation_case {
  std::string func;
  std::string type;
  std::map<std::string, std::string> args;
  nd::shape_t shape;
  double step = 0;
  std::vector<double> values;
  std::string data;  // the values line as written (complex values are "re,im")
  std::string line;
};

std::vector<double> numbers(const std::string& text, char sep) {
  std::vector<double> out;
  std::istringstream in(text);
  for (std::string v; std::getline(in, v, sep);) {
    if (!v.empty()) {
      out.push_back(std::stod(v));
    }
  }
  return out;
}

nd::shape_t shape_of(const std::string& text) {
  nd::shape_t s;
  for (double d : numbers(text, ',')) {
    s.push_back(static_cast<nd::index_t>(d));
  }
  return s;
}

std::vector<creation_case> load_cases() {
  std::ifstream file(NDCUDA_TEST_DATA_DIR "/creation_cases_19.txt");
  std::vector<creation_case> out;
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    creation_case c;
    c.line = line;
    std::istringstream head(line);
    head >> c.func >> c.type;
    for (std::string w; head >> w;) {
      c.args[w.substr(0, w.find('='))] = w.substr(w.find('=') + 1);
    }
    std::string shape_line;
    std::string data;
    std::getline(file, shape_line);
    std::getline(file, data);
    std::istringstream sl(shape_line);
    for (std::string w; sl >> w;) {
      if (w.rfind("step=", 0) == 0) {
        c.step = std::stod(w.substr(5));
      } else if (w != "-") {
        c.shape.push_back(std::stoll(w));
      }
    }
    c.data = data;
    if (c.type != "complex128") {
      c.values = numbers(data, ' ');
    }
    out.push_back(std::move(c));
  }
  return out;
}

double arg(const creation_case& c, const std::string& key) {
  return std::stod(c.args.at(key));
}

// NumPy's value with a tolerance for the device's pow/log10 (a few ulp) and the fused
// multiply-add the JIT may use in start + i * step; integers and exact ends compare exactly.
template <class T>
void expect_values(const creation_case& c, const nd::ndarray<T>& got) {
  ASSERT_EQ(got.shape(), c.shape) << c.line;
  const std::vector<T> host = got.to_host();
  ASSERT_EQ(host.size(), c.values.size()) << c.line;
  const double eps = std::is_same_v<T, float> ? 4e-7 : 4e-15;
  for (std::size_t i = 0; i < host.size(); ++i) {
    const double want = c.values[i];
    const auto v = static_cast<double>(host[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(v)) << c.line << " [" << i << "]";
    } else if constexpr (std::is_integral_v<T>) {
      EXPECT_EQ(v, want) << c.line << " [" << i << "]";
    } else {
      EXPECT_NEAR(v, want, eps * std::max(1.0, std::fabs(want)) * 8) << c.line << " [" << i << "]";
    }
  }
}

// Complex geomspace against NumPy: each part within a few ulp of the element's magnitude (the
// device's complex pow and NumPy's differ in the last bits; NumPy's -6e-17 real parts are such noise).
void run_complex_geomspace(const creation_case& c) {
  const auto parse = [](const std::string& text) {
    const auto comma = text.find(',');
    return std::complex<double>(std::stod(text.substr(0, comma)), std::stod(text.substr(comma + 1)));
  };
  const auto got =
      nd::geomspace<std::complex<double>>(parse(c.args.at("start")), parse(c.args.at("stop")),
                                          static_cast<nd::index_t>(arg(c, "num")), c.args.at("endpoint") == "1");
  ASSERT_EQ(got.shape(), c.shape) << c.line;
  const auto host = got.to_host();
  std::istringstream in(c.data);
  std::size_t i = 0;
  for (std::string w; in >> w; ++i) {
    ASSERT_LT(i, host.size()) << c.line;
    const std::complex<double> want = parse(w);
    const double tol = 1e-13 * std::max(1.0, std::abs(want));
    EXPECT_NEAR(host[i].real(), want.real(), tol) << c.line << " [" << i << "]";
    EXPECT_NEAR(host[i].imag(), want.imag(), tol) << c.line << " [" << i << "]";
  }
  EXPECT_EQ(i, host.size()) << c.line;
}

template <class T>
nd::ndarray<T> fromfunction_named(const std::string& name, const nd::shape_t& s) {
  if (name == "i10j") {
    return nd::fromfunction<T>([](auto i, auto j) { return i * 10 + j; }, {s[0], s[1]});
  }
  if (name == "isq_minus_j") {
    return nd::fromfunction<T>([](auto i, auto j) { return i * i - 2 * j; }, {s[0], s[1]});
  }
  if (name == "ijk") {
    return nd::fromfunction<T>([](auto i, auto j, auto k) { return i * 100 + j * 10 + k; }, {s[0], s[1], s[2]});
  }
  return nd::fromfunction<T>([](auto i, auto) { return i; }, {s[0], s[1]});  // i_only: broadcast to the shape
}

template <class T>
void run_case(const creation_case& c) {
  const auto num = c.args.count("num") ? static_cast<nd::index_t>(arg(c, "num")) : 0;
  const bool endpoint = c.args.count("endpoint") && c.args.at("endpoint") == "1";
  if constexpr (std::is_floating_point_v<T>) {
    if (c.func == "logspace") {
      return expect_values(c, nd::logspace<T>(arg(c, "start"), arg(c, "stop"), num, endpoint, arg(c, "base")));
    }
    if (c.func == "geomspace") {
      const auto g = nd::geomspace<T>(arg(c, "start"), arg(c, "stop"), num, endpoint);
      expect_values(c, g);
      if (num > 0 && std::isfinite(c.values.front())) {
        EXPECT_EQ(static_cast<double>(g.to_host().front()), c.values.front()) << "exact start: " << c.line;
      }
      return;
    }
  }
  if (c.func == "linspace_retstep") {
    const auto [samples, step] = nd::linspace<T>(arg(c, "start"), arg(c, "stop"), num, endpoint, nd::retstep);
    expect_values(c, samples);
    if (std::isnan(c.step)) {
      EXPECT_TRUE(std::isnan(step)) << c.line;
    } else {
      EXPECT_EQ(step, c.step) << c.line;
    }
  } else if (c.func == "linspace_array") {
    const auto start = nd::asarray(numbers(c.args.at("start"), ','), shape_of(c.args.at("start_shape")));
    const auto stop = nd::asarray(numbers(c.args.at("stop"), ','), shape_of(c.args.at("stop_shape")));
    expect_values(c, nd::linspace<T>(start, stop, num, endpoint, static_cast<nd::index_t>(arg(c, "axis"))));
  } else if (c.func == "full") {
    const auto fill = nd::asarray(numbers(c.args.at("fill"), ','), shape_of(c.args.at("fill_shape")));
    expect_values(c, nd::full<T>(shape_of(c.args.at("shape")), fill));
  } else if (c.func == "fromfunction") {
    expect_values(c, fromfunction_named<T>(c.args.at("f"), shape_of(c.args.at("shape"))));
  } else if (c.func == "tri") {
    expect_values(c, nd::tri<T>(static_cast<nd::index_t>(arg(c, "n")), static_cast<nd::index_t>(arg(c, "m")),
                                static_cast<nd::index_t>(arg(c, "k"))));
  } else if (c.func == "vander") {
    std::vector<T> x;
    for (double v : numbers(c.args.at("x"), ',')) {
      x.push_back(static_cast<T>(v));
    }
    const auto n = static_cast<nd::index_t>(arg(c, "n"));
    const auto v = nd::vander(nd::asarray(x), n < 0 ? std::nullopt : std::optional<nd::index_t>(n),
                              c.args.at("increasing") == "1");
    EXPECT_EQ(nd::name(nd::dtype_of<typename decltype(v)::value_type>), c.args.at("result")) << c.line;
    expect_values(c, v);
  } else {
    ADD_FAILURE() << "no case runner for " << c.line;
  }
}

}  // namespace

TEST(CreationFunctions, MatchNumPy) {
  NDCUDA_REQUIRE_GPU();
  const auto cases = load_cases();
  ASSERT_GE(cases.size(), 120U) << "missing or short " NDCUDA_TEST_DATA_DIR "/creation_cases_19.txt";
  for (const auto& c : cases) {
    SCOPED_TRACE(c.line);
    if (c.func == "geomspace_complex") {
      run_complex_geomspace(c);
    } else if (c.type == "float64") {
      run_case<double>(c);
    } else if (c.type == "float32") {
      run_case<float>(c);
    } else if (c.type == "int64") {
      run_case<std::int64_t>(c);
    } else if (c.type == "int32") {
      run_case<std::int32_t>(c);
    } else {
      ADD_FAILURE() << "no dtype " << c.type;
    }
  }
}

TEST(CreationFunctions, VanderAndArrayLinspaceOnRandomInput) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<double> x = nd::testing::uniform_values<double>(37, -2.0, 2.0);
  const nd::index_t cols = 9;
  // vander: NumPy multiplies column by column, so the reference does too (in double); the device's
  // cumprod is a parallel scan that may associate the products differently, hence a few ulp.
  const auto v = nd::vander(nd::asarray(x), cols, false).to_host();
  for (std::size_t i = 0; i < x.size(); ++i) {
    double p = 1;
    for (nd::index_t j = cols - 1; j >= 0; --j) {
      EXPECT_NEAR(v[i * cols + static_cast<std::size_t>(j)], p, 1e-14 * std::max(1.0, std::fabs(p)))
          << "x=" << x[i] << " power " << cols - 1 - j;
      p *= x[i];
    }
  }
  // increasing=true is the same matrix with its columns reversed
  const auto w = nd::vander(nd::asarray(x), cols, true).to_host();
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = 0; j < static_cast<std::size_t>(cols); ++j) {
      EXPECT_EQ(w[i * cols + j], v[i * cols + (static_cast<std::size_t>(cols) - 1 - j)]);
    }
  }
  // linspace with (4, 1) and (5,) endpoints, samples on axis 1: (4, 7, 5)
  const std::vector<double> lo = nd::testing::uniform_values<double>(4, -2.0, 2.0);
  const std::vector<double> hi = nd::testing::uniform_values<double>(5, -200.0, 200.0);  // 100 U(-2, 2)
  const auto y = nd::linspace<double>(nd::asarray(lo, {4, 1}), nd::asarray(hi), 7, true, 1);
  ASSERT_EQ(y.shape(), (nd::shape_t{4, 7, 5}));
  const auto h = y.to_host();
  for (std::size_t a = 0; a < 4; ++a) {
    for (std::size_t i = 0; i < 7; ++i) {
      for (std::size_t b = 0; b < 5; ++b) {
        const double want = i == 6 ? hi[b] : lo[a] + static_cast<double>(i) * ((hi[b] - lo[a]) / 6.0);
        EXPECT_NEAR(h[(a * 7 + i) * 5 + b], want, 1e-13 * std::max(1.0, std::fabs(want)));
      }
    }
  }
}

TEST(CreationFunctions, Refusals) {
  EXPECT_THROW((void)nd::geomspace<double>(0.0, 1.0, 3), nd::value_error);
  EXPECT_THROW((void)nd::geomspace<double>(1.0, 0.0, 3), nd::value_error);
  EXPECT_THROW((void)nd::geomspace<std::complex<double>>(std::complex<double>(0.0, 0.0), 1.0, 3), nd::value_error);
  EXPECT_THROW((void)nd::linspace<double>(0.0, 1.0, -1, nd::retstep), nd::value_error);
  NDCUDA_REQUIRE_GPU();
  EXPECT_THROW((void)nd::vander(nd::zeros<double>({2, 2})), nd::value_error);
  EXPECT_THROW((void)nd::full<double>({2, 2}, nd::zeros<double>({3})), nd::shape_error);
  EXPECT_THROW((void)nd::linspace<double>(nd::zeros<double>({2}), nd::ones<double>({2}), 3, true, 2), nd::index_error);
}

TEST(CreationFunctions, StrOfADeviceArray) {
  NDCUDA_REQUIRE_GPU();
  const auto a = nd::asarray(std::vector<double>{1.0, 2.5});
  EXPECT_EQ(nd::str(a), "[1.  2.5]");
  EXPECT_EQ(nd::repr(a), "array([1. , 2.5])");
  EXPECT_EQ(nd::str(nd::arange<std::int64_t>(4).reshape({2, 2})), "[[0 1]\n [2 3]]");
  EXPECT_EQ(nd::str(a > 2.0), "[False  True]");  // an expression prints its value
  EXPECT_EQ(nd::repr(a * 2.0), "array([2., 5.])");
  EXPECT_EQ(nd::str(nd::asarray(std::vector<double>{3.0}).reshape({})), "3.0");  // 0-d: the scalar
  const auto scope = nd::printoptions({.precision = 2});
  EXPECT_EQ(nd::str(nd::asarray(std::vector<float>{1.0f / 3.0f})), "[0.33]");
}

namespace {

template <class Out, class X>
const nd::jit::detail::elementwise_state& state_of(const X& x) {
  const nd::detail::inputs_of<X> in(x);
  return nd::detail::expression_state<Out, X>(in);
}

}  // namespace

// The expressions behind complex geomspace (10 ** (t * step + log_lo) in complex128), array
// linspace into integers (floor of seq * step + lo, broadcast) and fromfunction (broadcast index
// arrays) compile with NVRTC: no GPU needed.
TEST(CreationFunctions, KernelsCompileWithNvrtc) {
  const nd::compute_capability sm90{9, 0};
  using c128 = std::complex<double>;
  const auto t = nd::testing::fake<double>({8});
  const auto seq = nd::testing::fake<double>({8, 1});
  const auto row = nd::testing::fake<double>({1, 3});
  const auto i = nd::testing::fake<float>({3, 1});
  const auto j = nd::testing::fake<float>({1, 4});
  EXPECT_NO_THROW(
      nd::detail::compile_expression(state_of<c128>(nd::power(10.0, t * c128(0.5, -0.25) + c128(0.1, 0.2))), sm90));
  EXPECT_NO_THROW(
      nd::detail::compile_expression(state_of<std::int64_t>(nd::floor(seq * row + row).astype<std::int64_t>()), sm90));
  EXPECT_NO_THROW(nd::detail::compile_expression(state_of<float>(i * 10 + j), sm90));
}
