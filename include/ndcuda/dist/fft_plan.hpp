/// @file
/// The host planning of dist::fft's transforms (dist/fft.hpp): which layouts the transform runs on
/// and which axes each transforms, chosen for the fewest all-to-alls. No device, no NCCL: builds on
/// dist/sharding.hpp's spec type only, so the plans are tested on the CPU.
///
/// A transform over `axes` runs in at most two phases. Phase 1 resharding x to layout `first` (no
/// move when first is x's spec), each rank transforming `first_axes`, which that layout holds whole
/// on every rank; phase 2 (when `second_axes` is not empty) resharding to `second` and
/// transforming the rest there. The result then goes to `out`. A real-to-complex transform runs
/// over the last of `axes` in phase 1, a complex-to-real one in the last phase. Among the valid
/// plans the cheapest wins: each reshard between two cut layouts counts one all-to-all, one to the
/// replicated layout `ranks` of them (an all-gather moves that much more), one from it nothing (each
/// rank keeps its block); ties go to plans that transform less on replicated layouts (where every
/// rank transforms everything), then to layouts that cut an axis at least `ranks` long (every rank
/// gets work), then to one phase, then to x's own layout and the lower axes.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <algorithm>
#include <ndcuda/dist/sharding.hpp>
#include <tuple>
#include <vector>

namespace ndcuda::dist::fft::detail {

/// What a dist::fft transform computes: the direction, and whether it is real-to-complex (forward)
/// or complex-to-real (inverse) over the last of its axes.
struct transform_kind {
  bool inverse = false;  ///< ifftn, irfftn
  bool real = false;     ///< rfftn, irfftn
};

/// The stages of a transform: see the file comment.
struct phase_plan {
  sharding first;                ///< the layout of phase 1
  std::vector<int> first_axes;   ///< the axes phase 1 transforms, in the caller's order
  sharding second;               ///< the layout of phase 2 (first when there is none)
  std::vector<int> second_axes;  ///< the axes phase 2 transforms; empty: one phase
  int cost = 0;                  ///< all-to-alls, an all-gather counting `ranks` of them
};

/// Whether every rank of `layout` (normalised) holds axis `axis` whole: it is not cut, or cut into
/// one block (one rank, or a grid dimension of extent 1).
[[nodiscard]] inline bool holds_whole(const sharding& layout, int axis, int ranks) {
  for (std::size_t g = 0; g < layout.axes.size(); ++g) {
    if (layout.axes[g] == axis && (layout.grid.empty() ? ranks : layout.grid[g]) > 1) {
      return false;
    }
  }
  return true;
}

/// The price of resharding `from` to `to` (both normalised), in all-to-alls: see the file comment.
[[nodiscard]] inline int reshard_cost(const sharding& from, const sharding& to, int ranks) {
  if (from == to || from.is_replicated()) {
    return 0;
  }
  return to.is_replicated() ? ranks : 1;
}

/// How evenly `layout` spreads an array of `shape` over `ranks` ranks: the ranks that get elements
/// of its (first) cut axis, at most `ranks`.
[[nodiscard]] inline index_t layout_spread(const shape_t& shape, const sharding& layout, int ranks) {
  if (layout.is_replicated() || layout.is_grid()) {
    return ranks;
  }
  return std::min<index_t>(shape[static_cast<std::size_t>(layout.axis())], ranks);
}

/// The cheapest plan for a transform of kind `kind` over `axes` (normalised, distinct; for real
/// transforms not empty) of an array of `shape` sharded as `x` over `ranks` ranks, delivering the
/// result sharded as `out` (both normalised). A plan always exists: the replicated layout holds
/// every axis.
[[nodiscard]] inline phase_plan plan_phases(const shape_t& shape, const sharding& x, const std::vector<int>& axes,
                                            transform_kind kind, const sharding& out, int ranks) {
  std::vector<sharding> layouts;  // x's own, each axis cut, replicated: each once
  const auto add = [&](const sharding& l) {
    if (std::find(layouts.begin(), layouts.end(), l) == layouts.end()) {
      layouts.push_back(l);
    }
  };
  add(x);
  for (int a = 0; a < static_cast<int>(shape.size()); ++a) {
    add(sharding::block(a));
  }
  add(sharding::replicated());
  // The order of preference: cost; phases computed on a replicated layout (every rank transforms
  // everything); the spread of the layouts moved to (negated); phases. Smaller is better.
  using rank_t = std::tuple<int, int, index_t, int>;
  const auto score = [&](const phase_plan& p, int phases) {
    const std::vector<sharding> stages =
        phases == 2 ? std::vector<sharding>{p.first, p.second} : std::vector<sharding>{p.first};
    int replicated = 0;
    index_t spread = ranks;
    for (const sharding& l : stages) {
      replicated += l.is_replicated() ? 1 : 0;
      spread = l == x ? spread : std::min(spread, layout_spread(shape, l, ranks));
    }
    return rank_t{p.cost, replicated, -spread, phases};
  };
  phase_plan best;
  rank_t best_score{};
  bool found = false;
  const auto consider = [&](phase_plan p, int phases) {
    const rank_t s = score(p, phases);
    if (!found || s < best_score) {
      best = std::move(p);
      best_score = s;
      found = true;
    }
  };
  const int last = axes.empty() ? -1 : axes.back();
  for (const sharding& a : layouts) {
    // One phase: every axis whole on `a`.
    if (std::all_of(axes.begin(), axes.end(), [&](int ax) { return holds_whole(a, ax, ranks); })) {
      consider({a, axes, a, {}, reshard_cost(x, a, ranks) + reshard_cost(a, out, ranks)}, 1);
      continue;
    }
    // Two phases: what `a` cannot transform, `b` does; an axis both hold goes to phase 1 of a
    // forward transform and phase 2 of an inverse one (the fewer axes before the all-to-all of a
    // forward transform, the fewer after it of the inverse: they mirror each other).
    for (const sharding& b : layouts) {
      if (b == a) {
        continue;
      }
      phase_plan p{a, {}, b, {}, reshard_cost(x, a, ranks) + reshard_cost(a, b, ranks) + reshard_cost(b, out, ranks)};
      bool valid = true;
      for (int ax : axes) {
        const bool on_a = holds_whole(a, ax, ranks);
        const bool on_b = holds_whole(b, ax, ranks);
        valid = valid && (on_a || on_b);
        if (on_a && (!on_b || !kind.inverse)) {
          p.first_axes.push_back(ax);
        } else if (on_b) {
          p.second_axes.push_back(ax);
        }
      }
      // The real-to-complex axis first, the complex-to-real one last.
      const auto& real_phase = kind.inverse ? p.second_axes : p.first_axes;
      valid = valid && !p.first_axes.empty() && !p.second_axes.empty() &&
              (!kind.real || std::find(real_phase.begin(), real_phase.end(), last) != real_phase.end());
      if (valid) {
        consider(std::move(p), 2);
      }
    }
  }
  return best;
}

}  // namespace ndcuda::dist::fft::detail

#pragma GCC visibility pop
