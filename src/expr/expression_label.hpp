// Internal: an expression node spelled as the user wrote it ("a*b+c"), the text of the NVTX range
// of its fused kernel. Builds on expr/detail/codegen.hpp's node_code.
#pragma once

#include <ndcuda/expr/detail/codegen.hpp>
#include <span>
#include <string>

namespace ndcuda::detail {

/// Sets `out`'s label and precedence: node `name` (a ufunc's operation::name) of form `how` over
/// `args`, whose result has dtype `result` (named by astype<...>).
void label_operation(node_code& out, const char* name, form how, dtype result, std::span<const node_code> args);

/// `label` cut to at most `limit` characters ("..." at the end): a range name stays readable.
[[nodiscard]] std::string clipped_label(const std::string& label, std::size_t limit = 160);

}  // namespace ndcuda::detail
