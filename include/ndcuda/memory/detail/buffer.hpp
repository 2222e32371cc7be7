// The owning device buffer every array, workspace and temporary is made of: memory from the
// device's default resource (graph memory while capturing). Builds on memory/default_resource.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <memory>
#include <ndcuda/device/stream.hpp>

namespace ndcuda::detail {

/// Allocates `bytes` from default_resource(s.device()) on `s` (from capture_resource(s.device())
/// while `s` is capturing a graph: graph memory). The returned owner gives the memory
/// back to that same resource, on `s`, when the last array (or owner copy) using it goes: stream
/// ordering makes this safe for work queued on `s`; work on other streams must be ordered before
/// the last reference is dropped (as in CuPy).
[[nodiscard]] std::shared_ptr<const void> allocate_buffer(std::size_t bytes, const stream& s, void** data);

}  // namespace ndcuda::detail

#pragma GCC visibility pop
