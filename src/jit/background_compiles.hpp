// Internal: the threads that compile kernels in the background while tier 0 runs their first
// calls (docs/design.md, "Tiered first calls"). jit::wait_all() waits for them.
#pragma once

#include <functional>

namespace ndcuda::jit::detail {

/// Queues `job` (a compile; it must not throw) for a background thread, started on first use. At
/// exit, queued jobs are dropped and running ones finish before the process's statics go: first
/// thing when the main thread exits, once it has queued a job itself.
void compile_in_background(std::function<void()> job);

}  // namespace ndcuda::jit::detail
