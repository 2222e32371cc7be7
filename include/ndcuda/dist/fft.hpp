/// @file
/// numpy.fft's n-d transforms of distributed arrays: dist::fft::fftn, ifftn, rfftn and irfftn of
/// any number of dimensions over any of their axes (all by default), equal to nd::fft's to cuFFT's
/// rounding. Each rank runs cuFFT over the transformed axes its shard holds whole; when a cut axis
/// is among them, an all-to-all (reshard: one NCCL group of exactly the overlapping pieces) cuts
/// another axis and cuFFT transforms the rest there: slabs. dist/fft_plan.hpp picks the layouts,
/// and the axes each transforms, for the fewest all-to-alls; all processes pick the same plan:
/// - no cut axis transformed (also on a grid): every rank transforms its shard, no communication;
/// - otherwise phase 1 transforms what x's layout holds whole, an all-to-all cuts another axis
///   (an untransformed one when that spares phase 1: x is resharded there and transformed in one
///   phase), phase 2 transforms the rest. rfftn's real-to-complex axis (the last of `axes`) runs in
///   phase 1, after the reshard when it is the cut one; irfftn's complex-to-real one in the last;
/// - a 1-d array is replicated (an all-gather: every rank holds and transforms all of it);
/// - replicated x: every rank transforms everything, no communication.
/// The result is sharded like x, which costs a second all-to-all after slabs, unless `out` asks
/// for another spec: the layout phase 2 leaves (the transposed layout, as cuFFTMp's: the inverses
/// take it as it is, so a forward-filter-inverse round trip with `out` on both needs two
/// all-to-alls, not four), any other block or grid spec (a reshard), or replicated (x is replicated
/// first and transformed whole on every rank). Each phase applies its share of `norm`.
/// Not included by <ndcuda/dist.hpp>: cuFFT lives in ndcuda::linalg (link it beside ndcuda::dist).
/// Expressions of distributed arrays are evaluated first. Builds on dist/{movement,reductions,
/// fft_plan}.hpp and fft/fft.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <initializer_list>
#include <ndcuda/dist/distributed_array.hpp>
#include <ndcuda/dist/fft_plan.hpp>
#include <ndcuda/dist/reductions.hpp>
#include <ndcuda/fft/fft.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ndcuda::dist::fft {
namespace detail {

/// Applies `transform` to every local shard of x and assembles the results as an array of global
/// shape `shape` sharded like x. A rank without elements gets an empty shard of its block's shape.
template <class R, array_element T, class F>
distributed_array<R> each_shard(const distributed_array<T>& x, const shape_t& shape, const F& transform) {
  const communicator& comm = x.comm();
  std::vector<ndarray<R>> shards;
  for (int l = 0; l < comm.local_size(); ++l) {
    const ndarray<T>& shard = x.local_shard(l);
    if (shard.size() == 0) {
      shards.push_back(empty<R>(shard_shape(shape, x.spec(), comm.size(), comm.rank(l)), comm.stream(l)));
    } else {
      ndarray<R> r(transform(shard));
      shards.push_back(r.is_contiguous() ? r : ascontiguousarray(r));  // shards are C-contiguous; cuFFT may not be
    }
  }
  return distributed_array<R>(comm, shape, x.spec(), std::move(shards));
}

template <array_element R>
distributed_array<R> deliver(const distributed_array<R>& z, const sharding& out) {
  return z.spec() == out ? z : z.reshard(out);
}

/// What one rank computes in one phase: cuFFT over `axes` of its shard (the real axis, if any, last).
enum class local_op { fft, ifft, rfft, irfft };

/// The phase transform `Op` of a whole shard over `axes`; irfft's output lengths are those of
/// `out_shape` (the global result's) on `axes`. An empty `axes` converts only (NumPy's fftn
/// with axes=() transforms nothing).
template <local_op Op, class C, array_element A>
auto local_transform(const ndarray<A>& a, const std::vector<int>& axes, const shape_t& out_shape,
                     std::string_view norm) {
  const std::optional<std::vector<index_t>> ax(std::vector<index_t>(axes.begin(), axes.end()));
  if constexpr (Op == local_op::rfft) {
    return ndcuda::fft::rfftn(a, std::nullopt, ax, norm);
  } else if constexpr (Op == local_op::irfft) {
    shape_t lengths;
    for (int axis : axes) {
      lengths.push_back(out_shape[static_cast<std::size_t>(axis)]);
    }
    if constexpr (std::is_same_v<A, C>) {
      return ndcuda::fft::irfftn(a, lengths, ax, norm);
    } else {
      return ndcuda::fft::irfftn(a.template astype<C>(), lengths, ax, norm);  // c2r reads complex input
    }
  } else if (axes.empty()) {
    return a.template astype<C>();
  } else if constexpr (Op == local_op::fft) {
    return ndcuda::fft::fftn(a, std::nullopt, ax, norm);
  } else {
    return ndcuda::fft::ifftn(a, std::nullopt, ax, norm);
  }
}

/// "dist::fft::fftn: axes (0, 3) of an array of shape (4, 5): ", the start of every message.
inline std::string context(const char* what, const std::optional<std::vector<index_t>>& axes, const shape_t& shape) {
  return std::string("dist::fft::") + what + ": " + (axes ? "axes " + format_shape(*axes) : std::string("all axes")) +
         " of an array of shape " + format_shape(shape) + ": ";
}

/// The checked axes and output lengths of a transform (NumPy's rules, nd::fft's messages naming
/// the axes and the shape), and the validated norm. Distributed transforms neither crop nor pad:
/// irfftn's `s` may set only the last axis's output length.
template <bool Inverse, bool Real>
ndcuda::fft::detail::axes_plan check_axes(const shape_t& shape, const std::optional<shape_t>& s,
                                          const std::optional<std::vector<index_t>>& axes, std::string_view norm,
                                          const char* what) {
  ndcuda::fft::detail::axes_plan p;
  try {
    (void)ndcuda::fft::detail::parse_norm(norm);
    p = ndcuda::fft::detail::plan_axes(shape, s, axes, Inverse && Real, what);
  } catch (const shape_error& e) {
    throw shape_error(context(what, axes, shape) + e.what());
  }
  if (Real && p.axes.empty()) {
    throw shape_error(context(what, axes, shape) + "needs at least one axis to transform");
  }
  for (std::size_t i = 0; s && i + 1 < p.axes.size(); ++i) {
    if (p.lengths[i] != shape[static_cast<std::size_t>(p.axes[i])]) {
      throw value_error(context(what, axes, shape) + "s=" + format_shape(*s) + " asks for " +
                        std::to_string(p.lengths[i]) + " points on axis " + std::to_string(p.axes[i]) +
                        "; distributed transforms neither crop nor pad, so s may change only the last transformed " +
                        "axis's output length");
    }
  }
  return p;
}

/// fftn, ifftn, rfftn or irfftn of x (see the file comment); `s` only for irfftn.
template <bool Inverse, bool Real, array_element T>
auto transform(const distributed_array<T>& x, const std::optional<shape_t>& s,
               const std::optional<std::vector<index_t>>& axes, std::string_view norm,
               const std::optional<sharding>& out, const char* what) {
  namespace nf = ndcuda::fft::detail;
  using C = type_of<nf::complex_for(dtype_of<T>)>;
  using Out = std::conditional_t<Inverse && Real, type_of<nf::real_for(dtype_of<T>)>, C>;
  const shape_t& shape = x.shape();
  const int ranks = x.comm().size();
  const nf::axes_plan p = check_axes<Inverse, Real>(shape, s, axes, norm, what);
  shape_t out_shape = shape;
  if constexpr (Real) {
    const auto last = static_cast<std::size_t>(p.axes.back());
    out_shape[last] = Inverse ? p.lengths.back() : shape[last] / 2 + 1;
  }
  sharding target = x.spec();
  if (out) {
    try {
      target = normalize(*out, x.ndim(), ranks);
    } catch (const shape_error& e) {
      throw shape_error(context(what, axes, shape) + "out=" + describe(*out) + ": " + e.what());
    }
  }
  const phase_plan plan = plan_phases(shape, x.spec(), p.axes, {Inverse, Real}, target, ranks);
  const distributed_array<T> first = x.spec() == plan.first ? x : x.reshard(plan.first);
  constexpr local_op last_op =
      Real ? (Inverse ? local_op::irfft : local_op::rfft) : (Inverse ? local_op::ifft : local_op::fft);
  if (plan.second_axes.empty()) {
    return deliver(each_shard<Out>(first, out_shape,
                                   [&](const ndarray<T>& a) {
                                     return local_transform<last_op, C>(a, plan.first_axes, out_shape, norm);
                                   }),
                   target);
  }
  // Two phases: a forward transform runs its real axis first, an inverse one last.
  constexpr local_op first_op = Inverse ? local_op::ifft : last_op;
  constexpr local_op second_op = Inverse ? last_op : local_op::fft;
  const distributed_array<C> middle = each_shard<C>(
      first, Real && !Inverse ? out_shape : shape,
      [&](const ndarray<T>& a) { return local_transform<first_op, C>(a, plan.first_axes, out_shape, norm); });
  return deliver(each_shard<Out>(middle.reshard(plan.second), out_shape,
                                 [&](const ndarray<C>& a) {
                                   return local_transform<second_op, C>(a, plan.second_axes, out_shape, norm);
                                 }),
                 target);
}

}  // namespace detail

