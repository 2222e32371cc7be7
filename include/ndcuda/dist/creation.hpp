/// @file
/// Creating distributed arrays: distribute an ndarray or host data over a communicator, and
/// zeros/full/arange/linspace made directly sharded. Each rank allocates only its block and writes
/// it in place: creation needs the result's device memory and nothing more (docs/design.md, dist/).
/// Builds on dist/{distributed_array,movement}.hpp and array/creation.hpp (arange's and linspace's
/// sequences, computed per block from the block's first global index).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <algorithm>
#include <cstdint>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/array/detail/kernels.hpp>
#include <ndcuda/dist/distributed_array.hpp>
#include <ndcuda/dist/movement.hpp>
#include <span>
#include <vector>

namespace ndcuda::dist {

/// `a` (on any device, any layout) spread over `comm` as `spec`: each rank's block is copied
/// from `a` straight to its GPU (a peer copy when `a` is elsewhere), ordered after a's stream by
/// events. Multi-process: every process passes the whole array and keeps its own block.
template <array_element T>
distributed_array<T> distribute(const ndarray<T>& a, const communicator& comm, const sharding& spec) {
  const sharding s = normalize(spec, a.ndim(), comm.size());
  std::vector<ndarray<T>> shards;
  for (int l = 0; l < comm.local_size(); ++l) {
    const ndarray<T> part =
        s.is_replicated() ? a : detail::view_of(a, shard_box(a.shape(), s, comm.size(), comm.rank(l)));
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

/// Host data in C order viewed as `shape`, each rank's block copied from the host to its GPU. A
/// block that is not one run of host memory (the sharded axis is not the first of extent > 1) is
/// packed in host memory first: the device holds the shard and nothing else.
template <array_element T>
distributed_array<T> distribute(std::span<const T> host, const shape_t& shape, const communicator& comm,
                                const sharding& spec) {
  if (shape_size(shape) != static_cast<index_t>(host.size())) {
    throw shape_error("distribute: " + std::to_string(host.size()) + " host values cannot have shape " +
                      format_shape(shape));
  }
  const sharding s = normalize(spec, static_cast<int>(shape.size()), comm.size());
  std::vector<ndarray<T>> shards;
  for (int l = 0; l < comm.local_size(); ++l) {
    if (s.is_replicated()) {
      shards.push_back(asarray<T>(host, shape, comm.stream(l)));
      continue;
    }
    const block_box box = shard_box(shape, s, comm.size(), comm.rank(l));
    const shape_t local_shape = shard_shape(shape, s, comm.size(), comm.rank(l));
    std::vector<std::pair<index_t, index_t>> runs;  // (global offset, length)
    detail::for_each_run(shape, box, [&](index_t at, index_t, index_t length) { runs.emplace_back(at, length); });
    if (runs.size() == 1) {  // the block is one run of host memory: no packing
      shards.push_back(asarray<T>(
          host.subspan(static_cast<std::size_t>(runs.front().first), static_cast<std::size_t>(runs.front().second)),
          local_shape, comm.stream(l)));
      continue;
    }
    std::vector<T> packed(static_cast<std::size_t>(box_size(box)));
    auto into = packed.begin();
    for (const auto& [at, length] : runs) {
      into = std::copy(host.begin() + at, host.begin() + at + length, into);
    }
    shards.push_back(asarray<T>(packed, local_shape, comm.stream(l)));
  }
  return distributed_array<T>(comm, shape, s, std::move(shards));
}
/// Distributes a host vector (C order, `shape`) as `spec` says.
template <array_element T>
distributed_array<T> distribute(const std::vector<T>& host, const shape_t& shape, const communicator& comm,
                                const sharding& spec) {
  return distribute<T>(std::span<const T>(host), shape, comm, spec);
}
/// Distributes a host vector (C order, `shape`) in blocks along `axis`.
template <array_element T>
distributed_array<T> distribute(const std::vector<T>& host, const shape_t& shape, const communicator& comm,
                                int axis = 0) {
  return distribute<T>(std::span<const T>(host), shape, comm, sharding::block(axis));
}

/// `shape` filled with `value`, each rank allocating and filling only its own block (in place).
template <array_element T>
distributed_array<T> full(const shape_t& shape, T value, const communicator& comm,
                          const sharding& spec = sharding::block(0)) {
  const sharding s = normalize(spec, static_cast<int>(shape.size()), comm.size());
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

namespace detail {

/// A 1-d array of `n` elements sharded as `spec` over `comm`: each local rank allocates its block
/// (the whole array when replicated) and `write(block, range)` fills it in place, `range` being the
/// block's global indices. Nothing but the blocks is allocated.
template <array_element T, class Write>
distributed_array<T> sequence_blocks(index_t n, const communicator& comm, const sharding& spec, const Write& write) {
  const sharding s = normalize(spec, 1);
  std::vector<ndarray<T>> shards;
  for (int l = 0; l < comm.local_size(); ++l) {
    const block_range r = s.is_replicated() ? block_range{0, n} : block_of(n, comm.size(), comm.rank(l));
    ndarray<T> out = ndcuda::empty<T>({r.size()}, comm.stream(l));
    write(out, r);
    shards.push_back(std::move(out));
  }
  return distributed_array<T>(comm, shape_t{n}, s, std::move(shards));
}

}  // namespace detail

/// NumPy's arange(start, stop, step) as a 1-d array sharded over `comm`: each rank writes start +
/// i * step for its own global indices i straight into its block (in int64 for integer types,
/// else in double, then converted), with the very device function nd::arange uses, so the values
/// equal the single-GPU arange's bit for bit. Device memory: the blocks only.
template <array_element T>
distributed_array<T> arange(double start, double stop, double step, const communicator& comm,
                            const sharding& spec = sharding::block(0)) {
  static_assert(!is_complex(dtype_of<T>) && dtype_of<T> != dtype::bool_, "arange: real numeric types only");
  if (step == 0) {
    throw shape_error("arange: step must not be zero (NumPy: Maximum allowed size exceeded)");
  }
  const index_t n = ndcuda::detail::arange_count(start, stop, step);
  if constexpr (is_integral(dtype_of<T>)) {
    const ndcuda::detail::int64_sequence seq = ndcuda::detail::arange_int64(start, step, n);  // nd::arange's checks
    return detail::sequence_blocks<T>(n, comm, spec, [&](const ndarray<T>& out, const block_range& r) {
      ndcuda::detail::sequence_block_i64(dtype_of<T>, out.data(), r.begin, r.size(), seq.start, seq.step, out.stream());
    });
  } else {
    return detail::sequence_blocks<T>(n, comm, spec, [&](const ndarray<T>& out, const block_range& r) {
      ndcuda::detail::sequence_block_f64(dtype_of<T>, out.data(), r.begin, r.size(), start, step, -1, 0.0, false,
                                         out.stream());
    });
  }
}
/// 0, 1, ..., stop - 1 sharded over `comm`.
template <array_element T>
distributed_array<T> arange(double stop, const communicator& comm, const sharding& spec = sharding::block(0)) {
  return arange<T>(0.0, stop, 1.0, comm, spec);
}

/// NumPy's linspace as a 1-d array sharded over `comm`: `num` evenly spaced values over [start,
/// stop] (or [start, stop) without the endpoint), each rank computing start + i * step in double
/// for its own global indices i (the last one exactly stop; integer types round down) straight into
/// its block. The values equal the single-GPU nd::linspace's bit for bit. Device memory: the
/// blocks only.
template <array_element T>
distributed_array<T> linspace(double start, double stop, index_t num, bool endpoint, const communicator& comm,
                              const sharding& spec = sharding::block(0)) {
  static_assert(!is_complex(dtype_of<T>) && dtype_of<T> != dtype::bool_, "linspace: real numeric types only");
  const ndcuda::detail::linspace_sequence seq = ndcuda::detail::linspace_of(start, stop, num, endpoint);
  return detail::sequence_blocks<T>(num, comm, spec, [&](const ndarray<T>& out, const block_range& r) {
    ndcuda::detail::sequence_block_f64(dtype_of<T>, out.data(), r.begin, r.size(), start, seq.step, seq.last_index,
                                       stop, is_integral(dtype_of<T>), out.stream());
  });
}
/// `num` evenly spaced values over [start, stop], the endpoint included, sharded over `comm`.
template <array_element T>
distributed_array<T> linspace(double start, double stop, index_t num, const communicator& comm,
                              const sharding& spec = sharding::block(0)) {
  return linspace<T>(start, stop, num, true, comm, spec);
}

}  // namespace ndcuda::dist

#pragma GCC visibility pop
