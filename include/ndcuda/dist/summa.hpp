/// @file
/// SUMMA: the product of two matrices both cut into a grid of blocks (sharding::block({0, 1},
/// {rows, cols})). Rank (i, j) of the grid owns C's block (i, j). The inner extent K is cut into
/// panels where A's column blocks and B's row blocks both stay the same; for each panel the rank
/// that owns A's piece sends it along its grid row, the one that owns B's piece along its grid
/// column (NCCL send/recv), and every rank adds A_panel @ B_panel to its block of C (cuBLAS, beta =
/// 1). The panels' messages run on a second stream per GPU, ahead of the products, and each rank
/// multiplies the panels it holds itself first, so communication overlaps the GEMMs. Builds on
/// dist/distributed_array.hpp and linalg/matmul_expr.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <algorithm>
#include <map>
#include <mutex>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/event.hpp>
#include <ndcuda/dist/distributed_array.hpp>
#include <ndcuda/linalg/matmul_expr.hpp>
#include <vector>

namespace ndcuda::dist::detail {

/// One panel of the inner extent: columns `k` of A (held by grid column `a_column` of every grid
/// row) and rows `k` of B (held by grid row `b_row` of every grid column).
struct summa_panel {
  block_range k;
  int a_column = 0;
  int b_row = 0;
  friend bool operator==(const summa_panel&, const summa_panel&) = default;
};

/// The panels of an inner extent `k` when A's columns are cut into `cols` blocks and B's rows into
/// `rows` blocks: the pieces between every cut of either, in order, empty ones left out.
inline std::vector<summa_panel> summa_panels(index_t k, int rows, int cols) {
  std::vector<index_t> cuts{0, k};
  for (int c = 1; c < cols; ++c) {
    cuts.push_back(block_of(k, cols, c).begin);
  }
  for (int r = 1; r < rows; ++r) {
    cuts.push_back(block_of(k, rows, r).begin);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  const auto owner = [&](index_t at, int blocks) {
    int b = 0;
    while (block_of(k, blocks, b).end <= at) {
      ++b;
    }
    return b;
  };
  std::vector<summa_panel> panels;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    panels.push_back({{cuts[i], cuts[i + 1]}, owner(cuts[i], cols), owner(cuts[i], rows)});
  }
  return panels;
}

/// The stream SUMMA's messages run on, on `device`: one per device for the whole process (made on
/// first use and kept), so that repeated products do not each leave a stream behind in the device
/// pool's per-stream free lists. Concurrent products on one device share it, ordered by events.
inline const stream& summa_wire(int device) {
  static std::mutex mutex;
  static auto* wires = new std::map<int, stream>();  // leaked: streams outlive every static user
  const std::lock_guard lock(mutex);
  auto it = wires->find(device);
  if (it == wires->end()) {
    it = wires->emplace(device, stream(device)).first;
  }
  return it->second;
}

/// C = A @ B for 2-d A (M, K) and B (K, N) of dtype R, both sharded `grid_spec` = block({0, 1},
/// {rows, cols}); C is sharded the same way.
template <array_element R>
distributed_array<R> summa(const distributed_array<R>& a, const distributed_array<R>& b, const sharding& grid_spec) {
  const communicator& comm = a.comm();
  const std::vector<int> grid = grid_of(grid_spec, comm.size());
  const int rows = grid[0];
  const int cols = grid[1];
  const index_t m = a.shape()[0];
  const index_t k = a.shape()[1];
  const index_t n = b.shape()[1];
  const std::vector<summa_panel> panels = summa_panels(k, rows, cols);
  const auto rank_at = [&](int i, int j) { return i * cols + j; };
  const int locals = comm.local_size();

  // The same memory as a handle whose uses and release are ordered on stream `s`.
  const auto on_stream = [](const ndarray<R>& piece, const stream& s) {
    ndcuda::detail::erased_array e = ndcuda::detail::erase(piece);
    e.s = s;
    return ndcuda::detail::restore<R>(std::move(e));
  };
  std::vector<ndarray<R>> products;
  std::vector<stream> wires;  // per local rank: the stream the panels' messages run on (summa_wire)
  for (int l = 0; l < locals; ++l) {
    const std::vector<int> at = grid_position(grid_spec, comm.size(), comm.rank(l));
    const index_t my_rows = block_of(m, rows, at[0]).size();
    const index_t my_cols = block_of(n, cols, at[1]).size();
    products.push_back(panels.empty() ? zeros<R>({my_rows, my_cols}, comm.stream(l))
                                      : empty<R>({my_rows, my_cols}, comm.stream(l)));
    wires.push_back(summa_wire(comm.device(l)));
    ndcuda::detail::order_after(wires.back(), comm.stream(l));  // after the shards' writers
  }
  // Received pieces are allocated on the wire, and released there once the product that read them
  // has run (the wire waits for an event after it), so the wire never waits for a product it does
  // not need: panel s + 1 travels while panel s is multiplied.
  struct panel_operands {
    ndarray<R> a, b;  // A_panel and B_panel as this rank multiplies them
    ndarray<R> sent;  // A's piece packed for sending, when it is not contiguous in the shard
  };
  std::vector<panel_operands> operands(static_cast<std::size_t>(locals) * panels.size());
  std::vector<event> arrived;
  const auto slot = [&](std::size_t s, int l) {
    return s * static_cast<std::size_t>(locals) + static_cast<std::size_t>(l);
  };

  const auto post = [&](std::size_t s) {  // queues panel s's messages on the wires
    const summa_panel& panel = panels[s];
    std::vector<communicator::message> messages;
    for (int l = 0; l < locals; ++l) {
      const std::vector<int> at = grid_position(grid_spec, comm.size(), comm.rank(l));
      const int i = at[0];
      const int j = at[1];
      const stream& wire = wires[static_cast<std::size_t>(l)];
      const ndarray<R>& a_shard = a.local_shard(l);
      const ndarray<R>& b_shard = b.local_shard(l);
      const block_range a_k = block_of(k, cols, panel.a_column);
      const block_range b_k = block_of(k, rows, panel.b_row);
      panel_operands& o = operands[slot(s, l)];
      if (j == panel.a_column) {  // mine: multiplied in place, and sent along my grid row
        o.a = a_shard(all, slice(panel.k.begin - a_k.begin, panel.k.end - a_k.begin));
        o.sent = o.a;
        if (cols > 1 && !o.a.is_contiguous()) {  // panels finer than A's blocks (rows != cols)
          o.sent = o.a.copy();
          ndcuda::detail::order_after(wire, comm.stream(l));
          // Released on the wire once sent: the product of a panel held here does not wait for
          // its sends, so a release on the rank's stream could hand the memory on mid-send.
          o.sent = on_stream(o.sent, wire);
        }
        for (int c = 0; c < cols && o.a.size() > 0; ++c) {
          if (c != j) {
            messages.push_back({l, rank_at(i, c), true, o.sent.data(), o.sent.nbytes()});
          }
        }
      } else {
        o.a = empty<R>({a_shard.shape()[0], panel.k.size()}, wire);
        if (o.a.size() > 0) {
          messages.push_back({l, rank_at(i, panel.a_column), false, o.a.data(), o.a.nbytes()});
        }
      }
      if (i == panel.b_row) {  // whole rows of my B shard: contiguous, sent as they are
        o.b = b_shard(slice(panel.k.begin - b_k.begin, panel.k.end - b_k.begin));
        for (int r = 0; r < rows && o.b.size() > 0; ++r) {
          if (r != i) {
            messages.push_back({l, rank_at(r, j), true, o.b.data(), o.b.nbytes()});
          }
        }
      } else {
        o.b = empty<R>({panel.k.size(), b_shard.shape()[1]}, wire);
        if (o.b.size() > 0) {
          messages.push_back({l, rank_at(panel.b_row, j), false, o.b.data(), o.b.nbytes()});
        }
      }
    }
    comm.exchange(messages, wires);
    for (int l = 0; l < locals; ++l) {
      arrived.emplace_back(comm.device(l), false);
      arrived.back().record(wires[static_cast<std::size_t>(l)]);
    }
  };

  // Each rank multiplies first the panels it holds itself (no wait: see below), then the others;
  // panels are posted in one global order, at least one ahead of every rank's next product.
  std::vector<std::vector<std::size_t>> order(static_cast<std::size_t>(locals));
  for (int l = 0; l < locals; ++l) {
    const std::vector<int> at = grid_position(grid_spec, comm.size(), comm.rank(l));
    auto& mine = order[static_cast<std::size_t>(l)];
    for (std::size_t s = 0; s < panels.size(); ++s) {
      mine.push_back(s);
    }
    std::stable_sort(mine.begin(), mine.end(), [&](std::size_t x, std::size_t y) {
      const auto remote = [&](std::size_t s) {
        return int(panels[s].a_column != at[1]) + int(panels[s].b_row != at[0]);
      };
      return remote(x) < remote(y);
    });
  }
  std::size_t posted = 0;
  for (std::size_t step = 0; step < panels.size(); ++step) {
    std::size_t needed = std::min(step + 2, panels.size());
    for (const auto& mine : order) {
      needed = std::max(needed, mine[step] + 1);
    }
    while (posted < needed) {
      post(posted++);
    }
    for (int l = 0; l < locals; ++l) {
      const std::size_t s = order[static_cast<std::size_t>(l)][step];
      const stream& compute = comm.stream(l);
      const std::vector<int> at = grid_position(grid_spec, comm.size(), comm.rank(l));
      if (panels[s].a_column != at[1] || panels[s].b_row != at[0]) {
        // Only a received piece is waited for. A panel held whole is read in place and may be
        // multiplied while the wire still sends it (both only read it): waiting for its arrival
        // event would wait for this rank's sends and for every message posted before them.
        compute.wait(arrived[slot(s, l)]);
      }
      panel_operands& o = operands[slot(s, l)];
      const ndarray<R>& c = products[static_cast<std::size_t>(l)];
      if (c.size() > 0) {
        // Both operands as handles on the rank's own stream: the product runs there, and reading a
        // piece the wire received waits only for its arrival event above, never for the wire's
        // later panels (a handle on the wire would order the product after all of them).
        const ndarray<R> a_here = on_stream(o.a, compute);
        const ndarray<R> b_here = on_stream(o.b, compute);
        if constexpr (is_floating(dtype_of<R>) || is_complex(dtype_of<R>)) {
          linalg::detail::matmul_into(ndcuda::detail::erase(c), ndcuda::detail::erase(a_here),
                                      ndcuda::detail::erase(b_here), step > 0);
        } else {  // integers: exact products, summed by an elementwise kernel
          const ndarray<R> term(ndcuda::matmul(a_here, b_here));
          c.assign(step == 0 ? term : ndarray<R>(c + term));
        }
      }
      event done(comm.device(l), false);
      done.record(compute);
      wires[static_cast<std::size_t>(l)].wait(done);
      o = {};  // received pieces are released on the wire, after the product that read them
    }
  }
  for (int l = 0; l < locals; ++l) {  // the shards outlive the sends that read them
    ndcuda::detail::order_after(comm.stream(l), wires[static_cast<std::size_t>(l)]);
  }
  return distributed_array<R>(comm, {m, n}, grid_spec, std::move(products));
}

}  // namespace ndcuda::dist::detail

#pragma GCC visibility pop
