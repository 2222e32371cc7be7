// Reductions on the GPU against host references in double (complex<double>): every function x
// every dtype x every axis subset of 1-d to 4-d arrays x keepdims, on contiguous, transposed and
// sliced views; larger shapes that take the vector, column and two-pass paths; NaN and empty
// cases; fused maps; a full sum over more than 2^31 elements.
// Tolerances: integer, bool, index and min/max results exact; sums, means, var/std and norms
// within 8 n eps(accumulator) x scale plus 4 eps(result) |reference| (scale: the largest |x|,
// squared for var/std and norm 2; values are drawn from [-2, 2]).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <ndcuda/ndcuda.hpp>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "support/gpu.hpp"

namespace nd = ndcuda;
using nd::detail::reduce_kind;
using cd = std::complex<double>;

namespace {

using bf16 = __nv_bfloat16;

template <class T>
constexpr bool is_cplx = nd::detail::is_std_complex<T>;

template <class T>
cd widen(const T& x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(x);
  } else if constexpr (std::is_same_v<T, bf16>) {
    return __bfloat162float(x);
  } else if constexpr (is_cplx<T>) {
    return cd(x.real(), x.imag());
  } else {
    return static_cast<double>(x);
  }
}

template <class T>
T narrow(double re, double im = 0) {
  if constexpr (std::is_same_v<T, bool>) {
    return re != 0;
  } else if constexpr (std::is_same_v<T, __half>) {
    return __float2half(static_cast<float>(re));
  } else if constexpr (std::is_same_v<T, bf16>) {
    return __float2bfloat16(static_cast<float>(re));
  } else if constexpr (is_cplx<T>) {
    using P = typename T::value_type;
    return T(static_cast<P>(re), static_cast<P>(im));
  } else {
    return static_cast<T>(re);
  }
}

// Random values for T: ints in a small range, floats in [-2, 2], about 10% zeros. For prod,
// values whose products stay in range: +-1 with a few 2 and 0.5.
template <class T>
std::vector<T> random_values(std::size_t n, bool for_prod) {
  auto& g = nd::testing::rng();
  std::uniform_real_distribution<double> u(-2, 2);
  std::uniform_int_distribution<int> pick(0, 99);
  std::vector<T> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int p = pick(g);
    double re = 0;
    double im = 0;
    if (for_prod) {
      re = p < 5 ? 2.0 : p < 10 && !std::is_integral_v<T> ? 0.5 : (p % 2 == 0 ? 1.0 : -1.0);
      if (std::is_unsigned_v<T>) {
        re = std::abs(re);
      }
    } else if (p >= 10) {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        re = std::is_signed_v<T> ? pick(g) % 41 - 20 : pick(g) % 41;
      } else {
        re = u(g);
        im = u(g);
      }
    }
    v.push_back(narrow<T>(re, im));
  }
  return v;
}

template <class T>
nd::ndarray<T> upload(const std::vector<T>& h, const nd::shape_t& shape) {
  std::unique_ptr<T[]> copy(new T[h.size() + 1]);
  std::copy(h.begin(), h.end(), copy.get());
  return nd::asarray(copy.get(), shape);
}

template <class T>
std::vector<cd> download(const nd::ndarray<T>& a) {
  std::vector<cd> out;
  if constexpr (std::is_same_v<T, bool>) {
    for (bool b : a.to_host()) {
      out.emplace_back(b ? 1.0 : 0.0);
    }
  } else {
    for (const T& x : a.to_host()) {
      out.push_back(widen(x));
    }
  }
  return out;
}

bool is_nan(cd z) {
  return std::isnan(z.real()) || std::isnan(z.imag());
}
bool lex_less(cd a, cd b) {
  return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
}

