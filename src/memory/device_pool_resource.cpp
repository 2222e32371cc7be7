// device_pool_resource: the public face of detail::block_pool over cudaMalloc and CUDA events.
#include <ndcuda/device/device.hpp>
#include <ndcuda/memory/device_pool_resource.hpp>

#include "memory/block_pool.hpp"
#include "memory/teardown.hpp"

namespace ndcuda {

device_pool_resource::device_pool_resource(int device, pool_options options)
    : memory_resource(memory_kind::device, device) {
  (void)ndcuda::device(device);  // a clear device_error now rather than a CUDA error on first use
  pool_ = std::make_unique<detail::block_pool>(device, options, make_cuda_malloc_upstream(device),
                                               make_cuda_event_ordering());
}

device_pool_resource::device_pool_resource(int device, pool_options options, std::shared_ptr<chunk_upstream> upstream,
                                           std::shared_ptr<stream_ordering> ordering)
    : memory_resource(memory_kind::device, device),
      pool_(std::make_unique<detail::block_pool>(device, options, std::move(upstream), std::move(ordering))) {}

device_pool_resource::~device_pool_resource() {
  if (detail::cuda_is_unloading()) {
    (void)pool_.release();  // exit after CUDA's teardown: the driver reclaims the memory
  }
}

memory_stats device_pool_resource::stats() const {
  return pool_->stats();
}
void device_pool_resource::reset_peak() {
  pool_->reset_peak();
}
void device_pool_resource::set_limit(std::optional<std::size_t> bytes) {
  pool_->set_limit(bytes);
}
std::optional<std::size_t> device_pool_resource::limit() const {
  return pool_->limit();
}
std::size_t device_pool_resource::free_all_blocks() {
  return pool_->free_all_blocks();
}
void* device_pool_resource::do_allocate(std::size_t bytes, const stream& s) {
  return pool_->allocate(bytes, s);
}
void device_pool_resource::do_deallocate(void* p, std::size_t bytes, const stream& s) {
  pool_->deallocate(p, bytes, s);
}

}  // namespace ndcuda
