/// @file
/// NumPy's where= and initial= for reductions, as typed options: nd::sum(x, 1, nd::where_mask(m),
/// nd::initial(5)). Builds on array/ndarray.hpp and expr/expression.hpp (array operands).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/array/ndarray.hpp>
#include <ndcuda/expr/expression.hpp>
#include <type_traits>

namespace ndcuda {

/// A reduction's where= mask, read as bool; it must broadcast to the reduced operand's shape.
/// Spelled where_mask because nd::where(cond) is already NumPy's one-argument where (nonzero).
struct where_mask_t {
  ndarray<bool> mask;  ///< the mask as a bool array (an expression is evaluated once)
};

/// NumPy's where= of a reduction: only the elements where `m` is true take part.
/// `nd::sum(x, 0, nd::where_mask(x > 0))`; sum, prod, min, max, their nan forms, any, all, mean,
/// var, std, nanmean, nanvar and nanstd take it (min/max and nanmin/nanmax need nd::initial too).
template <array_operand M>
[[nodiscard]] where_mask_t where_mask(const M& m) {
  if constexpr (std::is_same_v<std::remove_cvref_t<M>, ndarray<bool>>) {
    return where_mask_t{m};
  } else {
    ndarray<bool> b = m.template astype<bool>();
    return where_mask_t{b};
  }
}

/// NumPy's initial= of sum, prod, min, max, nansum, nanprod, nanmin and nanmax: the value the fold
/// starts from, converted to the result dtype. `nd::max(x, 1, nd::initial(0))`.
struct initial {
  /// The starting value, any arithmetic type (stored as a double).
  template <class T>
  requires std::is_arithmetic_v<T>
  constexpr explicit initial(T v) noexcept
      : value(static_cast<double>(v)),
        integer(std::is_integral_v<T> ? static_cast<long long>(v) : 0),
        is_integer(std::is_integral_v<T>) {}
  double value;       ///< the value as a double
  long long integer;  ///< exact, when given as an integer (int64 values beyond 2^53)
  bool is_integer;    ///< whether `integer` holds the value
};

}  // namespace ndcuda

#pragma GCC visibility pop