// NumPy's answer for `kind` over `v` (the reduced elements in C order).
cd reference(reduce_kind kind, const std::vector<cd>& v, int ddof) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  cd acc = 0;
  std::size_t count = 0;
  switch (kind) {
    case reduce_kind::sum:
    case reduce_kind::nansum:
    case reduce_kind::mean:
    case reduce_kind::nanmean:
      for (cd z : v) {
        if (!(kind == reduce_kind::nansum || kind == reduce_kind::nanmean) || !is_nan(z)) {
          acc += z;
          ++count;
        }
      }
      if (kind == reduce_kind::mean || kind == reduce_kind::nanmean) {
        return count == 0 ? cd(nan) : acc / static_cast<double>(count);
      }
      return acc;
    case reduce_kind::prod:
      acc = 1;
      for (cd z : v) {
        acc *= z;
      }
      return acc;
    case reduce_kind::var:
    case reduce_kind::std: {
      cd mean = 0;
      for (cd z : v) {
        mean += z;
      }
      mean /= static_cast<double>(v.size());
      double m2 = 0;
      for (cd z : v) {
        m2 += std::norm(z - mean);
      }
      const double d = std::max(static_cast<double>(v.size()) - ddof, 0.0);
      const double var = m2 / d;
      return kind == reduce_kind::var ? var : std::sqrt(var);
    }
    case reduce_kind::min:
    case reduce_kind::max:
    case reduce_kind::nanmin:
    case reduce_kind::nanmax: {
      const bool skip = kind == reduce_kind::nanmin || kind == reduce_kind::nanmax;
      const bool want_max = kind == reduce_kind::max || kind == reduce_kind::nanmax;
      // Lexicographic (complex min/max order as NumPy's; real values have imag 0).
      bool any = false;
      cd best = 0;
      for (cd z : v) {
        if (is_nan(z)) {
          if (!skip) {
            return z;
          }
          continue;
        }
        if (!any || (want_max ? lex_less(best, z) : lex_less(z, best))) {
          best = z;
        }
        any = true;
      }
      return any ? best : cd(nan);
    }
    case reduce_kind::argmin:
    case reduce_kind::argmax: {
      std::size_t best = 0;
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (is_nan(v[i])) {
          return static_cast<double>(i);
        }
        if (kind == reduce_kind::argmax ? lex_less(v[best], v[i]) : lex_less(v[i], v[best])) {
          best = i;
        }
      }
      return static_cast<double>(best);
    }
    case reduce_kind::all:
    case reduce_kind::any:
    case reduce_kind::count_nonzero: {
      for (cd z : v) {
        count += z != cd(0) ? 1 : 0;
      }
      if (kind == reduce_kind::count_nonzero) {
        return static_cast<double>(count);
      }
      return kind == reduce_kind::all ? (count == v.size() ? 1.0 : 0.0) : (count > 0 ? 1.0 : 0.0);
    }
    case reduce_kind::norm1:
    case reduce_kind::norm2:
    case reduce_kind::norm_max:
    case reduce_kind::norm_min: {
      double r = kind == reduce_kind::norm_min ? inf : 0;
      for (cd z : v) {
        const double a = std::abs(z);
        if (std::isnan(a)) {
          return nan;
        }
        r = kind == reduce_kind::norm1      ? r + a
            : kind == reduce_kind::norm2    ? r + a * a
            : kind == reduce_kind::norm_max ? std::max(r, a)
                                            : std::min(r, a);
      }
      return kind == reduce_kind::norm2 ? std::sqrt(r) : r;
    }
  }
  return nan;
}

double eps_of(nd::dtype t) {
  switch (t) {
    case nd::dtype::float16:
      return 1.0 / 1024;
    case nd::dtype::bfloat16:
      return 1.0 / 128;
    case nd::dtype::float32:
    case nd::dtype::complex64:
      return 1.2e-7;
    case nd::dtype::float64:
    case nd::dtype::complex128:
      return 2.3e-16;
    default:
      return 0;  // integers, bool: exact
  }
}

struct reduced_result {
  nd::shape_t shape;
  nd::dtype type;
  std::vector<cd> values;
};

template <class A>
reduced_result result_of(const A& lazy) {
  const nd::ndarray<typename A::value_type> r = lazy;  // a reduction's node, run here (or an array)
  return {r.shape(), nd::dtype_of<typename A::value_type>, download(r)};
}

