/// @file
/// Elementwise expressions over distributed arrays: a lazy node that, per local rank, substitutes
/// that rank's shards into the same ndcuda expression and evaluates it as one fused JIT kernel on
/// the rank's stream. Builds on dist/distributed_array.hpp and ops/elementwise.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/core/detail/scalar.hpp>
#include <ndcuda/dist/distributed_array.hpp>
#include <ndcuda/dist/draw_operand.hpp>
#include <ndcuda/ops/elementwise.hpp>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace ndcuda::dist {

template <class F, class... Operands>
struct distributed_expr;

namespace detail {

template <class T>
inline constexpr bool is_distributed_expr = false;
template <class F, class... O>
inline constexpr bool is_distributed_expr<distributed_expr<F, O...>> = true;

}  // namespace detail

/// Distributed array-likes: arrays and expressions over them.
template <class T>
concept distributed_array_operand =
    is_distributed_array<std::remove_cvref_t<T>> || detail::is_distributed_expr<std::remove_cvref_t<T>>;
/// What distributed operators accept: distributed array-likes, weak C++ scalars (which broadcast,
/// as in any ndcuda expression) and random draws over the global shape (dist/random.hpp).
template <class T>
concept distributed_operand =
    distributed_array_operand<T> || weak_scalar<std::remove_cvref_t<T>> || detail::draw_operand<T>;

namespace detail {

/// What every rank's evaluation needs to know: the communicator, the result's global shape and
/// sharding, checked once on the host before any kernel is launched.
struct expression_plan {
  std::optional<communicator> comm;
  shape_t shape;
  sharding spec;
  const shape_t* sharded_shape = nullptr;
  bool any = false;  // a leaf has been seen (its shape starts the broadcast)
};

template <class T>
void plan_leaf(const distributed_array<T>& a, expression_plan& p) {
  if (!p.comm) {
    p.comm = a.comm();
  } else if (!(*p.comm == a.comm())) {
    throw shape_error(
        "distributed expression: the operands live on different communicators; every operand must be "
        "created on the same communicator");
  }
  p.shape = p.any ? broadcast_shapes(p.shape, a.shape()) : a.shape();
  p.any = true;
  if (a.is_replicated()) {
    return;
  }
  if (p.sharded_shape == nullptr) {
    p.sharded_shape = &a.shape();
    p.spec = a.spec();
  } else if (a.spec() != p.spec || a.shape() != *p.sharded_shape) {
    throw shape_error("distributed expression: sharded operands must have the same shape and sharding, got " +
                      format_shape(*p.sharded_shape) + " " + describe(p.spec) + " and " + format_shape(a.shape()) +
                      " " + describe(a.spec()) +
                      "; ndcuda never reshards implicitly: call reshard() (or replicate()) on one operand first");
  }
}
template <class S>
void plan_leaf(const S&, expression_plan&) {}  // weak scalars
template <draw_operand X>
void plan_leaf(const X& x, expression_plan& p) {  // a global value, broadcast like a replicated array
  const shape_t s = draw_shape_of(x);
  p.shape = p.any ? broadcast_shapes(p.shape, s) : s;
  p.any = true;
}
template <class F, class... O>
void plan_leaf(const distributed_expr<F, O...>& x, expression_plan& p) {
  std::apply([&](const auto&... o) { (plan_leaf(o, p), ...); }, x.operands);
}

/// The finished plan: the sharded axes moved to the result's numbering (a sharded operand may
/// have fewer dimensions than a replicated one it combines with).
template <class X>
expression_plan make_plan(const X& x) {
  expression_plan p;
  plan_leaf(x, p);
  if (p.sharded_shape != nullptr) {
    const int offset = static_cast<int>(p.shape.size() - p.sharded_shape->size());
    for (int& axis : p.spec.axes) {
      const index_t extent = (*p.sharded_shape)[static_cast<std::size_t>(axis)];
      axis += offset;
      if (p.shape[static_cast<std::size_t>(axis)] != extent) {
        throw shape_error("distributed expression: the sharded axis (extent " + std::to_string(extent) +
                          ") would be broadcast to " + std::to_string(p.shape[static_cast<std::size_t>(axis)]) +
                          "; shard along another axis or replicate that operand");
      }
    }
  }
  return p;
}

/// The ndcuda operand rank `local` contributes for a leaf.
template <class T>
ndarray<T> shard_operand(const distributed_array<T>& a, int local, const expression_plan& p) {
  const ndarray<T>& mine = a.local_shard(local);
  if (!a.is_replicated() || p.spec.is_replicated()) {
    return mine;
  }
  // A replicated operand next to sharded ones: the part of it this rank's block reads.
  const leaf_window w = window_of(a.shape(), p.shape, p.spec, p.comm->size(), p.comm->rank(local));
  return w.whole ? mine : view_of(mine, w.box);
}
template <class S>
S shard_operand(const S& s, int, const expression_plan&) {
  return s;
}
template <draw_operand X>
X shard_operand(const X& x, int local, const expression_plan& p) {  // the draw at the block's global indices
  return shard_draw(x, p.shape, p.spec, p.comm->size(), p.comm->rank(local), p.comm->stream(local));
}
template <class F, class... O>
auto shard_operand(const distributed_expr<F, O...>& x, int local, const expression_plan& p) {
  return x.shard_expression(local, p);
}

template <class T>
using stored_t = std::remove_cvref_t<T>;

}  // namespace detail

