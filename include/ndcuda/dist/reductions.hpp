/// @file
/// Reductions of distributed arrays: sum, prod, min, max, mean over all elements or one axis. Each
/// rank reduces its shard with nd::sum & co.; NCCL all-reduce combines the partials. Also the
/// reduce-scatter into row blocks that sums whole partial arrays (add_at, bincount, products).
/// Builds on ops/reductions.hpp and dist/{distributed_array,exchange,expression}.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <algorithm>
#include <limits>
#include <ndcuda/dist/distributed_array.hpp>
#include <ndcuda/dist/exchange.hpp>
#include <ndcuda/dist/expression.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ndcuda::dist {
namespace detail {

enum class reduction { sum, prod, min, max, mean };

constexpr const char* reduction_name(reduction k) noexcept {
  switch (k) {
    case reduction::sum:
      return "sum";
    case reduction::prod:
      return "prod";
    case reduction::min:
      return "min";
    case reduction::max:
      return "max";
    default:
      return "mean";
  }
}

/// The per-shard reduction: everything (axis < 0) or one axis. A mean's partial is a sum in the
/// mean's dtype, divided by the global count once the partials are combined.
template <reduction K, array_element T>
auto reduce_shard(const ndarray<T>& x, int axis, bool keepdims) {
  if constexpr (K == reduction::sum) {
    return axis < 0 ? ndcuda::sum(x) : ndcuda::sum(x, axis, keepdims_t{keepdims});
  } else if constexpr (K == reduction::prod) {
    return axis < 0 ? ndcuda::prod(x) : ndcuda::prod(x, axis, keepdims_t{keepdims});
  } else if constexpr (K == reduction::min) {
    return axis < 0 ? ndcuda::min(x) : ndcuda::min(x, axis, keepdims_t{keepdims});
  } else if constexpr (K == reduction::max) {
    return axis < 0 ? ndcuda::max(x) : ndcuda::max(x, axis, keepdims_t{keepdims});
  } else {
    using mean_t = typename decltype(ndcuda::mean(x))::value_type;
    return axis < 0 ? ndcuda::sum<mean_t>(x) : ndcuda::sum<mean_t>(x, axis, keepdims_t{keepdims});
  }
}

constexpr reduce_op combining_op(reduction k) noexcept {
  return k == reduction::prod  ? reduce_op::prod
         : k == reduction::min ? reduce_op::min
         : k == reduction::max ? reduce_op::max
                               : reduce_op::sum;
}

/// Replaces each local partial by the combination over all ranks: NCCL all-reduce when it has
/// the type and operation, else every rank receives every partial and reduces the stack itself
/// (complex products, int16, bool).
template <reduction K, array_element R>
void combine(std::vector<ndarray<R>>& partials, const communicator& comm) {
  const reduce_op op = combining_op(K);
  if (communicator::supports(dtype_of<R>, op)) {
    std::vector<void*> buffers;
    for (const auto& p : partials) {
      buffers.push_back(p.data());
    }
    comm.all_reduce(buffers, static_cast<std::size_t>(partials.front().size()), dtype_of<R>, op);
    return;
  }
  std::vector<ndarray<R>> stacks;
  std::vector<communicator::message> messages;
  for (int l = 0; l < comm.local_size(); ++l) {
    const ndarray<R>& mine = partials[static_cast<std::size_t>(l)];
    shape_t shape = mine.shape();
    shape.insert(shape.begin(), comm.size());
    stacks.push_back(empty<R>(shape, comm.stream(l)));
    const ndarray<R>& stack = stacks.back();
    for (int q = 0; q < comm.size(); ++q) {
      const ndarray<R> slot = stack(static_cast<index_t>(q));
      if (q == comm.rank(l)) {
        write_into(slot, mine);
      } else if (mine.size() > 0) {
        messages.push_back({l, q, true, mine.data(), mine.nbytes()});
        messages.push_back({l, q, false, slot.data(), slot.nbytes()});
      }
    }
  }
  comm.exchange(messages);
  for (std::size_t l = 0; l < partials.size(); ++l) {
    partials[l] = reduce_shard<K>(stacks[l], 0, false);
  }
}

/// The value that leaves a reduction K unchanged: what a partial is padded with where its rank
/// holds nothing of the result.
template <reduction K, array_element R>
R reduction_identity() {
  if constexpr (K == reduction::prod) {
    return ndcuda::detail::element_from<R>(1.0);
  } else if constexpr (K == reduction::min || K == reduction::max) {
    if constexpr (std::is_integral_v<R>) {
      return K == reduction::min ? std::numeric_limits<R>::max() : std::numeric_limits<R>::lowest();
    } else {
      const double inf = std::numeric_limits<double>::infinity();
      return ndcuda::detail::element_from<R>(K == reduction::min ? inf : -inf);
    }
  } else {
    return ndcuda::detail::element_from<R>(0.0);
  }
}

/// The global shape of the result of reducing axes `reduced` of `shape`, and the box of it that a
/// rank holding `box` of the input computes.
inline std::pair<shape_t, block_box> reduced_box(const shape_t& shape, const block_box& box,
                                                 const std::vector<int>& reduced, bool keepdims) {
  std::pair<shape_t, block_box> out;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (std::find(reduced.begin(), reduced.end(), static_cast<int>(d)) == reduced.end()) {
      out.first.push_back(shape[d]);
      out.second.push_back(box[d]);
    } else if (keepdims) {
      out.first.push_back(1);
      out.second.push_back({0, 1});
    }
  }
  return out;
}