// Calls the public function for `kind`; `axis` for argmin/argmax (nullopt: flat).
template <class X>
reduced_result call(reduce_kind kind, const X& x, const nd::axes& ax, std::optional<int> axis, bool keepdims,
                    int ddof) {
  using inf = std::numeric_limits<double>;
  switch (kind) {
    case reduce_kind::sum:
      return result_of(nd::sum(x, ax, nd::keepdims(keepdims)));
    case reduce_kind::prod:
      return result_of(nd::prod(x, ax, nd::keepdims(keepdims)));
    case reduce_kind::min:
      return result_of(nd::min(x, ax, nd::keepdims(keepdims)));
    case reduce_kind::max:
      return result_of(nd::amax(x, ax, nd::keepdims(keepdims)));
    case reduce_kind::nanmin:
      return result_of(nd::nanmin(x, ax, nd::keepdims(keepdims)));
    case reduce_kind::nanmax:
      return result_of(nd::nanmax(x, ax, nd::keepdims(keepdims)));
    case reduce_kind::mean:
      return result_of(nd::mean(x, ax, nd::keepdims(keepdims)));
    case reduce_kind::nansum:
      return result_of(nd::nansum(x, ax, nd::keepdims(keepdims)));
    case reduce_kind::nanmean:
      return result_of(nd::nanmean(x, ax, nd::keepdims(keepdims)));
    case reduce_kind::var:
      return result_of(nd::var(x, ax, nd::ddof(ddof), nd::keepdims(keepdims)));
    case reduce_kind::std:
      return result_of(nd::std(x, ax, nd::ddof(ddof), nd::keepdims(keepdims)));
    case reduce_kind::argmin:
      return result_of(nd::argmin(x, axis, nd::keepdims(keepdims)));
    case reduce_kind::argmax:
      return result_of(nd::argmax(x, axis, nd::keepdims(keepdims)));
    case reduce_kind::all:
      return result_of(nd::all(x, ax, nd::keepdims(keepdims)));
    case reduce_kind::any:
      return result_of(nd::any(x, ax, nd::keepdims(keepdims)));
    case reduce_kind::count_nonzero:
      return result_of(nd::count_nonzero(x, ax, nd::keepdims(keepdims)));
    case reduce_kind::norm1:
      return result_of(nd::norm(x, 1, ax, nd::keepdims(keepdims)));
    case reduce_kind::norm2:
      return result_of(nd::norm(x, 2, ax, nd::keepdims(keepdims)));
    case reduce_kind::norm_max:
      return result_of(nd::norm(x, inf::infinity(), ax, nd::keepdims(keepdims)));
    case reduce_kind::norm_min:
      return result_of(nd::norm(x, -inf::infinity(), ax, nd::keepdims(keepdims)));
  }
  return {};
}

bool kind_accepts(reduce_kind k, nd::dtype t) {
  return nd::detail::reduce_accepts(k, t);
}

// Checks reduction `kind` of the logical array `host` (C order, of `shape`) computed on the GPU
// from `x` (an array or expression of that shape and value dtype `t`), over the axes in `mask`.
template <class X>
void check(reduce_kind kind, nd::dtype t, const X& x, const std::vector<cd>& host, const nd::shape_t& shape,
           const std::vector<bool>& mask, bool keepdims, int ddof = 0) {
  const int ndim = static_cast<int>(shape.size());
  std::vector<int> axes_list;
  for (int d = 0; d < ndim; ++d) {
    if (mask[static_cast<std::size_t>(d)]) {
      axes_list.push_back(d - (d % 2 == 1 ? ndim : 0));  // some negative
    }
  }
  const bool all_axes = std::all_of(mask.begin(), mask.end(), [](bool b) { return b; });
  const bool arg = kind == reduce_kind::argmin || kind == reduce_kind::argmax;
  if (arg && !all_axes && axes_list.size() != 1) {
    return;  // argmin/argmax take one axis or none
  }
  std::string what = std::string(nd::detail::reduce_name(kind)) + " of " + std::string(nd::name(t)) + " shape " +
                     nd::format_shape(shape) + " axes {";
  for (int a : axes_list) {
    what += std::to_string(a) + " ";
  }
  what += keepdims ? "} keepdims" : "}";
  SCOPED_TRACE(what);

  const std::optional<int> axis = all_axes ? std::nullopt : std::optional<int>(axes_list.empty() ? 0 : axes_list[0]);
  const nd::axes ax = all_axes ? nd::axes() : nd::axes(axes_list);
  const reduced_result r = call(kind, x, ax, axis, keepdims, ddof);

  // Expected shape and values: outputs in C order over the kept axes.
  nd::shape_t want_shape;
  for (int d = 0; d < ndim; ++d) {
    if (!mask[static_cast<std::size_t>(d)]) {
      want_shape.push_back(shape[static_cast<std::size_t>(d)]);
    } else if (keepdims) {
      want_shape.push_back(1);
    }
  }
  ASSERT_EQ(r.shape, want_shape);
  const nd::strides_t strides = nd::c_strides(shape);
  std::vector<int> kept;
  std::vector<int> red;
  for (int d = 0; d < ndim; ++d) {
    (mask[static_cast<std::size_t>(d)] ? red : kept).push_back(d);
  }
  const auto extent = [&](const std::vector<int>& dims) {
    nd::index_t n = 1;
    for (int d : dims) {
      n *= shape[static_cast<std::size_t>(d)];
    }
    return n;
  };
  // Offset in `host` of position `i` (C order) over `dims`.
  const auto offset = [&](const std::vector<int>& dims, nd::index_t i) {
    nd::index_t off = 0;
    for (std::size_t k = dims.size(); k-- > 0;) {
      const auto d = static_cast<std::size_t>(dims[k]);
      off += (i % shape[d]) * strides[d];
      i /= shape[d];
    }
    return off;
  };
  const nd::index_t outputs = extent(kept);
  const nd::index_t n = extent(red);
  ASSERT_EQ(static_cast<nd::index_t>(r.values.size()), outputs);
  const nd::dtype acc = nd::detail::reduce_accumulator(kind, t, r.type);
  double scale = 0;
  for (cd z : host) {
    scale = std::max(scale, std::abs(z));
  }
  if (kind == reduce_kind::var || kind == reduce_kind::std || kind == reduce_kind::norm2) {
    scale = scale * scale + scale;
  }
  if (kind == reduce_kind::prod) {
    scale = 0;
  }
  for (nd::index_t o = 0; o < outputs; ++o) {
    std::vector<cd> v;
    const nd::index_t base = offset(kept, o);
    for (nd::index_t k = 0; k < n; ++k) {
      v.push_back(host[static_cast<std::size_t>(base + offset(red, k))]);
    }
    const cd want = reference(kind, v, ddof);
    const cd got = r.values[static_cast<std::size_t>(o)];
    if (is_nan(want) || is_nan(got)) {
      ASSERT_EQ(is_nan(want), is_nan(got)) << "output " << o << ": got " << got << ", want " << want;
      continue;
    }
    if (r.type == nd::dtype::float16 && std::abs(want) >= 65520.0) {  // rounds to inf, as NumPy's does
      ASSERT_TRUE(std::isinf(std::real(got)))
          << "output " << o << ": got " << got << ", want inf (from " << want << ")";
      continue;
    }
    double tol = 8 * static_cast<double>(n) * eps_of(acc) * scale + 4 * eps_of(r.type) * std::abs(want);
    if (eps_of(acc) < 1e-10) {
      // Double accumulators: sums of same-sign terms (norm1) round coherently, so bound by the
      // terms' total as well (still far below one dropped element).
      double total = 0;
      for (cd z : v) {
        total += is_nan(z) || std::isinf(std::abs(z)) ? 0.0 : std::abs(z);  // the nan* kinds skip them
      }
      tol += 4 * eps_of(acc) * total * std::sqrt(static_cast<double>(n));
    }
    if (kind == reduce_kind::std) {
      tol = std::sqrt(tol) + 4 * eps_of(r.type) * std::abs(want);  // sqrt widens small absolute errors
    }
    if (kind == reduce_kind::prod) {
      tol = 8 * static_cast<double>(n) * (eps_of(acc) + eps_of(r.type)) * std::abs(want);
    }
    ASSERT_LE(std::abs(got - want), tol) << "output " << o << ": got " << got << ", want " << want;
  }
}