/// `f` applied to the operands, lazily. `f` is a stateless callable that builds an ndcuda
/// expression from ndarrays (and scalars); evaluation calls it once per local rank with that
/// rank's shards, so each GPU runs the same fused kernel on its own block, in parallel.
template <class F, class... Operands>
struct distributed_expr {
  /// Marks the type as a distributed expression.
  using is_ndcuda_distributed_expression = void;
  F f;                               ///< builds the expression from each rank's shards
  std::tuple<Operands...> operands;  ///< the distributed arrays, expressions and scalars it reads

  /// The ndcuda expression rank `local` evaluates.
  auto shard_expression(int local, const detail::expression_plan& p) const {
    return std::apply([&](const auto&... o) { return f(detail::shard_operand(o, local, p)...); }, operands);
  }
  /// A new distributed array holding the value, sharded as the sharded operands are (replicated
  /// when all operands are).
  template <array_element E>
  [[nodiscard]] distributed_array<E> evaluate() const {
    const detail::expression_plan p = detail::make_plan(*this);
    std::vector<ndarray<E>> shards;
    for (int l = 0; l < p.comm->local_size(); ++l) {
      ndarray<E> out = empty<E>(shard_shape(p.shape, p.spec, p.comm->size(), p.comm->rank(l)), p.comm->stream(l));
      out.assign(shard_expression(l, p));
      shards.push_back(std::move(out));
    }
    return distributed_array<E>(*p.comm, p.shape, p.spec, std::move(shards));
  }

  /// Writes the value into `out`'s shards (which must have the expression's shape and sharding).
  template <array_element E>
  void assign_to(const distributed_array<E>& out) const {
    const detail::expression_plan p = detail::make_plan(*this);
    if (p.shape != out.shape() || p.spec != out.spec() || !(*p.comm == out.comm())) {
      throw shape_error("distributed assign: the expression has shape " + format_shape(p.shape) + " sharded " +
                        describe(p.spec) + ", the target " + format_shape(out.shape()) + " sharded " +
                        describe(out.spec()) + " (on " + (*p.comm == out.comm() ? "the same" : "another") +
                        " communicator)");
    }
    for (int l = 0; l < p.comm->local_size(); ++l) {
      out.local_shard(l).assign(shard_expression(l, p));
    }
  }
};

/// The element type a distributed expression naturally evaluates to.
template <class X>
using distributed_value_t = typename decltype(std::declval<const std::remove_cvref_t<X>&>().shard_expression(
    0, std::declval<const detail::expression_plan&>()))::value_type;

/// The value of a distributed expression as a new distributed array (its natural dtype).
template <class X>
requires detail::is_distributed_expr<std::remove_cvref_t<X>>
[[nodiscard]] auto eval(const X& x) {
  return x.template evaluate<distributed_value_t<X>>();
}