/// A reduce-scatter for the ordinary (uneven) blocks, which NCCL's equal-piece one cannot do: every
/// local rank holds a C-contiguous partial of the same shape; each receives the sum over all ranks
/// of its block_of(rows, p, rank) rows (axis 0). One all-to-all sends every owner its rows of each
/// partial, and the owner adds the p pieces in rank order, so the result is the same on every run.
template <array_element R>
std::vector<ndarray<R>> reduce_scatter_rows(const std::vector<ndarray<R>>& partials, const communicator& comm) {
  const shape_t& shape = partials.front().shape();
  const index_t rows = shape.empty() ? 1 : shape.front();
  const index_t row = rows == 0 ? 0 : partials.front().size() / rows;
  const int p = comm.size();
  const auto plan = [&](int, int to) {
    const block_range mine = block_of(rows, p, to);
    return block_range{mine.begin * row, mine.end * row};
  };
  const std::vector<ndarray<R>> pieces = all_to_all(partials, plan, comm);
  std::vector<ndarray<R>> sums;
  for (int l = 0; l < comm.local_size(); ++l) {
    shape_t stacked = shape;
    stacked.front() = block_of(rows, p, comm.rank(l)).size();
    stacked.insert(stacked.begin(), index_t{p});
    sums.push_back(ndcuda::sum(pieces[static_cast<std::size_t>(l)].reshape(stacked), 0).template evaluate<R>());
  }
  return sums;
}