constexpr reduce_kind all_kinds[] = {
    reduce_kind::sum,           reduce_kind::prod,   reduce_kind::min,    reduce_kind::max,      reduce_kind::nanmin,
    reduce_kind::nanmax,        reduce_kind::mean,   reduce_kind::nansum, reduce_kind::nanmean,  reduce_kind::var,
    reduce_kind::std,           reduce_kind::argmin, reduce_kind::argmax, reduce_kind::all,      reduce_kind::any,
    reduce_kind::count_nonzero, reduce_kind::norm1,  reduce_kind::norm2,  reduce_kind::norm_max, reduce_kind::norm_min,
};

const nd::shape_t shapes[] = {{37}, {5, 7}, {3, 4, 5}, {2, 3, 4, 5}};

// Every axis subset of every shape, both keepdims, on a contiguous array; also through a
// transposed view (2-d and up) and a view sliced with step 2 along its last axis, keepdims
// alternating between subsets.
template <class T>
void every_subset(reduce_kind kind) {
  constexpr nd::dtype t = nd::dtype_of<T>;
  if (!kind_accepts(kind, t)) {
    const auto a = upload(random_values<T>(4, false), {4});
    EXPECT_THROW((void)call(kind, a, nd::axes(), std::nullopt, false, 0), nd::error);
    return;
  }
  const bool for_prod = kind == reduce_kind::prod;
  for (const nd::shape_t& shape : shapes) {
    const auto n = static_cast<std::size_t>(nd::shape_size(shape));
    const std::vector<T> h = random_values<T>(n, for_prod);
    const auto a = upload(h, shape);
    std::vector<cd> host;
    for (const T& x : h) {
      host.push_back(widen(x));
    }
    const int ndim = static_cast<int>(shape.size());
    for (unsigned bits = 0; bits < (1u << ndim); ++bits) {
      std::vector<bool> mask(static_cast<std::size_t>(ndim));
      for (int d = 0; d < ndim; ++d) {
        mask[static_cast<std::size_t>(d)] = ((bits >> d) & 1u) != 0;
      }
      if (bits == 0) {
        continue;  // nd::axes() means every axis; that case is bits == all ones
      }
      for (bool keepdims : {false, true}) {
        check(kind, t, a, host, shape, mask, keepdims);
      }
      if (ndim < 2) {
        continue;
      }
      // The transposed view (axes reversed): its logical C-order values from the host copy.
      const auto at = a.T();
      nd::shape_t ts(shape.rbegin(), shape.rend());
      std::vector<cd> th(n);
      const nd::strides_t cs = nd::c_strides(shape);
      const nd::strides_t tcs = nd::c_strides(ts);
      for (std::size_t i = 0; i < n; ++i) {
        nd::index_t src = 0;
        auto rest = static_cast<nd::index_t>(i);
        for (int d = 0; d < ndim; ++d) {
          const nd::index_t idx = rest / tcs[static_cast<std::size_t>(d)];
          rest %= tcs[static_cast<std::size_t>(d)];
          src += idx * cs[static_cast<std::size_t>(ndim - 1 - d)];
        }
        th[i] = host[static_cast<std::size_t>(src)];
      }
      check(kind, t, at, th, ts, mask, (bits & 1U) != 0);
    }
    {
      // A view taking every other element along the last axis of a twice-as-wide array.
      nd::shape_t wide_shape = shape;
      wide_shape.back() *= 2;
      const std::vector<T> hw = random_values<T>(n * 2, for_prod);
      const auto w = upload(hw, wide_shape);
      std::vector<nd::index_item> index(static_cast<std::size_t>(ndim - 1), nd::index_item(nd::all));
      index.emplace_back(nd::slice(0, nd::none, 2));
      const auto sliced = w.index(index);
      std::vector<cd> sh;
      for (std::size_t i = 0; i < n * 2; i += 2) {
        sh.push_back(widen(hw[i]));
      }
      for (unsigned bits = 1; bits < (1u << ndim); ++bits) {
        std::vector<bool> mask(static_cast<std::size_t>(ndim));
        for (int d = 0; d < ndim; ++d) {
          mask[static_cast<std::size_t>(d)] = ((bits >> d) & 1u) != 0;
        }
        check(kind, t, sliced, sh, shape, mask, bits % 2 == 0);
      }
    }
  }
}

