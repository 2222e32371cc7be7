// Reduction planning: pure host logic, unit-tested without a GPU.
#include "jit/reduction_plan.hpp"

#include <algorithm>
#include <cstdlib>
#include <ndcuda/core/error.hpp>
#include <numeric>

namespace ndcuda::jit::detail {
namespace {

struct collapsed {
  shape_t shape;
  std::vector<strides_t> strides;
};

// Drops extent-1 dimensions and merges each dimension into the one before it where every array
// steps across both as across one. At least one dimension remains (extent 1, strides 0).
collapsed collapse(std::span<const index_t> shape, const std::vector<int>& dims,
                   const std::vector<const index_t*>& arrays) {
  collapsed g;
  g.strides.resize(arrays.size());
  for (int d : dims) {
    const auto du = static_cast<std::size_t>(d);
    if (shape[du] == 1) {
      continue;
    }
    if (!g.shape.empty()) {
      bool merge = true;
      for (std::size_t a = 0; a < arrays.size(); ++a) {
        merge = merge && g.strides[a].back() == arrays[a][du] * shape[du];
      }
      if (merge) {
        g.shape.back() *= shape[du];
        for (std::size_t a = 0; a < arrays.size(); ++a) {
          g.strides[a].back() = arrays[a][du];
        }
        continue;
      }
    }
    g.shape.push_back(shape[du]);
    for (std::size_t a = 0; a < arrays.size(); ++a) {
      g.strides[a].push_back(arrays[a][du]);
    }
  }
  if (g.shape.empty()) {
    g.shape.push_back(1);
    for (auto& s : g.strides) {
      s.push_back(0);
    }
  }
  return g;
}

index_t reach(const shape_t& shape, const strides_t& strides) {
  index_t r = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    r += (shape[d] > 0 ? shape[d] - 1 : 0) * std::abs(strides[d]);
  }
  return r;
}

}  // namespace

std::string reduction_plan::variant_name() const {
  std::string s = strategy == reduce_strategy::rows ? "r" : "c";
  s += std::to_string(out_ndim()) + "x" + std::to_string(red_ndim());
  if (strategy == reduce_strategy::rows) {
    s += "_b" + std::to_string(group) + "_v" + std::to_string(vector) + (tail ? "t" : "");
  }
  s += index64 ? "_i64" : "_i32";
  return s;
}

reduction_plan plan_reduction(std::span<const index_t> shape, const std::vector<bool>& reduced,
                              std::span<const index_t> out_strides, std::span<const strides_t> in_strides,
                              std::span<const std::uintptr_t> addresses, std::span<const std::size_t> itemsizes,
                              bool keep_order) {
  const int ndim = static_cast<int>(shape.size());
  const std::size_t inputs = in_strides.size();
  std::vector<int> kept_dims;
  std::vector<int> red_dims;
  for (int d = 0; d < ndim; ++d) {
    (reduced[static_cast<std::size_t>(d)] ? red_dims : kept_dims).push_back(d);
  }
  // Dimensions ordered by how far the inputs step along them, outermost first, so that the
  // innermost of each group is where the reads are densest; ties keep the logical order.
  const auto cost = [&](int d) {
    index_t c = 0;
    for (const strides_t& s : in_strides) {
      c += std::abs(s[static_cast<std::size_t>(d)]);
    }
    return c;
  };
  const auto by_cost = [&](int a, int b) { return cost(a) > cost(b); };
  std::stable_sort(kept_dims.begin(), kept_dims.end(), by_cost);
  if (!keep_order) {
    std::stable_sort(red_dims.begin(), red_dims.end(), by_cost);
  }

  std::vector<const index_t*> kept_arrays{out_strides.data()};
  std::vector<const index_t*> red_arrays;
  for (const strides_t& s : in_strides) {
    kept_arrays.push_back(s.data());
    red_arrays.push_back(s.data());
  }
  collapsed kept = collapse(shape, kept_dims, kept_arrays);
  collapsed red = collapse(shape, red_dims, red_arrays);

  reduction_plan plan;
  plan.out_shape = std::move(kept.shape);
  plan.out_strides = std::move(kept.strides);
  plan.red_shape = std::move(red.shape);
  plan.red_strides = std::move(red.strides);
  plan.outputs = shape_size(plan.out_shape);
  plan.reduced = shape_size(plan.red_shape);

  // 64-bit indexing when any count or offset could pass the 32-bit limit.
  bool wide = plan.outputs >= reduce_index32_limit || plan.reduced >= reduce_index32_limit ||
              plan.outputs * std::max<index_t>(plan.reduced, 1) >= reduce_index32_limit ||
              reach(plan.out_shape, plan.out_strides[0]) >= reduce_index32_limit;
  for (std::size_t i = 0; i < inputs; ++i) {
    wide = wide || reach(plan.out_shape, plan.out_strides[i + 1]) + reach(plan.red_shape, plan.red_strides[i]) >=
                       reduce_index32_limit;
  }
  plan.index64 = wide;

  // Columns when the densest kept dimension is denser than the densest reduced one and wide
  // enough to fill warps: consecutive threads then read consecutive elements.
  index_t kept_inner = 0;
  index_t red_inner = 0;
  for (std::size_t i = 0; i < inputs; ++i) {
    kept_inner += std::abs(plan.out_strides[i + 1].back());
    red_inner += std::abs(plan.red_strides[i].back());
  }
  // Also for rows of a few elements (the pi estimate's sum over an axis of 2): a warp per output
  // would idle most of its lanes, while a thread per output reads its few elements itself and
  // neighbouring threads still read neighbouring memory.
  const bool short_rows = plan.outputs >= reduce_min_columns && plan.reduced <= reduce_short_row_limit;
  if (plan.outputs > 1 && plan.reduced > 0 &&
      (short_rows || (kept_inner < red_inner && plan.out_shape.back() >= reduce_min_columns))) {
    plan.strategy = reduce_strategy::columns;
    plan.group = reduce_block;
    return plan;
  }
  plan.strategy = reduce_strategy::rows;
  plan.group = plan.outputs > 1 && plan.reduced <= reduce_warp_row_limit ? 32 : reduce_block;

  // Aligned vector loads along rows that are dense in every input and start aligned in each.
  bool dense = plan.red_ndim() == 1 && plan.reduced >= 64 && inputs > 0;
  std::size_t widest = 1;
  for (std::size_t i = 0; i < inputs && dense; ++i) {
    dense = plan.red_strides[i][0] == 1;
    widest = std::max(widest, itemsizes[i]);
  }
  if (dense) {
    for (auto vec = static_cast<int>(16 / widest); vec > 1; vec /= 2) {
      bool ok = true;
      for (std::size_t i = 0; i < inputs && ok; ++i) {
        ok = addresses[i] % (static_cast<std::size_t>(vec) * itemsizes[i]) == 0;
        for (std::size_t d = 0; d < plan.out_shape.size() && ok; ++d) {
          ok = plan.out_shape[d] == 1 || plan.out_strides[i + 1][d] % vec == 0;
        }
      }
      if (ok) {
        plan.vector = vec;
        break;
      }
    }
  }
  // Every split's chunk is a multiple of the vector (reduction.cpp), so only the length decides.
  plan.tail = plan.vector > 1 && plan.reduced % plan.vector != 0;
  return plan;
}

}  // namespace ndcuda::jit::detail
