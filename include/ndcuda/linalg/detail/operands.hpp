// Operand helpers shared by the linalg/ and fft/ templates: expressions evaluated to arrays, the
// dtype a product or a solver computes in, axes normalised with NumPy's messages.
// Builds on expr/evaluate.hpp and linalg/detail/erased.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/array/erased_array.hpp>
#include <ndcuda/core/promotion.hpp>
#include <ndcuda/expr/operand_array.hpp>
#include <type_traits>
#include <utility>

namespace ndcuda::linalg::detail {

using ndcuda::detail::erase;
using ndcuda::detail::erased_array;
using ndcuda::detail::restore;
using ndcuda::detail::to_array;

template <class X>
using value_t = ndcuda::detail::operand_value_t<X>;

/// Whether two erased buffers may share memory (the same owner or the same base): conservative.
/// A product written straight into its target must not read that target.
inline bool may_share(const erased_array& x, const erased_array& y) noexcept {
  return (x.owner != nullptr && x.owner == y.owner) || x.base == y.base;
}

/// The dtype numpy.linalg computes in for input dtype t: float32 and complex stay, float64 for
/// integers and bool; float16/bfloat16 compute in float32 (NumPy refuses float16; cuSOLVER has
/// no half-precision factorizations).
constexpr dtype solver_dtype(dtype t) noexcept {
  switch (t) {
    case dtype::float16:
    case dtype::bfloat16:
    case dtype::float32:
      return dtype::float32;
    case dtype::complex64:
      return dtype::complex64;
    case dtype::complex128:
      return dtype::complex128;
    default:
      return dtype::float64;
  }
}

/// The real dtype of a float or complex dtype (complex64 -> float32).
constexpr dtype real_dtype(dtype t) noexcept {
  return t == dtype::complex64 ? dtype::float32 : t == dtype::complex128 ? dtype::float64 : t;
}

/// `a` itself when it already holds R, else a converted copy.
template <class R, class E>
ndarray<R> as_type(const ndarray<E>& a) {
  if constexpr (std::is_same_v<std::remove_cv_t<E>, R>) {
    return a;
  } else {
    return a.template astype<R>();
  }
}

template <class E>
using solver_t = type_of<solver_dtype(dtype_of<E>)>;
template <class E>
using real_t = type_of<real_dtype(dtype_of<E>)>;

}  // namespace ndcuda::linalg::detail

#pragma GCC visibility pop