template <class T>
void larger_layouts(reduce_kind kind) {
  constexpr nd::dtype t = nd::dtype_of<T>;
  if (!kind_accepts(kind, t)) {
    return;
  }
  const bool for_prod = kind == reduce_kind::prod;
  // Full (vectors, split + second pass), rows of a few long rows (split), many short rows (warp
  // per row), columns (split over blockIdx.y + second pass), columns of a 3-d array.
  const struct {
    nd::shape_t shape;
    std::vector<bool> mask;
  } cases[] = {
      {{300001}, {true}},           {{3, 100003}, {false, true}},         {{2000, 50}, {false, true}},
      {{3001, 600}, {true, false}}, {{40, 30, 70}, {true, false, false}},
  };
  for (const auto& c : cases) {
    const auto n = static_cast<std::size_t>(nd::shape_size(c.shape));
    nd::index_t reduced = 1;
    for (std::size_t d = 0; d < c.shape.size(); ++d) {
      reduced *= c.mask[d] ? c.shape[d] : 1;
    }
    if (for_prod && reduced > 64) {
      continue;  // products of many values leave every dtype's range
    }
    const std::vector<T> h = random_values<T>(n, for_prod);
    std::vector<cd> host;
    for (const T& x : h) {
      host.push_back(widen(x));
    }
    check(kind, t, upload(h, c.shape), host, c.shape, c.mask, false);
  }
}

struct case_param {
  reduce_kind kind;
  nd::dtype type;
};

std::string param_name(const ::testing::TestParamInfo<case_param>& info) {
  return std::string(nd::detail::reduce_name(info.param.kind)) +
         (info.param.kind == reduce_kind::norm1      ? "1"
          : info.param.kind == reduce_kind::norm2    ? "2"
          : info.param.kind == reduce_kind::norm_max ? "_inf"
          : info.param.kind == reduce_kind::norm_min ? "_neginf"
                                                     : "") +
         "_" + std::string(nd::name(info.param.type));
}

std::vector<case_param> every_case() {
  std::vector<case_param> v;
  for (reduce_kind k : all_kinds) {
    for (nd::dtype t : nd::all_dtypes) {
      v.push_back({k, t});
    }
  }
  return v;
}

