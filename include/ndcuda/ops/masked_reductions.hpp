/// @file
/// Reductions with NumPy's where= and initial=: folds through a fused where(mask, x, identity),
/// moments (mean, var, std and their nan forms) as counted sums. Builds on the engine
/// (expr/evaluate.hpp), ops/reduction_call.hpp (the options) and ops/functions.hpp (where).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <limits>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/core/detail/dependent_type.hpp>
#include <ndcuda/expr/evaluate.hpp>
#include <ndcuda/ops/functions.hpp>
#include <ndcuda/ops/reduction_call.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ndcuda::detail {

/// The kinds NumPy gives initial=.
constexpr bool takes_initial(reduce_kind k) noexcept {
  switch (k) {
    case reduce_kind::sum:
    case reduce_kind::prod:
    case reduce_kind::min:
    case reduce_kind::max:
    case reduce_kind::nansum:
    case reduce_kind::nanprod:
    case reduce_kind::nanmin:
    case reduce_kind::nanmax:
      return true;
    default:
      return false;
  }
}

constexpr bool is_extreme(reduce_kind k) noexcept {
  return k == reduce_kind::min || k == reduce_kind::max || k == reduce_kind::nanmin || k == reduce_kind::nanmax;
}

constexpr bool is_moment(reduce_kind k) noexcept {
  return k == reduce_kind::mean || k == reduce_kind::nanmean || k == reduce_kind::var || k == reduce_kind::std ||
         k == reduce_kind::nanvar || k == reduce_kind::nanstd;
}

/// The kinds NumPy gives where=: the folds that take initial=, any and all, and the moments.
constexpr bool takes_where(reduce_kind k) noexcept {
  return takes_initial(k) || k == reduce_kind::any || k == reduce_kind::all || is_moment(k);
}

/// NumPy's ufunc name in the where-without-initial message.
constexpr const char* extreme_ufunc(reduce_kind k) noexcept {
  return k == reduce_kind::min      ? "minimum"
         : k == reduce_kind::max    ? "maximum"
         : k == reduce_kind::nanmin ? "fmin"
                                    : "fmax";
}

/// initial= as a C++ scalar that keeps an array of element T at its dtype (a weak scalar).
template <class T>
auto initial_as(const initial& i) {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>) {
    return i.is_integer ? i.integer != 0 : i.value != 0;
  } else if constexpr (std::is_integral_v<U>) {
    return static_cast<U>(i.is_integer ? i.integer : static_cast<long long>(i.value));
  } else {
    return i.value;  // floats, the half types and complex keep their dtype with a weak double
  }
}

/// The broadcast shape of an operand's arrays, without evaluating it.
template <class X>
shape_t operand_shape(const X& x) {
  using N = node_t<const X&>;
  const N node = as_node(x);
  const inputs_of<N> in(node);
  shape_t shape = in.distinct[0].layout->shape;
  for (std::size_t i = 1; i < in.count; ++i) {
    shape = broadcast_shapes(shape, in.distinct[i].layout->shape);
  }
  return shape;
}

/// The checked call of reducing `x` over `axes` (result shape, reduced count), never throwing for
/// an empty reduction.
template <class X>
reduce_call plan_of(const X& x, const std::optional<std::vector<int>>& axes, bool keepdims) {
  using N = node_t<const X&>;
  const N node = as_node(x);
  const inputs_of<N> in(node);
  return prepare_reduction(reduce_kind::sum, {in.distinct.data(), in.count}, axes, keepdims);
}

/// The stream of x's first array (a copy: stream is a shared handle).
template <class X>
stream first_stream(const X& x) {
  using N = node_t<const X&>;
  const N node = as_node(x);
  const inputs_of<N> in(node);
  return *in.distinct[0].s;
}

/// The where= mask broadcast to `x`'s shape (NumPy: the mask may not enlarge the operand).
template <class X>
ndarray<bool> mask_for(const X& x, const ndarray<bool>& mask, const char* what) {
  const shape_t shape = operand_shape(x);
  bool fits = mask.ndim() <= static_cast<int>(shape.size());
  if (fits) {
    try {
      fits = broadcast_shapes(shape, mask.shape()) == shape;
    } catch (const shape_error&) {
      fits = false;
    }
  }
  if (!fits) {
    throw shape_error(std::string(what) + ": the where= mask of shape " + format_shape(mask.shape()) +
                      " does not broadcast to the operand's shape " + format_shape(shape) +
                      "; give a mask of that shape or one that broadcasts to it");
  }
  return mask.broadcast_to(shape);
}