/// The axes argument: std::nullopt (every axis) or a vector, negative ones counting from the end;
/// the overloads below also take a brace list (`fftn(x, {0, 2})`).
using axes_t = std::optional<std::vector<index_t>>;

/// numpy.fft.fftn of a distributed array over `axes` (default: all): complex, of x's shape, sharded
/// like x unless `out` asks for another spec (see the file comment for the communication).
template <distributed_array_operand X>
[[nodiscard]] auto fftn(const X& x, const axes_t& axes, std::string_view norm = "backward",
                        const std::optional<sharding>& out = std::nullopt) {
  return detail::transform<false, false>(dist::detail::as_distributed(x), std::nullopt, axes, norm, out, "fftn");
}
/// fftn over all axes: `fftn(x)`, `fftn(x, "ortho")`, `fftn(x, "backward", sharding::block(1))`.
template <distributed_array_operand X>
[[nodiscard]] auto fftn(const X& x, std::string_view norm = "backward",
                        const std::optional<sharding>& out = std::nullopt) {
  return fftn(x, axes_t(), norm, out);
}
/// fftn over the axes of a brace list.
template <distributed_array_operand X>
[[nodiscard]] auto fftn(const X& x, std::initializer_list<index_t> axes, std::string_view norm = "backward",
                        const std::optional<sharding>& out = std::nullopt) {
  return fftn(x, axes_t(std::vector<index_t>(axes)), norm, out);
}

