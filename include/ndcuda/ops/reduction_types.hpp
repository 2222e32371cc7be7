// The reductions' kinds and NumPy 2's dtype rules for them (result and accumulator dtypes), as
// constexpr functions testable without a GPU. Builds on core/dtype.hpp and ops/expression.hpp.
#pragma once

#include <cstdint>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/ops/expression.hpp>

namespace ndcuda::detail {

/// What a reduction computes. Each kind is one reducer struct in kernels/reducers.cuh.
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
};

/// The NumPy name of the operation in messages ("zero-size array to reduction operation minimum").
constexpr const char* reduce_name(reduce_kind k) noexcept {
  switch (k) {
    case reduce_kind::sum:
      return "sum";
    case reduce_kind::prod:
      return "prod";
    case reduce_kind::min:
      return "min";
    case reduce_kind::max:
      return "max";
    case reduce_kind::nanmin:
      return "nanmin";
    case reduce_kind::nanmax:
      return "nanmax";
    case reduce_kind::mean:
      return "mean";
    case reduce_kind::nansum:
      return "nansum";
    case reduce_kind::nanmean:
      return "nanmean";
    case reduce_kind::var:
      return "var";
    case reduce_kind::std:
      return "std";
    case reduce_kind::argmin:
      return "argmin";
    case reduce_kind::argmax:
      return "argmax";
    case reduce_kind::all:
      return "all";
    case reduce_kind::any:
      return "any";
    case reduce_kind::count_nonzero:
      return "count_nonzero";
    case reduce_kind::norm1:
    case reduce_kind::norm2:
    case reduce_kind::norm_max:
    case reduce_kind::norm_min:
      return "norm";
  }
  return "reduce";
}

/// Kinds with no identity: an empty reduction throws NumPy's message instead of a value.
constexpr bool has_identity(reduce_kind k) noexcept {
  return !(k == reduce_kind::min || k == reduce_kind::max || k == reduce_kind::nanmin || k == reduce_kind::nanmax ||
           k == reduce_kind::argmin || k == reduce_kind::argmax || k == reduce_kind::norm_min);
}

/// Kinds whose result depends on the position of the elements (not only on their values): their
/// reduced dimensions keep the logical C order.
constexpr bool needs_index(reduce_kind k) noexcept {
  return k == reduce_kind::argmin || k == reduce_kind::argmax;
}

/// Orderings: complex numbers have none here (NumPy sorts them lexicographically; we refuse).
constexpr bool orders_values(reduce_kind k) noexcept {
  return k == reduce_kind::min || k == reduce_kind::max || k == reduce_kind::nanmin || k == reduce_kind::nanmax;
}

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

/// var and std: as mean, then complex gives its real part's dtype.
constexpr dtype var_result(dtype t) noexcept {
  return real_part_of(mean_result(t));
}

/// The result dtype of `k` on values of dtype `t`, before any dtype= override.
constexpr dtype reduce_result(reduce_kind k, dtype t) noexcept {
  switch (k) {
    case reduce_kind::sum:
    case reduce_kind::prod:
    case reduce_kind::nansum:
      return sum_result(t);
    case reduce_kind::min:
    case reduce_kind::max:
    case reduce_kind::nanmin:
    case reduce_kind::nanmax:
      return t;
    case reduce_kind::mean:
    case reduce_kind::nanmean:
      return mean_result(t);
    case reduce_kind::var:
    case reduce_kind::std:
    case reduce_kind::norm1:
    case reduce_kind::norm2:
    case reduce_kind::norm_max:
    case reduce_kind::norm_min:
      return var_result(t);
    case reduce_kind::argmin:
    case reduce_kind::argmax:
    case reduce_kind::count_nonzero:
      return dtype::int64;
    case reduce_kind::all:
    case reduce_kind::any:
      return dtype::bool_;
  }
  return t;
}

/// The dtype the kernel accumulates in for a result dtype `out` on values of dtype `t`: float16
/// and bfloat16 accumulate in float32; min/max/arg* compare in the values' compute type; var/std
/// accumulate (Welford's mean) in the mean's dtype, complex for complex input.
constexpr dtype reduce_accumulator(reduce_kind k, dtype t, dtype out) noexcept {
  switch (k) {
    case reduce_kind::min:
    case reduce_kind::max:
    case reduce_kind::nanmin:
    case reduce_kind::nanmax:
    case reduce_kind::argmin:
    case reduce_kind::argmax:
      return compute_type(t);
    case reduce_kind::var:
    case reduce_kind::std:
      // The mean of complex values is complex, whatever the (real) result.
      return is_complex(t) && !is_complex(out)
                 ? (out == dtype::float32 || out == dtype::float16 || out == dtype::bfloat16 ? dtype::complex64
                                                                                             : dtype::complex128)
                 : compute_type(out);
    case reduce_kind::all:
    case reduce_kind::any:
      return dtype::bool_;
    case reduce_kind::count_nonzero:
      return dtype::int64;
    default:
      return compute_type(out);
  }
}

/// Whether a reduction of `k` accepts values of dtype `t` (NumPy refuses the same ones, or we do
/// with a reason the message gives).
constexpr bool reduce_accepts(reduce_kind k, dtype t) noexcept {
  return !orders_values(k) || !is_complex(t);
}

}  // namespace ndcuda::detail