template <class F>
void dispatch(nd::dtype t, F&& f) {
  switch (t) {
    case nd::dtype::bool_:
      return f(bool{});
    case nd::dtype::int8:
      return f(std::int8_t{});
    case nd::dtype::int16:
      return f(std::int16_t{});
    case nd::dtype::int32:
      return f(std::int32_t{});
    case nd::dtype::int64:
      return f(std::int64_t{});
    case nd::dtype::uint8:
      return f(std::uint8_t{});
    case nd::dtype::uint16:
      return f(std::uint16_t{});
    case nd::dtype::uint32:
      return f(std::uint32_t{});
    case nd::dtype::uint64:
      return f(std::uint64_t{});
    case nd::dtype::float16:
      return f(__half{});
    case nd::dtype::bfloat16:
      return f(bf16{});
    case nd::dtype::float32:
      return f(float{});
    case nd::dtype::float64:
      return f(double{});
    case nd::dtype::complex64:
      return f(std::complex<float>{});
    case nd::dtype::complex128:
      return f(std::complex<double>{});
  }
}

class GpuReduction : public ::testing::TestWithParam<case_param> {};

}  // namespace

TEST_P(GpuReduction, EveryAxisSubsetAndView) {
  NDCUDA_REQUIRE_GPU();
  dispatch(GetParam().type, [&](auto v) { every_subset<decltype(v)>(GetParam().kind); });
}

TEST_P(GpuReduction, LargerLayouts) {
  NDCUDA_REQUIRE_GPU();
  dispatch(GetParam().type, [&](auto v) { larger_layouts<decltype(v)>(GetParam().kind); });
}

INSTANTIATE_TEST_SUITE_P(AllFunctionsAllDtypes, GpuReduction, ::testing::ValuesIn(every_case()), param_name);

TEST(GpuReductionSemantics, ResultsAreZeroDimensionalOnTheDevice) {
  NDCUDA_REQUIRE_GPU();
  const auto a = upload(random_values<float>(1000, false), {10, 100});
  const auto s = nd::sum(a);
  EXPECT_EQ(s.ndim(), 0);
  EXPECT_EQ(s.device(), a.device());
  const auto host = a.to_host();
  double want = 0;
  for (float x : host) {
    want += x;
  }
  EXPECT_NEAR(static_cast<double>(s.item()), want, 1e-3);
  EXPECT_EQ(nd::sum(a, nd::keepdims).shape(), (nd::shape_t{1, 1}));
  EXPECT_EQ(nd::argmax(a, nd::keepdims).shape(), (nd::shape_t{1, 1}));
  // An explicit stream.
  nd::stream st;
  EXPECT_NEAR(static_cast<double>(nd::sum(a, st).item()), want, 1e-3);
}

TEST(GpuReductionSemantics, DtypeOverrideAndIntegerAccumulation) {
  NDCUDA_REQUIRE_GPU();
  // 300 int8 values of 100: int8 would wrap, NumPy accumulates in int64.
  std::vector<std::int8_t> h(300, 100);
  const auto a = upload(h, {300});
  EXPECT_EQ(nd::sum(a).item(), 30000);
  EXPECT_DOUBLE_EQ(nd::sum<double>(a).item(), 30000.0);
  EXPECT_DOUBLE_EQ(nd::mean(a).item(), 100.0);
  EXPECT_EQ(nd::sum<std::int8_t>(a).item(), static_cast<std::int8_t>(30000 % 256));
  // float16: 4096 ones would stop at 2048 in float16; float32 accumulation reaches 4096.
  std::vector<__half> ones(4096, __float2half(1.0f));
  EXPECT_EQ(__half2float(nd::sum(upload(ones, {4096})).item()), 4096.0f);

  // dtype= on mean, var and prod: the accumulator (and result) is the one asked for. 2^70 is
  // exact in float64 but 0 in int64 (NumPy's default for int8); the float32 sums of 100000
  // values are off by far more than the 1e-12 that float64 accumulation keeps.
  const std::vector<std::int8_t> twos(70, 2);
  static_assert(std::is_same_v<decltype(nd::prod<double>(upload(twos, {70})).item()), double>);
  EXPECT_EQ(nd::prod<double>(upload(twos, {70})).item(), std::ldexp(1.0, 70));
  EXPECT_EQ(nd::prod(upload(twos, {70})).item(), 0);  // int64 wraps, as in NumPy
  const std::vector<float> f = random_values<float>(100000, false);
  const auto af = upload(f, {100000});
  double total = 0;
  for (float x : f) {
    total += x;
  }
  const double mean = total / static_cast<double>(f.size());
  double squares = 0;
  for (float x : f) {
    squares += (x - mean) * (x - mean);
  }
  static_assert(std::is_same_v<decltype(nd::mean<double>(af).item()), double>);
  EXPECT_NEAR(nd::mean<double>(af).item(), mean, 1e-12 * (1.0 + std::abs(mean)));
  EXPECT_NEAR(nd::var<double>(af, nd::ddof(1)).item(), squares / static_cast<double>(f.size() - 1),
              1e-10 * squares / static_cast<double>(f.size()));
  EXPECT_NEAR(nd::std<double>(af).item(), std::sqrt(squares / static_cast<double>(f.size())), 1e-10);
}

