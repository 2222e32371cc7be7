// The type-erased half of quantile/percentile/median (src/ops/quantile.cpp): the axis plan and
// the one generated kernel that reads every quantile of every sorted row. Builds on core/ and device/.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/stream.hpp>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace ndcuda {

/// NumPy's quantile `method`s (Hyndman and Fan's nine, and NumPy's four discrete ones).
enum class quantile_method : std::uint8_t {
  inverted_cdf,
  averaged_inverted_cdf,
  closest_observation,
  interpolated_inverted_cdf,
  hazen,
  weibull,
  linear,
  median_unbiased,
  normal_unbiased,
  lower,
  higher,
  midpoint,
  nearest,
};

/// The method NumPy spells `name` ("linear", "median_unbiased", ...). Throws value_error with
/// NumPy's message for any other name.
[[nodiscard]] quantile_method quantile_method_named(std::string_view name);

namespace detail {

/// Whether a method picks an element (NumPy keeps the input's dtype) instead of interpolating.
constexpr bool is_discrete(quantile_method m) noexcept {
  return m == quantile_method::inverted_cdf || m == quantile_method::closest_observation ||
         m == quantile_method::lower || m == quantile_method::higher || m == quantile_method::nearest;
}

/// How an array is seen as rows: `perm` moves the kept axes first and the reduced ones last (each
/// group in its order); `rows` x `length` after that; `result_shape` is the result without q's
/// dimensions (the kept axes, or every axis with the reduced ones as 1 under keepdims).
struct quantile_plan {
  std::vector<index_t> perm;
  index_t rows = 1;
  index_t length = 1;
  shape_t result_shape;
};

/// The plan for an array of `shape` reduced over `axes` (nullopt: all). Throws NumPy's AxisError
/// text for an axis out of range and value_error("repeated axis") for a repeat.
[[nodiscard]] quantile_plan plan_quantile(const shape_t& shape, const std::optional<std::vector<int>>& axes,
                                          bool keepdims);

/// Throws value_error with NumPy's message unless every q is in [0, 1] ([0, 100] for percentiles;
/// NaN is outside).
void check_quantiles(std::span<const double> q, bool percent);

/// One quantile computation: `sorted` holds rows x length elements of dtype `element`, each row
/// sorted ascending with NaNs last; `q` (device, nq values in [0, 1]). out[i * rows + r] is
/// quantile q[i] of row r, interpolated in `lerp` (float32 or float64) and stored as `result`.
/// median: NumPy's median (the mean of the middle two) instead of a method. skip_nan: the NaNs at
/// the end of each row are left out (nanquantile); otherwise a row with a NaN gives NaN.
struct quantile_request {
  const void* sorted = nullptr;
  dtype element = dtype::float64;
  index_t rows = 0;
  index_t length = 0;
  const double* q = nullptr;
  index_t nq = 0;
  quantile_method method = quantile_method::linear;
  bool median = false;
  bool skip_nan = false;
  dtype lerp = dtype::float64;
  dtype result = dtype::float64;
  void* out = nullptr;
};

/// Launches the kernel for `r` on `s` (one thread per quantile and row).
void quantile_rows(const quantile_request& r, const stream& s);

/// Compiles two representative instances of the kernel for `cc` without a device.
NDCUDA_INTERNAL void compile_quantile_kernels(compute_capability cc);

}  // namespace detail
}  // namespace ndcuda

#pragma GCC visibility pop
