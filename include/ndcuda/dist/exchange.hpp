/// @file
/// The exchanges that the data-dependent distributed operations (sort, extract, take) share, each
/// one NCCL group of point-to-point messages: every rank's piece to every rank, an all-to-all
/// driven by a plan every process computes alike, and moving uneven runs into the ordinary blocks.
/// Builds on dist/distributed_array.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <ndcuda/dist/distributed_array.hpp>
#include <vector>

namespace ndcuda::dist::detail {

/// Sends piece [begin, end) of `pieces[l]` (C-contiguous, read as its flat elements) on local rank
/// l to the ranks that `plan` names, and returns what each local rank receives, 1-d, laid end to
/// end in group-rank order of the senders.
/// plan(from, to) gives the element range of `from`'s buffer that goes to `to`; the receiver's
/// offsets follow from the same plan on every process.
template <array_element R, class Plan>
std::vector<ndarray<R>> all_to_all(const std::vector<ndarray<R>>& pieces, const Plan& plan, const communicator& comm) {
  std::vector<ndarray<R>> received;
  std::vector<communicator::message> messages;
  for (int l = 0; l < comm.local_size(); ++l) {
    const int me = comm.rank(l);
    index_t total = 0;
    for (int q = 0; q < comm.size(); ++q) {
      total += plan(q, me).size();
    }
    received.push_back(empty<R>({total}, comm.stream(l)));
    const ndarray<R>& piece = pieces[static_cast<std::size_t>(l)];
    const ndarray<R> source = piece.ndim() == 1 ? piece : piece.reshape({piece.size()});
    index_t at = 0;
    for (int q = 0; q < comm.size(); ++q) {
      const block_range in = plan(q, me);
      const ndarray<R> slot = received.back()(slice(at, at + in.size()));
      at += in.size();
      const block_range out = plan(me, q);
      if (q == me) {
        if (in.size() > 0) {
          write_into(slot, ndarray<R>(source(slice(out.begin, out.end))));
        }
        continue;
      }
      if (out.size() > 0) {
        messages.push_back({l, q, true, source.data() + out.begin, static_cast<std::size_t>(out.size()) * sizeof(R)});
      }
      if (in.size() > 0) {
        messages.push_back({l, q, false, slot.data(), slot.nbytes()});
      }
    }
  }
  if (!messages.empty()) {
    comm.exchange(messages);
  }
  return received;
}

/// On every local rank: the concatenation, in group-rank order, of every rank's `mine`
/// (`counts[q]` elements of R on group rank q, known on every process): an all-to-all in which
/// every rank sends its whole piece to every rank.
template <array_element R>
std::vector<ndarray<R>> gather_everywhere(const std::vector<ndarray<R>>& mine, const std::vector<index_t>& counts,
                                          const communicator& comm) {
  return all_to_all(
      mine,
      [&](int from, int) {
        return block_range{0, counts[static_cast<std::size_t>(from)]};
      },
      comm);
}

/// Moves runs of uneven sizes (rank q holds `sizes[q]` elements, the q-th run of a 1-d array laid
/// end to end in rank order) into the ordinary blocks of that array: what each local rank holds
/// of block_of(total, p, rank).
template <array_element R>
std::vector<ndarray<R>> to_blocks(const std::vector<ndarray<R>>& runs, const std::vector<index_t>& sizes,
                                  const communicator& comm) {
  std::vector<index_t> starts(sizes.size() + 1, 0);
  for (std::size_t q = 0; q < sizes.size(); ++q) {
    starts[q + 1] = starts[q] + sizes[q];
  }
  const index_t total = starts.back();
  const auto plan = [&](int from, int to) {
    const block_range run{starts[static_cast<std::size_t>(from)], starts[static_cast<std::size_t>(from) + 1]};
    const block_range overlap = intersect(run, block_of(total, comm.size(), to));
    return overlap.size() > 0 ? block_range{overlap.begin - run.begin, overlap.end - run.begin} : block_range{};
  };
  return all_to_all(runs, plan, comm);
}

}  // namespace ndcuda::dist::detail

#pragma GCC visibility pop
