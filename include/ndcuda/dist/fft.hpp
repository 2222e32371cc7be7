/// @file
/// numpy.fft's n-d transforms of distributed 2-d and 3-d arrays, over all axes: dist::fft::fftn,
/// ifftn, rfftn and irfftn, by slab decomposition. A forward transform runs cuFFT over the
/// unsharded axes of each rank's slab (axes 1.., the real-to-complex halving on the last), one
/// all-to-all transposes the slabs to shards of axis 1 (reshard: one NCCL group of exactly the
/// overlapping pieces), and cuFFT transforms axis 0, now whole on every rank. The inverse runs the
/// same steps backwards. The result comes back sharded along axis 0 by a second all-to-all, unless
/// `out` asks for sharding::block(1), the transposed layout, which the inverse transforms take as
/// they are: a forward-filter-inverse round trip then needs two transposes instead of four, as
/// cuFFTMp's. Each stage applies its share of `norm`, so the whole equals the one-GPU transform.
/// Not included by <ndcuda/dist.hpp>: cuFFT lives in ndcuda::linalg (link it beside ndcuda::dist).
/// Expressions of distributed arrays are evaluated first. Builds on dist/{movement,reductions}.hpp
/// and fft/fft.hpp.
#pragma once

#include <ndcuda/dist/distributed_array.hpp>
#include <ndcuda/dist/reductions.hpp>
#include <ndcuda/fft/fft.hpp>
#include <optional>
#include <string>
#include <string_view>
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

inline void check_slab_input(const shape_t& shape, const sharding& out, const char* what) {
  if (shape.size() != 2 && shape.size() != 3) {
    throw shape_error(std::string("dist::fft::") + what + ": x has shape " + format_shape(shape) +
                      "; the distributed transforms take 2-d and 3-d arrays (over all their axes); gather() other "
                      "arrays, or transform a 2-d or 3-d view");
  }
  if (!out.is_replicated() && (out.is_grid() || (out.axis() != 0 && out.axis() != 1))) {
    throw shape_error(std::string("dist::fft::") + what + ": the result can be sharded along axis 0 (the default), " +
                      "axis 1 (the transposed layout, one all-to-all less) or replicated, not " + describe(out));
  }
}

/// The axes after the first: the ones each rank transforms while it holds whole slabs.
inline std::vector<index_t> slab_axes(std::size_t ndim) {
  std::vector<index_t> axes;
  for (std::size_t a = 1; a < ndim; ++a) {
    axes.push_back(static_cast<index_t>(a));
  }
  return axes;
}

template <array_element R>
distributed_array<R> deliver(const distributed_array<R>& z, const sharding& out) {
  return z.spec() == out ? z : z.reshard(out);
}

/// A forward transform (fftn, or rfftn when Real): see the file comment.
template <bool Real, array_element T>
auto forward(const distributed_array<T>& x, std::string_view norm, const sharding& out, const char* what) {
  using C = type_of<ndcuda::fft::detail::complex_for(dtype_of<T>)>;
  check_slab_input(x.shape(), out, what);
  shape_t shape = x.shape();
  if constexpr (Real) {
    shape.back() = shape.back() / 2 + 1;
  }
  const auto transform = [&](const ndarray<T>& a, const std::optional<std::vector<index_t>>& axes) {
    if constexpr (Real) {
      return ndarray<C>(ndcuda::fft::rfftn(a, std::nullopt, axes, norm));
    } else {
      return ndarray<C>(ndcuda::fft::fftn(a, std::nullopt, axes, norm));
    }
  };
  if (x.is_replicated()) {  // every rank transforms everything; no communication
    return deliver(each_shard<C>(x, shape, [&](const ndarray<T>& a) { return transform(a, std::nullopt); }), out);
  }
  const distributed_array<C> slabs =
      each_shard<C>(x.spec() == sharding::block(0) ? x : x.reshard(0), shape,
                    [&](const ndarray<T>& a) { return transform(a, slab_axes(a.ndim())); });
  const distributed_array<C> columns = each_shard<C>(slabs.reshard(1), shape, [&](const ndarray<C>& a) {
    return ndarray<C>(ndcuda::fft::fft(a, std::nullopt, 0, norm));
  });
  return deliver(columns, out);
}