/// sum, prod, min, max, their nan forms, any and all with where= and/or initial=.
template <reduce_kind K, class D, class X>
auto masked_fold(const X& x, const std::optional<std::vector<int>>& axes, const reduce_options& opt) {
  using N = node_t<const X&>;
  using V = type_of<N::type()>;
  using Out = type_of<result_dtype<K, D, N>()>;
  if constexpr (is_extreme(K)) {
    if (opt.where && !opt.init) {
      throw value_error(std::string("reduction operation '") + extreme_ufunc(K) +
                        "' does not have an identity, so to use a where mask one has to specify 'initial'");
    }
  }
  const auto run = [&](const auto& y) -> ndarray<Out> {
    if constexpr (is_extreme(K)) {
      if (opt.init) {  // an empty slice is allowed with initial=: it gives initial
        const reduce_call call = plan_of(y, axes, opt.keepdims);
        if (call.reduced_count == 0) {  // nothing to read: initial on the operand's stream
          return full<Out>(call.result_shape, element_from<Out>(opt.init->value),
                           opt.s != nullptr ? *opt.s : first_stream(y));
        }
      }
    }
    return reduce<K, D>(y, axes, opt.keepdims, opt.s, 0.0);
  };
  ndarray<Out> r;
  if (opt.where) {
    const ndarray<bool> m = mask_for(x, *opt.where, reduce_name(K));
    if constexpr (K == reduce_kind::sum || K == reduce_kind::nansum || K == reduce_kind::any) {
      r = run(where(m, x, false));  // a weak bool: 0 in x's dtype
    } else if constexpr (K == reduce_kind::prod || K == reduce_kind::nanprod || K == reduce_kind::all) {
      r = run(where(m, x, true));
    } else {
      r = run(where(m, x, initial_as<V>(*opt.init)));
    }
  } else {
    r = run(x);
  }
  if (opt.init) {
    const auto v = initial_as<Out>(*opt.init);
    if constexpr (K == reduce_kind::sum || K == reduce_kind::nansum) {
      r(ellipsis) = r + v;
    } else if constexpr (K == reduce_kind::prod || K == reduce_kind::nanprod) {
      r(ellipsis) = r * v;
    } else if constexpr (K == reduce_kind::min) {
      r(ellipsis) = minimum(r, v);
    } else if constexpr (K == reduce_kind::max) {
      r(ellipsis) = maximum(r, v);
    } else if constexpr (K == reduce_kind::nanmin) {
      r(ellipsis) = fmin(r, v);
    } else if constexpr (K == reduce_kind::nanmax) {
      r(ellipsis) = fmax(r, v);
    }
  }
  return r;
}

/// |d|^2 of a real or complex expression, as a real one.
template <class E>
auto squared_magnitude(const E& d) {
  if constexpr (is_complex(node_t<const E&>::type())) {
    return real(d) * real(d) + imag(d) * imag(d);
  } else {
    return d * d;
  }
}

/// mean, var, std and their nan forms with where=, as NumPy computes them: a count and a sum of
/// the selected elements, then (var, std) a second pass over the squared distances to the mean.
template <reduce_kind K, class D, class X>
auto masked_moment(const X& x, const std::optional<std::vector<int>>& axes, const reduce_options& opt) {
  using N = node_t<const X&>;
  using Out = type_of<result_dtype<K, D, N>()>;
  using C = type_of<spec_for<K, D, N>().acc>;  // the accumulator: complex for complex values
  using R = type_of<real_part_of(dtype_of<C>)>;
  constexpr bool nan_skip = K == reduce_kind::nanmean || K == reduce_kind::nanvar || K == reduce_kind::nanstd;
  using B = dependent_t<bool, X>;  // instantiated with the template, not in every includer
  const ndarray<B> m = mask_for(x, *opt.where, reduce_name(K));
  ndarray<B> selected = m;
  if constexpr (nan_skip) {
    selected = m & logical_not(isnan(x));
  }
  const shape_t result_shape = plan_of(x, axes, opt.keepdims).result_shape;
  const ndarray<std::int64_t> n = reduce<reduce_kind::count_nonzero, void>(selected, axes, true, opt.s, 0.0);
  const ndarray<C> total = reduce<reduce_kind::sum, C>(where(selected, x, false), axes, true, opt.s, 0.0);
  const ndarray<C> mean = total / n.template astype<R>();
  if constexpr (K == reduce_kind::mean || K == reduce_kind::nanmean) {
    return mean.reshape(result_shape).template astype<Out>();
  } else {
    const ndarray<R> ss =
        reduce<reduce_kind::sum, R>(squared_magnitude(where(selected, x - mean, false)), axes, true, opt.s, 0.0);
    const auto dof = n.template astype<R>() - static_cast<R>(opt.delta_dof);
    ndarray<R> var;
    if constexpr (nan_skip) {  // NumPy's nanvar: NaN where n - ddof <= 0
      var = where(dof > 0, ss / dof, std::numeric_limits<double>::quiet_NaN());
    } else {  // NumPy's var: divides by max(n - ddof, 0)
      var = ss / maximum(dof, false);
    }
    if constexpr (K == reduce_kind::std || K == reduce_kind::nanstd) {
      var = sqrt(var);
    }
    return var.reshape(result_shape).template astype<Out>();
  }
}

template <reduce_kind K, class D, class X>
auto masked_reduce(const X& x, const std::optional<std::vector<int>>& axes, const reduce_options& opt) {
  if constexpr (is_moment(K)) {
    return masked_moment<K, D>(x, axes, opt);
  } else {
    return masked_fold<K, D>(x, axes, opt);
  }
}

}  // namespace ndcuda::detail

#pragma GCC visibility pop