/// numpy.fft.ifftn over `axes` (default: all): the inverse of fftn. x may be in any layout, the
/// transposed one fftn(..., out) leaves included (then one all-to-all is saved with `out`).
template <distributed_array_operand X>
[[nodiscard]] auto ifftn(const X& x, const axes_t& axes, std::string_view norm = "backward",
                         const std::optional<sharding>& out = std::nullopt) {
  return detail::transform<true, false>(dist::detail::as_distributed(x), std::nullopt, axes, norm, out, "ifftn");
}
/// ifftn over all axes.
template <distributed_array_operand X>
[[nodiscard]] auto ifftn(const X& x, std::string_view norm = "backward",
                         const std::optional<sharding>& out = std::nullopt) {
  return ifftn(x, axes_t(), norm, out);
}
/// ifftn over the axes of a brace list.
template <distributed_array_operand X>
[[nodiscard]] auto ifftn(const X& x, std::initializer_list<index_t> axes, std::string_view norm = "backward",
                         const std::optional<sharding>& out = std::nullopt) {
  return ifftn(x, axes_t(std::vector<index_t>(axes)), norm, out);
}

/// numpy.fft.rfftn of a real distributed array over `axes` (default: all): the last of `axes`
/// halved to n / 2 + 1 complex points.
template <distributed_array_operand X>
[[nodiscard]] auto rfftn(const X& x, const axes_t& axes, std::string_view norm = "backward",
                         const std::optional<sharding>& out = std::nullopt) {
  return detail::transform<false, true>(dist::detail::as_distributed(x), std::nullopt, axes, norm, out, "rfftn");
}
/// rfftn over all axes.
template <distributed_array_operand X>
[[nodiscard]] auto rfftn(const X& x, std::string_view norm = "backward",
                         const std::optional<sharding>& out = std::nullopt) {
  return rfftn(x, axes_t(), norm, out);
}
/// rfftn over the axes of a brace list.
template <distributed_array_operand X>
[[nodiscard]] auto rfftn(const X& x, std::initializer_list<index_t> axes, std::string_view norm = "backward",
                         const std::optional<sharding>& out = std::nullopt) {
  return rfftn(x, axes_t(std::vector<index_t>(axes)), norm, out);
}

/// numpy.fft.irfftn over `axes`: the inverse of rfftn, real, the last of `axes` 2 (m - 1) points
/// unless s says otherwise. s and axes as NumPy's (s without axes: the last len(s) axes; neither:
/// all), but s may differ from the input's extents only on that last axis.
template <distributed_array_operand X>
[[nodiscard]] auto irfftn(const X& x, const std::optional<shape_t>& s, const axes_t& axes,
                          std::string_view norm = "backward", const std::optional<sharding>& out = std::nullopt) {
  return detail::transform<true, true>(dist::detail::as_distributed(x), s, axes, norm, out, "irfftn");
}
/// irfftn over the last len(s) axes (all without s): `irfftn(x)`, `irfftn(x, shape, "ortho")`.
template <distributed_array_operand X>
[[nodiscard]] auto irfftn(const X& x, const std::optional<shape_t>& s = std::nullopt,
                          std::string_view norm = "backward", const std::optional<sharding>& out = std::nullopt) {
  return irfftn(x, s, axes_t(), norm, out);
}
/// irfftn over the axes of a brace list.
template <distributed_array_operand X>
[[nodiscard]] auto irfftn(const X& x, const std::optional<shape_t>& s, std::initializer_list<index_t> axes,
                          std::string_view norm = "backward", const std::optional<sharding>& out = std::nullopt) {
  return irfftn(x, s, axes_t(std::vector<index_t>(axes)), norm, out);
}

}  // namespace ndcuda::dist::fft

#pragma GCC visibility pop
