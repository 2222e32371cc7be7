/// @file
/// Creating distributed arrays: distribute an ndarray or host data over a communicator, and
/// zeros/full/arange made directly sharded (each rank creates only its block). Builds on
/// dist/{distributed_array,movement}.hpp and ops/elementwise.hpp (arange's per-rank formula).
#pragma once

#include <cmath>
#include <cstdint>
#include <ndcuda/dist/distributed_array.hpp>
#include <ndcuda/dist/movement.hpp>
#include <ndcuda/ops/elementwise.hpp>
#include <span>
#include <vector>

namespace ndcuda::dist {

/// `a` (on any device, any layout) spread over `comm` as `spec`: each rank's block is copied
/// from `a` straight to its GPU (a peer copy when `a` is elsewhere), ordered after a's stream by
/// events. Multi-process: every process passes the whole array and keeps its own block.
template <array_element T>
distributed_array<T> distribute(const ndarray<T>& a, const communicator& comm, const sharding& spec) {
  const sharding s = normalize(spec, a.ndim());
  std::vector<ndarray<T>> shards;
  for (int l = 0; l < comm.local_size(); ++l) {
    const int r = comm.rank(l);
    const ndarray<T> part =
        s.is_replicated()
            ? a
            : detail::slab(a, s.axis(), block_of(a.shape()[static_cast<std::size_t>(s.axis())], comm.size(), r));
    ndarray<T> shard = empty<T>(part.shape(), comm.stream(l));
    if (part.device() == shard.device() || part.is_contiguous()) {
      detail::copy_across(shard, part);
    } else {
      detail::copy_across(shard, part.copy());  // packed on a's device first: a peer copy is 1-d
    }
    // a (and a packed temporary) are released on a's stream: after this rank's copy has read them.
    ndcuda::detail::order_after(a.stream(), comm.stream(l));
    shards.push_back(std::move(shard));
  }
  return distributed_array<T>(comm, a.shape(), s, std::move(shards));
}
/// Block-sharded along `axis`.
template <array_element T>
distributed_array<T> distribute(const ndarray<T>& a, const communicator& comm, int axis = 0) {
  return distribute(a, comm, sharding::block(axis));
}

/// Host data in C order viewed as `shape`, each rank's block copied from the host to its GPU.
template <array_element T>
distributed_array<T> distribute(std::span<const T> host, const shape_t& shape, const communicator& comm,
                                const sharding& spec) {
  if (shape_size(shape) != static_cast<index_t>(host.size())) {
    throw shape_error("distribute: " + std::to_string(host.size()) + " host values cannot have shape " +
                      format_shape(shape));
  }
  const sharding s = normalize(spec, static_cast<int>(shape.size()));
  std::vector<ndarray<T>> shards;
  for (int l = 0; l < comm.local_size(); ++l) {
    if (s.is_replicated()) {
      shards.push_back(asarray<T>(host, shape, comm.stream(l)));
      continue;
    }
    const block_range r = block_of(shape[static_cast<std::size_t>(s.axis())], comm.size(), comm.rank(l));
    const auto [outer, inner] = detail::outer_inner(shape, s.axis());
    const index_t extent = shape[static_cast<std::size_t>(s.axis())];
    const shape_t local_shape = shard_shape(shape, s, comm.size(), comm.rank(l));
    if (outer == 1) {  // the block is one run of host memory: no packing
      shards.push_back(asarray<T>(
          host.subspan(static_cast<std::size_t>(r.begin * inner), static_cast<std::size_t>(r.size() * inner)),
          local_shape, comm.stream(l)));
      continue;
    }
    std::vector<T> packed(static_cast<std::size_t>(outer * r.size() * inner));
    for (index_t o = 0; o < outer; ++o) {
      std::copy(host.begin() + (o * extent + r.begin) * inner, host.begin() + (o * extent + r.end) * inner,
                packed.begin() + o * r.size() * inner);
    }
    shards.push_back(asarray<T>(packed, local_shape, comm.stream(l)));
  }
  return distributed_array<T>(comm, shape, s, std::move(shards));
}
/// Distributes a host vector (C order, `shape`) in blocks along `axis`.
template <array_element T>
distributed_array<T> distribute(const std::vector<T>& host, const shape_t& shape, const communicator& comm,
                                int axis = 0) {
  return distribute<T>(std::span<const T>(host), shape, comm, sharding::block(axis));
}

/// `shape` filled with `value`, each rank allocating and filling only its own block.
template <array_element T>
distributed_array<T> full(const shape_t& shape, T value, const communicator& comm,
                          const sharding& spec = sharding::block(0)) {
  const sharding s = normalize(spec, static_cast<int>(shape.size()));
  std::vector<ndarray<T>> shards;
  for (int l = 0; l < comm.local_size(); ++l) {
    shards.push_back(ndcuda::full<T>(shard_shape(shape, s, comm.size(), comm.rank(l)), value, comm.stream(l)));
  }
  return distributed_array<T>(comm, shape, s, std::move(shards));
}
/// `shape` filled with 0, each rank allocating only its own block.
template <array_element T>
distributed_array<T> zeros(const shape_t& shape, const communicator& comm, const sharding& spec = sharding::block(0)) {
  return full<T>(shape, ndcuda::detail::element_from<T>(0.0), comm, spec);
}
/// `shape` filled with 1, each rank allocating only its own block.
template <array_element T>
distributed_array<T> ones(const shape_t& shape, const communicator& comm, const sharding& spec = sharding::block(0)) {
  return full<T>(shape, ndcuda::detail::element_from<T>(1.0), comm, spec);
}

/// NumPy's arange(start, stop, step) as a 1-d array sharded over `comm`: rank r computes
/// start + i * step for its own i only (in int64 for integer types, else in double, as
/// nd::arange does), so the values equal the single-GPU arange's.
template <array_element T>
distributed_array<T> arange(double start, double stop, double step, const communicator& comm,
                            const sharding& spec = sharding::block(0)) {
  static_assert(!is_complex(dtype_of<T>) && dtype_of<T> != dtype::bool_, "arange: real numeric types only");
  if (step == 0) {
    throw shape_error("arange: step must not be zero (NumPy: Maximum allowed size exceeded)");
  }
  const double count = std::ceil((stop - start) / step);
  const auto n = static_cast<index_t>(std::isfinite(count) && count > 0 ? count : 0);
  const shape_t shape{n};
  const sharding s = normalize(spec, 1);
  std::vector<ndarray<T>> shards;
  for (int l = 0; l < comm.local_size(); ++l) {
    const block_range r = s.is_replicated() ? block_range{0, n} : block_of(n, comm.size(), comm.rank(l));
    const stream& st = comm.stream(l);
    ndarray<T> out = empty<T>({r.size()}, st);
    if constexpr (is_integral(dtype_of<T>)) {
      const ndarray<std::int64_t> i =
          ndcuda::arange<std::int64_t>(static_cast<double>(r.begin), static_cast<double>(r.end), 1.0, st);
      out.assign(i * static_cast<std::int64_t>(step) + static_cast<std::int64_t>(start));
    } else {
      const ndarray<double> i =
          ndcuda::arange<double>(static_cast<double>(r.begin), static_cast<double>(r.end), 1.0, st);
      out.assign(i * step + start);
    }
    shards.push_back(std::move(out));
  }
  return distributed_array<T>(comm, shape, s, std::move(shards));
}
/// 0, 1, ..., stop - 1 sharded over `comm`.
template <array_element T>
distributed_array<T> arange(double stop, const communicator& comm, const sharding& spec = sharding::block(0)) {
  return arange<T>(0.0, stop, 1.0, comm, spec);
}

}  // namespace ndcuda::dist