/// The general form behind every operator below: `f(shards...)` per rank, for any ndcuda
/// expression f builds (f must be stateless or cheap to copy). map([](auto x, auto y) {
/// return nd::where(x > 0, x, y); }, a, b).
template <class F, distributed_operand... A>
requires(distributed_array_operand<A> || ...) [[nodiscard]] auto map(F f, A&&... a) {
  return distributed_expr<F, detail::stored_t<A>...>{std::move(f), {std::forward<A>(a)...}};
}

#define NDCUDA_DIST_BINARY(fn)                                                                                 \
  template <distributed_operand A, distributed_operand B>                                                      \
  requires(distributed_array_operand<A> || distributed_array_operand<B>) [[nodiscard]] auto fn(A&& a, B&& b) { \
    return map([](const auto& x, const auto& y) { return ::ndcuda::fn(x, y); }, std::forward<A>(a),            \
               std::forward<B>(b));                                                                            \
  }
#define NDCUDA_DIST_UNARY(fn)                                                      \
  template <distributed_array_operand A>                                           \
  [[nodiscard]] auto fn(A&& a) {                                                   \
    return map([](const auto& x) { return ::ndcuda::fn(x); }, std::forward<A>(a)); \
  }

NDCUDA_DIST_BINARY(operator+)   ///< `a + b` on each rank's shards, lazily
NDCUDA_DIST_BINARY(operator-)   ///< `a - b` on each rank's shards, lazily
NDCUDA_DIST_BINARY(operator*)   ///< `a * b` on each rank's shards, lazily
NDCUDA_DIST_BINARY(operator/)   ///< `a / b` on each rank's shards, lazily
NDCUDA_DIST_BINARY(operator%)   ///< `a % b` (NumPy's remainder) on each rank's shards, lazily
NDCUDA_DIST_BINARY(operator==)  ///< `a == b` on each rank's shards, lazily
NDCUDA_DIST_BINARY(operator!=)  ///< `a != b` on each rank's shards, lazily
NDCUDA_DIST_BINARY(operator<)   ///< `a < b` on each rank's shards, lazily
NDCUDA_DIST_BINARY(operator<=)  ///< `a <= b` on each rank's shards, lazily
NDCUDA_DIST_BINARY(operator>)   ///< `a > b` on each rank's shards, lazily
NDCUDA_DIST_BINARY(operator>=)  ///< `a >= b` on each rank's shards, lazily
NDCUDA_DIST_BINARY(operator&)   ///< `a & b` on each rank's shards, lazily
NDCUDA_DIST_BINARY(operator|)   ///< `a | b` on each rank's shards, lazily
NDCUDA_DIST_BINARY(operator^)   ///< `a ^ b` on each rank's shards, lazily
NDCUDA_DIST_UNARY(operator-)    ///< `-a` on each rank's shards, lazily
NDCUDA_DIST_UNARY(operator~)    ///< `~a` on each rank's shards, lazily
NDCUDA_DIST_BINARY(power)       ///< nd::power(a, b) on each rank's shards, lazily
NDCUDA_DIST_BINARY(maximum)     ///< nd::maximum(a, b) on each rank's shards, lazily
NDCUDA_DIST_BINARY(minimum)     ///< nd::minimum(a, b) on each rank's shards, lazily
NDCUDA_DIST_BINARY(arctan2)     ///< nd::arctan2(a, b) on each rank's shards, lazily
NDCUDA_DIST_UNARY(abs)          ///< nd::abs(a) on each rank's shards, lazily
NDCUDA_DIST_UNARY(sqrt)         ///< nd::sqrt(a) on each rank's shards, lazily
NDCUDA_DIST_UNARY(exp)          ///< nd::exp(a) on each rank's shards, lazily
NDCUDA_DIST_UNARY(log)          ///< nd::log(a) on each rank's shards, lazily
NDCUDA_DIST_UNARY(sin)          ///< nd::sin(a) on each rank's shards, lazily
NDCUDA_DIST_UNARY(cos)          ///< nd::cos(a) on each rank's shards, lazily
NDCUDA_DIST_UNARY(tanh)         ///< nd::tanh(a) on each rank's shards, lazily
NDCUDA_DIST_UNARY(floor)        ///< nd::floor(a) on each rank's shards, lazily
NDCUDA_DIST_UNARY(ceil)         ///< nd::ceil(a) on each rank's shards, lazily
NDCUDA_DIST_UNARY(isnan)        ///< nd::isnan(a) on each rank's shards, lazily
NDCUDA_DIST_UNARY(real)         ///< nd::real(a) on each rank's shards, lazily
NDCUDA_DIST_UNARY(imag)         ///< nd::imag(a) on each rank's shards, lazily
NDCUDA_DIST_UNARY(conj)         ///< nd::conj(a) on each rank's shards, lazily