template <reduction K, array_element T>
auto reduce(const distributed_array<T>& a, int axis, bool keepdims) {
  if constexpr ((K == reduction::min || K == reduction::max) && is_complex(dtype_of<T>)) {
    throw error(std::string("dist::") + reduction_name(K) + ": complex numbers have no order (NumPy raises too); " +
                "reduce abs() or real() instead");
  } else {
    const communicator& comm = a.comm();
    std::vector<int> reduced;
    if (axis >= 0 || a.ndim() == 0) {
      if (axis >= 0) {
        reduced.push_back(axis);
      }
    } else {
      for (int i = 0; i < a.ndim(); ++i) {
        reduced.push_back(i);
      }
    }
    const sharding out_spec = reduced_sharding(a.spec(), reduced, keepdims);
    const bool across_ranks = !a.is_replicated() && out_spec.is_replicated();
    index_t count = 1;
    for (int r : reduced) {
      count *= a.shape()[static_cast<std::size_t>(r)];
    }
    if ((K == reduction::min || K == reduction::max) && across_ranks && count > 0) {
      for (int q = 0; q < comm.size(); ++q) {
        const block_box box = a.box(q);
        if (std::any_of(reduced.begin(), reduced.end(),
                        [&](int r) { return box[static_cast<std::size_t>(r)].size() == 0; })) {
          throw shape_error(std::string("dist::") + reduction_name(K) + ": rank " + std::to_string(q) +
                            " holds no elements of the axes it reduces (shape " + format_shape(a.shape()) +
                            " sharded " + describe(a.spec()) + " over " + std::to_string(comm.size()) +
                            " ranks); reduce a replicated copy or use fewer ranks");
        }
      }
    }
    using partial_t = decltype(reduce_shard<K>(a.local_shard(0), axis, keepdims));
    using R = typename partial_t::value_type;
    std::vector<ndarray<R>> partials;
    for (int l = 0; l < comm.local_size(); ++l) {
      partials.push_back(reduce_shard<K>(a.local_shard(l), axis, keepdims));
      // A grid reduced along some of its axes: each rank's partial covers its box of the result;
      // padded with the identity to the whole result, the all-reduce then combines exactly the
      // ranks that share a box (the result is replicated).
      const auto [global, box] = reduced_box(a.shape(), a.box(comm.rank(l)), reduced, keepdims);
      ndarray<R>& partial = partials.back();
      if (across_ranks && partial.shape() != global) {
        const ndarray<R> whole = ndcuda::full<R>(global, reduction_identity<K, R>(), comm.stream(l));
        write_into(view_of(whole, box), partial);
        partial = whole;
      }
    }
    if (across_ranks) {
      combine<K>(partials, comm);
    }
    if constexpr (K == reduction::mean) {
      for (auto& p : partials) {
        p = p / static_cast<double>(count);  // writes in place: one kernel per rank
      }
    }
    const shape_t global = reduced_box(a.shape(), a.box(0), reduced, keepdims).first;
    return distributed_array<R>(comm, global, out_spec, std::move(partials));
  }
}

template <class X>
auto as_distributed(const X& x) {
  if constexpr (is_distributed_array<std::remove_cvref_t<X>>) {
    return x;
  } else {
    return eval(x);
  }
}

}  // namespace detail

// Over every element: a 0-d replicated array (local_shard(0).item() reads it). Along `axis`:
// replicated when `axis` is a sharded one (NCCL combines the partials; a grid's partials are padded
// to the whole result first), else sharded like the input with no communication. Expressions are
// evaluated first.
#define NDCUDA_DIST_REDUCTION(fn, kind)                                                                \
  template <distributed_array_operand X>                                                               \
  [[nodiscard]] auto fn(const X& x) {                                                                  \
    return detail::reduce<detail::reduction::kind>(detail::as_distributed(x), -1, false);              \
  }                                                                                                    \
  template <distributed_array_operand X, class... O>                                                   \
  requires(std::is_same_v<O, keepdims_t> && ...) [[nodiscard]] auto fn(const X& x, int axis, O... k) { \
    const auto a = detail::as_distributed(x);                                                          \
    const bool keep = (false || ... || k.value);                                                       \
    return detail::reduce<detail::reduction::kind>(a, normalize_axis(axis, a.ndim()), keep);           \
  }

/// The sum of a distributed array, over every element or along `axis`. @{
NDCUDA_DIST_REDUCTION(sum, sum)
/// @}
/// The product of a distributed array, over every element or along `axis`. @{
NDCUDA_DIST_REDUCTION(prod, prod)
/// @}
/// The smallest element of a distributed array, over every element or along `axis`. @{
NDCUDA_DIST_REDUCTION(min, min)
/// @}
/// The largest element of a distributed array, over every element or along `axis`. @{
NDCUDA_DIST_REDUCTION(max, max)
/// @}
/// The mean of a distributed array, over every element or along `axis`. @{
NDCUDA_DIST_REDUCTION(mean, mean)
/// @}

#undef NDCUDA_DIST_REDUCTION

}  // namespace ndcuda::dist

#pragma GCC visibility pop
