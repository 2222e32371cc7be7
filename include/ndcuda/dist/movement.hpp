/// @file
/// Moving distributed arrays: gather to one device, to the host, reshard along another axis and
/// replicate, through peer copies and NCCL send/recv groups: the definitions of the movement members
/// that dist/distributed_array_class.hpp declares. Builds on that class header;
/// <ndcuda/dist/distributed_array.hpp> includes this file.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <algorithm>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/dist/distributed_array_class.hpp>
#include <vector>

namespace ndcuda::dist {
namespace detail {

/// Copies `bytes` from `src` on `src_device` to `dst` on `dst_device`, ordered on `s` (a stream of
/// dst_device) with cudaMemcpyPeerAsync; the caller orders `s` after the source's writer.
void copy_peer(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes, const stream& s);

/// Calls run(global_offset, packed_offset, length) for each run of box `b` in a C-order array of
/// shape `shape`: the box's elements in C order are `length`-element runs of the global array, as
/// long as the axes after the innermost cut axis allow. What to_host and distribute(host) copy.
template <class Run>
void for_each_run(const shape_t& shape, const block_box& b, const Run& run) {
  if (box_size(b) == 0) {
    return;
  }
  const int ndim = static_cast<int>(shape.size());
  int cut = -1;  // the innermost axis the box does not span whole
  for (int d = ndim - 1; d >= 0 && cut < 0; --d) {
    if (b[static_cast<std::size_t>(d)].size() != shape[static_cast<std::size_t>(d)]) {
      cut = d;
    }
  }
  if (cut < 0) {
    run(index_t{0}, index_t{0}, shape_size(shape));
    return;
  }
  std::vector<index_t> stride(static_cast<std::size_t>(ndim), 1);
  for (int d = ndim - 2; d >= 0; --d) {
    stride[static_cast<std::size_t>(d)] =
        stride[static_cast<std::size_t>(d) + 1] * shape[static_cast<std::size_t>(d) + 1];
  }
  const auto c = static_cast<std::size_t>(cut);
  const index_t length = b[c].size() * stride[c];
  std::vector<index_t> at(c);
  for (std::size_t d = 0; d < c; ++d) {
    at[d] = b[d].begin;
  }
  for (index_t packed = 0;; packed += length) {
    index_t offset = b[c].begin * stride[c];
    for (std::size_t d = 0; d < c; ++d) {
      offset += at[d] * stride[d];
    }
    run(offset, packed, length);
    std::size_t d = c;
    while (d > 0 && ++at[d - 1] == b[d - 1].end) {
      at[d - 1] = b[d - 1].begin;
      --d;
    }
    if (d == 0) {
      return;
    }
  }
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
    detail::copy_across(detail::view_of(out, box(comm_.rank(l))), shards_[static_cast<std::size_t>(l)]);
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
  for (int l = 0; l < comm_.local_size(); ++l) {
    const std::vector<T> part = shards_[static_cast<std::size_t>(l)].to_host();
    detail::for_each_run(shape_, box(comm_.rank(l)), [&](index_t at, index_t packed, index_t length) {
      std::copy(part.begin() + packed, part.begin() + packed + length, out.begin() + at);
    });
  }
  return out;
}

template <array_element T>
distributed_array<T> distributed_array<T>::replicate() const {
  if (spec_.is_replicated()) {
    return *this;
  }
  std::vector<ndarray<T>> full;
  std::vector<ndarray<T>> received;  // per (local, peer) when the block is not contiguous in `full`
  std::vector<std::pair<ndarray<T>, ndarray<T>>> placements;
  std::vector<communicator::message> messages;
  for (int l = 0; l < comm_.local_size(); ++l) {
    const ndarray<T>& mine = shards_[static_cast<std::size_t>(l)];
    full.push_back(empty<T>(shape_, comm_.stream(l)));
    const ndarray<T>& out = full.back();
    detail::view_of(out, box(comm_.rank(l))) = mine;
    for (int q = 0; q < comm_.size(); ++q) {
      if (q == comm_.rank(l)) {
        continue;
      }
      if (mine.size() > 0) {
        messages.push_back({l, q, true, mine.data(), mine.nbytes()});
      }
      const ndarray<T> dst = detail::view_of(out, box(q));
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
  const sharding target = normalize(requested, ndim(), comm_.size());
  if (target == spec_) {
    return *this;
  }
  if (target.is_replicated()) {
    return replicate();
  }
  const auto new_box = [&](int rank) { return shard_box(shape_, target, comm_.size(), rank); };
  std::vector<ndarray<T>> shards;
  if (spec_.is_replicated()) {
    for (int l = 0; l < comm_.local_size(); ++l) {
      shards.push_back(detail::view_of(shards_[static_cast<std::size_t>(l)], new_box(comm_.rank(l))).copy());
    }
    return distributed_array(comm_, shape_, target, std::move(shards));
  }
  // Rank p sends rank q the part of its old box that q's new box covers, and receives from q the
  // part of its new box that q's old box covers: exactly the overlapping pieces, in one group.
  std::vector<ndarray<T>> keep;  // packed sends and receive buffers, alive until placed
  std::vector<std::pair<ndarray<T>, ndarray<T>>> placements;
  std::vector<communicator::message> messages;
  for (int l = 0; l < comm_.local_size(); ++l) {
    shards.push_back(empty<T>(shard_shape(shape_, target, comm_.size(), comm_.rank(l)), comm_.stream(l)));
  }
  for (int l = 0; l < comm_.local_size(); ++l) {
    const int p = comm_.rank(l);
    const ndarray<T>& old_shard = shards_[static_cast<std::size_t>(l)];
    const block_box old_mine = box(p);
    const block_box new_mine = new_box(p);
    for (int q = 0; q < comm_.size(); ++q) {
      const block_box sent = intersect(old_mine, new_box(q));
      const block_box received = intersect(box(q), new_mine);
      const bool sends = box_size(sent) > 0;
      const bool receives = box_size(received) > 0;
      const ndarray<T> outgoing = sends ? detail::view_of(old_shard, relative_to(sent, old_mine)) : ndarray<T>();
      const ndarray<T> incoming =
          receives ? detail::view_of(shards[static_cast<std::size_t>(l)], relative_to(received, new_mine))
                   : ndarray<T>();
      if (q == p) {
        if (receives) {
          detail::write_into(incoming, outgoing);
        }
        continue;
      }
      if (sends) {
        keep.push_back(outgoing.is_contiguous() ? outgoing : outgoing.copy());  // packed on my stream
        messages.push_back({l, q, true, keep.back().data(), keep.back().nbytes()});
      }
      if (receives) {
        keep.push_back(incoming.is_contiguous() ? incoming : empty<T>(incoming.shape(), comm_.stream(l)));
        messages.push_back({l, q, false, keep.back().data(), keep.back().nbytes()});
        if (!incoming.is_contiguous()) {
          placements.emplace_back(incoming, keep.back());
        }
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

#pragma GCC visibility pop
