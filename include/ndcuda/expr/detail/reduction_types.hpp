// The reductions as one constexpr table: a row per kind with its name, its reducer in
// kernels/reducers.cuh, its empty-input rule and NumPy 2's dtype rules. Builds on core/dtype.hpp and
// expr/operation.hpp (compute_type).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <array>
#include <cstddef>
#include <cstdint>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/expr/operation.hpp>

namespace ndcuda::detail {

/// What a reduction computes: the key of a row of reduction_table (same order).
enum class reduce_kind : std::uint8_t {
  sum,
  prod,
  min,
  max,
  nanmin,
  nanmax,
  mean,
  nansum,
  nanmean,
  var,
  std,
  argmin,
  argmax,
  all,
  any,
  count_nonzero,
  norm1,     ///< sum |x|
  norm2,     ///< sqrt(sum |x|^2)
  norm_max,  ///< max |x| (ord = +inf)
  norm_min,  ///< min |x| (ord = -inf)
  nanprod,
  nanvar,
  nanstd,
  nanargmin,  ///< -1 for an all-NaN slice (the caller raises NumPy's error)
  nanargmax,
};

// Result dtypes (before any dtype= override) from the values' dtype.

/// sum and prod: bool and signed integers accumulate in int64, unsigned ones in uint64, the rest
/// keep their dtype (float16/bfloat16 results, accumulated in float32).
constexpr dtype sum_result(dtype t) noexcept {
  if (t == dtype::bool_ || kind(t) == dtype_kind::signed_integer) {
    return dtype::int64;
  }
  if (kind(t) == dtype_kind::unsigned_integer) {
    return dtype::uint64;
  }
  return t;
}

/// mean of bool and integers is float64; floating and complex keep their dtype.
constexpr dtype mean_result(dtype t) noexcept {
  return t == dtype::bool_ || is_integral(t) ? dtype::float64 : t;
}

/// The real dtype of a complex one (the dtype itself otherwise).
constexpr dtype real_part_of(dtype t) noexcept {
  return t == dtype::complex64 ? dtype::float32 : t == dtype::complex128 ? dtype::float64 : t;
}

/// var, std and norms: as mean, then complex gives its real part's dtype.
constexpr dtype var_result(dtype t) noexcept {
  return real_part_of(mean_result(t));
}

constexpr dtype same_result(dtype t) noexcept {
  return t;
}
constexpr dtype int64_result(dtype) noexcept {
  return dtype::int64;
}
constexpr dtype bool_result(dtype) noexcept {
  return dtype::bool_;
}

// Accumulator dtypes from the values' dtype `t` and the result's `out`. float16 and bfloat16
// accumulate in float32 (compute_type).

/// The result's compute type: sums, products, means, norms.
constexpr dtype acc_of_result(dtype, dtype out) noexcept {
  return compute_type(out);
}
/// Comparisons (min/max/arg*) run in the values' compute type.
constexpr dtype acc_of_values(dtype t, dtype) noexcept {
  return compute_type(t);
}
/// Welford's mean is complex for complex values, whatever the (real) result.
constexpr dtype acc_welford(dtype t, dtype out) noexcept {
  if (is_complex(t) && !is_complex(out)) {
    return out == dtype::float32 || out == dtype::float16 || out == dtype::bfloat16 ? dtype::complex64
                                                                                    : dtype::complex128;
  }
  return compute_type(out);
}
constexpr dtype acc_bool(dtype, dtype) noexcept {
  return dtype::bool_;
}
constexpr dtype acc_int64(dtype, dtype) noexcept {
  return dtype::int64;
}

/// One reduction: everything the engine and the public functions need to know about it.
struct reduction_row {
  reduce_kind kind{};
  /// NumPy's name in messages ("sum", and "norm" for every norm).
  const char* name = nullptr;
  /// The generated kernels' name (a C identifier).
  const char* kernel = nullptr;
  /// The reducer of kernels/reducers.cuh, with {v}, {a}, {o} standing for the CUDA spellings of
  /// the value, accumulator and result dtypes.
  const char* reducer = nullptr;
  /// NumPy's message for an empty reduction; nullptr: the kind has an identity (sum of nothing is 0).
  const char* empty_message = nullptr;
  dtype (*result)(dtype values) = nullptr;
  dtype (*accumulator)(dtype values, dtype result) = nullptr;
  /// The result depends on the elements' positions (argmin/argmax): the reduced dimensions keep
  /// their logical C order.
  bool keeps_order = false;
  /// Compares values: complex numbers have none here (NumPy sorts them lexicographically; we refuse).
  bool orders_values = false;
  /// Takes nd::ddof (passed to the kernel as `param`).
  bool takes_ddof = false;
  /// Takes a result dtype, as NumPy's dtype= (nd::sum<double>).
  bool takes_dtype = false;
};

/// Adding a reduction: an enumerator above, its row here (same position), its reducer in
/// kernels/reducers.cuh and its public function in ops/reductions.hpp.
inline constexpr std::array<reduction_row, 25> reduction_table = {{
    // kind, name, kernel, reducer, empty message, result, accumulator, order, orders, ddof, dtype
    {reduce_kind::sum, "sum", "nd_sum", "ndcuda::sum_reducer<{v}, {a}, {o}>", nullptr, sum_result, acc_of_result, false,
     false, false, true},
    {reduce_kind::prod, "prod", "nd_prod", "ndcuda::prod_reducer<{v}, {a}, {o}>", nullptr, sum_result, acc_of_result,
     false, false, false, true},
    {reduce_kind::min, "min", "nd_min", "ndcuda::extreme_reducer<{v}, {a}, {o}, false>",
     "zero-size array to reduction operation minimum which has no identity", same_result, acc_of_values, false, true},
    {reduce_kind::max, "max", "nd_max", "ndcuda::extreme_reducer<{v}, {a}, {o}, true>",
     "zero-size array to reduction operation maximum which has no identity", same_result, acc_of_values, false, true},
    {reduce_kind::nanmin, "nanmin", "nd_nanmin", "ndcuda::nan_extreme_reducer<{v}, {a}, {o}, false>",
     "zero-size array to reduction operation fmin which has no identity", same_result, acc_of_values, false, true},
    {reduce_kind::nanmax, "nanmax", "nd_nanmax", "ndcuda::nan_extreme_reducer<{v}, {a}, {o}, true>",
     "zero-size array to reduction operation fmax which has no identity", same_result, acc_of_values, false, true},
    {reduce_kind::mean, "mean", "nd_mean", "ndcuda::sum_reducer<{v}, {a}, {o}, false, true>", nullptr, mean_result,
     acc_of_result, false, false, false, true},
    {reduce_kind::nansum, "nansum", "nd_nansum", "ndcuda::sum_reducer<{v}, {a}, {o}, true>", nullptr, sum_result,
     acc_of_result, false, false, false, true},
    {reduce_kind::nanmean, "nanmean", "nd_nanmean", "ndcuda::nanmean_reducer<{v}, {a}, {o}>", nullptr, mean_result,
     acc_of_result, false, false, false, true},
    {reduce_kind::var, "var", "nd_var", "ndcuda::var_reducer<{v}, {a}, {o}, false>", nullptr, var_result, acc_welford,
     false, false, true, true},
    {reduce_kind::std, "std", "nd_std", "ndcuda::var_reducer<{v}, {a}, {o}, true>", nullptr, var_result, acc_welford,
     false, false, true, true},
    {reduce_kind::argmin, "argmin", "nd_argmin", "ndcuda::arg_reducer<{v}, {a}, false>",
     "attempt to get argmin of an empty sequence", int64_result, acc_of_values, true},
    {reduce_kind::argmax, "argmax", "nd_argmax", "ndcuda::arg_reducer<{v}, {a}, true>",
     "attempt to get argmax of an empty sequence", int64_result, acc_of_values, true},
    {reduce_kind::all, "all", "nd_all", "ndcuda::logical_reducer<{v}, true>", nullptr, bool_result, acc_bool},
    {reduce_kind::any, "any", "nd_any", "ndcuda::logical_reducer<{v}, false>", nullptr, bool_result, acc_bool},
    {reduce_kind::count_nonzero, "count_nonzero", "nd_count_nonzero", "ndcuda::count_reducer<{v}>", nullptr,
     int64_result, acc_int64},
    {reduce_kind::norm1, "norm", "nd_norm1", "ndcuda::norm_reducer<{v}, {a}, {o}, 1>", nullptr, var_result,
     acc_of_result},
    {reduce_kind::norm2, "norm", "nd_norm2", "ndcuda::norm_reducer<{v}, {a}, {o}, 2>", nullptr, var_result,
     acc_of_result},
    {reduce_kind::norm_max, "norm", "nd_norm_inf", "ndcuda::norm_reducer<{v}, {a}, {o}, 3>", nullptr, var_result,
     acc_of_result},
    {reduce_kind::norm_min, "norm", "nd_norm_neginf", "ndcuda::norm_reducer<{v}, {a}, {o}, -3>",
     "zero-size array to reduction operation minimum which has no identity", var_result, acc_of_result},
    {reduce_kind::nanprod, "nanprod", "nd_nanprod", "ndcuda::prod_reducer<{v}, {a}, {o}, true>", nullptr, sum_result,
     acc_of_result, false, false, false, true},
    {reduce_kind::nanvar, "nanvar", "nd_nanvar", "ndcuda::var_reducer<{v}, {a}, {o}, false, true>", nullptr, var_result,
     acc_welford, false, false, true, true},
    {reduce_kind::nanstd, "nanstd", "nd_nanstd", "ndcuda::var_reducer<{v}, {a}, {o}, true, true>", nullptr, var_result,
     acc_welford, false, false, true, true},
    {reduce_kind::nanargmin, "nanargmin", "nd_nanargmin", "ndcuda::arg_reducer<{v}, {a}, false, true>",
     "attempt to get argmin of an empty sequence", int64_result, acc_of_values, true},
    {reduce_kind::nanargmax, "nanargmax", "nd_nanargmax", "ndcuda::arg_reducer<{v}, {a}, true, true>",
     "attempt to get argmax of an empty sequence", int64_result, acc_of_values, true},
}};

/// The row of `k`.
constexpr const reduction_row& reduction_of(reduce_kind k) noexcept {
  return reduction_table[static_cast<std::size_t>(k)];
}

constexpr bool reduction_table_in_order() noexcept {
  for (std::size_t i = 0; i < reduction_table.size(); ++i) {
    if (static_cast<std::size_t>(reduction_table[i].kind) != i) {
      return false;
    }
  }
  return true;
}
static_assert(reduction_table_in_order(), "reduction_table: one row per reduce_kind, in the enum's order");

/// The NumPy name of the operation in messages.
constexpr const char* reduce_name(reduce_kind k) noexcept {
  return reduction_of(k).name;
}

/// Kinds with no identity: an empty reduction throws NumPy's message instead of a value.
constexpr bool has_identity(reduce_kind k) noexcept {
  return reduction_of(k).empty_message == nullptr;
}

/// Kinds whose result depends on the position of the elements (not only on their values).
constexpr bool needs_index(reduce_kind k) noexcept {
  return reduction_of(k).keeps_order;
}

constexpr bool orders_values(reduce_kind k) noexcept {
  return reduction_of(k).orders_values;
}

/// The result dtype of `k` on values of dtype `t`, before any dtype= override.
constexpr dtype reduce_result(reduce_kind k, dtype t) noexcept {
  return reduction_of(k).result(t);
}

/// The dtype the kernel accumulates in for a result dtype `out` on values of dtype `t`.
constexpr dtype reduce_accumulator(reduce_kind k, dtype t, dtype out) noexcept {
  return reduction_of(k).accumulator(t, out);
}

/// Whether a reduction of `k` accepts values of dtype `t` (NumPy refuses the same ones, or we do
/// with a reason the message gives).
constexpr bool reduce_accepts(reduce_kind k, dtype t) noexcept {
  // min and max order complex numbers lexicographically, as NumPy does (kernels/complex.cuh);
  // nanmin/nanmax of complex stay refused (an all-NaN slice would need a complex NaN identity).
  return !orders_values(k) || !is_complex(t) || k == reduce_kind::min || k == reduce_kind::max;
}

}  // namespace ndcuda::detail

#pragma GCC visibility pop
