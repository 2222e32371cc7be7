// Internal: where the JIT layer's warnings go (stderr, or the handler set with
// jit::set_warning_handler) and the once-per-process variant.
#pragma once

#include <string>
#include <string_view>

namespace ndcuda::jit::detail {

/// Sends one warning to the current handler (default: "ndcuda: warning: ..." on stderr).
void warn(const std::string& message);

/// Like warn, but only the first call of each `category` in this process is reported.
void warn_once(std::string_view category, const std::string& message);

}  // namespace ndcuda::jit::detail
