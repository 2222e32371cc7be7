// quantile/percentile/median: the axis plan, NumPy's checks and messages, and the one generated
// kernel that turns sorted rows into every requested quantile. Builds on jit/raw_kernel.hpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/jit/detail/kernels_by_itemsize.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <ndcuda/ops/detail/quantile_rows.hpp>
#include <string>

namespace ndcuda {
namespace {

constexpr std::array<std::string_view, 13> method_names = {"inverted_cdf",
                                                           "averaged_inverted_cdf",
                                                           "closest_observation",
                                                           "interpolated_inverted_cdf",
                                                           "hazen",
                                                           "weibull",
                                                           "linear",
                                                           "median_unbiased",
                                                           "normal_unbiased",
                                                           "lower",
                                                           "higher",
                                                           "midpoint",
                                                           "nearest"};

}  // namespace

quantile_method quantile_method_named(std::string_view name) {
  for (std::size_t i = 0; i < method_names.size(); ++i) {
    if (method_names[i] == name) {
      return static_cast<quantile_method>(i);
    }
  }
  std::string keys;
  for (std::string_view m : method_names) {
    keys += (keys.empty() ? "'" : ", '") + std::string(m) + "'";
  }
  throw value_error("'" + std::string(name) + "' is not a valid method. Use one of: dict_keys([" + keys + "])");
}

namespace detail {
namespace {

// One thread per (quantile, row). Every formula is NumPy's (numpy/lib/_function_base_impl.py,
// _quantile and _QuantileMethods), written in the same order of operations so that the float64
// virtual indexes and gammas are bit for bit NumPy's, including its quirks: an index outside the
// row reads the first or last element with gamma = v + 1 or v, and _lerp's b - a (computed in the
// input's dtype, wrapping for integers) makes inf rows NaN as they do in NumPy.
constexpr const char* quantile_source = R"(
// Products and sums through the _rn intrinsics: NVRTC would otherwise contract a * b + c into an
// FMA, whose single rounding moves floor()'s boundaries away from NumPy's.
__device__ inline double nd_q_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ inline double nd_q_add(double a, double b) { return __dadd_rn(a, b); }
__device__ inline double nd_q_sub(double a, double b) { return __dsub_rn(a, b); }
__device__ inline float nd_q_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ inline float nd_q_add(float a, float b) { return __fadd_rn(a, b); }
__device__ inline float nd_q_sub(float a, float b) { return __fsub_rn(a, b); }

__device__ inline long long nd_q_boundary(double index, int closest) {
  const double previous = floor(index);
  const double gamma = index - previous;
  bool take_previous = gamma == 0.0;
  if (closest) {
    const double odd = previous - 2.0 * floor(previous / 2.0);  // Python's previous % 2
    take_previous = take_previous && odd == 1.0;
  }
  long long r = (long long)(take_previous ? previous : previous + 1.0);
  return r < 0 ? 0 : r;
}

__device__ inline double nd_q_virtual(double n, double q, double alpha, double beta) {
  return nd_q_sub(nd_q_add(nd_q_mul(n, q), nd_q_add(alpha, nd_q_mul(q, 1.0 - alpha - beta))), 1.0);
}

// method: quantile_method's value; 13 is NumPy's median (the mean of the middle one or two).
template <class T, class U, class L, class R>
__global__ void nd_quantile(const T* sorted, const double* qs, unsigned long long nq, unsigned long long rows,
                            unsigned long long n, int method, int skip_nan, R* out) {
  const unsigned long long total = nq * rows;
  for (unsigned long long t = blockIdx.x * 1ull * blockDim.x + threadIdx.x; t < total;
       t += 1ull * gridDim.x * blockDim.x) {
    const unsigned long long qi = t / rows;
    const T* row = sorted + (t - qi * rows) * n;
    long long count = (long long)n;
    if (skip_nan) {
      long long lo = 0, hi = count;  // NaNs sort last: find the first
      while (lo < hi) {
        const long long mid = lo + (hi - lo) / 2;
        if (row[mid] != row[mid]) hi = mid; else lo = mid + 1;
      }
      count = lo;
    } else if (count > 0 && row[count - 1] != row[count - 1]) {
      out[t] = (R)row[count - 1];  // NumPy returns the row's last element: a NaN
      continue;
    }
    if (count == 0) {
      out[t] = (R)(L)__int_as_float(0x7fc00000);
      continue;
    }
    if (method == 13) {
      const long long h = count / 2;
      out[t] = (count % 2) ? (R)(L)row[h] : (R)(nd_q_add((L)row[h - 1], (L)row[h]) / (L)2);
      continue;
    }
    const double q = qs[qi];
    const double nn = (double)count;
    const double last = (double)(count - 1);
    long long idx = -1;
    double v = 0.0;
    switch (method) {
      case 0: idx = nd_q_boundary(nd_q_sub(nd_q_mul(nn, q), 1.0), 0); break;
      case 1: v = nd_q_sub(nd_q_mul(nn, q), 1.0); break;
      case 2: idx = nd_q_boundary(nd_q_sub(nd_q_sub(nd_q_mul(nn, q), 1.0), 0.5), 1); break;
      case 3: v = nd_q_virtual(nn, q, 0.0, 1.0); break;
      case 4: v = nd_q_virtual(nn, q, 0.5, 0.5); break;
      case 5: v = nd_q_virtual(nn, q, 0.0, 0.0); break;
      case 6: v = nd_q_mul(last, q); break;
      case 7: v = nd_q_virtual(nn, q, 1.0 / 3.0, 1.0 / 3.0); break;
      case 8: v = nd_q_virtual(nn, q, 3.0 / 8.0, 3.0 / 8.0); break;
      case 9: idx = (long long)floor(nd_q_mul(last, q)); break;
      case 10: idx = (long long)ceil(nd_q_mul(last, q)); break;
      case 11: v = 0.5 * (floor(nd_q_mul(last, q)) + ceil(nd_q_mul(last, q))); break;
      default: idx = (long long)rint(nd_q_mul(last, q)); break;  // nearest: np.around, half to even
    }
    if (idx >= 0) {
      out[t] = (R)row[idx < count ? idx : count - 1];
      continue;
    }
    long long prev = (long long)floor(v);
    long long next = prev + 1;
    double prev_index = floor(v);
    if (v >= last) {  // NumPy indexes -1 here, and its gamma sees that -1
      prev = next = count - 1;
      prev_index = -1.0;
    }
    if (v < 0.0) {
      prev = next = 0;
      prev_index = 0.0;
    }
    double gamma = v - prev_index;
    if (method == 1) gamma = gamma == 0.0 ? 0.5 : 1.0;
    if (method == 11) gamma = (v - floor(v)) == 0.0 ? 0.0 : 0.5;
    const T a = row[prev];
    const T b = row[next];
    const L diff = (L)(T)((U)b - (U)a);
    L r = nd_q_add((L)a, nd_q_mul(diff, (L)gamma));
    if (gamma >= 0.5) r = nd_q_sub((L)b, nd_q_mul(diff, (L)(1.0 - gamma)));
    out[t] = (R)r;
  }
}
)";

const raw_kernel& kernel(const std::string& name) {
  static const jit::detail::kernel_family family(quantile_source);
  return family.get(name);
}

/// The unsigned type whose wrapping subtraction is the dtype's own (floats subtract as themselves).
std::string_view difference_type(dtype t) {
  switch (t) {
    case dtype::int8:
      return "unsigned char";
    case dtype::int16:
      return "unsigned short";
    case dtype::int32:
      return "unsigned int";
    case dtype::int64:
      return "unsigned long long";
    default:
      return cuda_type_name(t);
  }
}

std::string instance(dtype element, dtype lerp, dtype result) {
  return "nd_quantile<" + std::string(cuda_type_name(element)) + ", " + std::string(difference_type(element)) + ", " +
         std::string(cuda_type_name(lerp)) + ", " + std::string(cuda_type_name(result)) + ">";
}

}  // namespace

quantile_plan plan_quantile(const shape_t& shape, const std::optional<std::vector<int>>& axes, bool keepdims) {
  const int ndim = static_cast<int>(shape.size());
  std::vector<bool> reduced(static_cast<std::size_t>(ndim), !axes.has_value());
  if (axes) {
    for (int a : *axes) {
      const int ax = normalize_axis(a, ndim);
      if (reduced[static_cast<std::size_t>(ax)]) {
        throw value_error("repeated axis");
      }
      reduced[static_cast<std::size_t>(ax)] = true;
    }
  }
  quantile_plan plan;
  std::vector<index_t> last;
  for (int d = 0; d < ndim; ++d) {
    const index_t extent = shape[static_cast<std::size_t>(d)];
    if (reduced[static_cast<std::size_t>(d)]) {
      last.push_back(d);
      plan.length *= extent;
      if (keepdims) {
        plan.result_shape.push_back(1);
      }
    } else {
      plan.perm.push_back(d);
      plan.rows *= extent;
      plan.result_shape.push_back(extent);
    }
  }
  plan.perm.insert(plan.perm.end(), last.begin(), last.end());
  return plan;
}

void check_quantiles(std::span<const double> q, bool percent) {
  const double top = percent ? 100.0 : 1.0;
  for (double v : q) {
    if (!(v >= 0.0 && v <= top)) {  // NaN fails too
      throw value_error(percent ? "Percentiles must be in the range [0, 100]"
                                : "Quantiles must be in the range [0, 1]");
    }
  }
}

void quantile_rows(const quantile_request& r, const stream& s) {
  const index_t total = r.nq * r.rows;
  if (total == 0) {
    return;
  }
  const int method = r.median ? 13 : static_cast<int>(r.method);
  const raw_kernel& k = kernel(instance(r.element, r.lerp, r.result));
  const device_guard guard(s.device());
  k.launch(k.occupancy_config(static_cast<std::size_t>(total), s), s, r.sorted, r.q,
           static_cast<unsigned long long>(r.nq), static_cast<unsigned long long>(r.rows),
           static_cast<unsigned long long>(r.length), method, r.skip_nan ? 1 : 0, r.out);
}

void compile_quantile_kernels(compute_capability cc) {
  kernel(instance(dtype::float32, dtype::float32, dtype::float32)).compile(cc);
  kernel(instance(dtype::int8, dtype::float64, dtype::float64)).compile(cc);
}

}  // namespace detail
}  // namespace ndcuda