#undef NDCUDA_DIST_UNARY
#undef NDCUDA_DIST_BINARY

namespace detail {

/// `update(shard, operand)` on each local shard of `a`, after checking on the host that `y`
/// broadcasts to a's shape and sharding (an in-place update cannot change either).
template <class T, class Y, class Update>
void update_shards(const distributed_array<T>& a, const Y& y, Update update) {
  const expression_plan p = make_plan(map([](const auto& t, const auto&) { return t; }, a, y));
  if (p.shape != a.shape() || p.spec != a.spec()) {
    throw shape_error("non-broadcastable output operand with shape " + format_shape(a.shape()) + " sharded " +
                      describe(a.spec()) + " doesn't match the broadcast shape " + format_shape(p.shape) + " sharded " +
                      describe(p.spec));
  }
  for (int l = 0; l < a.comm().local_size(); ++l) {
    ndarray<T> shard = a.local_shard(l);
    update(shard, shard_operand(y, l, p));
  }
}

template <class A>
concept writable_distributed_array =
    is_distributed_array<std::remove_cvref_t<A>> && !std::is_const_v<std::remove_reference_t<A>>;

}  // namespace detail

// Compound assignment, shard by shard in place: each shard's own `+=` (NumPy's same_kind casting).
#define NDCUDA_DIST_COMPOUND(op)                                                                               \
  template <class A, distributed_operand Y>                                                                    \
  requires detail::writable_distributed_array<A> A && operator op(A&& a, const Y& y) {                         \
    detail::update_shards(                                                                                     \
        a, y, [](ndarray<typename std::remove_cvref_t<A>::value_type>& shard, const auto& v) { shard op v; }); \
    return std::forward<A>(a);                                                                                 \
  }
NDCUDA_DIST_COMPOUND(+=)   ///< `a += y` in place, shard by shard (each shard's own `+=`)
NDCUDA_DIST_COMPOUND(-=)   ///< `a -= y` in place, shard by shard (each shard's own `-=`)
NDCUDA_DIST_COMPOUND(*=)   ///< `a *= y` in place, shard by shard (each shard's own `*=`)
NDCUDA_DIST_COMPOUND(/=)   ///< `a /= y` in place, shard by shard (each shard's own `/=`)
NDCUDA_DIST_COMPOUND(%=)   ///< `a %= y` in place, shard by shard (each shard's own `%=`)
NDCUDA_DIST_COMPOUND(&=)   ///< `a &= y` in place, shard by shard (each shard's own `&=`)
NDCUDA_DIST_COMPOUND(|=)   ///< `a |= y` in place, shard by shard (each shard's own `|=`)
NDCUDA_DIST_COMPOUND(^=)   ///< `a ^= y` in place, shard by shard (each shard's own `^=`)
NDCUDA_DIST_COMPOUND(<<=)  ///< `a <<= y` in place, shard by shard (each shard's own `<<=`)
NDCUDA_DIST_COMPOUND(>>=)  ///< `a >>= y` in place, shard by shard (each shard's own `>>=`)
#undef NDCUDA_DIST_COMPOUND

}  // namespace ndcuda::dist

namespace ndcuda {
// nd::sin(d) for a distributed d, beside nd::sin(a) for an ndarray (each overload is constrained
// to its own kind of operand).
using dist::abs;
using dist::arctan2;
using dist::ceil;
using dist::conj;
using dist::cos;
using dist::exp;
using dist::floor;
using dist::imag;
using dist::isnan;
using dist::log;
using dist::maximum;
using dist::minimum;
using dist::power;
using dist::real;
using dist::sin;
using dist::sqrt;
using dist::tanh;
}  // namespace ndcuda

#pragma GCC visibility pop
