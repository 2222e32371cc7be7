// Collapsing and variant choice for elementwise launches: what makes a 4-d contiguous add run as
// a 1-d vectorised loop, an outer broadcast as a 2-d grid (vectorised along its rows where they
// are aligned), and a transpose as a 2-d tiled one.
#include "jit/elementwise_plan.hpp"

#include <algorithm>
#include <cstdlib>
#include <ndcuda/core/error.hpp>

namespace ndcuda::jit::detail {
namespace {

int log2_of(int v) {
  int r = 0;
  while (v > 1) {
    v /= 2;
    ++r;
  }
  return r;
}

// The output's inner stride is its smallest (dimensions follow its memory order). An input whose
// inner stride is larger than its outer one is transposed relative to it: read directly, a warp's
// loads would scatter across rows, so it is staged through a tile read along its dense axis.
// Inputs dense along the row (inner stride 1) or broadcast along it (0) are read directly.
void choose_tiles(elementwise_plan& plan, std::span<const std::size_t> itemsizes) {
  if (plan.shape.size() != 2 || plan.shape[0] < tile_min_extent || plan.shape[1] < tile_min_extent) {
    return;
  }
  for (std::size_t i = 1; i < plan.strides.size(); ++i) {
    const index_t outer = std::abs(plan.strides[i][0]);
    const index_t inner = std::abs(plan.strides[i][1]);
    const std::size_t bytes = tile_bytes(itemsizes[i]);
    // Past the shared-memory budget the remaining inputs are read directly: slower, still right.
    if (inner > 1 && outer < inner && plan.shared_bytes + bytes <= tile_max_bytes) {
      plan.staged |= std::uint32_t{1} << (i - 1);
      plan.shared_bytes += bytes;
    }
  }
}

// An outer broadcast and its kin: the output dense along its rows and every input dense (1) or
// broadcast (0) along them. Each thread then takes `vector` neighbouring columns at once, as wide
// as 16 bytes of the widest dense operand allow, halved until every dense operand's row starts
// (base address and row stride) are aligned to its whole vector; 1 (the scalar 2-d grid) when
// no width above 1 is.
void choose_row_vectors(elementwise_plan& plan, std::span<const std::uintptr_t> addresses,
                        std::span<const std::size_t> itemsizes) {
  if (plan.shape.size() != 2 || plan.tiled() || plan.shape[1] < narrow_columns || plan.strides[0][1] != 1) {
    return;
  }
  std::size_t widest = 1;
  for (std::size_t i = 0; i < plan.strides.size(); ++i) {
    const index_t inner = plan.strides[i][1];
    if (i > 0 && inner == 0) {
      continue;
    }
    if (inner != 1) {
      return;
    }
    widest = std::max(widest, itemsizes[i]);
  }
  if (widest >= 16) {
    return;
  }
  const auto aligned = [&](int v) {
    for (std::size_t i = 0; i < plan.strides.size(); ++i) {
      if (plan.strides[i][1] == 0) {
        continue;
      }
      const auto bytes = static_cast<index_t>(static_cast<std::size_t>(v) * itemsizes[i]);
      const auto row_bytes = std::abs(plan.strides[i][0]) * static_cast<index_t>(itemsizes[i]);
      if (addresses[i] % static_cast<std::uintptr_t>(bytes) != 0 || row_bytes % bytes != 0) {
        return false;
      }
    }
    return true;
  };
  int vector = static_cast<int>(16 / widest);
  while (vector > 1 && !aligned(vector)) {
    vector /= 2;
  }
  plan.vector = vector;
}

}  // namespace

int elementwise_plan::variant() const {
  if (row_vectors()) {
    return 12 + 2 * elementwise_max_ndim + (log2_of(vector) - 1) * 2 + (index64 ? 1 : 0);
  }
  if (contiguous) {
    if (tail && vector > 1) {
      return 20 + 2 * elementwise_max_ndim + (log2_of(vector) - 1) * 2 + (index64 ? 1 : 0);
    }
    return log2_of(vector) * 2 + (index64 ? 1 : 0);
  }
  if (tiled()) {
    return 10 + 2 * elementwise_max_ndim + (index64 ? 1 : 0);
  }
  return 10 + (ndim() - 1) * 2 + (index64 ? 1 : 0);
}

elementwise_plan plan_contiguous(index_t n, std::span<const std::uintptr_t> addresses,
                                 std::span<const std::size_t> itemsizes) {
  elementwise_plan plan;
  plan.size = n;
  plan.index64 = n > index32_limit;
  std::size_t widest = 1;
  for (std::size_t s : itemsizes) {
    widest = std::max(widest, s);
  }
  int vector = widest >= 16 ? 1 : static_cast<int>(16 / widest);
  // Every operand must be aligned to its whole vector (vector * itemsize bytes); halve until so.
  const auto aligned = [&](int v) {
    for (std::size_t i = 0; i < addresses.size(); ++i) {
      if (addresses[i] % (static_cast<std::size_t>(v) * itemsizes[i]) != 0) {
        return false;
      }
    }
    return true;
  };
  while (vector > 1 && !aligned(vector)) {
    vector /= 2;
  }
  plan.vector = vector;
  plan.tail = vector > 1 && n % vector != 0;
  return plan;
}

elementwise_plan plan_strided(std::span<const index_t> shape, std::span<const strides_t> strides,
                              std::span<const std::uintptr_t> addresses, std::span<const std::size_t> itemsizes) {
  const std::size_t operands = strides.size();
  index_t size = 1;
  std::vector<std::size_t> dims;  // the dimensions that matter: extent-1 ones iterate nothing
  for (std::size_t d = 0; d < shape.size(); ++d) {
    size *= shape[d];
    if (shape[d] != 1) {
      dims.push_back(d);
    }
  }
  if (size == 0) {
    elementwise_plan empty;
    empty.size = 0;
    return empty;
  }
  // Iterate in the output's memory order (largest stride outermost), so writes coalesce even for
  // a transposed output; stable, so equal strides keep NumPy's order.
  std::stable_sort(dims.begin(), dims.end(),
                   [&](std::size_t a, std::size_t b) { return std::abs(strides[0][a]) > std::abs(strides[0][b]); });

  // Merge dimension pairs (outer, inner) that every operand walks as one: stride[outer] ==
  // stride[inner] * extent[inner] (broadcast operands qualify with both strides 0).
  shape_t merged_shape;
  std::vector<strides_t> merged(operands);
  for (std::size_t d : dims) {
    bool merge = !merged_shape.empty();
    for (std::size_t a = 0; merge && a < operands; ++a) {
      merge = merged[a].back() == strides[a][d] * shape[d];
    }
    if (merge) {
      merged_shape.back() *= shape[d];
      for (std::size_t a = 0; a < operands; ++a) {
        merged[a].back() = strides[a][d];
      }
    } else {
      merged_shape.push_back(shape[d]);
      for (std::size_t a = 0; a < operands; ++a) {
        merged[a].push_back(strides[a][d]);
      }
    }
  }
  if (merged_shape.empty()) {  // a single element
    merged_shape.push_back(1);
    for (auto& s : merged) {
      s.push_back(0);
    }
  }

  const bool dense = merged_shape.size() == 1 &&
                     std::all_of(merged.begin(), merged.end(), [](const strides_t& s) { return s[0] == 1; });
  if (dense) {
    return plan_contiguous(size, addresses, itemsizes);
  }

  if (merged_shape.size() > static_cast<std::size_t>(elementwise_max_ndim)) {
    throw shape_error("an elementwise kernel can iterate over at most " + std::to_string(elementwise_max_ndim) +
                      " dimensions that do not collapse into each other, this launch needs " +
                      std::to_string(merged_shape.size()) + "; make the operands contiguous first (copy())");
  }
  elementwise_plan plan;
  plan.contiguous = false;
  plan.size = size;
  bool small = size <= index32_limit;
  for (const strides_t& s : merged) {
    index_t reach = 0;  // the largest offset magnitude this operand reaches
    for (std::size_t d = 0; d < s.size(); ++d) {
      reach += std::abs(s[d]) * (merged_shape[d] - 1);
    }
    small = small && reach <= index32_limit;
  }
  plan.index64 = !small;
  plan.shape = std::move(merged_shape);
  plan.strides = std::move(merged);
  choose_tiles(plan, itemsizes);
  choose_row_vectors(plan, addresses, itemsizes);
  return plan;
}

}  // namespace ndcuda::jit::detail
