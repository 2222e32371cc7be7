/// @file
/// Moving distributed arrays: gather to one device, to the host, reshard along another axis and
/// replicate, through peer copies and NCCL send/recv groups: the definitions of the movement members
/// that dist/distributed_array_class.hpp declares. Builds on that class header;
/// <ndcuda/dist/distributed_array.hpp> includes this file.
#pragma once

#include <algorithm>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/dist/distributed_array_class.hpp>
#include <vector>

namespace ndcuda::dist {
namespace detail {

/// Copies `bytes` from `src` on `src_device` to `dst` on `dst_device`, ordered on `s` (a stream of
/// dst_device) with cudaMemcpyPeerAsync; the caller orders `s` after the source's writer.
void copy_peer(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes, const stream& s);

/// Elements in one step of `axis` (the product of the extents after it) and the number of
/// steps before it: a C-order array is outer x extent x inner.
inline std::pair<index_t, index_t> outer_inner(const shape_t& shape, int axis) {
  index_t outer = 1;
  index_t inner = 1;
  for (int i = 0; i < static_cast<int>(shape.size()); ++i) {
    if (i < axis) {
      outer *= shape[static_cast<std::size_t>(i)];
    } else if (i > axis) {
      inner *= shape[static_cast<std::size_t>(i)];
    }
  }
  return {outer, inner};
}

/// Writes src's elements into the view `dst` (ndarray's element assignment, on dst's stream after
/// src's).
template <array_element T>
void write_into(const ndarray<T>& dst, const ndarray<T>& src) {
  dst.assign(src);
}

/// Copies `src` (C-contiguous, device `src.device()`) into the view `dst`: directly when both
/// are on one device, else by a peer copy (into dst itself when it is contiguous, else into a
/// temporary on dst's device). Ordered on dst.stream() after src.stream().
template <array_element T>
void copy_across(const ndarray<T>& dst, const ndarray<T>& src) {
  if (src.size() == 0) {
    return;
  }
  if (src.device() == dst.device()) {
    write_into(dst, src);
    return;
  }
  ndcuda::detail::order_after(dst.stream(), src.stream());
  if (dst.is_contiguous()) {
    copy_peer(dst.data(), dst.device(), src.data(), src.device(), src.nbytes(), dst.stream());
  } else {
    const ndarray<T> temp = empty<T>(src.shape(), dst.stream());
    copy_peer(temp.data(), temp.device(), src.data(), src.device(), src.nbytes(), dst.stream());
    write_into(dst, temp);
  }
}

}  // namespace detail

template <array_element T>
ndarray<T> distributed_array<T>::gather(int device) const {
  if (comm_.multi_process()) {
    throw communication_error(
        "distributed_array::gather: this process holds only its own rank's shard; in "
        "multi-process mode use replicate() (every rank gets the whole array) or to_host()");
  }
  const stream target = default_stream(device);
  if (spec_.is_replicated()) {
    const int local = std::max(0, comm_.local_of_device(device));
    const ndarray<T> out = empty<T>(shape_, target);
    detail::copy_across(out, shards_[static_cast<std::size_t>(local)]);
    ndcuda::detail::order_after(comm_.stream(local), target);  // the shard outlives the copy
    return out;
  }
  const ndarray<T> out = empty<T>(shape_, target);
  for (int l = 0; l < comm_.local_size(); ++l) {
    detail::copy_across(detail::slab(out, axis(), range(comm_.rank(l))), shards_[static_cast<std::size_t>(l)]);
  }
  for (int l = 0; l < comm_.local_size(); ++l) {
    ndcuda::detail::order_after(comm_.stream(l), target);
  }
  return out;
}

template <array_element T>
std::vector<T> distributed_array<T>::to_host() const {
  if (spec_.is_replicated()) {
    comm_.synchronize();
    return shards_.front().to_host();
  }
  if (comm_.multi_process()) {
    return replicate().to_host();
  }
  comm_.synchronize();  // bounded by the communicator's timeout, unlike a bare stream wait
  std::vector<T> out(static_cast<std::size_t>(size()));
  const auto [outer, inner] = detail::outer_inner(shape_, axis());
  const index_t extent = shape_[static_cast<std::size_t>(axis())];
  for (int l = 0; l < comm_.local_size(); ++l) {
    const block_range r = range(comm_.rank(l));
    const std::vector<T> part = shards_[static_cast<std::size_t>(l)].to_host();
    const index_t run = r.size() * inner;
    for (index_t o = 0; o < outer && run > 0; ++o) {
      std::copy(part.begin() + o * run, part.begin() + (o + 1) * run, out.begin() + (o * extent + r.begin) * inner);
    }
  }
  return out;
}

template <array_element T>
distributed_array<T> distributed_array<T>::replicate() const {
  if (spec_.is_replicated()) {
    return *this;
  }
  const int k = axis();
  std::vector<ndarray<T>> full;
  std::vector<ndarray<T>> received;  // per (local, peer) when the block is not contiguous in `full`
  std::vector<std::pair<ndarray<T>, ndarray<T>>> placements;
  std::vector<communicator::message> messages;
  for (int l = 0; l < comm_.local_size(); ++l) {
    const ndarray<T>& mine = shards_[static_cast<std::size_t>(l)];
    full.push_back(empty<T>(shape_, comm_.stream(l)));
    const ndarray<T>& out = full.back();
    detail::slab(out, k, range(comm_.rank(l))) = mine;
    for (int q = 0; q < comm_.size(); ++q) {
      if (q == comm_.rank(l)) {
        continue;
      }
      if (mine.size() > 0) {
        messages.push_back({l, q, true, mine.data(), mine.nbytes()});
      }
      const ndarray<T> dst = detail::slab(out, k, range(q));
      if (dst.size() == 0) {
        continue;
      }
      if (dst.is_contiguous()) {
        messages.push_back({l, q, false, dst.data(), dst.nbytes()});
      } else {
        received.push_back(empty<T>(dst.shape(), comm_.stream(l)));
        messages.push_back({l, q, false, received.back().data(), received.back().nbytes()});
        placements.emplace_back(dst, received.back());
      }
    }
  }
  comm_.exchange(messages);
  for (auto& [dst, src] : placements) {
    detail::write_into(dst, src);
  }
  return distributed_array(comm_, shape_, sharding::replicated(), std::move(full));
}

template <array_element T>
distributed_array<T> distributed_array<T>::reshard(int new_axis) const {
  return reshard(sharding::block(new_axis));
}

template <array_element T>
distributed_array<T> distributed_array<T>::reshard(const sharding& requested) const {
  const sharding target = normalize(requested, ndim());
  if (target == spec_) {
    return *this;
  }
  if (target.is_replicated()) {
    return replicate();
  }
  const int b = target.axis();
  const index_t extent_b = shape_[static_cast<std::size_t>(b)];
  std::vector<ndarray<T>> shards;
  if (spec_.is_replicated()) {
    for (int l = 0; l < comm_.local_size(); ++l) {
      const block_range r = block_of(extent_b, comm_.size(), comm_.rank(l));
      shards.push_back(detail::slab(shards_[static_cast<std::size_t>(l)], b, r).copy());
    }
    return distributed_array(comm_, shape_, target, std::move(shards));
  }
  // Block along a to block along b: rank p needs from rank q the elements whose a index is in q's
  // old block and whose b index is in p's new block.
  const int a = axis();
  std::vector<ndarray<T>> keep;  // packed sends and receive buffers, alive until placed
  std::vector<std::pair<ndarray<T>, ndarray<T>>> placements;
  std::vector<communicator::message> messages;
  for (int l = 0; l < comm_.local_size(); ++l) {
    shards.push_back(empty<T>(shard_shape(shape_, target, comm_.size(), comm_.rank(l)), comm_.stream(l)));
  }
  for (int l = 0; l < comm_.local_size(); ++l) {
    const int p = comm_.rank(l);
    const ndarray<T>& old_shard = shards_[static_cast<std::size_t>(l)];
    for (int q = 0; q < comm_.size(); ++q) {
      // Sending: the part of my old block that q's new block covers.
      const ndarray<T> outgoing = detail::slab(old_shard, b, block_of(extent_b, comm_.size(), q));
      // Receiving: the part of my new block that q's old block covers.
      const ndarray<T> incoming = detail::slab(shards[static_cast<std::size_t>(l)], a, range(q));
      if (q == p) {
        if (incoming.size() > 0) {
          detail::write_into(incoming, outgoing);
        }
        continue;
      }
      if (outgoing.size() > 0) {
        keep.push_back(outgoing.copy());  // packed on my stream, before the send on the same stream
        messages.push_back({l, q, true, keep.back().data(), keep.back().nbytes()});
      }
      if (incoming.size() > 0) {
        keep.push_back(empty<T>(incoming.shape(), comm_.stream(l)));
        messages.push_back({l, q, false, keep.back().data(), keep.back().nbytes()});
        placements.emplace_back(incoming, keep.back());
      }
    }
  }
  comm_.exchange(messages);
  for (auto& [dst, src] : placements) {
    detail::write_into(dst, src);
  }
  return distributed_array(comm_, shape_, target, std::move(shards));
}

}  // namespace ndcuda::dist
