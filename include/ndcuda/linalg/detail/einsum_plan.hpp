// Parsing of einsum subscripts without a device: labels per operand axis (ellipses expanded and
// right-aligned), the output labels (explicit after "->" or NumPy's implicit rule), checked with
// NumPy-style messages. Builds on core/shape.hpp; implemented in src/linalg/einsum_plan.cpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/core/shape.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ndcuda::linalg::detail {

/// Labels are small integers: 'A'..'Z' are 0..25, 'a'..'z' 26..51 (so sorting them sorts as
/// NumPy's implicit output does), and the broadcast dimensions of "..." are 52, 53, ...
struct einsum_spec {
  std::vector<std::vector<int>> inputs;  ///< one label per axis of each operand
  std::vector<int> output;
  /// Each label's extent, checked equal across operands (1 broadcasts for "..." labels only).
  std::vector<index_t> extents;
};

inline constexpr int einsum_ellipsis_label = 52;

/// Parses `subscripts` for operands of these shapes. Throws shape_error naming the problem.
[[nodiscard]] einsum_spec parse_einsum(std::string_view subscripts, std::span<const shape_t> shapes);

/// The label's spelling in messages ("i", or "..." for a broadcast dimension).
[[nodiscard]] std::string einsum_label_name(int label);

}  // namespace ndcuda::linalg::detail

#pragma GCC visibility pop
