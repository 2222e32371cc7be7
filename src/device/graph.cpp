// nd::graph: an instantiated capture and what can be done with it (launch, upload, inspect), and
// the release of its CUDA graph and executable. Builds on device/device.hpp and graph_state.hpp;
// graphs are made by capture_scope (capture_scope.cpp).
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/graph.hpp>
#include <string>

#include "device/graph_state.hpp"

namespace ndcuda {

graph::state::~state() {
  try {
    device_guard guard(device);
    // CUDA defers the release of what launches still use; at exit the runtime may be gone.
    if (exec != nullptr && cudaGraphExecDestroy(exec) != cudaSuccess) {
      (void)cudaGetLastError();
    }
    if (graph != nullptr && cudaGraphDestroy(graph) != cudaSuccess) {
      (void)cudaGetLastError();
    }
  } catch (...) {
  }
}

const graph::state& graph::checked(const char* what) const {
  if (!state_) {
    throw error(std::string("graph::") + what +
                " on an empty nd::graph; obtain one from nd::capture(stream, fn) or capture_scope::end()");
  }
  return *state_;
}

void graph::launch(const stream& s) const {
  const state& st = checked("launch");
  if (s.device() != st.device) {
    throw device_error("graph::launch: the graph was captured on device " + std::to_string(st.device) +
                       " but the stream belongs to device " + std::to_string(s.device()) +
                       "; launch it on a stream of its own device");
  }
  device_guard guard(st.device);
  NDCUDA_CUDA_CHECK(cudaGraphLaunch(st.exec, s.handle()));
}

void graph::upload(const stream& s) const {
  const state& st = checked("upload");
  if (s.device() != st.device) {
    throw device_error("graph::upload: the graph belongs to device " + std::to_string(st.device) +
                       ", the stream to device " + std::to_string(s.device()));
  }
  device_guard guard(st.device);
  NDCUDA_CUDA_CHECK(cudaGraphUpload(st.exec, s.handle()));
}

void graph::debug_dot(const std::string& path) const {
  const state& st = checked("debug_dot");
  device_guard guard(st.device);
  NDCUDA_CUDA_CHECK(cudaGraphDebugDotPrint(st.graph, path.c_str(), cudaGraphDebugDotFlagsVerbose));
}

std::size_t graph::node_count() const {
  const state& st = checked("node_count");
  device_guard guard(st.device);
  std::size_t count = 0;
  NDCUDA_CUDA_CHECK(cudaGraphGetNodes(st.graph, nullptr, &count));
  return count;
}

int graph::device() const {
  return checked("device").device;
}

cudaGraph_t graph::handle() const noexcept {
  return state_ ? state_->graph : nullptr;
}

cudaGraphExec_t graph::exec_handle() const noexcept {
  return state_ ? state_->exec : nullptr;
}

}  // namespace ndcuda
