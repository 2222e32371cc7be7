// How a row of the ufunc table runs: the kernels' helpers compiled on the host (the emulated
// kernel), special and random inputs per dtype, the GPU and emulated cases, and the comparison with
// the reference. Builds on ufunc_table_support.hpp and kernels/ufuncs.cuh; used by ufunc_table.hpp.
#pragma once

#include <gtest/gtest.h>
#include <math.h>  // NOLINT: ::sinf etc., which the device helpers call, on the host

#include <array>
#include <fstream>
#include <functional>
#include <tuple>
#include <utility>

#include "ops/ufunc_table_support.hpp"
#include "support/gpu.hpp"

// kernels/ufuncs.cuh (with numeric.cuh and complex.cuh) compiled as host C++: a few CUDA names
// stand in. tests/CMakeLists.txt maps "ndcuda/<file>.cuh", the name the kernels include each
// other by, to kernels/.
using std::isfinite;
using std::isinf;
inline float __int_as_float(int bits) {  // NOLINT: the CUDA intrinsic's name
  float f = 0;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
inline void sincos(float x, float* s, float* c) {  // glibc has the double one only
  *s = std::sin(x);
  *c = std::cos(x);
}
// CUDA's Bessel I0 (nd_i0), in long double: libstdc++'s series below 50 (its double version is off
// by ~20 ulp, and it throws for large arguments), the asymptotic expansion above.
inline double cyl_bessel_i0(double x) {  // NOLINT: the CUDA function's name
  const long double a = std::fabs(static_cast<long double>(x));
  if (std::isnan(a)) return x;
  if (a < 50) return static_cast<double>(std::cyl_bessel_i(0.0L, a));
  if (a > 800) return std::numeric_limits<double>::infinity();
  long double term = 1;
  long double sum = 1;
  for (int k = 1; k < 40; ++k) {
    term *= (2.0L * k - 1) * (2.0L * k - 1) / (8.0L * k * a);
    sum += term;
  }
  return static_cast<double>(std::exp(a) / std::sqrt(2 * 3.14159265358979323846264338327950288L * a) * sum);
}
inline float cyl_bessel_i0f(float x) {  // NOLINT: the CUDA function's name
  return static_cast<float>(cyl_bessel_i0(x));
}
// The CUDA headers define __forceinline__ with always_inline; the emulation wants plain inline, and
// the CUDA definition back afterwards.
#pragma push_macro("__forceinline__")
#undef __forceinline__
#define __forceinline__ inline  // NOLINT
namespace emulated {
#include "ndcuda/ufuncs.cuh"
}  // namespace emulated
#undef __forceinline__
#pragma pop_macro("__forceinline__")

namespace {

using namespace ufunc_table;  // NOLINT: the test's own vocabulary
namespace dev = emulated::ndcuda;
namespace ref = ufunc_ref;

// ---- the emulated kernel: the value types the generated code computes in -----------------------

template <class I>
struct emu_type {
  using type = I;
};
template <>
struct emu_type<std::int64_t> {
  using type = long long;  // the kernels' spelling (their integer traits know long long only)
};
template <>
struct emu_type<std::uint64_t> {
  using type = unsigned long long;
};
template <>
struct emu_type<__half> {
  using type = float;
};
template <>
struct emu_type<bf16> {
  using type = float;
};
template <class P>
struct emu_type<std::complex<P>> {
  using type = dev::complex<P>;
};

template <class I>
typename emu_type<I>::type to_emu(I x) {
  using C = typename emu_type<I>::type;
  if constexpr (is_cplx<I>) {
    return C(x.real(), x.imag());
  } else if constexpr (is_low<I>) {
    return static_cast<float>(to_real(x));
  } else {
    return static_cast<C>(x);
  }
}

template <class V>
constexpr bool is_emu_complex = false;
template <class P>
constexpr bool is_emu_complex<dev::complex<P>> = true;

/// A helper's result stored into the output dtype R, as the kernel's final cast does.
template <class R, class V>
R from_emu(const V& v) {
  if constexpr (is_emu_complex<V>) {
    if constexpr (is_cplx<R>) {
      return R(v.real(), v.imag());
    } else {
      return from_emu<R>(v.real());
    }
  } else if constexpr (is_cplx<R>) {
    return R(static_cast<typename R::value_type>(v));
  } else if constexpr (is_low<R>) {
    return round_to<R>(static_cast<real>(static_cast<float>(v)));
  } else if constexpr (std::is_same_v<R, bool>) {
    return v != V(0);
  } else {
    return static_cast<R>(v);
  }
}

// ---- rows -------------------------------------------------------------------------------------

template <class I>
struct in_type {
  using type = I;
};

/// One dtype of one row: runs on the GPU or on the emulated helpers.
struct dtype_case {
  nd::dtype type;
  std::function<void(const std::string&)> gpu;
  std::function<void(const std::string&)> emulated;
};

struct row {
  std::string name;
  std::vector<dtype_case> cases;
};

struct no_skip {
  template <class... W>
  bool operator()(const W&...) const {
    return false;
  }
};

/// The inputs of one case: every combination of special values (triples from the first six), then
/// random tuples, minus those `skip` rejects (inputs where NumPy raises or where a deviation is
/// known and reported).
template <std::size_t N, class Rule, class T, class Skip>
std::array<std::vector<T>, N> make_inputs(const domain& d, Skip skip) {
  using I = typename Rule::template type<T>;
  std::array<std::vector<T>, N> in;
  const auto keep = [&](const std::array<T, N>& t) {
    const bool skipped = std::apply([&](const auto&... x) { return skip(in_type<I>{}, widen(convert<I>(x))...); }, t);
    if (!skipped) {
      for (std::size_t k = 0; k < N; ++k) in[k].push_back(t[k]);
    }
  };
  std::vector<T> s = special_values<T>(d);
  if constexpr (N == 3) s.resize(std::min<std::size_t>(s.size(), 6));
  if constexpr (N == 1) {
    for (const T& a : s) keep({a});
  } else if constexpr (N == 2) {
    for (const T& a : s) {
      for (const T& b : s) keep({a, b});
    }
  } else {
    for (const T& a : s) {
      for (const T& b : s) {
        for (const T& c : s) keep({a, b, c});
      }
    }
  }
  auto& g = nd::testing::rng();
  for (int i = 0; i < 2000; ++i) {
    std::array<T, N> t;
    for (std::size_t k = 0; k < N; ++k) t[k] = random_value<T>(g, d, k == 1);
    if constexpr (N == 2) {
      if (i % 16 == 0) t[1] = t[0];  // equal operands: ==, -, fmod
    }
    keep(t);
  }
  return in;
}

/// Compares results with the reference; reports the first few differences with their inputs.
template <class Rule, class R, class T, std::size_t N, class Ref>
void check(const std::string& what, const std::array<std::vector<T>, N>& in, const std::vector<R>& got, Ref reference,
           const tolerance& tol) {
  using I = typename Rule::template type<T>;
  ASSERT_EQ(got.size(), in[0].size()) << what;
  int reported = 0;
  std::size_t failures = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto want = [&]<std::size_t... K>(std::index_sequence<K...>) {
      return reference(in_type<I>{}, widen(convert<I>(in[K][i]))...);
    }
    (std::make_index_sequence<N>{});
    if (matches<R>(got[i], want, tol)) continue;
    ++failures;
    if (reported++ < 6) {
      std::string args;
      for (std::size_t k = 0; k < N; ++k) args += (k ? ", " : "") + show(in[k][i]);
      ADD_FAILURE() << what << "(" << args << "): got " << show(got[i]) << ", want " << show(want) << " (as "
                    << nd::name(nd::dtype_of<R>) << ")";
    }
  }
  if (failures > 0) ADD_FAILURE() << what << ": " << failures << " of " << got.size() << " elements differ";
}

template <class T>
nd::ndarray<T> device(const std::vector<T>& h) {
  return nd::asarray(h, {static_cast<nd::index_t>(h.size())});
}

/// The expression type the row's call returns for N operands of dtype T (declared only).
template <class Gpu, class T, std::size_t... K>
auto gpu_result(std::index_sequence<K...>)
    -> decltype(std::declval<Gpu&>()((static_cast<void>(K), std::declval<nd::ndarray<T>>())...));

template <std::size_t N, class Rule, class T, class Gpu, class Emu, class Ref, class Skip>
dtype_case make_case(Gpu gpu, Emu emu, Ref reference, tolerance tol, domain d, Skip skip) {
  using I = typename Rule::template type<T>;
  using X = decltype(gpu_result<Gpu, T>(std::make_index_sequence<N>{}));
  using R = typename X::value_type;
  dtype_case c;
  c.type = nd::dtype_of<T>;
  c.gpu = [=](const std::string& what) {
    const auto in = make_inputs<N, Rule, T>(d, skip);
    const auto x = [&]<std::size_t... K>(std::index_sequence<K...>) {
      return gpu(device(in[K])...);
    }
    (std::make_index_sequence<N>{});
    const nd::ndarray<R> out = nd::eval(x);
    check<Rule>(what, in, out.to_host(), reference, tol);
  };
  c.emulated = [=](const std::string& what) {
    const auto in = make_inputs<N, Rule, T>(d, skip);
    std::vector<R> got(in[0].size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      got[i] = [&]<std::size_t... K>(std::index_sequence<K...>) {
        return from_emu<R>(emu(to_emu(convert<I>(in[K][i]))...));
      }
      (std::make_index_sequence<N>{});
    }
    check<Rule>(what, in, got, reference, tol);
  };
  return c;
}

/// A row of arity N over the dtypes Ts.
template <std::size_t N, class Rule, class... Ts, class Gpu, class Emu, class Ref, class Skip = no_skip>
row make_row(std::string name, types<Ts...>, Gpu gpu, Emu emu, Ref reference, tolerance tol = {}, domain d = {},
             Skip skip = {}) {
  return row{std::move(name), {make_case<N, Rule, Ts>(gpu, emu, reference, tol, d, skip)...}};
}

// ---- the references, by kind of value ----------------------------------------------------------

template <class W>
constexpr bool is_b = std::is_same_v<W, bool>;
template <class W>
constexpr bool is_i = is_int<W>;
template <class W>
constexpr bool is_r = std::is_same_v<W, real>;
template <class W>
constexpr bool is_c = std::is_same_v<W, cplx>;

template <class W>
bool truth(const W& x) {
  if constexpr (is_c<W>) {
    return ref::nonzero(x);
  } else {
    return x != W(0);
  }
}

// A real function of long double, lifted to bool/int operands is never needed: float_in converts
// them first. `C` is the complex reference, or nothing for real-only ufuncs.
#define REAL_FN(fn) [](auto, auto x) { return fn(x); }

/// The device helpers, called on the compute values (the emulated kernel).
#define EMU(fn) [](auto... x) { return dev::fn(x...); }
#define EMU_INFIX(op) [](auto a, auto b) { return a op b; }

// Tolerances. exact: the result is one of the inputs or an exact function of them. rounded: one
// IEEE rounding (the long double reference adds a second one). math(f, d): CUDA's documented
// maximum error for the float and the double function (CUDA C++ Programming Guide, "Mathematical
// Functions"), +1 for the reference's rounding; the float bound is used for both, as one row
// holds every dtype.
constexpr tolerance exact{0, 0, true};
constexpr tolerance exact_any_zero{0, 0, false};
constexpr tolerance rounded{1, 4, false};
constexpr tolerance math(int ulps, double complex_eps = 16) {
  return tolerance{ulps + 1, complex_eps, false};
}

/// float_in rows hold their reference in long double; complex where the ufunc accepts complex.
template <class F, class G>
auto real_or_complex(F f, G g) {
  return [=](auto, auto x) {
    if constexpr (is_c<decltype(x)>) {
      return cplx(g(x));
    } else {
      return real(f(x));
    }
  };
}

}  // namespace
