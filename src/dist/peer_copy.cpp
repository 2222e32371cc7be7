// Peer copies between GPUs for gather and distribute, on the destination's stream.
#include <cuda_runtime_api.h>

#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/dist/movement.hpp>

namespace ndcuda::dist::detail {

void copy_peer(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes, const stream& s) {
  if (bytes == 0) {
    return;
  }
  // The runtime resolves the stream's context, but a guard keeps the caller's current device (and
  // any device 0 fallback of the runtime) out of it.
  const device_guard guard(s.device());
  NDCUDA_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_device, src, src_device, bytes, s.handle()));
}

}  // namespace ndcuda::dist::detail
