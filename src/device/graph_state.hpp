// Internal: what an nd::graph shares between its copies (the captured graph, its executable and
// their device). graph.cpp launches and destroys it; capture_scope.cpp makes it. Builds on
// device/graph.hpp.
#pragma once

#include <cuda_runtime_api.h>

#include <ndcuda/device/graph.hpp>

namespace ndcuda {

struct graph::state {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  int device = 0;

  state() = default;
  state(const state&) = delete;
  state& operator=(const state&) = delete;
  ~state();
};

}  // namespace ndcuda