TEST(GpuReductionSemantics, NaNsPropagateOrAreSkipped) {
  NDCUDA_REQUIRE_GPU();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Rows: no NaN; one NaN; all NaN. Columns the same through the transposed view.
  std::vector<double> h = {3, 1, 2, 5, 4, 1, nan, 0, 9, 2, nan, nan, nan, nan, nan};
  const auto a = upload(h, {3, 5});
  std::vector<cd> host(h.begin(), h.end());
  for (reduce_kind k : all_kinds) {
    if (k == reduce_kind::nanmin || k == reduce_kind::nanmax || k == reduce_kind::min || k == reduce_kind::max ||
        k == reduce_kind::sum || k == reduce_kind::nansum || k == reduce_kind::mean || k == reduce_kind::nanmean ||
        k == reduce_kind::argmax || k == reduce_kind::argmin || k == reduce_kind::var || k == reduce_kind::norm2) {
      check(k, nd::dtype::float64, a, host, {3, 5}, {false, true}, false);
      check(k, nd::dtype::float64, a, host, {3, 5}, {true, false}, false);
    }
  }
  const std::vector<float> f = {1, 2, std::numeric_limits<float>::quiet_NaN(), 7};
  const auto af = upload(f, {4});
  EXPECT_TRUE(std::isnan(nd::max(af).item()));
  EXPECT_TRUE(std::isnan(nd::min(af).item()));
  EXPECT_EQ(nd::nanmax(af).item(), 7.0f);
  EXPECT_EQ(nd::argmax(af).item(), 2);
  EXPECT_EQ(nd::nansum(af).item(), 10.0f);
  EXPECT_FLOAT_EQ(nd::nanmean(af).item(), 10.0f / 3);

  // The 16-bit floats (accumulated in float32) and complex (a NaN in either part is NaN).
  const std::vector<__half> hf = {__float2half(1.0f), __float2half(NAN), __float2half(3.0f)};
  const auto ah = upload(hf, {3});
  EXPECT_TRUE(std::isnan(__half2float(nd::max(ah).item())));
  EXPECT_TRUE(std::isnan(__half2float(nd::sum(ah).item())));
  EXPECT_EQ(__half2float(nd::nanmax(ah).item()), 3.0f);
  EXPECT_EQ(__half2float(nd::nansum(ah).item()), 4.0f);
  EXPECT_EQ(nd::argmin(ah).item(), 1);
  const std::vector<__nv_bfloat16> bf = {__float2bfloat16(-2.0f), __float2bfloat16(NAN), __float2bfloat16(5.0f)};
  const auto ab = upload(bf, {3});
  EXPECT_TRUE(std::isnan(__bfloat162float(nd::min(ab).item())));
  EXPECT_EQ(__bfloat162float(nd::nanmin(ab).item()), -2.0f);
  EXPECT_EQ(__bfloat162float(nd::nansum(ab).item()), 3.0f);
  using cf = std::complex<float>;
  const std::vector<cf> cv = {cf(1, 2), cf(3, std::numeric_limits<float>::quiet_NaN()), cf(-1, 1)};
  const auto ac = upload(cv, {3});
  EXPECT_TRUE(std::isnan(nd::sum(ac).item().imag()));
  EXPECT_EQ(nd::nansum(ac).item(), cf(0, 3));  // NumPy's nansum skips a complex NaN whole
  EXPECT_TRUE(std::isnan(nd::mean(ac).item().imag()));
}

