// Internal: the record of one open capture and the calls capture_scope makes on the registry of
// them: open and close a record, have a graph hold what its capture collected, wake the release
// thread. Implemented in capture_retention.cpp; builds on the CUDA runtime and device/graph.hpp's
// forward declaration of capture_record.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <mutex>
#include <unordered_set>
#include <vector>

namespace ndcuda::detail {

/// What one open capture collects: the owners its graph must hold, and the buffers allocated
/// inside it (graph memory, which the graph owns by itself).
struct capture_record {
  unsigned long long id = 0;
  int device = 0;
  std::mutex mutex;
  std::vector<std::shared_ptr<const void>> owners;
  std::unordered_set<const void*> held;
  std::unordered_set<const void*> graph_memory;
};

/// Makes `record` findable by its capture id and counts it as open.
void open_capture_record(capture_record& record);
/// Unregisters `record` and hands back what it collected.
std::vector<std::shared_ptr<const void>> close_capture_record(capture_record& record);
/// Has `graph` (and every executable made from it) hold `owners` until CUDA releases it.
void hold_for_graph(cudaGraph_t graph, std::vector<std::shared_ptr<const void>> owners);
/// Wakes the release thread: buffers dropped during a capture that just ended may go now.
void nudge_releases();

}  // namespace ndcuda::detail