/// An inverse transform (ifftn, or irfftn when Real, with `s` as NumPy's: the output lengths,
/// which may differ from the input only on the last axis).
template <bool Real, array_element T>
auto inverse(const distributed_array<T>& x, const std::optional<shape_t>& s, std::string_view norm, const sharding& out,
             const char* what) {
  using C = type_of<ndcuda::fft::detail::complex_for(dtype_of<T>)>;
  using Out = std::conditional_t<Real, type_of<ndcuda::fft::detail::real_for(dtype_of<T>)>, C>;
  check_slab_input(x.shape(), out, what);
  const shape_t& shape = x.shape();
  shape_t out_shape = shape;
  if constexpr (Real) {
    out_shape.back() = 2 * (shape.back() - 1);
  }
  if (s) {
    shape_t expected = out_shape;
    expected.back() = s->empty() ? 0 : s->back();
    if (*s != expected || s->back() < 1) {
      throw value_error(std::string("dist::fft::") + what + ": s=" + format_shape(*s) + " for an array of shape " +
                        format_shape(shape) + "; distributed transforms neither crop nor pad, so s may change only " +
                        "the last axis's output length (to a positive one)");
    }
    out_shape = *s;
  }
  const auto transform = [&](const ndarray<C>& a, const std::optional<std::vector<index_t>>& axes) {
    if constexpr (Real) {
      shape_t lengths(out_shape.end() - static_cast<std::ptrdiff_t>(axes ? axes->size() : out_shape.size()),
                      out_shape.end());
      return ndarray<Out>(ndcuda::fft::irfftn(a, lengths, axes, norm));
    } else {
      return ndarray<Out>(ndcuda::fft::ifftn(a, std::nullopt, axes, norm));
    }
  };
  if (x.is_replicated()) {
    return deliver(
        each_shard<Out>(x, out_shape,
                        [&](const ndarray<T>& a) { return transform(a.template astype<C>(), std::nullopt); }),
        out);
  }
  // Axis 0 first, whole on every rank: the transposed layout is taken as it is.
  const distributed_array<C> columns =
      each_shard<C>(x.spec() == sharding::block(1) ? x : x.reshard(1), shape,
                    [&](const ndarray<T>& a) { return ndarray<C>(ndcuda::fft::ifft(a, std::nullopt, 0, norm)); });
  const distributed_array<Out> result = each_shard<Out>(
      columns.reshard(0), out_shape, [&](const ndarray<C>& a) { return transform(a, slab_axes(a.ndim())); });
  return deliver(result, out);
}

}  // namespace detail

/// numpy.fft.fftn over all axes of a 2-d or 3-d distributed array: complex, of x's shape, sharded
/// along axis 0 (or as `out` asks: block(1) saves the second all-to-all). Equal to the one-GPU
/// transform up to cuFFT's rounding.
template <distributed_array_operand X>
[[nodiscard]] auto fftn(const X& x, std::string_view norm = "backward", const sharding& out = sharding::block(0)) {
  return detail::forward<false>(dist::detail::as_distributed(x), norm, out, "fftn");
}

/// numpy.fft.ifftn over all axes: the inverse of fftn. x may be sharded along axis 0, or along
/// axis 1 as fftn(..., sharding::block(1)) leaves it (then one all-to-all is saved).
template <distributed_array_operand X>
[[nodiscard]] auto ifftn(const X& x, std::string_view norm = "backward", const sharding& out = sharding::block(0)) {
  return detail::inverse<false>(dist::detail::as_distributed(x), std::nullopt, norm, out, "ifftn");
}

/// numpy.fft.rfftn over all axes of a real 2-d or 3-d distributed array: the last axis halved to
/// n / 2 + 1 complex points.
template <distributed_array_operand X>
[[nodiscard]] auto rfftn(const X& x, std::string_view norm = "backward", const sharding& out = sharding::block(0)) {
  return detail::forward<true>(dist::detail::as_distributed(x), norm, out, "rfftn");
}

/// numpy.fft.irfftn over all axes: the inverse of rfftn, real, the last axis 2 (m - 1) points
/// unless s (the output shape; only its last length may differ) says otherwise. x may be sharded
/// along axis 0 or 1, as for ifftn.
template <distributed_array_operand X>
[[nodiscard]] auto irfftn(const X& x, const std::optional<shape_t>& s = std::nullopt,
                          std::string_view norm = "backward", const sharding& out = sharding::block(0)) {
  return detail::inverse<true>(dist::detail::as_distributed(x), s, norm, out, "irfftn");
}

}  // namespace ndcuda::dist::fft