TEST(GpuReductionSemantics, EmptyReductionsGiveIdentitiesOrThrow) {
  NDCUDA_REQUIRE_GPU();
  const auto e = nd::empty<float>({4, 0});
  const auto s = nd::sum(e, 1).to_host();
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0], 0.0f);
  EXPECT_EQ(nd::prod(e, 1).to_host()[3], 1.0f);
  EXPECT_EQ(nd::sum(e).item(), 0.0f);
  EXPECT_TRUE(nd::all(e).item());
  EXPECT_FALSE(nd::any(e).item());
  EXPECT_EQ(nd::count_nonzero(e).item(), 0);
  EXPECT_TRUE(std::isnan(nd::mean(e).item()));
  EXPECT_TRUE(std::isnan(nd::var(e, 1).to_host()[2]));
  EXPECT_EQ(nd::norm(e).item(), 0.0f);
  EXPECT_EQ(nd::sum(e, 0).size(), 0);  // zero outputs: nothing to launch
  EXPECT_EQ(nd::min(e, 0).shape(), nd::shape_t{0});
  EXPECT_THROW((void)nd::min(e, 1), nd::shape_error);
  EXPECT_THROW((void)nd::argmax(e), nd::shape_error);
}

TEST(GpuReductionSemantics, VarAndStdWithDdofAreStable) {
  NDCUDA_REQUIRE_GPU();
  // Values 1e8 + {0..9}: E[x^2] - E[x]^2 in float64 loses every digit; Welford keeps them.
  std::vector<double> h;
  for (int i = 0; i < 1000; ++i) {
    h.push_back(1e8 + i % 10);
  }
  const auto a = upload(h, {1000});
  EXPECT_NEAR(nd::var(a).item(), 8.25, 1e-6);
  EXPECT_NEAR(nd::var(a, nd::ddof(1)).item(), 8.25 * 1000 / 999, 1e-6);
  EXPECT_NEAR(nd::std(a, nd::ddof(1)).item(), std::sqrt(8.25 * 1000 / 999), 1e-6);
  std::vector<cd> host(h.begin(), h.end());
  check(reduce_kind::var, nd::dtype::float64, upload(h, {10, 100}), host, {10, 100}, {false, true}, false, 1);
}

TEST(GpuReductionSemantics, FusedMapsReadEachInputOnce) {
  NDCUDA_REQUIRE_GPU();
  const auto ha = random_values<float>(64 * 300, false);
  const auto hb = random_values<float>(64 * 300, false);
  const auto a = upload(ha, {64, 300});
  const auto b = upload(hb, {64, 300});
  std::vector<cd> prod;
  std::vector<cd> diff;
  for (std::size_t i = 0; i < ha.size(); ++i) {
    prod.emplace_back(static_cast<double>(ha[i] * hb[i]));
    diff.emplace_back(std::abs(static_cast<double>(ha[i] - 2.0f)));
  }
  check(reduce_kind::sum, nd::dtype::float32, a * b, prod, {64, 300}, {false, true}, false);
  check(reduce_kind::sum, nd::dtype::float32, a * b, prod, {64, 300}, {true, false}, true);
  check(reduce_kind::max, nd::dtype::float32, nd::abs(a - 2.0f), diff, {64, 300}, {true, true}, false);
  // Broadcasting inside the map: a row vector.
  const auto row = upload(std::vector<float>(hb.begin(), hb.begin() + 300), {300});
  std::vector<cd> scaled;
  for (std::size_t i = 0; i < ha.size(); ++i) {
    scaled.emplace_back(static_cast<double>(ha[i] * hb[i % 300]));
  }
  check(reduce_kind::sum, nd::dtype::float32, a * row, scaled, {64, 300}, {false, true}, false);
  check(reduce_kind::argmax, nd::dtype::float32, a * row, scaled, {64, 300}, {true, true}, false);
  // Comparisons reduce as bools.
  EXPECT_EQ(nd::count_nonzero(a > 10.0f).item(), 0);
  EXPECT_TRUE(nd::all(a < 10.0f).item());
}

TEST(GpuReductionSemantics, FullSumBeyondTwoToThe31Elements) {
  NDCUDA_REQUIRE_GPU();
  const nd::index_t n = (nd::index_t{1} << 31) + 4097;
  if (nd::device(0).memory().free < static_cast<std::size_t>(n) + (std::size_t{1} << 30)) {
    GTEST_SKIP() << "needs about " << (n >> 30) + 1 << " GiB of free device memory";
  }
  // int8 ones, then a few 3s written at the ends: the sum is exact in int64.
  auto a = nd::ones<std::int8_t>({n});
  a(nd::slice(n - 5, n)) = std::int8_t{3};
  a(nd::slice(0, 2)) = std::int8_t{-1};
  const std::int64_t want = n - 5 - 2 + 5 * 3 - 2;
  EXPECT_EQ(nd::sum(a).item(), want);
  EXPECT_EQ(nd::argmax(a).item(), n - 5);
  EXPECT_EQ(nd::argmin(a).item(), 0);
  EXPECT_EQ(nd::count_nonzero(a).item(), n);
}
